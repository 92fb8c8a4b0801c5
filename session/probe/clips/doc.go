// Package clips is the audio of probes (package probe): the standard clip
// of each kind, cut from the bundled dataset so no new WAV is shipped, and
// probe files (the CLI's --probe) whose clips are WAV files, builtin
// samples, noise or standard clips. It is apart from probe so that the page,
// which fetches its clips from the server (/api/probes), does not link the
// bundled dataset.
package clips
