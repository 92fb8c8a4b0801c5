package loadrun

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/apiclient"
)

// Client is a runner's side of a load run on a duplexscope server.
type Client struct {
	Base   string // server URL, e.g. http://127.0.0.1:8080
	RunID  string
	Shard  int // 1-based
	Shards int
	Levels []int
	// Token is sent as Authorization: Bearer (write token or page capability).
	Token string
	// RunCap is the run capability (CapHeader): the other shards get it from
	// the runner that created the run; Create fills it in.
	RunCap string
	HTTP   apiclient.Doer // nil: http.DefaultClient
	// Wait is how long the server may hold a Ready (0: the server's 2 min).
	Wait time.Duration
}

// path is the run's API path plus suffix.
func (c *Client) path(suffix string) string {
	return "/api/loadruns/" + url.PathEscape(c.RunID) + suffix
}

// Ready blocks until every runner is ready for level n (the server holds
// the request; ctx bounds the wait).
func (c *Client) Ready(ctx context.Context, n int) (ReadyResponse, error) {
	var out ReadyResponse
	p := c.path("/ready")
	if c.Wait > 0 {
		p += "?wait_s=" + strconv.FormatFloat(c.Wait.Seconds(), 'f', -1, 64)
	}
	err := c.do(ctx, http.MethodPost, p, ReadyRequest{Level: n, Shard: c.Shard, Shards: c.Shards, Levels: c.Levels}, &out)
	return out, err
}

// Create creates the run (or confirms it when RunCap is its capability)
// and sets RunCap. Call it before the other methods, not concurrently.
func (c *Client) Create(ctx context.Context) (CreateResponse, error) {
	var out CreateResponse
	err := c.do(ctx, http.MethodPost, c.path(""), CreateRequest{Shards: c.Shards, Levels: c.Levels}, &out)
	if err == nil {
		c.RunCap = out.RunCap
	}
	return out, err
}

// Report sends finished sessions and returns the pooled status.
func (c *Client) Report(ctx context.Context, sessions []loadcurve.Session) (Status, error) {
	var out Status
	err := c.do(ctx, http.MethodPost, c.path("/sessions"), ReportRequest{Shard: c.Shard, Shards: c.Shards, Levels: c.Levels, Sessions: sessions}, &out)
	return out, err
}

// Status fetches the pooled live view.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var out Status
	err := c.do(ctx, http.MethodGet, c.path(""), nil, &out)
	return out, err
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	// A run's answers grow with its sessions, which the hub bounds.
	api := apiclient.Client{Base: c.Base, Token: c.Token, HTTP: c.HTTP, MaxAnswer: MaxRunBytes}
	if c.RunCap != "" {
		api.Header = http.Header{CapHeader: {c.RunCap}}
	}
	if err := api.JSON(ctx, method, path, in, out); err != nil {
		return fmt.Errorf("load run %s: %w", c.RunID, err)
	}
	return nil
}

// ValidRunID reports whether id may name a run: the archive's rule
// (report.ValidRunID: 1–128 of [A-Za-z0-9._-], not starting with '.'), so
// a run the hub accepts is one the archive stores.
func ValidRunID(id string) bool { return report.ValidRunID(id) }

// ParseShard reads "i/n" (1 ≤ i ≤ n ≤ MaxShards).
func ParseShard(s string) (shard, shards int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxShards || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q, want i/n with 1 ≤ i ≤ n ≤ %d", s, MaxShards)
	}
	return i, n, nil
}
