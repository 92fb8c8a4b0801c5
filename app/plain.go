package app

import (
	"fmt"

	"github.com/duplexscope/duplexscope/report"
)

// Band colours of a card. The goal bands, their words and the footnote
// come from report.LatencyBands (one table for the dashboard, the share
// page and history).
const (
	bandGreen = report.BandGreen
	bandAmber = report.BandAmber
	bandRed   = report.BandRed
	bandGrey  = "grey"
)

// plainCard is one metric card for non-engineers.
type plainCard struct {
	Title, Value, Band, Explain string
}

// plainView is the plain-language tab.
type plainView struct {
	Verdict  string
	Code     string // report.Judge's code (data-verdict)
	Band     string
	Cards    []plainCard
	Footnote string
}

// pageBand maps a report band to the page's card colours ("none" → grey).
func pageBand(b string) string {
	if b == "none" || b == "" {
		return bandGrey
	}
	return b
}

func seconds(ms float64) string { return fmt.Sprintf("%.2f s", ms/1000) }

// medianCard is a latency card: its median in the goal band's colour, a
// grey "—" when nothing was measured.
func medianCard(s *report.Stat, title, explain string) plainCard {
	c := plainCard{Title: title, Value: "—", Band: bandGrey, Explain: explain}
	if s != nil {
		c.Value, c.Band = seconds(s.P50), report.BandFor(s.P50).Band
	}
	return c
}

// buildPlain writes the plain-language cards and the one-line verdict
// from the run's judgement (report.Judge): the same words and numbers as
// the share page.
func buildPlain(v report.Verdict, turns, responses int, warns []warning, phase string) plainView {
	f := v.Facts
	out := plainView{Code: v.Code, Band: pageBand(v.Band),
		Footnote: report.BandsFootnote() + " " + report.RTFRule + fmt.Sprintf(" A verdict needs at least %d replies with a measured latency; a \"p99\" needs at least %d.", report.MinResponses, report.MinP99Samples)}
	speech := medianCard(f.SpeechEnd, "From the end of your speech to hearing the reply",
		"What you wait: from when you stop speaking (voice detection on the audio sent) to the reply's first sound from your speakers (playback clock). Only the first reply after each pause counts.")
	ttfp := plainCard{Title: "Time to first audio (vLLM TTFP)", Value: "—", Band: bandGrey,
		Explain: "What vLLM's benchmark reports: time from the start of the model's turn to its first audio packet, usually measured by the server. It leaves out your turn end, the network and playback."}
	if s := f.TTFP; s != nil {
		ttfp.Value = seconds(s.P50)
	}
	heard := medianCard(f.Heard, "From the reply starting to hearing it",
		"Typical time from the model starting its reply to the first sound coming out of your speakers (playback clock).")
	rtf := plainCard{Title: "Can it speak fast enough?", Value: "—", Band: bandGrey,
		Explain: "Real-time factor: time to generate a reply's audio divided by its length. Every reply must stay below 1, or its voice stalls."}
	if s := f.RTF; s != nil {
		rtf.Value, rtf.Band = fmt.Sprintf("%.2f× (median)", s.P50), report.RTFBand(f.RTFSlow, s.N)
		if rtf.Band != bandGreen {
			rtf.Value = fmt.Sprintf("%d of %d replies too slow", f.RTFSlow, s.N)
		}
	}
	worst := plainCard{Title: "Slowest replies", Value: "—", Band: bandGrey,
		Explain: "The longest waits: occasional long waits are what people remember."}
	if s := f.JudgedStat(); s != nil {
		if s.N >= report.MinP99Samples {
			worst.Title = "Slowest replies (p99)"
			worst.Explain = "How long the slowest 1 in 100 replies took (" + f.LatencyName(f.Judged) + "). Occasional long waits are what people remember."
		} else {
			worst.Title = fmt.Sprintf("Slowest of %d replies", s.N)
			worst.Explain = fmt.Sprintf("The longest of the %d measured waits (%s); too few replies for a p99. Occasional long waits are what people remember.", s.N, f.LatencyName(f.Judged))
		}
		worst.Value, worst.Band = seconds(s.Tail()), report.BandFor(s.Tail()).Band
	}
	count := plainCard{Title: "Replies measured", Value: fmt.Sprint(turns), Band: bandGrey,
		Explain: fmt.Sprintf("How many times the model answered with audio. A verdict needs at least %d; more replies make the numbers above more trustworthy.", report.MinResponses)}
	if turns >= report.MinResponses {
		count.Band = bandGreen
	}
	out.Cards = []plainCard{speech, ttfp, heard, rtf, worst, count}

	bad := 0
	for _, w := range warns {
		if w.Bad {
			bad++
		}
	}
	live := phase == phaseIdle || phase == phaseConnecting || phase == phaseStreaming
	switch {
	case v.Code == "":
		out.Verdict, out.Code, out.Band = "No replies yet — talk (or let the clip play) and wait for the model to answer.", report.VerdictNotEnoughData, bandGrey
	case responses == 0 && live && v.Code == report.VerdictNotEnoughData:
		out.Verdict = "No replies yet — talk (or let the clip play) and wait for the model to answer."
	default:
		out.Verdict = v.Text()
		if live && v.Code != report.VerdictIncomplete {
			out.Verdict = "So far — " + out.Verdict
		}
	}
	if bad > 0 && responses > 0 {
		out.Verdict += fmt.Sprintf(" (%d warning(s) below affect these numbers.)", bad)
	}
	return out
}
