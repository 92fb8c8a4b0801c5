// keep methods let Decode fill a top-level event in one typed pass (see decodeTop).

package protocol

import "encoding/json"

func (e *SessionUpdate) keep() (any, *map[string]json.RawMessage) {
	type plain SessionUpdate
	return (*plain)(e), &e.Extra
}

func (e *InputAudioBufferAppend) keep() (any, *map[string]json.RawMessage) {
	type plain InputAudioBufferAppend
	return (*plain)(e), &e.Extra
}

func (e *InputAudioBufferCommit) keep() (any, *map[string]json.RawMessage) {
	type plain InputAudioBufferCommit
	return (*plain)(e), &e.Extra
}

func (e *PlaybackAck) keep() (any, *map[string]json.RawMessage) {
	type plain PlaybackAck
	return (*plain)(e), &e.Extra
}

func (e *SimpleClientEvent) keep() (any, *map[string]json.RawMessage) {
	type plain SimpleClientEvent
	return (*plain)(e), &e.Extra
}

func (e *SessionEventAck) keep() (any, *map[string]json.RawMessage) {
	type plain SessionEventAck
	return (*plain)(e), &e.Extra
}

func (e *SessionResume) keep() (any, *map[string]json.RawMessage) {
	type plain SessionResume
	return (*plain)(e), &e.Extra
}

func (e *ResponseCancel) keep() (any, *map[string]json.RawMessage) {
	type plain ResponseCancel
	return (*plain)(e), &e.Extra
}

func (e *OutputAudioBufferClear) keep() (any, *map[string]json.RawMessage) {
	type plain OutputAudioBufferClear
	return (*plain)(e), &e.Extra
}

func (e *SessionCreated) keep() (any, *map[string]json.RawMessage) {
	type plain SessionCreated
	return (*plain)(e), &e.Extra
}

func (e *SessionUpdated) keep() (any, *map[string]json.RawMessage) {
	type plain SessionUpdated
	return (*plain)(e), &e.Extra
}

func (e *ResponseCreated) keep() (any, *map[string]json.RawMessage) {
	type plain ResponseCreated
	return (*plain)(e), &e.Extra
}

func (e *ResponseDone) keep() (any, *map[string]json.RawMessage) {
	type plain ResponseDone
	return (*plain)(e), &e.Extra
}

func (e *ResponseSpeak) keep() (any, *map[string]json.RawMessage) {
	type plain ResponseSpeak
	return (*plain)(e), &e.Extra
}

func (e *ResponseListen) keep() (any, *map[string]json.RawMessage) {
	type plain ResponseListen
	return (*plain)(e), &e.Extra
}

func (e *AudioDelta) keep() (any, *map[string]json.RawMessage) {
	type plain AudioDelta
	return (*plain)(e), &e.Extra
}

func (e *TextDelta) keep() (any, *map[string]json.RawMessage) {
	type plain TextDelta
	return (*plain)(e), &e.Extra
}

func (e *OutputDone) keep() (any, *map[string]json.RawMessage) {
	type plain OutputDone
	return (*plain)(e), &e.Extra
}

func (e *ContentPartEvent) keep() (any, *map[string]json.RawMessage) {
	type plain ContentPartEvent
	return (*plain)(e), &e.Extra
}

func (e *OutputItemEvent) keep() (any, *map[string]json.RawMessage) {
	type plain OutputItemEvent
	return (*plain)(e), &e.Extra
}

func (e *ConversationItemEvent) keep() (any, *map[string]json.RawMessage) {
	type plain ConversationItemEvent
	return (*plain)(e), &e.Extra
}

func (e *RateLimitsUpdated) keep() (any, *map[string]json.RawMessage) {
	type plain RateLimitsUpdated
	return (*plain)(e), &e.Extra
}

func (e *OutputAudioBufferCleared) keep() (any, *map[string]json.RawMessage) {
	type plain OutputAudioBufferCleared
	return (*plain)(e), &e.Extra
}

func (e *InputAudioBufferCommitted) keep() (any, *map[string]json.RawMessage) {
	type plain InputAudioBufferCommitted
	return (*plain)(e), &e.Extra
}

func (e *SpeechEvent) keep() (any, *map[string]json.RawMessage) {
	type plain SpeechEvent
	return (*plain)(e), &e.Extra
}

func (e *PlaybackAcknowledged) keep() (any, *map[string]json.RawMessage) {
	type plain PlaybackAcknowledged
	return (*plain)(e), &e.Extra
}

func (e *SessionClosed) keep() (any, *map[string]json.RawMessage) {
	type plain SessionClosed
	return (*plain)(e), &e.Extra
}

func (e *SessionStatus) keep() (any, *map[string]json.RawMessage) {
	type plain SessionStatus
	return (*plain)(e), &e.Extra
}

func (e *ErrorEvent) keep() (any, *map[string]json.RawMessage) {
	type plain ErrorEvent
	return (*plain)(e), &e.Extra
}

func (e *TurnEvent) keep() (any, *map[string]json.RawMessage) {
	type plain TurnEvent
	return (*plain)(e), &e.Extra
}

func (e *OverlapDecision) keep() (any, *map[string]json.RawMessage) {
	type plain OverlapDecision
	return (*plain)(e), &e.Extra
}
