//go:build !js

package bench

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestDroppedFrames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		warnings []pageWarning
		want     int
	}{
		{"none", nil, 0},
		{"one pacing_lag", []pageWarning{{"pacing_lag", "3 input frames could not be sent in time and were dropped"}}, 3},
		{"summed", []pageWarning{{"pacing_lag", "3 input frames could not be sent in time and were dropped"}, {"pacing_lag", "4 input frames could not be sent in time and were dropped"}}, 7},
		{"other code ignored", []pageWarning{{"clock_skew", "5 input frames could not be sent in time and were dropped"}}, 0},
		{"other message ignored", []pageWarning{{"pacing_lag", "the page fell behind"}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := droppedFrames(tc.warnings); got != tc.want {
				t.Errorf("droppedFrames = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestSessionThread(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		extra string
		want  string
	}{
		{"no extra", "", "main"},
		{"no time origins", `{"frame_ms":200}`, "main"},
		{"page origin only", `{"time_origins":{"page":0}}`, "main"},
		{"worker origin", `{"time_origins":{"page":0,"worker":12.5}}`, "worker"},
		{"worker origin at zero", `{"time_origins":{"worker":0}}`, "worker"},
		{"not JSON", `{`, "main"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := sessionThread(json.RawMessage(tc.extra)); got != tc.want {
				t.Errorf("sessionThread(%s) = %q, want %q", tc.extra, got, tc.want)
			}
		})
	}
}

func TestTransportFidelityRows(t *testing.T) {
	t.Parallel()
	e := Errors{CreatedText: []float64{-1, 2}, CreatedAudio: []float64{3}, AudioSpan: nil}
	want := [][]string{
		{"coder", "created → first text", "2", "1.000", "2.000", "2.000", "1.00×"},
		{"coder", "created → first audio", "1", "3.000", "3.000", "3.000", "1.50×"},
		{"coder", "first → last audio", "0", "n/a", "n/a", "n/a", "n/a"},
		{"coder", "all three pooled", "3", "2.000", "3.000", "3.000", "1.50×"},
	}
	if got := transportFidelityRows("coder", e, 2); !reflect.DeepEqual(got, want) {
		t.Errorf("rows =\n%q\nwant\n%q", got, want)
	}
	// Without a native figure the ratio column says so.
	for _, r := range transportFidelityRows("browser", e, math.NaN()) {
		if r[6] != "n/a" {
			t.Errorf("row %q: ratio without a native base = %q, want n/a", r[1], r[6])
		}
	}
}
