package session

import "time"

// AckStepMs is OmniInteract's playback.ack step (_ACK_STEP_MS): after the
// first ack of a response, ack again once ≥ 200 ms more has been played.
const AckStepMs = 200

// player is the simulated serial playback clock of headless mode
// (OmniInteract, docs/protocol.md#playback-ack): responses play one after another in the
// order their audio started arriving, each at the output rate as its audio
// is available; when the playing response runs dry the player waits for it
// (an underrun) and does not skip ahead.
type player struct {
	rate  int           // output sample rate (last positive sample_rate_hz seen, default 24 000)
	last  time.Duration // clock instant the player state is valid for
	queue []*track
	byID  map[string]*track
	// note, when set, gets playback_start / playback_end at their instants.
	note func(at time.Duration, kind string, t *track)
}

type track struct {
	id       string
	samples  int     // received samples (bytes/2)
	played   float64 // samples played so far
	done     bool    // no more audio will come (audio done / response.done / cleared)
	finished bool    // done and fully played (or cleared)
	cleared  bool    // stopped by output_audio_buffer.cleared
	acked    int     // last played_ms acked, −1 before the first ack
	underrun time.Duration
}

func newPlayer() *player { return &player{rate: 24000, byID: map[string]*track{}} }

// advance plays from p.last to now, reporting each track's first played
// sample and its end (fully played, or cleared) to p.note at the exact
// instant on the playback clock.
func (p *player) advance(now time.Duration) {
	if now <= p.last {
		return
	}
	cur := p.last
	budget := float64(now-p.last) * float64(p.rate) / float64(time.Second)
	p.last = now
	for _, t := range p.queue {
		if t.finished {
			continue
		}
		avail := float64(t.samples) - t.played
		take := min(avail, budget)
		if take > 0 && t.played == 0 {
			p.emit(cur, "duplexscope.playback_start", t)
		}
		t.played += take
		budget -= take
		cur += time.Duration(take / float64(p.rate) * float64(time.Second))
		if t.played >= float64(t.samples) && t.done {
			t.finished = true
			p.emit(cur, "duplexscope.playback_end", t)
			continue
		}
		if budget > 0 { // ran dry while more audio is due
			t.underrun += time.Duration(budget / float64(p.rate) * float64(time.Second))
		}
		return
	}
}

// emit reports a playback event (nil note: nothing).
func (p *player) emit(at time.Duration, kind string, t *track) {
	if p.note != nil {
		p.note(at, kind, t)
	}
}

// add queues n bytes of PCM16 audio of response id received at at.
func (p *player) add(at time.Duration, id string, n int) {
	p.advance(at)
	t := p.byID[id]
	if t == nil {
		t = &track{id: id, acked: -1}
		p.byID[id] = t
		p.queue = append(p.queue, t)
	}
	if t.done {
		return // audio after clear/done is never played
	}
	t.samples += n / 2
}

// end marks response id as having no more audio.
func (p *player) end(at time.Duration, id string) {
	p.advance(at)
	if t := p.byID[id]; t != nil {
		t.done = true
		if t.played >= float64(t.samples) {
			t.finished = true
		}
	}
}

// clear stops response id now (barge-in: output_audio_buffer.cleared).
func (p *player) clear(at time.Duration, id string) {
	p.advance(at)
	if t := p.byID[id]; t != nil && !t.finished {
		t.done, t.finished, t.cleared = true, true, true
		p.emit(at, "duplexscope.playback_end", t)
	}
}

type ack struct {
	id       string
	playedMs int
}

// acks advances to now and returns the acks OmniInteract would send: the
// first as soon as a response has audio (even 0 ms), then every ≥ AckStepMs
// of progress, and a final exact one when the response finished playing;
// final forces an ack of any unacknowledged progress.
func (p *player) acks(now time.Duration, final bool) []ack {
	p.advance(now)
	var out []ack
	for _, t := range p.queue {
		ms := int(int64(t.played) * 1000 / int64(p.rate))
		switch {
		case t.acked < 0,
			ms >= t.acked+AckStepMs,
			(t.finished || final) && ms != t.acked:
			t.acked = ms
			out = append(out, ack{id: t.id, playedMs: ms})
		}
	}
	return out
}
