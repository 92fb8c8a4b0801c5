package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

func loadResult(t *testing.T, name string) metrics.SessionResult {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := trace.DecodeSession(b)
	if err != nil {
		t.Fatal(err)
	}
	return metrics.ScoreSession(s)
}

func TestBuildViewPointsCarryOrigins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		wantOrigin chart.Origin
	}{
		{"server_metrics_present.trace.json", chart.OriginServer},
		{"multi_turn_client_fallback.trace.json", chart.OriginClientReceive},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			res := loadResult(t, tc.file)
			v := buildView(viewInput{Phase: phaseDone, Result: res})
			rows := 0
			for _, r := range res.Rows {
				if r.Raw != nil {
					rows++
				}
			}
			if rows == 0 {
				t.Fatal("vector has no rows")
			}
			ttfp := v.Charts[chart.TTFP]
			if ttfp.Points != rows {
				t.Errorf("TTFP chart has %d points, want %d (one per row)", ttfp.Points, rows)
			}
			var opt struct {
				Series []struct{ Name string } `json:"series"`
			}
			if err := json.Unmarshal([]byte(ttfp.Option), &opt); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, s := range opt.Series {
				found = found || s.Name == tc.wantOrigin.Label()
			}
			if !found {
				t.Errorf("TTFP series %v lack origin %q", opt.Series, tc.wantOrigin.Label())
			}
			if v.Charts[chart.Heard].Points != 0 {
				t.Errorf("heard chart has points without playback")
			}
		})
	}
}

func TestBuildViewHeardLatencySeparate(t *testing.T) {
	t.Parallel()
	res := loadResult(t, "server_metrics_present.trace.json")
	resp := map[string]respView{}
	for _, r := range res.Responses {
		if r.CreatedMs != nil {
			resp[r.ResponseID] = respView{ID: r.ResponseID, CreatedMs: *r.CreatedMs, PlayStartMs: *r.CreatedMs + 640.5}
		}
	}
	v := buildView(viewInput{Phase: phaseDone, Result: res, Resp: resp})
	heard := v.Charts[chart.Heard]
	if heard.Points == 0 {
		t.Fatal("no heard points")
	}
	var opt struct {
		Series []struct {
			Name string
			Data []struct{ Value []float64 } `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(heard.Option), &opt); err != nil {
		t.Fatal(err)
	}
	for _, s := range opt.Series {
		if s.Name != chart.OriginPlayback.Label() {
			t.Errorf("heard series %q, want only the playback clock", s.Name)
		}
		for _, d := range s.Data {
			if d.Value[1] != 640.5 {
				t.Errorf("heard value %v, want 640.5", d.Value[1])
			}
		}
	}
	// TTFP stays vLLM's number: the heard latency is never mixed in.
	if v.Charts[chart.TTFP].Option == heard.Option {
		t.Error("TTFP chart equals the heard chart")
	}
}
