//go:build !js

package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/testkit"
)

// TestScrubLinks: every way of writing a link outside script elements is
// removed unless it points inside the file; script bodies are untouched.
func TestScrubLinks(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"double-quoted path", `<a href="/history">h</a>`, `<a>h</a>`},
		{"single-quoted url", `<a class=x href='https://evil.example/'>h</a>`, `<a class=x>h</a>`},
		{"bare", `<a href=/r/abc download>h</a>`, `<a download>h</a>`},
		{"spaces and case", `<IMG SRC = "http://x/y.png">`, `<IMG>`},
		{"form action", `<form action="/compare"><button formaction="/x">`, `<form><button>`},
		{"protocol-relative", `<link href="//cdn.example/a.css">`, `<link>`},
		{"data kept", `<audio src="data:audio/wav;base64,AAAA">`, `<audio src="data:audio/wav;base64,AAAA">`},
		{"fragment kept", `<a href="#listen">l</a>`, `<a href="#listen">l</a>`},
		{"data-* attributes kept", `<li data-src="x" data-t="1.0">`, `<li data-src="x" data-t="1.0">`},
		{"script body untouched", `<script type="application/json">{"t":"a src=/x"}</script><a href="/y">`, `<script type="application/json">{"t":"a src=/x"}</script><a>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(scrubLinks([]byte(c.in))); got != c.want {
				t.Errorf("scrubLinks(%s)\n got %s\nwant %s", c.in, got, c.want)
			}
		})
	}
}

// TestListenTemplate: the listen section renders a cut lane's note, the
// players of the page (URLs) and of the export (data: only).
func TestListenTemplate(t *testing.T) {
	cases := []struct {
		name string
		v    listenView
		want []string
	}{
		{"page", listenView{Session: "s<1>", Duration: "3.00 s", Mix: "/api/reports/x/audio/mix.wav?session=0", Input: "/i", Replies: "/r", Cut: true,
			Starts: []replyStart{{ResponseID: "r\"1", AtS: "1.250", At: "1.25 s"}}},
			[]string{`data-session="s&lt;1&gt;"`, "cut at 600 s", `src="/api/reports/x/audio/mix.wav?session=0"`, `data-lane="input"`, `data-response="r&#34;1" data-start-s="1.250"`}},
		{"export", listenView{Session: "s", Duration: "1.00 s", Mix: "data:audio/wav;base64,UklGRg=="},
			[]string{`src="data:audio/wav;base64,UklGRg=="`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			p := &page{}
			p.Listen = []listenView{c.v}
			if err := pageTemplates["share"].ExecuteTemplate(&b, "listen", p); err != nil {
				t.Fatal(err)
			}
			testkit.Mentions(t, fmt.Sprintf("listen section %q", b.String()), b.String(), c.want, nil)
			if c.v.Input == "" && strings.Contains(b.String(), `data-lane="input"`) {
				t.Errorf("an input-only player without a URL:\n%s", b.String())
			}
		})
	}
}
