//go:build !js

package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/bench"
)

func TestParseSteps(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"16", []int{16}, false},
		{"16,32, 64 ", []int{16, 32, 64}, false},
		{"16,x", nil, true},
		{"0", nil, true},
		{"-4", nil, true},
		{"16,,32", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := parseSteps(tc.in)
			if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseSteps(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestGroupSet(t *testing.T) {
	t.Parallel()
	cases := []struct {
		only string
		in   []string
		out  []string
	}{
		{"", []string{"speed", "browser", "pacing"}, nil},
		{" , ", []string{"speed", "capacity"}, nil},
		{"speed", []string{"speed"}, []string{"browser", "pacing"}},
		{"fidelity, browser", []string{"fidelity", "browser"}, []string{"speed"}},
	}
	for _, tc := range cases {
		t.Run(tc.only, func(t *testing.T) {
			t.Parallel()
			s := newGroupSet(tc.only)
			for _, g := range tc.in {
				if !s.has(g) {
					t.Errorf("-only %q leaves out %s", tc.only, g)
				}
			}
			for _, g := range tc.out {
				if s.has(g) {
					t.Errorf("-only %q runs %s", tc.only, g)
				}
			}
		})
	}
}

func TestOverridesApply(t *testing.T) {
	t.Parallel()
	t.Run("zero keeps the config", func(t *testing.T) {
		t.Parallel()
		cfg := bench.QuickConfig()
		if err := (overrides{}).apply(&cfg); err != nil {
			t.Fatal(err)
		}
		if want := bench.QuickConfig(); !reflect.DeepEqual(cfg, want) {
			t.Errorf("config changed:\n%+v\nwant\n%+v", cfg, want)
		}
	})
	t.Run("each flag sets its field", func(t *testing.T) {
		t.Parallel()
		cfg := bench.FullConfig()
		o := overrides{pacing: time.Minute, browserSession: 2 * time.Second, workerSession: 3 * time.Second, mainSession: 4 * time.Second, capStep: 5 * time.Second, capSteps: "1,2"}
		if err := o.apply(&cfg); err != nil {
			t.Fatal(err)
		}
		got := []any{cfg.PacingNative, cfg.PacingBrowser, cfg.ThreadWorker, cfg.ThreadMain, cfg.CapacityStep, cfg.CapacitySteps}
		want := []any{time.Minute, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, []int{1, 2}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("config = %v, want %v", got, want)
		}
	})
	t.Run("bad steps", func(t *testing.T) {
		t.Parallel()
		cfg := bench.FullConfig()
		if err := (overrides{capSteps: "a"}).apply(&cfg); err == nil {
			t.Error("no error for -capacity-steps a")
		}
	})
}
