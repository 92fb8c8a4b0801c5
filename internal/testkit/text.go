package testkit

import (
	"strings"
	"testing"
)

// Mentions fails the test for each of want that text does not contain and
// each of not that it does; label names the text in the failures ("page",
// or fmt.Sprintf("headline %q", text) to show a short text too).
func Mentions(t testing.TB, label, text string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", label, w)
		}
	}
	for _, n := range not {
		if strings.Contains(text, n) {
			t.Errorf("%s holds %q", label, n)
		}
	}
}
