package app

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/trace"
)

func TestEventLogFoldsRepeats(t *testing.T) {
	t.Parallel()
	ev := func(ms float64, dir, js string) trace.Event { return trace.Event{TMs: ms, Dir: dir, Event: []byte(js)} }
	var l eventLog
	for _, e := range []trace.Event{
		ev(1, "recv", `{"type":"response.created"}`),
		ev(2, "recv", `{"type":"response.output_audio.delta","delta":"`+strings.Repeat("A", 200)+`"}`),
		ev(3, "recv", `{"type":"response.output_audio.delta","delta":"AAAA"}`),
		ev(4, "send", `{"type":"input_audio_buffer.append"}`),
		ev(5, "recv", `{"type":"response.output_audio.delta"}`),
		ev(6, "recv", `not json`),
	} {
		l.add(e)
	}
	type r struct {
		Dir, Type string
		Count     int
	}
	var got []r
	for _, x := range l.snapshot() {
		got = append(got, r{x.Dir, x.Type, x.Count})
	}
	want := []r{{"recv", "response.created", 1}, {"recv", "response.output_audio.delta", 2}, {"send", "input_audio_buffer.append", 1},
		{"recv", "response.output_audio.delta", 1}, {"recv", "(not an event)", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if js := l.snapshot()[1].JSON; len(js) > 150 || !strings.Contains(js, "…") {
		t.Errorf("audio payload not elided: %q", js)
	}
}
