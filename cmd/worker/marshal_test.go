package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
)

// TestMarshalYielding: the wire log the worker posts is exactly what
// json.Marshal writes, whatever its size (one chunk or many yields).
func TestMarshalYielding(t *testing.T) {
	id := "duplex-1"
	big := json.RawMessage(`{"type":"input_audio_buffer.append","audio":"` + strings.Repeat("A", 9000) + `"}`)
	cases := []struct {
		name   string
		events int
	}{
		{"no events", 0},
		{"one event", 1},
		{"many yields", 40},
	}
	for _, c := range cases {
		wl := &trace.Session{Format: trace.Format, Kind: trace.KindSession, Session: trace.SessionMeta{SessionID: &id,
			Extra: json.RawMessage(`{"session_thread":"worker","time_origins":{"page":1,"worker":2}}`)}}
		for i := range c.events {
			wl.Events = append(wl.Events, trace.Event{TMs: float64(i) + 0.5, Dir: trace.DirSend, Event: big})
		}
		want, err := json.Marshal(wl)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalYielding(wl)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: marshalYielding = %d bytes (%v), json.Marshal %d bytes; they differ", c.name, len(got), err, len(want))
		}
	}
}
