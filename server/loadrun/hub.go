package loadrun

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
)

// Limits of the hub.
const (
	MaxShards         = 64
	MaxRuns           = 64    // runs kept; the least recently updated is forgotten
	MaxSessionsPerRun = 20000 // sessions kept per run
	// MaxRunBytes bounds one run's sessions in memory (estimated); a report
	// past it is refused (ErrTooLarge).
	MaxRunBytes = 16 << 20
	// MaxHubBytes bounds every run together; past it the least recently
	// updated runs are forgotten.
	MaxHubBytes = 128 << 20
	// RunTTL is how long a run nobody updates is kept (a level barrier
	// waits at most 10 min, so a live run is always fresher).
	RunTTL = time.Hour
	// MaxResponsesPerSession and MaxPacingLags bound one session's lists.
	MaxResponsesPerSession = 4096
	MaxPacingLags          = 100000
)

// CapHeader is the request header that carries a run capability.
const CapHeader = "X-Duplexscope-Run-Cap"

// ReadyRequest says runner Shard of Shards is ready to start level Level.
type ReadyRequest struct {
	Level  int   `json:"level"`
	Shard  int   `json:"shard"`
	Shards int   `json:"shards"`
	Levels []int `json:"levels,omitempty"` // the run's levels, for the live view
	// RunCap is the run capability the request carried (CapHeader).
	RunCap string `json:"-"`
}

// ReadyResponse answers a ReadyRequest once every shard is ready.
type ReadyResponse struct {
	RunID  string `json:"run_id"`
	Level  int    `json:"level"`
	Shards int    `json:"shards"`
	Ready  []int  `json:"ready"`
	// RunCap is set when this request created the run: the capability the
	// other shards must send.
	RunCap string `json:"run_cap,omitempty"`
}

// CreateRequest creates a run (POST /api/loadruns/{run}); the run's
// capability is the one the request carries (CapHeader), or a new one.
type CreateRequest struct {
	Shards int    `json:"shards"`
	Levels []int  `json:"levels,omitempty"`
	RunCap string `json:"-"`
}

// CreateResponse answers a CreateRequest (and a repeat of it with the capability).
type CreateResponse struct {
	RunID     string `json:"run_id"`
	Shards    int    `json:"shards"`
	RunCap    string `json:"run_cap"`
	Created   bool   `json:"created"`
	ExpiresAt string `json:"expires_at"` // when the run is forgotten unless updated
}

// ReportRequest carries sessions a runner finished.
type ReportRequest struct {
	Shard    int                 `json:"shard"`
	Shards   int                 `json:"shards"`
	Levels   []int               `json:"levels,omitempty"`
	Sessions []loadcurve.Session `json:"sessions"`
	RunCap   string              `json:"-"` // see ReadyRequest
}

// Status is the pooled live view of a run.
type Status struct {
	RunID     string            `json:"run_id"`
	Shards    int               `json:"shards"`
	Requested []int             `json:"requested"`
	Runners   []int             `json:"runners"` // shards heard from
	Clock     string            `json:"clock"`
	Levels    []loadcurve.Level `json:"levels"`
	Sessions  int               `json:"sessions"`
	UpdatedAt string            `json:"updated_at"`
	// RunCap is set on the answer to the report that created the run.
	RunCap string `json:"run_cap,omitempty"`
}

// Errors of the hub (wrapped with the details).
var (
	ErrBadRequest = errors.New("bad load-run request")
	ErrConflict   = errors.New("load-run conflict")
	ErrNotFound   = errors.New("no such load run")
	ErrForbidden  = errors.New("load run capability missing or wrong")
	ErrTooLarge   = errors.New("load run over its size limit")
)

// Bytes is the estimated memory of every run's sessions.
func (h *Hub) Bytes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// Hub holds the live load runs. The zero value is not usable: use NewHub.
type Hub struct {
	now   func() time.Time
	mu    sync.Mutex
	runs  map[string]*run
	bytes int64 // estimated memory of every run's sessions
}

type run struct {
	id        string
	shards    int
	requested []int
	runners   map[int]bool
	ready     map[int]map[int]bool  // level → shards ready
	wake      map[int]chan struct{} // level → closed when all shards are ready
	sessions  []loadcurve.Session
	slot      map[[2]int]int // (level, index) → position in sessions
	updated   time.Time
	cap       string // the run capability every request but the creating one carries
	bytes     int64  // estimated memory of sessions
}

// NewHub returns an empty hub; now stamps updates (nil: time.Now).
func NewHub(now func() time.Time) *Hub {
	if now == nil {
		now = time.Now
	}
	return &Hub{now: now, runs: map[string]*run{}}
}

// getLocked returns run id, creating it for shards (0: unknown yet); created
// says this call made it. An existing run needs its capability.
func (h *Hub) getLocked(id string, shard, shards int, levels []int, cap string) (r *run, created bool, err error) {
	if !ValidRunID(id) {
		return nil, false, fmt.Errorf("%w: run id %q, want [A-Za-z0-9._-]{1,128}", ErrBadRequest, id)
	}
	if shards < 1 || shards > MaxShards || shard < 1 || shard > shards {
		return nil, false, fmt.Errorf("%w: shard %d of %d, want 1 ≤ shard ≤ shards ≤ %d", ErrBadRequest, shard, shards, MaxShards)
	}
	if len(levels) > MaxLevels {
		return nil, false, fmt.Errorf("%w: %d levels, want at most %d", ErrBadRequest, len(levels), MaxLevels)
	}
	for _, n := range levels {
		if n < 1 || n > loadcurve.MaxLevel {
			return nil, false, fmt.Errorf("%w: level %d, want 1…%d", ErrBadRequest, n, loadcurve.MaxLevel)
		}
	}
	if cap != "" && !ValidRunCap(cap) {
		return nil, false, fmt.Errorf("%w: a run capability is 22–128 letters, digits, '-' or '_'", ErrBadRequest)
	}
	h.expireLocked()
	r = h.runs[id]
	if r == nil {
		if len(h.runs) >= MaxRuns {
			h.evictLocked(nil)
		}
		if cap == "" {
			cap = NewRunCap()
		}
		r = &run{id: id, shards: shards, runners: map[int]bool{}, ready: map[int]map[int]bool{},
			wake: map[int]chan struct{}{}, slot: map[[2]int]int{}, cap: cap}
		h.runs[id] = r
		created = true
	} else if subtle.ConstantTimeCompare([]byte(cap), []byte(r.cap)) != 1 {
		return nil, false, fmt.Errorf("%w: load run %s exists; joining it needs its run capability — open the runner link its first runner shows (…&cap=…) or pass --run-cap", ErrForbidden, id)
	}
	if r.shards != shards {
		return nil, false, fmt.Errorf("%w: run %s has %d shards, this runner says %d", ErrConflict, id, r.shards, shards)
	}
	if len(r.requested) == 0 && len(levels) > 0 {
		r.requested = append([]int(nil), levels...)
	}
	r.runners[shard] = true
	r.updated = h.now()
	return r, created, nil
}

// MaxLevels bounds a run's level list.
const MaxLevels = 64

// ValidRunCap reports whether c may be a run capability: 22–128 of
// [A-Za-z0-9_-] (base64url). A loop, not a regexp: `{22,128}` compiles
// into 128 copies of the class, 3 000 allocations at every page start.
func ValidRunCap(c string) bool {
	if len(c) < 22 || len(c) > 128 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if b := c[i]; !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// NewRunCap returns a random run capability (128 bits, base64url).
func NewRunCap() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// CapOK reports whether cap is the capability of the live run id.
func (h *Hub) CapOK(id, cap string) bool {
	if cap == "" {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expireLocked()
	r := h.runs[id]
	return r != nil && subtle.ConstantTimeCompare([]byte(cap), []byte(r.cap)) == 1
}

// expireLocked forgets runs nobody updated for RunTTL.
func (h *Hub) expireLocked() {
	cut := h.now().Add(-RunTTL)
	for _, r := range h.runs {
		if r.updated.Before(cut) {
			h.dropLocked(r)
		}
	}
}

// evictLocked forgets the least recently updated run other than keep.
func (h *Hub) evictLocked(keep *run) bool {
	var oldest *run
	for _, r := range h.runs {
		if r != keep && (oldest == nil || r.updated.Before(oldest.updated)) {
			oldest = r
		}
	}
	if oldest == nil {
		return false
	}
	h.dropLocked(oldest)
	return true
}

func (h *Hub) dropLocked(r *run) {
	for _, c := range r.wake {
		select {
		case <-c:
		default:
			close(c) // release waiters of a forgotten run
		}
	}
	h.bytes -= r.bytes
	delete(h.runs, r.id)
}

// Create creates run id (or confirms it to the holder of its capability).
func (h *Hub) Create(id string, req CreateRequest) (CreateResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	heard := h.runs[id] != nil && h.runs[id].runners[1]
	r, created, err := h.getLocked(id, 1, req.Shards, req.Levels, req.RunCap)
	if err != nil {
		return CreateResponse{}, err
	}
	if !heard {
		delete(r.runners, 1) // creating is not hearing from shard 1
	}
	return CreateResponse{RunID: id, Shards: r.shards, RunCap: r.cap, Created: created,
		ExpiresAt: r.updated.Add(RunTTL).UTC().Format(time.RFC3339)}, nil
}

// sessionBytes estimates what s costs in memory.
func sessionBytes(s *loadcurve.Session) int64 {
	return 160 + int64(len(s.Runner)+len(s.SessionID)+len(s.Error)) + 48*int64(len(s.Responses)) + 8*int64(len(s.PacingLagMs))
}

// Ready marks req.Shard ready for req.Level and waits until every shard
// of the run is, or ctx ends (an error naming who is missing).
func (h *Hub) Ready(ctx context.Context, id string, req ReadyRequest) (ReadyResponse, error) {
	if req.Level < 1 || req.Level > loadcurve.MaxLevel {
		return ReadyResponse{}, fmt.Errorf("%w: level %d, want 1…%d", ErrBadRequest, req.Level, loadcurve.MaxLevel)
	}
	h.mu.Lock()
	r, created, err := h.getLocked(id, req.Shard, req.Shards, req.Levels, req.RunCap)
	if err != nil {
		h.mu.Unlock()
		return ReadyResponse{}, err
	}
	set := r.ready[req.Level]
	if set == nil {
		set = map[int]bool{}
		r.ready[req.Level] = set
		r.wake[req.Level] = make(chan struct{})
	}
	set[req.Shard] = true
	wake := r.wake[req.Level]
	if len(set) == r.shards {
		select {
		case <-wake:
		default:
			close(wake)
		}
	}
	h.mu.Unlock()
	select {
	case <-wake:
	case <-ctx.Done():
		h.mu.Lock()
		n := len(r.ready[req.Level])
		h.mu.Unlock()
		return ReadyResponse{}, fmt.Errorf("only %d of %d runners reached level %d of run %s: %w", n, req.Shards, req.Level, id, ctx.Err())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs[id] != r {
		return ReadyResponse{}, fmt.Errorf("%w: run %s was forgotten while waiting (more than %d load runs)", ErrConflict, id, MaxRuns)
	}
	res := ReadyResponse{RunID: id, Level: req.Level, Shards: r.shards, Ready: keys(r.ready[req.Level])}
	if created {
		res.RunCap = r.cap
	}
	return res, nil
}

// Report adds sessions and returns the run's status.
func (h *Hub) Report(id string, req ReportRequest) (Status, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, s := range req.Sessions {
		if s.Level < 1 || s.Level > loadcurve.MaxLevel || s.Index < 0 || s.Index > s.Level {
			return Status{}, fmt.Errorf("%w: sessions[%d]: level %d index %d, want 1 ≤ level ≤ %d and 0 ≤ index ≤ level", ErrBadRequest, i, s.Level, s.Index, loadcurve.MaxLevel)
		}
		if len(s.Responses) > MaxResponsesPerSession || len(s.PacingLagMs) > MaxPacingLags {
			return Status{}, fmt.Errorf("%w: sessions[%d]: %d responses and %d pacing lags, want at most %d and %d", ErrBadRequest, i,
				len(s.Responses), len(s.PacingLagMs), MaxResponsesPerSession, MaxPacingLags)
		}
	}
	r, created, err := h.getLocked(id, req.Shard, req.Shards, req.Levels, req.RunCap)
	if err != nil {
		return Status{}, err
	}
	// Check the whole report against the budgets before keeping any of it.
	var grow int64
	adds := 0
	seen := map[[2]int]bool{}
	for i := range req.Sessions {
		s := &req.Sessions[i]
		k := [2]int{s.Level, s.Index}
		grow += sessionBytes(s)
		if at, ok := r.slot[k]; ok && !seen[k] {
			grow -= sessionBytes(&r.sessions[at])
		} else if !ok && !seen[k] {
			adds++
		}
		seen[k] = true
	}
	if len(r.sessions)+adds > MaxSessionsPerRun {
		return Status{}, fmt.Errorf("%w: run %s already holds %d sessions", ErrConflict, id, MaxSessionsPerRun)
	}
	if r.bytes+grow > MaxRunBytes {
		return Status{}, fmt.Errorf("%w: run %s would hold %.1f MiB of sessions, the most one load run keeps is %d MiB", ErrTooLarge, id,
			float64(r.bytes+grow)/(1<<20), MaxRunBytes>>20)
	}
	for h.bytes+grow > MaxHubBytes && h.evictLocked(r) {
	}
	for _, s := range req.Sessions {
		k := [2]int{s.Level, s.Index}
		if at, ok := r.slot[k]; ok {
			r.sessions[at] = s
			continue
		}
		r.slot[k] = len(r.sessions)
		r.sessions = append(r.sessions, s)
	}
	r.bytes += grow
	h.bytes += grow
	st := r.status()
	if created {
		st.RunCap = r.cap
	}
	return st, nil
}

// Status returns the run's pooled view.
func (h *Hub) Status(id string) (Status, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expireLocked()
	r := h.runs[id]
	if r == nil {
		return Status{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r.status(), nil
}

func (r *run) status() Status {
	return Status{RunID: r.id, Shards: r.shards, Requested: append([]int{}, r.requested...), Runners: keys(r.runners),
		Clock: loadcurve.Clock, Levels: loadcurve.Curve(r.requested, r.sessions), Sessions: len(r.sessions),
		UpdatedAt: r.updated.UTC().Format(time.RFC3339Nano)}
}

func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
