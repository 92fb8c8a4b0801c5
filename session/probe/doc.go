// Package probe is duplexscope's barge-in probes in one place: clips
// injected into the input stream to see whether a duplex model stops when
// interrupted and keeps talking through a backchannel, side talk or noise.
// It holds the kinds, the page's schedule (probe_s), mixing probes into the
// input (Inject), and what a wire log says each probe caused (Analyze: stop
// latency, resume, next response). Their audio (standard clips, the CLI's
// --probe files) is package probe/clips.
package probe
