package session

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/trace"
)

// TestWorkerStartConfig: the worker and the main-thread page dial the
// same session from one description.
func TestWorkerStartConfig(t *testing.T) {
	w := WorkerStart{URL: "ws://h/v1/realtime", Model: "m", FrameMs: 80, Transport: TransportCoder, NativeDuplex: true,
		SampleID: "builtin", Split: "browser", StallMs: 250, StallEveryMs: 1000}
	c := w.Config()
	want := Config{URL: w.URL, Model: "m", FrameMs: 80, Transport: TransportCoder, NativeDuplex: true, ExternalPlayback: true,
		SampleID: "builtin", Split: "browser", StallMs: 250, StallEveryMs: 1000}
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("Config() = %+v, want %+v", *c, want)
	}
	if c := (WorkerStart{URL: "ws://h", Split: "x"}).Config(); c.SampleID != "" || c.Split != "" {
		t.Errorf("a split without a sample id: %q %q (both or neither)", c.SampleID, c.Split)
	}
}

// TestWorkerStartLoadConfig: a /load session dials the same on both
// threads: the page's session with simulated playback (nothing is heard)
// and the load page's completion wait.
func TestWorkerStartLoadConfig(t *testing.T) {
	w := WorkerStart{URL: "ws://h/v1/realtime", Model: "m", FrameMs: 200, Transport: TransportBrowser,
		SampleID: "load2-1", Split: "load", PageOrigin: 1.7e12, StallMs: 250, StallEveryMs: 1000}
	want := *w.Config()
	want.ExternalPlayback, want.CompletionTimeout = false, 2*time.Minute
	if c := w.LoadConfig(); !reflect.DeepEqual(*c, want) {
		t.Errorf("LoadConfig() = %+v, want %+v", *c, want)
	}
}

// TestWorkerResultRoundTrip: what the page rebuilds from the worker's
// "closed" message equals the worker's Result.
func TestWorkerResultRoundTrip(t *testing.T) {
	tr := &trace.Session{Format: trace.Format, Kind: trace.KindSession}
	lags := []time.Duration{1500 * time.Microsecond, -250 * time.Microsecond}
	r := &Result{SessionID: "s1", Trace: tr, PacingLag: lags, Pacing: SummarizeLag(lags), Incomplete: true, Warnings: []string{"w"}}
	b, err := json.Marshal(NewWorkerResult(r))
	if err != nil {
		t.Fatal(err)
	}
	var back WorkerResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := back.Result(tr, nil)
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
	}
}
