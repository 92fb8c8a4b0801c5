package tracker

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/trace"
)

func TestLogFoldsRepeats(t *testing.T) {
	t.Parallel()
	var l Log
	for _, e := range []trace.Event{
		ev(1, "recv", `{"type":"response.created"}`),
		ev(2, "recv", `{"type":"response.output_audio.delta","delta":"`+strings.Repeat("A", 200)+`"}`),
		ev(3, "recv", `{"type":"response.output_audio.delta","delta":"AAAA"}`),
		ev(4, "send", `{"type":"input_audio_buffer.append"}`),
		ev(5, "recv", `{"type":"response.output_audio.delta"}`),
		ev(6, "recv", `not json`),
	} {
		l.Add(e)
	}
	type r struct {
		Dir, Type string
		Count     int
	}
	var got []r
	for _, x := range l.Last(100) {
		got = append(got, r{x.Dir, x.Type, x.Count})
	}
	want := []r{{"recv", "response.created", 1}, {"recv", "response.output_audio.delta", 2}, {"send", "input_audio_buffer.append", 1},
		{"recv", "response.output_audio.delta", 1}, {"recv", "(not an event)", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if js := l.Last(100)[1].JSON; len(js) > 150 || !strings.Contains(js, "…") {
		t.Errorf("audio payload not elided: %q", js)
	}
	if got := l.Last(2); len(got) != 2 || got[1].Type != "(not an event)" {
		t.Errorf("Last(2) = %+v, want the last two rows", got)
	}
}

func TestLogDropsOldest(t *testing.T) {
	t.Parallel()
	var l Log
	for i := range MaxLogRows + 3 {
		dir := "send"
		if i%2 == 1 {
			dir = "recv"
		}
		l.Add(ev(float64(i), dir, `{"type":"x"}`))
	}
	rows := l.Last(MaxLogRows + 10)
	if len(rows) != MaxLogRows || l.Dropped() != 3 || rows[0].TMs != 3 {
		t.Errorf("%d rows, %d dropped, first at %v; want %d, 3, 3", len(rows), l.Dropped(), rows[0].TMs, MaxLogRows)
	}
}

// Elide does what the page's regexp did before it (a hand-written scan
// keeps regexp out of the session worker): the regexp is the oracle.
func TestElideMatchesTheRegexp(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`"(delta|audio)":"([A-Za-z0-9+/=]{64})[A-Za-z0-9+/=]*"`)
	long, short := strings.Repeat("QUJD", 40), strings.Repeat("QUJD", 10)
	for _, in := range []string{
		`{"type":"x"}`,
		`{"delta":"` + long + `"}`,
		`{"audio":"` + long + `","delta":"` + long + `"}`,
		`{"delta":"` + short + `","audio":"` + long + `"}`,
		`{"delta":"` + strings.Repeat("A", 64) + `"}`,
		`{"delta":"` + strings.Repeat("A", 63) + `"}`,
		`{"delta":"` + long + `!"}`,
		`{"delta":"` + long,
		`{"delta":"delta":"` + long + `"}`,
		`{"x":"\"delta\":\"` + long + `"}`,
		strings.Repeat(`{"delta":"`+long+`"}`, 120), // cut at 16 KiB mid-payload
	} {
		raw := []byte(in)
		cut := raw
		if len(cut) > 16384 {
			cut = cut[:16384]
		}
		want := re.ReplaceAllString(string(cut), `"$1":"$2…"`)
		if got := Elide(raw); got != want {
			t.Errorf("Elide(%.80q…)\n got %.200q\nwant %.200q", in, got, want)
		}
	}
}
