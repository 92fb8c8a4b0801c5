package loadrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/loadcurve"
)

// Limits of the hub.
const (
	MaxShards         = 64
	MaxRuns           = 64    // runs kept; the least recently updated is forgotten
	MaxSessionsPerRun = 20000 // sessions kept per run
)

// ReadyRequest says runner Shard of Shards is ready to start level Level.
type ReadyRequest struct {
	Level  int   `json:"level"`
	Shard  int   `json:"shard"`
	Shards int   `json:"shards"`
	Levels []int `json:"levels,omitempty"` // the run's levels, for the live view
}

// ReadyResponse answers a ReadyRequest once every shard is ready.
type ReadyResponse struct {
	RunID  string `json:"run_id"`
	Level  int    `json:"level"`
	Shards int    `json:"shards"`
	Ready  []int  `json:"ready"`
}

// ReportRequest carries sessions a runner finished.
type ReportRequest struct {
	Shard    int                 `json:"shard"`
	Shards   int                 `json:"shards"`
	Levels   []int               `json:"levels,omitempty"`
	Sessions []loadcurve.Session `json:"sessions"`
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
}

// Errors of the hub (wrapped with the details).
var (
	ErrBadRequest = errors.New("bad load-run request")
	ErrConflict   = errors.New("load-run conflict")
	ErrNotFound   = errors.New("no such load run")
)

// Hub holds the live load runs. The zero value is not usable: use NewHub.
type Hub struct {
	now  func() time.Time
	mu   sync.Mutex
	runs map[string]*run
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
}

// NewHub returns an empty hub; now stamps updates (nil: time.Now).
func NewHub(now func() time.Time) *Hub {
	if now == nil {
		now = time.Now
	}
	return &Hub{now: now, runs: map[string]*run{}}
}

// getLocked returns run id, creating it for shards (0: unknown yet).
func (h *Hub) getLocked(id string, shard, shards int, levels []int) (*run, error) {
	if !ValidRunID(id) {
		return nil, fmt.Errorf("%w: run id %q, want [A-Za-z0-9._-]{1,128}", ErrBadRequest, id)
	}
	if shards < 1 || shards > MaxShards || shard < 1 || shard > shards {
		return nil, fmt.Errorf("%w: shard %d of %d, want 1 ≤ shard ≤ shards ≤ %d", ErrBadRequest, shard, shards, MaxShards)
	}
	for _, n := range levels {
		if n < 1 || n > loadcurve.MaxLevel {
			return nil, fmt.Errorf("%w: level %d, want 1…%d", ErrBadRequest, n, loadcurve.MaxLevel)
		}
	}
	r := h.runs[id]
	if r == nil {
		if len(h.runs) >= MaxRuns {
			h.evictLocked()
		}
		r = &run{id: id, shards: shards, runners: map[int]bool{}, ready: map[int]map[int]bool{},
			wake: map[int]chan struct{}{}, slot: map[[2]int]int{}}
		h.runs[id] = r
	}
	if r.shards != shards {
		return nil, fmt.Errorf("%w: run %s has %d shards, this runner says %d", ErrConflict, id, r.shards, shards)
	}
	if len(r.requested) == 0 && len(levels) > 0 {
		r.requested = append([]int(nil), levels...)
	}
	r.runners[shard] = true
	r.updated = h.now()
	return r, nil
}

func (h *Hub) evictLocked() {
	var oldest *run
	for _, r := range h.runs {
		if oldest == nil || r.updated.Before(oldest.updated) {
			oldest = r
		}
	}
	if oldest != nil {
		for _, c := range oldest.wake {
			select {
			case <-c:
			default:
				close(c) // release waiters of a forgotten run
			}
		}
		delete(h.runs, oldest.id)
	}
}

// Ready marks req.Shard ready for req.Level and waits until every shard
// of the run is, or ctx ends (an error naming who is missing).
func (h *Hub) Ready(ctx context.Context, id string, req ReadyRequest) (ReadyResponse, error) {
	if req.Level < 1 || req.Level > loadcurve.MaxLevel {
		return ReadyResponse{}, fmt.Errorf("%w: level %d, want 1…%d", ErrBadRequest, req.Level, loadcurve.MaxLevel)
	}
	h.mu.Lock()
	r, err := h.getLocked(id, req.Shard, req.Shards, req.Levels)
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
	return ReadyResponse{RunID: id, Level: req.Level, Shards: r.shards, Ready: keys(r.ready[req.Level])}, nil
}

// Report adds sessions and returns the run's status.
func (h *Hub) Report(id string, req ReportRequest) (Status, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, err := h.getLocked(id, req.Shard, req.Shards, req.Levels)
	if err != nil {
		return Status{}, err
	}
	for i, s := range req.Sessions {
		if s.Level < 1 || s.Level > loadcurve.MaxLevel || s.Index < 0 || s.Index > s.Level {
			return Status{}, fmt.Errorf("%w: sessions[%d]: level %d index %d, want 1 ≤ level ≤ %d and 0 ≤ index ≤ level", ErrBadRequest, i, s.Level, s.Index, loadcurve.MaxLevel)
		}
	}
	for _, s := range req.Sessions {
		k := [2]int{s.Level, s.Index}
		if at, ok := r.slot[k]; ok {
			r.sessions[at] = s
			continue
		}
		if len(r.sessions) >= MaxSessionsPerRun {
			return Status{}, fmt.Errorf("%w: run %s already holds %d sessions", ErrConflict, id, MaxSessionsPerRun)
		}
		r.slot[k] = len(r.sessions)
		r.sessions = append(r.sessions, s)
	}
	return r.status(), nil
}

// Status returns the run's pooled view.
func (h *Hub) Status(id string) (Status, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
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
