package protocol

// Client → server event types (docs/protocol.md#client-events).
const (
	TypeSessionUpdate          = "session.update"
	TypeInputAudioBufferAppend = "input_audio_buffer.append"
	TypeInputAudioBufferCommit = "input_audio_buffer.commit"
	TypeInputAudioBufferClear  = "input_audio_buffer.clear"
	TypePlaybackAck            = "playback.ack"
	TypeSessionClose           = "session.close"
	TypeSessionHeartbeat       = "session.heartbeat"
	TypeSessionEventAck        = "session.event_ack"
	TypeSessionResume          = "session.resume"
	TypeResponseCancel         = "response.cancel"
	TypeOutputAudioBufferClear = "output_audio_buffer.clear"
	TypeResponseCreate         = "response.create"
	TypeConversationItemCreate = "conversation.item.create"
	TypeConversationItemDelete = "conversation.item.delete"
	TypeConversationItemTrunc  = "conversation.item.truncate"
)

// Legacy client aliases a server normalises (docs/protocol.md#other-client-events).
const (
	TypeLegacyPushChunk        = "push_chunk"         // → input_audio_buffer.append
	TypeLegacyInputAudioAppend = "input.audio.append" // → input_audio_buffer.append
	TypeLegacyCloseSession     = "close_session"      // → session.close
	TypeLegacyPlaybackAck      = "audio.playback_ack" // → playback.ack
)

// Server → client event types, current (GA) names (docs/protocol.md#server-events).
const (
	TypeSessionCreated                     = "session.created"
	TypeSessionUpdated                     = "session.updated"
	TypeResponseCreated                    = "response.created"
	TypeResponseSpeak                      = "response.speak"
	TypeResponseListen                     = "response.listen"
	TypeResponseOutputAudioDelta           = "response.output_audio.delta"
	TypeResponseOutputAudioTranscriptDelta = "response.output_audio_transcript.delta"
	TypeResponseOutputTextDelta            = "response.output_text.delta"
	TypeResponseTextDelta                  = "response.text.delta" // older text name; still counted as text
	TypeResponseOutputAudioDone            = "response.output_audio.done"
	TypeResponseOutputAudioTranscriptDone  = "response.output_audio_transcript.done"
	TypeResponseOutputTextDone             = "response.output_text.done"
	TypeResponseContentPartAdded           = "response.content_part.added"
	TypeResponseContentPartDone            = "response.content_part.done"
	TypeResponseOutputItemAdded            = "response.output_item.added"
	TypeResponseOutputItemDone             = "response.output_item.done"
	TypeConversationItemAdded              = "conversation.item.added"
	TypeConversationItemCreated            = "conversation.item.created"
	TypeConversationItemDone               = "conversation.item.done"
	TypeInputTranscriptionDelta            = "conversation.item.input_audio_transcription.delta"
	TypeInputTranscriptionCompleted        = "conversation.item.input_audio_transcription.completed"
	TypeResponseDone                       = "response.done"
	TypeRateLimitsUpdated                  = "rate_limits.updated"
	TypeOutputAudioBufferCleared           = "output_audio_buffer.cleared"
	TypeInputAudioBufferCommitted          = "input_audio_buffer.committed"
	TypeInputAudioBufferSpeechStarted      = "input_audio_buffer.speech_started"
	TypeInputAudioBufferSpeechStopped      = "input_audio_buffer.speech_stopped"
	TypeInputAudioBufferCleared            = "input_audio_buffer.cleared"
	TypePlaybackAcknowledged               = "playback.acknowledged"
	TypeSessionClosed                      = "session.closed"
	TypeSessionExpired                     = "session.expired"
	TypeSessionHeartbeatAck                = "session.heartbeat_ack"
	TypeSessionResumed                     = "session.resumed"
	TypeSessionResyncRequired              = "session.resync_required"
	TypeSessionReplaced                    = "session.replaced"
	TypeError                              = "error"
	TypeTurnEvent                          = "turn.event"
	TypeOverlapDecision                    = "overlap.decision"
)

// Server → client legacy names (older servers, vLLM's realtime_web demo).
// Clients play them but the reference metrics never count them.
const (
	TypeLegacyAudioDelta           = "response.audio.delta"
	TypeLegacyAudioTranscriptDelta = "response.audio_transcript.delta"
	TypeLegacyAudioDone            = "response.audio.done"
	TypeLegacyAudioTranscriptDone  = "response.audio_transcript.done"
)

var legacyToGA = map[string]string{
	TypeLegacyAudioDelta:           TypeResponseOutputAudioDelta,
	TypeLegacyAudioTranscriptDelta: TypeResponseOutputAudioTranscriptDelta,
	TypeLegacyAudioDone:            TypeResponseOutputAudioDone,
	TypeLegacyAudioTranscriptDone:  TypeResponseOutputAudioTranscriptDone,
}

// gaToLegacy is legacyToGA inverted, so the two cannot disagree.
var gaToLegacy = func() map[string]string {
	m := make(map[string]string, len(legacyToGA))
	for legacy, ga := range legacyToGA {
		m[ga] = legacy
	}
	return m
}()

// LegacyName returns the legacy name of a current event type, or t itself
// when the type has no legacy twin.
func LegacyName(t string) string {
	if l, ok := gaToLegacy[t]; ok {
		return l
	}
	return t
}

// GAName returns the current name of a legacy event type, or t itself.
func GAName(t string) string {
	if g, ok := legacyToGA[t]; ok {
		return g
	}
	return t
}

// IsLegacy reports whether t is a legacy server event name.
func IsLegacy(t string) bool { _, ok := legacyToGA[t]; return ok }

// IsAudioDelta reports whether t carries output audio (current or legacy
// name). Only TypeResponseOutputAudioDelta counts for metrics.
func IsAudioDelta(t string) bool {
	return t == TypeResponseOutputAudioDelta || t == TypeLegacyAudioDelta
}

// IsTextDelta reports whether t carries assistant text that metrics count
// as text (response.output_audio_transcript.delta, response.output_text.delta,
// response.text.delta). The legacy transcript name is displayed, not counted.
func IsTextDelta(t string) bool {
	switch t {
	case TypeResponseOutputAudioTranscriptDelta, TypeResponseOutputTextDelta, TypeResponseTextDelta:
		return true
	}
	return false
}

// ClientAlias returns the canonical client event type for a legacy client
// alias (push_chunk → input_audio_buffer.append, …), or t itself.
func ClientAlias(t string) string {
	switch t {
	case TypeLegacyPushChunk, TypeLegacyInputAudioAppend:
		return TypeInputAudioBufferAppend
	case TypeLegacyCloseSession:
		return TypeSessionClose
	case TypeLegacyPlaybackAck:
		return TypePlaybackAck
	}
	return t
}
