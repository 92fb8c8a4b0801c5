package app

import (
	"testing"

	"github.com/duplexscope/duplexscope/session"
)

// TestInboundIdentity: the page names responses by the metrics' rule
// (protocol.IdentityOf), through the one decode it shares with the
// session worker (session.DecodeReceived); an odd neighbour field does not
// drop the event.
func TestInboundIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"response_id":"a","response":{"id":"b"}}`, "a"},
		{`{"response":{"id":"b"}}`, "b"},
		{`{"response_id":7,"response":{"id":"b"}}`, "b"},
		{`{"response_id":"","response":{"id":"b"}}`, ""},
		{`{"response_id":"\ud800"}`, "\xed\xa0\x80"},
		{`{"response_id":"\udbff"}`, "\xed\xaf\xbf"},
		{`{"response_id":"c","response":"not an object"}`, "c"},
		{`{"response_id":"d","sample_rate_hz":"24000"}`, "d"},
	}
	for _, tc := range tests {
		in, ok := session.DecodeReceived([]byte(tc.in))
		if !ok {
			t.Fatalf("%s: not decoded", tc.in)
		}
		if in.ID != tc.want {
			t.Errorf("id(%s) = %q, want %q", tc.in, in.ID, tc.want)
		}
	}
}
