package app

import (
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
)

// labelledClip is one clip of a joined dataset stream: its name, where it
// starts in the stream (CaseClip.OffsetMs, stream clock ms) and its
// turn-taking labels on its own clock.
type labelledClip struct {
	report.CaseClip
	Labels []turntaking.Label
}

// streamLabels are the labels of a joined stream on the stream clock (ms
// from its first sample, which the page sends as the first append, so
// turntaking.ScoreTrace places them as it places a single clip's labels).
type streamLabels struct {
	Labels []turntaking.Label
	Clips  []report.CaseClip // Clips[i] is the clip of Labels[i]
}

// joinLabels moves each clip's labels to the stream clock: onset, offset
// and anchor plus the clip's offset; the window length is kept.
func joinLabels(clips []labelledClip) *streamLabels {
	out := &streamLabels{}
	for _, c := range clips {
		for _, l := range c.Labels {
			l.OnsetMs += c.OffsetMs
			l.OffsetMs += c.OffsetMs
			l.AnchorMs += c.OffsetMs
			out.Labels = append(out.Labels, l)
			out.Clips = append(out.Clips, c.CaseClip)
		}
	}
	return out
}
