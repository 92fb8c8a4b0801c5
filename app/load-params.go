package app

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/server/loadrun"
)

// LoadSettings configure the /load page: the connect settings of one
// session (url, model, profile, frame_ms, proxy, transport, session_thread,
// autostart, the debug stall; the source must be a dataset) plus the curve.
type LoadSettings struct {
	Settings
	Levels []int   // levels=1,2,4,8,16
	JoinS  float64 // join_s: the joining session starts this long after the level's others
	RunID  string  // run_id: report live to the server's load run R (and archive as run R)
	Shard  int     // shard=i/n: this page is runner i of n (needs run_id)
	Shards int
	Watch  bool // watch=1: only show run_id's pooled curve
	// RunCap is cap=: the run capability a runner link carries (the run's
	// creator hands it out; the other shards need it to join).
	RunCap string
}

// DefaultJoinS is the join-under-load delay when join_s is not given.
const DefaultJoinS = 1.0

// DefaultLoadSettings are the /load defaults for a page served from host.
func DefaultLoadSettings(host string, secure bool) LoadSettings {
	s := DefaultSettings(host, secure)
	s.Source = SourceDataset + ":builtin"
	return LoadSettings{Settings: s, Levels: append([]int(nil), loadcurve.DefaultLevels...), JoinS: DefaultJoinS}
}

// LoadParams are the URL parameters /load reads beside SettingsParams.
var LoadParams = []string{"levels", "join_s", "run_id", "shard", "cap", "watch"}

// ParseLoadSettings applies the /load page's URL query to def; bad values
// are reported and the default kept.
func ParseLoadSettings(q url.Values, def LoadSettings) (LoadSettings, []error) {
	base, errs := ParseSettings(q, def.Settings)
	s := def
	s.Settings = base
	if s.DatasetName() == "" {
		errs = append(errs, fmt.Errorf("source=%q: a load curve streams dataset clips; want dataset:NAME", s.Source))
		s.Source = def.Source
	}
	if v, ok := q["levels"]; ok {
		if l, err := loadcurve.ParseLevels(v[0]); err != nil {
			errs = append(errs, fmt.Errorf("levels=%q: %w", v[0], err))
		} else {
			s.Levels = l
		}
	}
	if v := q.Get("join_s"); v != "" {
		j, err := strconv.ParseFloat(v, 64)
		if err != nil || j < 0 || j > 600 || j != j {
			errs = append(errs, fmt.Errorf("join_s=%q: want 0…600 seconds", v))
		} else {
			s.JoinS = j
		}
	}
	if v := q.Get("run_id"); v != "" {
		if loadrun.ValidRunID(v) {
			s.RunID = v
		} else {
			errs = append(errs, fmt.Errorf("run_id=%q: want [A-Za-z0-9._-]{1,128}", v))
		}
	}
	if v := q.Get("shard"); v != "" {
		i, n, err := loadrun.ParseShard(v)
		switch {
		case err != nil:
			errs = append(errs, err)
		case s.RunID == "":
			errs = append(errs, fmt.Errorf("shard=%q needs run_id", v))
		default:
			s.Shard, s.Shards = i, n
		}
	}
	if v := q.Get("cap"); v != "" {
		switch {
		case !loadrun.ValidRunCap(v):
			errs = append(errs, fmt.Errorf("cap: not a run capability (22–128 letters, digits, '-' or '_')"))
		case s.RunID == "":
			errs = append(errs, fmt.Errorf("cap needs run_id"))
		default:
			s.RunCap = v
		}
	}
	if v := q.Get("watch"); v == "1" || v == "true" {
		if s.RunID == "" {
			errs = append(errs, fmt.Errorf("watch=1 needs run_id"))
		} else {
			s.Watch = true
		}
	}
	return s, errs
}

// Query returns the URL parameters that reproduce s.
func (s LoadSettings) Query() url.Values {
	q := s.Settings.Query()
	if s.SessionThread != SessionThreadMain {
		q.Del("session_thread") // the default: /load links name only the baseline
	}
	var lv []string
	for _, n := range s.Levels {
		lv = append(lv, strconv.Itoa(n))
	}
	q.Set("levels", strings.Join(lv, ","))
	if s.JoinS != DefaultJoinS {
		q.Set("join_s", strconv.FormatFloat(s.JoinS, 'f', -1, 64))
	}
	if s.RunID != "" {
		q.Set("run_id", s.RunID)
	}
	if s.Shards > 0 {
		q.Set("shard", fmt.Sprintf("%d/%d", s.Shard, s.Shards))
	}
	if s.Watch {
		q.Set("watch", "1")
	}
	if s.RunCap != "" {
		q.Set("cap", s.RunCap)
	}
	return q
}

// runnerLinks returns the /load links of run's other shards, each carrying
// the run capability (empty without shards or capability).
func (s LoadSettings) runnerLinks() []string {
	if s.Shards < 2 || s.RunCap == "" {
		return nil
	}
	var out []string
	for i := 1; i <= s.Shards; i++ {
		if i == s.Shard {
			continue
		}
		o := s
		o.Shard, o.Watch = i, false
		out = append(out, "/load?"+o.Query().Encode())
	}
	return out
}

// runner names this page in the load curve's sessions.
func (s LoadSettings) runner() string {
	if s.Shards > 0 {
		return fmt.Sprintf("browser shard %d/%d", s.Shard, s.Shards)
	}
	return "browser"
}
