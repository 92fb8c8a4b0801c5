// JSON methods of server events: modelled fields plus preserved unknown keys.

package protocol

func (e *SessionCreated) UnmarshalJSON(b []byte) error {
	type plain SessionCreated
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e SessionCreated) MarshalJSON() ([]byte, error) {
	type plain SessionCreated
	return encodeKeep(plain(e), e.Extra)
}

func (e *SessionUpdated) UnmarshalJSON(b []byte) error {
	type plain SessionUpdated
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e SessionUpdated) MarshalJSON() ([]byte, error) {
	type plain SessionUpdated
	return encodeKeep(plain(e), e.Extra)
}

func (e *ResponseCreated) UnmarshalJSON(b []byte) error {
	type plain ResponseCreated
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ResponseCreated) MarshalJSON() ([]byte, error) {
	type plain ResponseCreated
	return encodeKeep(plain(e), e.Extra)
}

func (e *ResponseDone) UnmarshalJSON(b []byte) error {
	type plain ResponseDone
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ResponseDone) MarshalJSON() ([]byte, error) {
	type plain ResponseDone
	return encodeKeep(plain(e), e.Extra)
}

func (e *ResponseSpeak) UnmarshalJSON(b []byte) error {
	type plain ResponseSpeak
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ResponseSpeak) MarshalJSON() ([]byte, error) {
	type plain ResponseSpeak
	return encodeKeep(plain(e), e.Extra)
}

func (e *ResponseListen) UnmarshalJSON(b []byte) error {
	type plain ResponseListen
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ResponseListen) MarshalJSON() ([]byte, error) {
	type plain ResponseListen
	return encodeKeep(plain(e), e.Extra)
}

func (e *AudioDelta) UnmarshalJSON(b []byte) error {
	type plain AudioDelta
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e AudioDelta) MarshalJSON() ([]byte, error) {
	type plain AudioDelta
	return encodeKeep(plain(e), e.Extra)
}

func (e *TextDelta) UnmarshalJSON(b []byte) error {
	type plain TextDelta
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e TextDelta) MarshalJSON() ([]byte, error) {
	type plain TextDelta
	return encodeKeep(plain(e), e.Extra)
}

func (e *OutputDone) UnmarshalJSON(b []byte) error {
	type plain OutputDone
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e OutputDone) MarshalJSON() ([]byte, error) {
	type plain OutputDone
	return encodeKeep(plain(e), e.Extra)
}

func (e *ContentPartEvent) UnmarshalJSON(b []byte) error {
	type plain ContentPartEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ContentPartEvent) MarshalJSON() ([]byte, error) {
	type plain ContentPartEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *OutputItemEvent) UnmarshalJSON(b []byte) error {
	type plain OutputItemEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e OutputItemEvent) MarshalJSON() ([]byte, error) {
	type plain OutputItemEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *ConversationItemEvent) UnmarshalJSON(b []byte) error {
	type plain ConversationItemEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ConversationItemEvent) MarshalJSON() ([]byte, error) {
	type plain ConversationItemEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *RateLimitsUpdated) UnmarshalJSON(b []byte) error {
	type plain RateLimitsUpdated
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e RateLimitsUpdated) MarshalJSON() ([]byte, error) {
	type plain RateLimitsUpdated
	return encodeKeep(plain(e), e.Extra)
}

func (e *OutputAudioBufferCleared) UnmarshalJSON(b []byte) error {
	type plain OutputAudioBufferCleared
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e OutputAudioBufferCleared) MarshalJSON() ([]byte, error) {
	type plain OutputAudioBufferCleared
	return encodeKeep(plain(e), e.Extra)
}

func (e *InputAudioBufferCommitted) UnmarshalJSON(b []byte) error {
	type plain InputAudioBufferCommitted
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e InputAudioBufferCommitted) MarshalJSON() ([]byte, error) {
	type plain InputAudioBufferCommitted
	return encodeKeep(plain(e), e.Extra)
}

func (e *SpeechEvent) UnmarshalJSON(b []byte) error {
	type plain SpeechEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e SpeechEvent) MarshalJSON() ([]byte, error) {
	type plain SpeechEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *PlaybackAcknowledged) UnmarshalJSON(b []byte) error {
	type plain PlaybackAcknowledged
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e PlaybackAcknowledged) MarshalJSON() ([]byte, error) {
	type plain PlaybackAcknowledged
	return encodeKeep(plain(e), e.Extra)
}

func (e *SessionClosed) UnmarshalJSON(b []byte) error {
	type plain SessionClosed
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e SessionClosed) MarshalJSON() ([]byte, error) {
	type plain SessionClosed
	return encodeKeep(plain(e), e.Extra)
}

func (e *SessionStatus) UnmarshalJSON(b []byte) error {
	type plain SessionStatus
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e SessionStatus) MarshalJSON() ([]byte, error) {
	type plain SessionStatus
	return encodeKeep(plain(e), e.Extra)
}

func (e *ErrorEvent) UnmarshalJSON(b []byte) error {
	type plain ErrorEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ErrorEvent) MarshalJSON() ([]byte, error) {
	type plain ErrorEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *TurnEvent) UnmarshalJSON(b []byte) error {
	type plain TurnEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e TurnEvent) MarshalJSON() ([]byte, error) {
	type plain TurnEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *OverlapDecision) UnmarshalJSON(b []byte) error {
	type plain OverlapDecision
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e OverlapDecision) MarshalJSON() ([]byte, error) {
	type plain OverlapDecision
	return encodeKeep(plain(e), e.Extra)
}

func (e *SessionInfo) UnmarshalJSON(b []byte) error {
	type plain SessionInfo
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e SessionInfo) MarshalJSON() ([]byte, error) {
	type plain SessionInfo
	return encodeKeep(plain(e), e.Extra)
}

func (e *Capabilities) UnmarshalJSON(b []byte) error {
	type plain Capabilities
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e Capabilities) MarshalJSON() ([]byte, error) {
	type plain Capabilities
	return encodeKeep(plain(e), e.Extra)
}

func (e *ResponseObject) UnmarshalJSON(b []byte) error {
	type plain ResponseObject
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ResponseObject) MarshalJSON() ([]byte, error) {
	type plain ResponseObject
	return encodeKeep(plain(e), e.Extra)
}

func (e *ResponseMetadata) UnmarshalJSON(b []byte) error {
	type plain ResponseMetadata
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e ResponseMetadata) MarshalJSON() ([]byte, error) {
	type plain ResponseMetadata
	return encodeKeep(plain(e), e.Extra)
}

func (e *DuplexEvent) UnmarshalJSON(b []byte) error {
	type plain DuplexEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e DuplexEvent) MarshalJSON() ([]byte, error) {
	type plain DuplexEvent
	return encodeKeep(plain(e), e.Extra)
}

func (e *EventMetadata) UnmarshalJSON(b []byte) error {
	type plain EventMetadata
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e EventMetadata) MarshalJSON() ([]byte, error) {
	type plain EventMetadata
	return encodeKeep(plain(e), e.Extra)
}

func (e *VLLMOmni) UnmarshalJSON(b []byte) error {
	type plain VLLMOmni
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e VLLMOmni) MarshalJSON() ([]byte, error) {
	type plain VLLMOmni
	return encodeKeep(plain(e), e.Extra)
}

func (e *RequestMetrics) UnmarshalJSON(b []byte) error {
	type plain RequestMetrics
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e RequestMetrics) MarshalJSON() ([]byte, error) {
	type plain RequestMetrics
	return encodeKeep(plain(e), e.Extra)
}

func (e *StageMetrics) UnmarshalJSON(b []byte) error {
	type plain StageMetrics
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e StageMetrics) MarshalJSON() ([]byte, error) {
	type plain StageMetrics
	return encodeKeep(plain(e), e.Extra)
}

func (e *CommitInfo) UnmarshalJSON(b []byte) error {
	type plain CommitInfo
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e CommitInfo) MarshalJSON() ([]byte, error) {
	type plain CommitInfo
	return encodeKeep(plain(e), e.Extra)
}

func (e *PlaybackAckInfo) UnmarshalJSON(b []byte) error {
	type plain PlaybackAckInfo
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e PlaybackAckInfo) MarshalJSON() ([]byte, error) {
	type plain PlaybackAckInfo
	return encodeKeep(plain(e), e.Extra)
}

func (e *InternalEvent) UnmarshalJSON(b []byte) error {
	type plain InternalEvent
	return decodeKeep(b, (*plain)(e), &e.Extra)
}
func (e InternalEvent) MarshalJSON() ([]byte, error) {
	type plain InternalEvent
	return encodeKeep(plain(e), e.Extra)
}
