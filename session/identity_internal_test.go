package session

import "testing"

// TestInboundIdentity: the state machine names responses by the metrics'
// rule (protocol.IdentityOf): "" is no identity and does not fall back to
// response.id; two lone surrogates are two identities.
func TestInboundIdentity(t *testing.T) {
	t.Parallel()
	tests := []inboundCase[string]{
		{`{"type":"x","response_id":"a","response":{"id":"b"}}`, "a"},
		{`{"type":"x","response":{"id":"b"}}`, "b"},
		{`{"type":"x","response_id":5,"response":{"id":"b"}}`, "b"},
		{`{"type":"x","response_id":"","response":{"id":"b"}}`, ""},
		{`{"type":"x","response":{"id":""}}`, ""},
		{`{"type":"x","response_id":"\ud800"}`, "\xed\xa0\x80"},
		{`{"type":"x","response_id":"\udbff"}`, "\xed\xaf\xbf"},
	}
	checkInbound(t, "responseID", tests, (*inbound).responseID)
}
