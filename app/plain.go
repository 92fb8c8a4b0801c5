package app

import (
	"fmt"

	"github.com/duplexscope/duplexscope/metrics"
)

// Goal bands of the plain-language view (heard latency, playback clock).
// Between 800 ms and 1.5 s is amber too ("noticeably slow"); above 1.5 s red.
const (
	heardGreenMs = 300
	heardAmberMs = 800
	heardRedMs   = 1500
)

// Band colours of a card.
const (
	bandGreen = "green"
	bandAmber = "amber"
	bandRed   = "red"
	bandGrey  = "grey"
)

// plainCard is one metric card for non-engineers.
type plainCard struct {
	Title, Value, Band, Explain string
}

// plainView is the plain-language tab.
type plainView struct {
	Verdict string
	Band    string
	Cards   []plainCard
}

// heardBand classifies a heard latency.
func heardBand(ms float64) string {
	switch {
	case ms <= heardGreenMs:
		return bandGreen
	case ms <= heardRedMs:
		return bandAmber
	default:
		return bandRed
	}
}

// buildPlain writes the plain-language cards and the one-line verdict.
func buildPlain(sum metrics.SessionSummary, heard *metrics.Summary, responses int, warns []warning, phase string) plainView {
	var v plainView
	heardCard := plainCard{Title: "How long until you hear the reply", Value: "—", Band: bandGrey,
		Explain: "Typical time from the model starting its reply to the first sound coming out of your speakers (playback clock). Under 0.3 s feels natural; over 1.5 s feels broken."}
	if heard != nil {
		heardCard.Value = fmt.Sprintf("%.2f s", heard.P50/1000)
		heardCard.Band = heardBand(heard.P50)
	}
	ttfpCard := plainCard{Title: "Time to first audio (vLLM TTFP)", Value: "—", Band: bandGrey,
		Explain: "What vLLM's benchmark reports: time from the start of the model's turn to its first audio packet, usually measured by the server. It leaves out network and playback."}
	if sum.TTFPMs != nil {
		ttfpCard.Value = fmt.Sprintf("%.2f s", sum.TTFPMs.P50/1000)
	}
	rtfCard := plainCard{Title: "Can it speak fast enough?", Value: "—", Band: bandGrey,
		Explain: "Real-time factor: time to generate the audio divided by its length. It must stay below 1, or the voice stutters."}
	if sum.RTF != nil {
		rtfCard.Value = fmt.Sprintf("%.2f×", sum.RTF.P50)
		rtfCard.Band = bandGreen
		if sum.RTF.P99 >= 1 {
			rtfCard.Band = bandRed
		}
	}
	worst := plainCard{Title: "Slowest replies (p99)", Value: "—", Band: bandGrey,
		Explain: "How long the slowest 1 in 100 replies took to be heard. Occasional long waits are what people remember."}
	if heard != nil {
		worst.Value = fmt.Sprintf("%.2f s", heard.P99/1000)
		worst.Band = heardBand(heard.P99)
	}
	count := plainCard{Title: "Replies measured", Value: fmt.Sprint(sum.AudioTurnCount), Band: bandGrey,
		Explain: "How many times the model answered with audio. More replies make the numbers above more trustworthy."}
	if sum.AudioTurnCount >= 3 {
		count.Band = bandGreen
	}
	v.Cards = []plainCard{heardCard, rtfCard, worst, ttfpCard, count}

	bad := 0
	for _, w := range warns {
		if w.Bad {
			bad++
		}
	}
	switch {
	case responses == 0 && (phase == phaseIdle || phase == phaseConnecting || phase == phaseStreaming):
		v.Verdict, v.Band = "No replies yet — talk (or let the clip play) and wait for the model to answer.", bandGrey
	case responses == 0:
		v.Verdict, v.Band = "The model never answered with audio, so there is nothing to judge.", bandRed
	case heard == nil:
		v.Verdict, v.Band = "Replies arrived but none was played here, so the heard latency is unknown; see vLLM TTFP.", bandAmber
	default:
		b := heardBand(heard.P50)
		if rtfCard.Band == bandRed {
			b = bandRed
		}
		switch b {
		case bandGreen:
			v.Verdict = fmt.Sprintf("Feels like a natural conversation: replies are heard after about %.2f s and the voice keeps up.", heard.P50/1000)
		case bandAmber:
			v.Verdict = fmt.Sprintf("Usable but noticeably slow: replies are heard after about %.2f s.", heard.P50/1000)
		default:
			if rtfCard.Band == bandRed {
				v.Verdict = "Too slow: the model cannot generate speech in real time, so the voice stalls."
			} else {
				v.Verdict = fmt.Sprintf("Too slow for conversation: replies are heard after about %.2f s.", heard.P50/1000)
			}
		}
		v.Band = b
		if bad > 0 {
			v.Verdict += fmt.Sprintf(" (%d warning(s) below affect these numbers.)", bad)
		}
	}
	return v
}
