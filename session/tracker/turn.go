package tracker

import (
	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/session"
)

// TurnInput is a received event's part in the live turn-taking channels,
// taken from the session's one decode (Kind "" when it has none): the
// model audio as the player got it (24 kHz), a cleared buffer, and the
// transcript. The saved report scores its channels from the wire log.
func TurnInput(tMs float64, rx *session.Received) turntaking.Input {
	in := turntaking.Input{TMs: tMs, ResponseID: rx.ID}
	switch rx.Type {
	case protocol.TypeResponseOutputAudioDelta: // the channels' model audio (not the legacy name)
		in.Kind, in.PCM, in.Rate = turntaking.InputModel, rx.PCM(), audio.OutputRate
	case protocol.TypeOutputAudioBufferCleared:
		in.Kind = turntaking.InputCleared
	case protocol.TypeResponseOutputAudioTranscriptDelta:
		in.Kind, in.Text = turntaking.InputTranscript, rx.Text
	case protocol.TypeResponseOutputAudioTranscriptDone:
		in.Kind, in.Text = turntaking.InputTranscriptFinal, rx.Text
	}
	return in
}
