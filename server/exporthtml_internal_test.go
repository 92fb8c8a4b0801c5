//go:build !js

package server

import "testing"

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
