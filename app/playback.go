package app

import (
	"sync"

	"github.com/duplexscope/duplexscope/session"
)

// playState is a response's playback on the page's player (the playback
// worklet's reports); its wire state is the tracker's.
type playState struct {
	StartMs float64 // playback clock mapped to performance.now(), 0 = not played
	Played  int     // samples played
	Under   int     // underruns
	Drained bool
}

type timedPCM struct {
	TMs float64
	PCM []byte
}

// player is where the model's audio goes: the playback worklet
// (audioGraph).
type player interface {
	play(id string, pcm []byte)
	clear(id string)
	done(id string)
}

// playback is the page's side of the model's audio: what was received per
// response (replay, the report), what the player reported back (the heard
// instants, samples played, underruns) and, with the session on this
// thread, the playback acks to send. mu guards it; it never takes
// liveRun.mu, which may be held around its calls.
type playback struct {
	mu       sync.Mutex
	play     map[string]*playState // by response id
	audio    map[string][]timedPCM // model audio by response, as received at 24 kHz
	acks     session.PlaybackAcks
	outLevel float64
	ackQueue *session.AckQueue
}

func newPlayback() *playback {
	return &playback{play: map[string]*playState{}, audio: map[string][]timedPCM{}, ackQueue: session.NewAckQueue(256)}
}

// route applies the session's playback action for response id: audio
// received at tMs is kept (replay, the report) and, when to is not nil
// (the session runs on this thread), queued to the player.
func (p *playback) route(to player, a session.PlayAction, id string, tMs float64, pcm []byte) {
	if a == session.PlayPush {
		p.mu.Lock()
		p.audio[id] = append(p.audio[id], timedPCM{TMs: tMs, PCM: pcm})
		p.mu.Unlock()
	}
	if to == nil {
		return
	}
	switch a {
	case session.PlayPush:
		to.play(id, pcm)
	case session.PlayClear:
		to.clear(id)
	case session.PlayDone:
		to.done(id)
	}
}

// playerReport is what a player message means beyond playback's own state.
type playerReport struct {
	started  bool // the response's first start: its heard instant
	cleared  bool
	drained  bool
	playedMs int            // at "cleared": audio played before the cut
	ack      int            // played_ms to ack
	doAck    bool           // an ack is due
	note     map[string]any // a wire-log annotation
}

// report takes one playback worklet message. known: the response is on
// the wire; acking: this page sends the acks (the session runs on this
// thread; the session worker acks its own).
func (p *playback) report(m playbackMsg, known, acking bool) playerReport {
	var out playerReport
	p.mu.Lock()
	var rs *playState
	if known {
		rs = p.play[m.ID]
		if rs == nil {
			rs = &playState{}
			p.play[m.ID] = rs
		}
		if acking {
			out.ack, out.doAck = p.acks.Report(m.Type, m.ID, m.Played, 24000)
		}
	}
	var event string // of the wire-log annotation, with its own fields
	var fields map[string]any
	switch m.Type {
	case "level":
		p.outLevel = m.RMS
	case "start":
		if rs != nil && rs.StartMs == 0 {
			rs.StartMs, out.started = m.PerfMs, true
			event, fields = "start", map[string]any{"played_at_ms": m.PerfMs, "clock": "playback"}
		}
	case "progress", "drained", "cleared":
		if rs != nil {
			rs.Played = m.Played
			out.playedMs = m.Played * 1000 / 24000
			if m.Type == "cleared" {
				out.cleared = true
				event, fields = "cleared", map[string]any{"played_ms": out.playedMs, "dropped_ms": m.Dropped * 1000 / 24000}
			}
			if m.Type == "drained" {
				rs.Drained, out.drained = true, true
			}
		}
	case "underrun":
		if rs != nil {
			rs.Under++
		}
		event, fields = "underrun", map[string]any{"count": m.Count}
	}
	p.mu.Unlock()
	if event != "" {
		fields["type"], fields["event"], fields["response_id"] = "duplexscope.playback", event, m.ID
		out.note = fields
	}
	return out
}

// heard is response id's heard instant (performance.now() ms, 0: not
// played yet), its underruns, and whether its playback drained.
func (p *playback) heard(id string) (startMs float64, under int, drained bool) {
	p.mu.Lock()
	if s := p.play[id]; s != nil {
		startMs, under, drained = s.StartMs, s.Under, s.Drained
	}
	p.mu.Unlock()
	return startMs, under, drained
}

// started counts responses whose playback started (heard chart input);
// level is the output's last RMS.
func (p *playback) started() (n int, level float64) {
	p.mu.Lock()
	for _, s := range p.play {
		if s.StartMs > 0 {
			n++
		}
	}
	level = p.outLevel
	p.mu.Unlock()
	return n, level
}

// output is the model audio received, the responses in order.
func (p *playback) output(order []string) []byte {
	var out []byte
	p.mu.Lock()
	for _, id := range order {
		for _, c := range p.audio[id] {
			out = append(out, c.PCM...)
		}
	}
	p.mu.Unlock()
	return out
}

// snippetS is how much audio a timeline click plays.
const snippetS = 3

// snippet is up to snippetS of the model audio received around atMs (the
// receive clock): from the first response, in order, whose audio covers it.
func (p *playback) snippet(order []string, atMs float64) []byte {
	var pcm []byte
	p.mu.Lock()
	for _, id := range order {
		chunks := p.audio[id]
		if len(chunks) == 0 || chunks[0].TMs > atMs+500 {
			continue
		}
		for i, c := range chunks {
			if c.TMs >= atMs-250 || i == len(chunks)-1 {
				for _, cc := range chunks[i:] {
					pcm = append(pcm, cc.PCM...)
					if len(pcm) > snippetS*24000*2 {
						break
					}
				}
				break
			}
		}
		if pcm != nil && chunks[len(chunks)-1].TMs >= atMs-250 {
			break
		}
		pcm = nil
	}
	p.mu.Unlock()
	return pcm
}
