package protocol

import (
	"encoding/json"
	"sort"
	"testing"

	"github.com/duplexscope/duplexscope/internal/golden"
)

func ptr[T any](v T) *T { return &v }

func sh(typ string) ServerHeader {
	return ServerHeader{Header: Header{Type: typ, EventID: "event_0001"}}
}

// wireSamples holds one built event per registered wire type; the golden
// files under testdata/golden/TestWireGolden are their exact encoding.
func wireSamples() map[string]Event {
	rrm := &RequestMetrics{Source: SourceServerMonotonic,
		MeasurementOrigin: &MeasurementOrigin{TTFT: OriginTTFT, TTFP: OriginTTFP}, TTFTMs: ptr(125.5), TTFPMs: ptr(175.25)}
	stage := map[string]*StageMetrics{"0": {NumTokensOut: ptr(6), VLLMTTFTMs: ptr(120.0), VLLMTPOTMs: ptr(10.0),
		VLLMITLMs: ptr(30.0), VLLMITLsMs: []float64{30}}}
	part := ContentRef{ResponseID: "resp_1", ItemID: "item_resp_1", OutputIndex: ptr(0), ContentIndex: ptr(0)}
	samples := map[string]Event{
		TypeSessionUpdate: NewBenchmarkSessionUpdate(BenchmarkSession{EventID: "evt_0001", Model: "openbmb/MiniCPM-o-4_5",
			RefAudio: "data:audio/wav;base64,UklGRiQAAABXQVZFZm10IBAAAAABAAEA", NativeDuplex: true}),
		TypeInputAudioBufferAppend: &InputAudioBufferAppend{Header: Header{Type: TypeInputAudioBufferAppend, EventID: "evt_0002"},
			Audio: EncodePCM16([]int16{0, 1, 2, -2}), InputAudioFormat: FormatPCM16, Format: FormatPCM16,
			SampleRateHz: ptr(16000), DurationMs: ptr[int64](200), AudioEndMs: ptr[int64](1400)},
		TypeLegacyPushChunk:        &InputAudioBufferAppend{Header: Header{Type: TypeLegacyPushChunk}, Audio: "AAAA", Format: "wav"},
		TypeLegacyInputAudioAppend: &InputAudioBufferAppend{Header: Header{Type: TypeLegacyInputAudioAppend}, Audio: "AAAA"},
		TypeInputAudioBufferCommit: &InputAudioBufferCommit{Header: Header{Type: TypeInputAudioBufferCommit}, Final: ptr(true)},
		TypePlaybackAck: &PlaybackAck{Header: Header{Type: TypePlaybackAck}, ResponseID: "resp_3", ItemID: "item_resp_3",
			PlayedMs: ptr(1840.0), CommittedMs: ptr(1840.0)},
		TypeLegacyPlaybackAck:      &PlaybackAck{Header: Header{Type: TypeLegacyPlaybackAck}, ResponseID: "resp_3", PlayedMs: ptr(0.0)},
		TypeSessionClose:           &SimpleClientEvent{Header: Header{Type: TypeSessionClose, EventID: "evt_0003"}},
		TypeLegacyCloseSession:     &SimpleClientEvent{Header: Header{Type: TypeLegacyCloseSession}},
		TypeSessionHeartbeat:       &SimpleClientEvent{Header: Header{Type: TypeSessionHeartbeat}},
		TypeInputAudioBufferClear:  &SimpleClientEvent{Header: Header{Type: TypeInputAudioBufferClear}},
		TypeResponseCreate:         &SimpleClientEvent{Header: Header{Type: TypeResponseCreate}},
		TypeConversationItemCreate: &SimpleClientEvent{Header: Header{Type: TypeConversationItemCreate}},
		TypeConversationItemDelete: &SimpleClientEvent{Header: Header{Type: TypeConversationItemDelete}},
		TypeConversationItemTrunc:  &SimpleClientEvent{Header: Header{Type: TypeConversationItemTrunc}},
		TypeSessionEventAck:        &SessionEventAck{Header: Header{Type: TypeSessionEventAck}, ServerEventSeq: ptr[int64](418)},
		TypeSessionResume: &SessionResume{Header: Header{Type: TypeSessionResume}, SessionID: "duplex-7f3a9c", Incarnation: ptr[int64](1),
			ResumeToken: "rt_4d2c", LastReceivedServerEventSeq: ptr[int64](17)},
		TypeResponseCancel:         &ResponseCancel{Header: Header{Type: TypeResponseCancel}, ResponseID: "resp_7"},
		TypeOutputAudioBufferClear: &OutputAudioBufferClear{Header: Header{Type: TypeOutputAudioBufferClear}, ResponseID: "resp_7"},

		TypeSessionCreated: &SessionCreated{ServerHeader: sh(TypeSessionCreated), Session: &SessionInfo{ID: "duplex-7f3a9c",
			Object: "realtime.session", Model: "openbmb/MiniCPM-o-4_5", Voice: "default", Modalities: []string{"audio", "text"},
			InputAudioFormat: FormatPCM16, OutputAudioFormat: FormatPCM16,
			Capabilities: &Capabilities{ImplementationLevel: "model_native_duplex", SupportsBargeIn: ptr(false),
				SupportsPlaybackAck: ptr(true), SupportsInputAppend: ptr(true), SupportsSessionResume: ptr(false),
				ChunkPeriodMs: ptr(1000), InputModes: []string{"append_audio_chunk"}}}},
		TypeSessionUpdated: &SessionUpdated{ServerHeader: sh(TypeSessionUpdated), Session: &SessionInfo{ID: "duplex-7f3a9c",
			Model: "m", Voice: "default", InputAudioFormat: FormatPCM16, OutputAudioFormat: FormatPCM16}},
		TypeResponseCreated: &ResponseCreated{ServerHeader: sh(TypeResponseCreated), ResponseID: "resp_1",
			Response: &ResponseObject{ID: "resp_1", Object: "realtime.response", Status: "in_progress", StatusDetails: json.RawMessage("null"),
				Output: []OutputItem{}, Modalities: []string{"audio", "text"},
				Metadata: &ResponseMetadata{DuplexEvent: &DuplexEvent{Type: TypeResponseCreated, ResponseID: "resp_1", Epoch: ptr(0)}}}},
		TypeResponseSpeak: &ResponseSpeak{ServerHeader: sh(TypeResponseSpeak), ContentRef: part, Metadata: &EventMetadata{VLLMOmni: &VLLMOmni{ResponseRequestMetrics: &RequestMetrics{
			Source: SourceServerMonotonic, TTFTMs: ptr(125.5)}}}},
		TypeResponseListen: &ResponseListen{ServerHeader: sh(TypeResponseListen), SessionID: "duplex-7f3a9c", Epoch: ptr(0),
			Response: &ResponseObject{Object: "realtime.response", Status: "listening",
				Metadata: &ResponseMetadata{Reason: "silence", ModelListen: ptr(true)}}},
		TypeResponseOutputAudioDelta: &AudioDelta{ServerHeader: sh(TypeResponseOutputAudioDelta), ContentRef: part, Delta: EncodePCM16([]int16{0, -1, 1, -2}), Format: FormatPCM16, SampleRateHz: ptr(24000),
			Metadata: &EventMetadata{AudioDurationMs: ptr(200.0), Playback: &PlaybackCursor{GeneratedMs: 200, SentMs: 200},
				VLLMOmni: &VLLMOmni{ResponseRequestMetrics: rrm, StageMetrics: stage}}},
		TypeLegacyAudioDelta: &AudioDelta{ServerHeader: sh(TypeLegacyAudioDelta), ContentRef: ContentRef{ResponseID: "resp_1"}, Delta: "AAAA", Format: FormatPCM16,
			SampleRateHz: ptr(24000)},
		TypeResponseOutputAudioTranscriptDelta: &TextDelta{ServerHeader: sh(TypeResponseOutputAudioTranscriptDelta), ContentRef: part, Delta: "Sure, the red",
			Metadata: &EventMetadata{VLLMOmni: &VLLMOmni{ResponseRequestMetrics: &RequestMetrics{Source: SourceServerMonotonic,
				MeasurementOrigin: &MeasurementOrigin{TTFT: OriginTTFT, TTFP: OriginTTFP}, TTFTMs: ptr(125.5)}}}},
		TypeResponseOutputTextDelta:           &TextDelta{ServerHeader: sh(TypeResponseOutputTextDelta), ContentRef: ContentRef{ResponseID: "r1"}, Delta: "Done."},
		TypeResponseTextDelta:                 &TextDelta{ServerHeader: sh(TypeResponseTextDelta), ContentRef: ContentRef{ResponseID: "resp_2"}, Delta: " cup"},
		TypeLegacyAudioTranscriptDelta:        &TextDelta{ServerHeader: sh(TypeLegacyAudioTranscriptDelta), ContentRef: ContentRef{ResponseID: "resp_2"}, Delta: "cup"},
		TypeResponseOutputAudioDone:           &OutputDone{ServerHeader: sh(TypeResponseOutputAudioDone), ContentRef: part},
		TypeResponseOutputAudioTranscriptDone: &OutputDone{ServerHeader: sh(TypeResponseOutputAudioTranscriptDone), ContentRef: part, Transcript: "Sure, the red cup is on the left."},
		TypeResponseOutputTextDone:            &OutputDone{ServerHeader: sh(TypeResponseOutputTextDone), ContentRef: ContentRef{ResponseID: "r1"}, Text: "Done."},
		TypeLegacyAudioDone:                   &OutputDone{ServerHeader: sh(TypeLegacyAudioDone), ContentRef: ContentRef{ResponseID: "resp_1"}},
		TypeLegacyAudioTranscriptDone:         &OutputDone{ServerHeader: sh(TypeLegacyAudioTranscriptDone), ContentRef: ContentRef{ResponseID: "resp_1"}, Transcript: "Hi."},
		TypeResponseContentPartAdded:          &ContentPartEvent{ServerHeader: sh(TypeResponseContentPartAdded), ContentRef: part, Part: &ContentPart{Type: "audio"}},
		TypeResponseContentPartDone:           &ContentPartEvent{ServerHeader: sh(TypeResponseContentPartDone), ContentRef: part, Part: &ContentPart{Type: "audio", Transcript: "Hi."}},
		TypeResponseOutputItemAdded: &OutputItemEvent{ServerHeader: sh(TypeResponseOutputItemAdded), ResponseID: "resp_1", OutputIndex: ptr(0),
			Item: &OutputItem{ID: "item_resp_1", Type: "message", Role: "assistant", Status: "in_progress", Content: []ContentPart{}}},
		TypeResponseOutputItemDone: &OutputItemEvent{ServerHeader: sh(TypeResponseOutputItemDone), ResponseID: "resp_1", OutputIndex: ptr(0),
			Item: &OutputItem{ID: "item_resp_1", Type: "message", Role: "assistant", Status: "completed",
				Content: []ContentPart{{Type: "output_audio", Transcript: "Hi."}}}},
		TypeConversationItemAdded: &ConversationItemEvent{ServerHeader: sh(TypeConversationItemAdded), PreviousItemID: ptr("item_0"),
			Item: &OutputItem{ID: "item_resp_1", Type: "message", Role: "assistant", Status: "in_progress"}},
		TypeConversationItemCreated: &ConversationItemEvent{ServerHeader: sh(TypeConversationItemCreated),
			Item: &OutputItem{ID: "item_resp_1", Type: "message", Role: "assistant", Status: "in_progress"}},
		TypeConversationItemDone: &ConversationItemEvent{ServerHeader: sh(TypeConversationItemDone),
			Item: &OutputItem{ID: "item_resp_1", Type: "message", Role: "assistant", Status: "completed"}},
		TypeResponseDone: &ResponseDone{ServerHeader: sh(TypeResponseDone), ResponseID: "resp_1", Response: &ResponseObject{ID: "resp_1",
			Object: "realtime.response", Status: "completed", StatusDetails: json.RawMessage("null"),
			Output: []OutputItem{{ID: "item_resp_1", Type: "message", Role: "assistant", Status: "completed",
				Content: []ContentPart{{Type: "output_audio", Transcript: "Hi."}}}}, Metadata: &ResponseMetadata{}}},
		TypeRateLimitsUpdated:             &RateLimitsUpdated{ServerHeader: sh(TypeRateLimitsUpdated), RateLimits: []json.RawMessage{}},
		TypeOutputAudioBufferCleared:      &OutputAudioBufferCleared{ServerHeader: sh(TypeOutputAudioBufferCleared), ResponseID: "resp_2"},
		TypeInputAudioBufferCommitted:     &InputAudioBufferCommitted{ServerHeader: sh(TypeInputAudioBufferCommitted), ItemID: "item_in_1", Event: &CommitInfo{Type: "input.committed", InputCommitSeq: ptr(1)}},
		TypeInputAudioBufferSpeechStarted: &SpeechEvent{ServerHeader: sh(TypeInputAudioBufferSpeechStarted), AudioStartMs: ptr[int64](4200), ItemID: "item_in_2"},
		TypeInputAudioBufferSpeechStopped: &SpeechEvent{ServerHeader: sh(TypeInputAudioBufferSpeechStopped), AudioEndMs: ptr[int64](5600), ItemID: "item_in_2"},
		TypeInputAudioBufferCleared:       &SessionStatus{ServerHeader: sh(TypeInputAudioBufferCleared)},
		TypePlaybackAcknowledged: &PlaybackAcknowledged{ServerHeader: sh(TypePlaybackAcknowledged), Event: &PlaybackAckInfo{Type: TypePlaybackAck,
			ResponseID: "resp_3", PlayedMs: ptr(1840.0), CommittedMs: ptr(1840.0), HistoryCommitted: ptr(true)}},
		TypeSessionClosed: &SessionClosed{ServerHeader: sh(TypeSessionClosed), SessionID: "duplex-7f3a9c", Reason: ReasonClientClose,
			Event: &InternalEvent{Type: TypeSessionClosed}},
		TypeSessionExpired:        &SessionStatus{ServerHeader: sh(TypeSessionExpired), SessionID: "duplex-7f3a9c", Reason: "idle_timeout"},
		TypeSessionHeartbeatAck:   &SessionStatus{ServerHeader: sh(TypeSessionHeartbeatAck), SessionID: "duplex-7f3a9c"},
		TypeSessionResumed:        &SessionStatus{ServerHeader: sh(TypeSessionResumed), SessionID: "duplex-7f3a9c"},
		TypeSessionResyncRequired: &SessionStatus{ServerHeader: sh(TypeSessionResyncRequired), SessionID: "duplex-7f3a9c", Reason: "journal_gap"},
		TypeSessionReplaced:       &SessionStatus{ServerHeader: sh(TypeSessionReplaced), SessionID: "duplex-7f3a9c"},
		TypeError:                 NewError(CodeInputAudioBufferEmpty, "input_audio_buffer.commit requires a non-empty input audio buffer", "evt_client_123"),
		TypeTurnEvent: &TurnEvent{ServerHeader: sh(TypeTurnEvent), SessionID: "duplex-7f3a9c", Event: "assistant_started",
			TurnState: "assistant_generating", Epoch: ptr(0)},
		TypeOverlapDecision: &OverlapDecision{ServerHeader: sh(TypeOverlapDecision), SessionID: "duplex-7f3a9c", Epoch: ptr(0),
			Policy: "listen_only", Action: "continue", Reason: "user_speech", Metadata: json.RawMessage(`{}`)},
	}
	return samples
}

// TestWireGolden pins the exact encoding of every registered event type.
func TestWireGolden(t *testing.T) {
	samples := wireSamples()
	var types []string
	for typ := range registry {
		types = append(types, typ)
	}
	sort.Strings(types)
	for _, typ := range types {
		t.Run(typ, func(t *testing.T) {
			ev, ok := samples[typ]
			if !ok {
				t.Fatalf("no wire sample for registered type %q", typ)
			}
			if ev.EventType() != typ {
				t.Fatalf("sample type %q", ev.EventType())
			}
			if err := ev.Validate(); err != nil {
				t.Errorf("sample does not validate: %v", err)
			}
			b, err := Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "json", append(b, '\n'))
			back, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			b2, _ := Marshal(back)
			if string(b2) != string(b) {
				t.Errorf("decode/encode not stable:\n%s\n%s", b, b2)
			}
		})
	}
	if len(samples) != len(registry) {
		t.Errorf("%d samples for %d registered types", len(samples), len(registry))
	}
}

func TestFlatErrorWire(t *testing.T) {
	b, _ := Marshal(NewFlatError(CodeConfigTimeout, "Timeout waiting for session.update"))
	golden.Check(t, "json", append(b, '\n'))
}
