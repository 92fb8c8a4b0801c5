package app

import "github.com/duplexscope/duplexscope/chart"

// active reports whether the run is still going.
func (r *liveRun) active() bool { return r.life.state().active() }

// playMoment plays what was said at m: the user's input, or the model
// response whose received audio covers m.TS.
func (r *liveRun) playMoment(m moment) {
	r.mu.Lock()
	g := r.graph
	var pcm []byte
	rate := 16000
	if m.Lane == int(chart.LaneUser) {
		start := int(m.TS*16000) * 2
		if start >= 0 && start < len(r.inputPCM) {
			end := min(len(r.inputPCM), start+snippetS*16000*2)
			pcm = append([]byte(nil), r.inputPCM[start:end]...)
		}
	} else {
		rate = 24000
		pcm = r.playback.snippet(r.wire.Order(), r.wire.StreamStartMs()+m.TS*1000)
	}
	r.mu.Unlock()
	if g != nil && len(pcm) > 0 {
		g.playSnippet(pcm, rate)
	}
}
