//go:build !js

package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/bench"
)

func TestOverridesApply(t *testing.T) {
	t.Parallel()
	cfg := bench.QuickConfig()
	if err := (overrides{}).apply(&cfg); err != nil || !reflect.DeepEqual(cfg, bench.QuickConfig()) {
		t.Errorf("zero overrides: %v, config changed to %+v", err, cfg)
	}
	cfg = bench.FullConfig()
	o := overrides{pacing: time.Minute, browserSession: 2 * time.Second, workerSession: 3 * time.Second, mainSession: 4 * time.Second, capStep: 5 * time.Second, capSteps: "1,2"}
	if err := o.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	got := []any{cfg.PacingNative, cfg.PacingBrowser, cfg.ThreadWorker, cfg.ThreadMain, cfg.CapacityStep, cfg.CapacitySteps}
	want := []any{time.Minute, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, []int{1, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config = %v, want %v", got, want)
	}
	if err := (overrides{capSteps: "a"}).apply(&cfg); err == nil {
		t.Error("no error for -capacity-steps a")
	}
}

// TestParseSteps: positive integers only, spaces around them allowed.
func TestParseSteps(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]int{
		"16":          {16},
		"16,32, 64 ":  {16, 32, 64},
		"16,x":        nil,
		"0":           nil,
		"-4":          nil,
		"16,,32":      nil,
		"1024,512,16": {1024, 512, 16},
	} {
		got, err := parseSteps(in)
		if (err != nil) != (want == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("parseSteps(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// TestGroupSetUnknown: a name that is no group is refused, and the error
// names the groups there are.
func TestGroupSetUnknown(t *testing.T) {
	t.Parallel()
	for _, only := range []string{"capcity", "speed,pace", "Browser"} {
		_, err := newGroupSet(only)
		if err == nil {
			t.Errorf("-only %q: no error", only)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "fidelity, browser, speed, capacity, pacing") {
			t.Errorf("-only %q: error %q does not list the groups", only, msg)
		}
	}
}

// TestGroupSet: an empty -only runs every group, a list only its own.
func TestGroupSet(t *testing.T) {
	t.Parallel()
	for only, runs := range map[string]map[string]bool{
		"":                  {"speed": true, "browser": true, "pacing": true},
		" , ":               {"speed": true, "capacity": true},
		"speed":             {"speed": true, "browser": false, "pacing": false},
		"fidelity, browser": {"fidelity": true, "browser": true, "speed": false},
	} {
		s, err := newGroupSet(only)
		if err != nil {
			t.Fatalf("-only %q: %v", only, err)
		}
		for g, want := range runs {
			if s.has(g) != want {
				t.Errorf("-only %q: runs %s = %v, want %v", only, g, !want, want)
			}
		}
	}
}
