package app

import "testing"

// TestViewCache: a snapshot's charts are reused until what they are built
// from changes; nothing is reused before a snapshot was kept.
func TestViewCache(t *testing.T) {
	t.Parallel()
	var c viewCache
	a := viewKey{accepted: 1, responses: 2, played: 1}
	if c.reuse(a) != nil {
		t.Fatal("reused a snapshot before one was kept")
	}
	s1 := &liveSnapshot{}
	c.snap = s1
	if got := c.reuse(a); got != s1 {
		t.Errorf("same key: reuse = %p, want the kept snapshot %p", got, s1)
	}
	for _, k := range []viewKey{{2, 2, 1}, {1, 3, 1}, {1, 2, 2}} {
		c.snap = s1
		c.key = a
		if c.reuse(k) != nil {
			t.Errorf("key %+v after %+v: reused, want a rebuild", k, a)
		}
		if c.snap = s1; c.reuse(k) != s1 {
			t.Errorf("key %+v twice: not reused the second time", k)
		}
	}
}
