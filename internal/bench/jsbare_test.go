//go:build !js

package bench

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// TestJSBarePlan: the appends carry the input whole, in order, one 200 ms
// frame each (the last one shorter), as input_audio_buffer.append frames
// the simulator reads; the URL is the realtime endpoint with model=sim.
func TestJSBarePlan(t *testing.T) {
	t.Parallel()
	frame := audio.FrameBytes(audio.InputRate, 200)
	pcm := make([]byte, 2*frame+100)
	for i := range pcm {
		pcm[i] = byte(i * 7)
	}
	p, err := newJSBarePlan("ws://127.0.0.1:1/v1/realtime?sim_seed=17", pcm)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Appends) != 3 {
		t.Fatalf("%d appends for %d bytes in %d-byte frames, want 3", len(p.Appends), len(pcm), frame)
	}
	var got []byte
	for i, a := range p.Appends {
		var m struct{ Type, Audio string }
		if err := json.Unmarshal([]byte(a), &m); err != nil || m.Type != protocol.TypeInputAudioBufferAppend {
			t.Fatalf("append %d = %.60s (%v), want an %s frame", i, a, err, protocol.TypeInputAudioBufferAppend)
		}
		b, err := base64.StdEncoding.DecodeString(m.Audio)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b...)
	}
	if !bytes.Equal(got, pcm) {
		t.Error("the appends do not carry the input whole and in order")
	}
	if !strings.Contains(p.URL, "model=sim") || !strings.Contains(p.URL, "sim_seed=17") {
		t.Errorf("URL %q lost model=sim or the seed", p.URL)
	}
	if ev, err := protocol.Decode([]byte(p.Update)); err != nil || ev.EventType() != protocol.TypeSessionUpdate {
		t.Errorf("update %q does not decode as session.update (%v)", p.Update, err)
	}
}

// TestJSBareEvents: stamps and types become recv events FrameErrors pairs
// by type; a count mismatch is an error, never a silent pairing.
func TestJSBareEvents(t *testing.T) {
	t.Parallel()
	ev, err := jsBareEvents([]float64{1.5, 2.25}, []string{"session.created", "response.created"})
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Event{{TMs: 1.5, Dir: trace.DirRecv, Event: json.RawMessage(`{"type":"session.created"}`)},
		{TMs: 2.25, Dir: trace.DirRecv, Event: json.RawMessage(`{"type":"response.created"}`)}}
	if len(ev) != len(want) {
		t.Fatalf("%d events, want %d", len(ev), len(want))
	}
	for i := range want {
		if ev[i].TMs != want[i].TMs || ev[i].Dir != want[i].Dir || string(ev[i].Event) != string(want[i].Event) {
			t.Errorf("event %d = %+v, want %+v", i, ev[i], want[i])
		}
	}
	if _, err := jsBareEvents([]float64{1}, nil); err == nil {
		t.Error("one stamp for no frame paired without an error")
	}
}

// TestJSBareHandler: the page starts /worker.js, which fetches /plan.json.
func TestJSBareHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(jsBareHandler([]byte(`{"url":"ws://x"}`)))
	defer srv.Close()
	for _, c := range []struct{ path, ctype, has string }{
		{"/", "text/html", `new Worker("/worker.js")`},
		{"/worker.js", "text/javascript", `fetch("/plan.json")`},
		{"/plan.json", "application/json", `{"url":"ws://x"}`},
	} {
		res, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), c.ctype) || !strings.Contains(string(b), c.has) {
			t.Errorf("GET %s: %d %q, body lacks %q", c.path, res.StatusCode, res.Header.Get("Content-Type"), c.has)
		}
	}
	res, err := http.Get(srv.URL + "/other")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %d, want 404", res.StatusCode)
	}
}
