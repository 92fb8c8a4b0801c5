//go:build !js

package server_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
)

// countingStore counts the report bodies read.
type countingStore struct {
	archive.Store
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, id string) (archive.Record, error) {
	c.gets.Add(1)
	return c.Store.Get(ctx, id)
}

// TestRunMergeCached: a merged run is read once while its shards stay the
// same (page and API share it); a new shard is merged in; the run page
// shows at most its row cap with a note, the numbers from every row.
func TestRunMergeCached(t *testing.T) {
	cs := &countingStore{}
	e := newEnv(t, func(c *server.Config) { cs.Store = c.Store; c.Store = cs })
	upload(t, e, fixture{model: "m", n: 1500, ttfp: 300, seed: 1, runID: "rc", shard: &report.Shard{Index: 1, Count: 2}}.json(t))
	for i, path := range []string{"/runs/rc", "/api/runs/rc", "/runs/rc"} {
		before := cs.gets.Load()
		if code, _, b := e.do("GET", path, nil); code != 200 {
			t.Fatalf("%s = %d %.200s", path, code, b)
		}
		if reads := cs.gets.Load() - before; (i == 0) != (reads > 0) {
			t.Errorf("request %d (%s) read %d bodies, want reads only for the first", i+1, path, reads)
		}
	}
	upload(t, e, fixture{model: "m", n: 1500, ttfp: 300, seed: 2, runID: "rc", shard: &report.Shard{Index: 2, Count: 2}}.json(t))
	before := cs.gets.Load()
	code, _, b := e.do("GET", "/runs/rc", nil)
	if code != 200 || cs.gets.Load() == before {
		t.Fatalf("after a new shard: %d, %d reads; want a fresh merge", code, cs.gets.Load()-before)
	}
	page := string(b)
	if !strings.Contains(page, "show 2000 of the run") || !strings.Contains(page, "3000 responses") || !strings.Contains(page, "final") {
		t.Errorf("run page lacks the row-cap note: %.300s", page[strings.Index(page, `id="shards"`):])
	}
	if n := strings.Count(page, "<tr"); n > 2100 {
		t.Errorf("run page renders %d table rows, want at most the cap", n)
	}
}
