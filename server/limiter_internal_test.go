//go:build !js

package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// fakeClock is an injected clock the test advances by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestClientKey: IPv4 per address, IPv6 per /64 (IPv4-mapped IPv6 is IPv4).
func TestClientKey(t *testing.T) {
	cases := []struct{ remote, want string }{
		{"192.0.2.1:1234", "192.0.2.1"},
		{"192.0.2.2:1234", "192.0.2.2"},
		{"[::ffff:192.0.2.1]:80", "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff:ffff:ffff:ffff]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:443", "2001:db8:1:3::/64"},
		{"[::1]:9", "::/64"},
		{"@", "@"}, // a unix socket peer: kept as is
	}
	for _, tc := range cases {
		if got := clientKey(&http.Request{RemoteAddr: tc.remote}); got != tc.want {
			t.Errorf("clientKey(%q) = %q, want %q", tc.remote, got, tc.want)
		}
	}
}

// TestLimiterBucket: burst, then refill at the rate on the injected clock.
func TestLimiterBucket(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	l := newLimiter(2, 3, clk.now)
	var got []bool
	for range 4 {
		got = append(got, l.allow("a"))
	}
	clk.advance(500 * time.Millisecond) // one token back
	got = append(got, l.allow("a"), l.allow("a"))
	want := []bool{true, true, true, false, true, false}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("allow sequence = %v, want %v", got, want)
	}
}

// TestLimiterEvictsOldestFirst: at the key bound the least recently seen
// client is forgotten, not everyone: a flood of new keys cannot reset the
// bucket of a client that keeps coming.
func TestLimiterEvictsOldestFirst(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	l := newLimiter(0.001, 2, clk.now)
	l.maxKeys = 4
	// The abuser empties its bucket.
	for l.allow("abuser") {
	}
	for i := range 20 {
		clk.advance(time.Millisecond)
		l.allow(fmt.Sprintf("flood-%d", i))
		if i%2 == 0 {
			clk.advance(time.Millisecond)
			if l.allow("abuser") {
				t.Fatalf("flood key %d reset the abuser's empty bucket", i)
			}
		}
	}
	if n := len(l.b); n > 4 || l.lru.Len() != n {
		t.Errorf("keys = %d (list %d), want ≤ 4", n, l.lru.Len())
	}
	// The oldest flood keys are gone, the newest kept.
	if _, ok := l.b["flood-0"]; ok {
		t.Error("flood-0 (oldest) still kept")
	}
	if _, ok := l.b["flood-19"]; !ok {
		t.Error("flood-19 (newest) was evicted")
	}
	// An idle client that was evicted comes back with a full bucket.
	for _, k := range []string{"idle", "x1", "x2", "x3", "x4"} {
		l.allow(k)
	}
	if _, ok := l.b["idle"]; ok {
		t.Fatal("idle key survived four newer keys with maxKeys 4")
	}
	first, second, third := l.allow("idle"), l.allow("idle"), l.allow("idle")
	if !first || !second || third {
		t.Error("an evicted client should return with exactly the burst (2)")
	}
}
