package app

import (
	"encoding/json"
	"testing"
)

// TestInboundIdentity: the page names responses by the metrics' rule
// (protocol.IdentityOf).
func TestInboundIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"response_id":"a","response":{"id":"b"}}`, "a"},
		{`{"response":{"id":"b"}}`, "b"},
		{`{"response_id":7,"response":{"id":"b"}}`, "b"},
		{`{"response_id":"","response":{"id":"b"}}`, ""},
		{`{"response_id":"\ud800"}`, "\xed\xa0\x80"},
		{`{"response_id":"\udbff"}`, "\xed\xaf\xbf"},
	}
	for _, tc := range tests {
		var in inbound
		if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
			t.Fatal(err)
		}
		if got := in.id(); got != tc.want {
			t.Errorf("id(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
