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

// TestBuildViewTPOTMatchesSummary: the TPOT chart plots exactly the values
// the session summary's tpot_ms counts (> 0; a 0 ms TPOT is excluded there).
func TestBuildViewTPOTMatchesSummary(t *testing.T) {
	t.Parallel()
	ev := func(tm float64, s string) trace.Event {
		return trace.Event{TMs: tm, Dir: trace.DirRecv, Event: json.RawMessage(s)}
	}
	turn := func(t0 float64, id, tpot string) []trace.Event {
		return []trace.Event{
			ev(t0, `{"type":"response.created","response":{"id":"`+id+`"}}`),
			ev(t0+50, `{"type":"response.output_audio.delta","response_id":"`+id+`","delta":"AAAA","metadata":{"stage_metrics":{"0":{"num_tokens_out":3,"vllm_tpot_ms":`+tpot+`}}}}`),
		}
	}
	var evs []trace.Event
	evs = append(evs, turn(100, "a", "12.5")...)
	evs = append(evs, turn(300, "b", "0")...)
	evs = append(evs, turn(500, "c", "0.0")...)
	evs = append(evs, turn(700, "d", "7")...)
	res := metrics.ScoreSession(trace.Session{Events: evs})
	if res.Summary.TPOTMs == nil || res.Summary.TPOTMs.Count != 2 {
		t.Fatalf("summary tpot_ms = %+v, want count 2", res.Summary.TPOTMs)
	}
	v := buildView(viewInput{Phase: phaseDone, Result: res})
	if got := v.Charts[chart.TPOT].Points; got != res.Summary.TPOTMs.Count {
		t.Errorf("TPOT chart has %d points, summary counts %d", got, res.Summary.TPOTMs.Count)
	}
}
