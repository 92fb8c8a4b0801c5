package session

// PlayAction is what a real player must do for one received event.
type PlayAction int

// Player actions, in the order a response usually needs them.
const (
	PlayNone  PlayAction = iota
	PlayPush             // queue Received.PCM() for Received.ID
	PlayDone             // no more audio for the ID: let it start and drain
	PlayClear            // barge-in: drop the ID's queued audio
)

// PlaybackFeed decides, event by event, what a browser player is told, so
// the page and the session worker feed their players by one rule: audio of
// a response plays unless the response was cleared or cancelled; done and
// clear apply only to responses seen before (created, audio or text).
type PlaybackFeed struct {
	known     map[string]bool // responses seen
	truncated map[string]bool // cleared, or done with status cancelled
	pushed    map[string]bool // audio pushed
}

// Action returns what the player must do for r. First is true for the
// first audio pushed for r.ID.
func (f *PlaybackFeed) Action(r *Received) (act PlayAction, first bool) {
	if f.known == nil {
		f.known, f.truncated, f.pushed = map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	if r.ID == "" {
		return PlayNone, false
	}
	switch {
	case r.Type == "response.created" || IsTextDelta(r.Type):
		f.known[r.ID] = true
	case IsAudioDelta(r.Type):
		f.known[r.ID] = true
		if len(r.PCM()) == 0 || f.truncated[r.ID] {
			return PlayNone, false
		}
		first = !f.pushed[r.ID]
		f.pushed[r.ID] = true
		return PlayPush, first
	case r.Type == "response.output_audio.done" || r.Type == "response.audio.done":
		if f.known[r.ID] {
			return PlayDone, false
		}
	case r.Type == "response.done":
		if f.known[r.ID] {
			if r.Status == "cancelled" {
				f.truncated[r.ID] = true
			}
			return PlayDone, false
		}
	case r.Type == "output_audio_buffer.cleared":
		if f.known[r.ID] {
			f.truncated[r.ID] = true
			return PlayClear, false
		}
	}
	return PlayNone, false
}

// Known reports whether id was seen by the feed.
func (f *PlaybackFeed) Known(id string) bool { return f.known[id] }

// PlaybackAcks turns a real player's reports into playback.ack values by
// OmniInteract's step rule: 0 at a response's first played sample, then
// whenever ≥ AckStepMs more has played, and at drain and clear; never
// backwards, never the same value twice for progress.
type PlaybackAcks struct {
	m map[string]*ackState
}

type ackState struct {
	started bool
	acked   bool
	last    int
}

// Report takes one player report (kind "start", "progress", "drained",
// "cleared"; played in samples at rate Hz) and returns the played_ms to
// ack, ok false for none.
func (a *PlaybackAcks) Report(kind, id string, played, rate int) (ms int, ok bool) {
	if a.m == nil {
		a.m = map[string]*ackState{}
	}
	st := a.m[id]
	if st == nil {
		st = &ackState{}
		a.m[id] = st
	}
	ack := -1
	switch kind {
	case "start":
		if !st.started {
			st.started = true
			ack = 0
		}
	case "progress", "drained", "cleared":
		if rate <= 0 {
			return 0, false
		}
		ms := played * 1000 / rate
		if kind != "progress" || ms-st.last >= AckStepMs {
			ack = ms
		}
	}
	if ack < 0 || ack < st.last || (st.acked && ack == st.last && kind == "progress") {
		return 0, false
	}
	st.last, st.acked = ack, true
	return ack, true
}
