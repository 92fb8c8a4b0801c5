package protocol

import (
	"crypto/rand"
	"encoding/hex"
)

// NewEventID returns a client event id "evt_<32 hex>" (crypto/rand).
func NewEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "evt_" + hex.EncodeToString(b[:])
}

// DefaultInstructions is the benchmarks' system prompt.
const DefaultInstructions = "Streaming Omni Conversation."

// BenchmarkSession parameterises NewBenchmarkSessionUpdate; zero fields take
// the benchmark defaults.
type BenchmarkSession struct {
	EventID      string  // "" → none (the session driver stamps one)
	Model        string  // omitted when ""
	RefAudio     string  // data:audio/wav;base64,… ; omitted when ""
	Instructions string  // "" → DefaultInstructions
	IdleTimeoutS float64 // 0 → 900
	InputRateHz  int     // 0 → 16000
	OutputRateHz int     // 0 → 24000
	NativeDuplex bool    // extra_body.minicpmo45_native_duplex = true (MiniCPM-o)
}

// NewBenchmarkSessionUpdate builds the OmniInteract-style opening message
// (docs/protocol.md#sessionupdate) with extra_body.return_stage_metrics = true.
func NewBenchmarkSessionUpdate(b BenchmarkSession) *SessionUpdate {
	in, out := b.InputRateHz, b.OutputRateHz
	if in == 0 {
		in = DefaultInputRateHz
	}
	if out == 0 {
		out = DefaultOutputRateHz
	}
	instr := b.Instructions
	if instr == "" {
		instr = DefaultInstructions
	}
	idle := b.IdleTimeoutS
	if idle == 0 {
		idle = 900
	}
	t, zero := true, 0
	eb := &ExtraBody{AutoResponse: &t, ForceListenCount: &zero, ReturnStageMetrics: &t}
	if b.NativeDuplex {
		eb.MiniCPMO45NativeDuplex = &t
	}
	return &SessionUpdate{
		Header: Header{Type: TypeSessionUpdate, EventID: b.EventID},
		Session: &SessionConfig{
			Model:                b.Model,
			Modalities:           []string{"audio", "text"},
			InputAudioFormat:     FormatPCM16,
			OutputAudioFormat:    FormatPCM16,
			SampleRateHz:         &in,
			Audio:                &AudioConfig{Input: &AudioFormat{SampleRateHz: &in}, Output: &AudioFormat{SampleRateHz: &out}},
			TurnDetection:        []byte("null"),
			Instructions:         instr,
			RefAudio:             b.RefAudio,
			OverlapPolicy:        "listen_only",
			PlaybackCommitPolicy: "ack_only",
			IdleTimeoutS:         &idle,
			ExtraBody:            eb,
		},
	}
}
