//go:build !js

package server

import (
	"sync"

	"github.com/duplexscope/duplexscope/report"
)

// reportCache keeps recently decoded reports by "id/body-sha256/rev" (a
// stored body changes only by a relabel, which bumps rev, so entries need
// no expiry; loadReport still asks the store first so deletions show at
// once). Pages treat them as read-only.
type reportCache struct {
	mu    sync.Mutex
	max   int
	order []string
	m     map[string]*report.Report
}

func newReportCache(max int) *reportCache {
	return &reportCache{max: max, m: map[string]*report.Report{}}
}

func (c *reportCache) get(id string) *report.Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[id]
}

func (c *reportCache) put(id string, r *report.Report) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; ok || c.max <= 0 {
		return
	}
	if len(c.order) >= c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, id)
	c.m[id] = r
}
