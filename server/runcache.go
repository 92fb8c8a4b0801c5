//go:build !js

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// Bounds of a merged run (GET /runs/{run}, GET /api/runs/{run}): merging
// reads and decodes every shard, so a run may hold at most maxRunShards
// uploads and maxRunResponses responses in all (one report's row limit);
// merges run one at a time and the last runMergeCache results are kept,
// keyed by the shards' ids and body hashes, so asking again costs one
// List. The run page shows at most runPageRows responses (evenly spaced).
const (
	maxRunShards    = 64
	maxRunResponses = 100_000
	runMergeCache   = 4
	runPageRows     = 2000
)

// errRunTooLarge is a run over the merge bounds (its text is for people).
var errRunTooLarge = errors.New("run too large to merge")

type mergedRun struct {
	key  string
	resp *RunResponse
	json []byte // the /api/runs/{run} body
}

// runCache is the merged-run cache; mu also serialises merges.
type runCache struct {
	mergeMu sync.Mutex
	mu      sync.Mutex
	items   []*mergedRun // most recent last
}

func (c *runCache) get(key string) *mergedRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.items {
		if m.key == key {
			return m
		}
	}
	return nil
}

func (c *runCache) put(m *mergedRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = append(c.items, m)
	if len(c.items) > runMergeCache {
		c.items = c.items[1:]
	}
}

// runKey lists run's shards and returns the cache key, refusing a run
// over the bounds before anything is read.
func (s *Server) runKey(ctx context.Context, run string) (string, error) {
	var b strings.Builder
	b.WriteString(run)
	n, rows := 0, 0
	f := archive.Filter{RunID: run, Limit: 500}
	for {
		p, err := s.cfg.Store.List(ctx, f)
		if err != nil {
			return "", err
		}
		for _, m := range p.Items {
			n++
			rows += m.Responses
			b.WriteString("\x00" + m.ID + "/" + m.BodySHA256 + "/" + strconv.FormatInt(m.Rev, 10))
		}
		if n > maxRunShards {
			return "", fmt.Errorf("%w: run %s has more than %d uploads; open each shard's page instead", errRunTooLarge, run, maxRunShards)
		}
		if rows > maxRunResponses {
			return "", fmt.Errorf("%w: run %s holds %d responses, more than the %d a merged run may hold; open each shard's page instead", errRunTooLarge, run, rows, maxRunResponses)
		}
		if p.Next == "" {
			break
		}
		f.Cursor = p.Next
	}
	if n == 0 {
		return "", archive.ErrNotFound
	}
	return b.String(), nil
}

// mergedRun returns run merged (cached while its shards are unchanged).
func (s *Server) mergedRun(ctx context.Context, run string) (*mergedRun, error) {
	key, err := s.runKey(ctx, run)
	if err != nil {
		return nil, err
	}
	c := s.runs
	if m := c.get(key); m != nil {
		return m, nil
	}
	c.mergeMu.Lock() // one merge at a time: memory stays one run's worth
	defer c.mergeMu.Unlock()
	if m := c.get(key); m != nil {
		return m, nil // merged while we waited
	}
	resp, err := s.loadRun(ctx, run)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(resp) // escapes <, > and & like writeJSON
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	m := &mergedRun{key: key, resp: resp, json: b}
	// A shard that arrived during the merge changes the key: keep the
	// result under the key it was listed with only when still current.
	if k2, err := s.runKey(ctx, run); err == nil && k2 == key {
		c.put(m)
	}
	return m, nil
}

// pageReport returns r with at most n evenly spaced responses (r itself
// when it has fewer), for the run page's table and charts.
func pageReport(r *report.Report, n int) *report.Report {
	rows := r.Metrics.Requests
	if len(rows) <= n {
		return r
	}
	cp := *r
	cp.Metrics.Requests = make([]report.Row, n)
	for i := range cp.Metrics.Requests {
		cp.Metrics.Requests[i] = rows[int(int64(i)*int64(len(rows))/int64(n))]
	}
	return &cp
}
