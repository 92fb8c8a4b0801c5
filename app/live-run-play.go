package app

import "github.com/duplexscope/duplexscope/chart"

// active reports whether the run is still going.
func (r *liveRun) active() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase != phaseDone && r.phase != phaseFailed
}

// snippetS is how much audio a timeline click plays.
const snippetS = 3

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
		at := r.wire.StreamStartMs() + m.TS*1000
		for _, id := range r.wire.Order() {
			chunks := r.audio[id]
			if len(chunks) == 0 || chunks[0].TMs > at+500 {
				continue
			}
			for i, c := range chunks {
				if c.TMs >= at-250 || i == len(chunks)-1 {
					for _, cc := range chunks[i:] {
						pcm = append(pcm, cc.PCM...)
						if len(pcm) > snippetS*24000*2 {
							break
						}
					}
					break
				}
			}
			if pcm != nil && chunks[len(chunks)-1].TMs >= at-250 {
				break
			}
			pcm = nil
		}
	}
	r.mu.Unlock()
	if g != nil && len(pcm) > 0 {
		g.playSnippet(pcm, rate)
	}
}
