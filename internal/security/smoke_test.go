//go:build security && linux

package security

import (
	"net/http"
	"testing"
)

// TestHarness checks the harness itself: the server starts, answers, and
// /proc sampling reads real numbers.
func TestHarness(t *testing.T) {
	s := Start(t)
	resp, _ := s.Do(t, Request{Path: "/healthz"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
	sm := s.Sample()
	u := sm.Stop()
	if u.MaxRSS <= 0 || s.PeakRSS() <= 0 {
		t.Fatalf("no RSS read: %+v", u)
	}
}
