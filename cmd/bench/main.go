//go:build !js

// Command bench runs duplexscope's benchmark suite and writes BENCHMARKS.md.
//
//	go run ./cmd/bench -out BENCHMARKS.md          # full suite (make bench), ≈ 50 min on 2 cores
//	go run ./cmd/bench -quick -out /tmp/quick.md   # smoke run, a few minutes
//	go run ./cmd/bench -only fidelity,browser      # some groups only
//
// Groups: speed (metrics + archive go test -bench), browser (sizes, page load,
// frame rate, browser fidelity and pacing), fidelity (headless runner vs
// simulator truth), pacing (native, long run), capacity (paced sessions per
// runner). It needs web/app.wasm (make wasm) and chromium for the browser
// group; a missing prerequisite fails that group with a message saying how
// to get it, and the command exits 1 when any group failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/internal/bench"
)

func main() {
	if os.Getenv(bench.SimChildEnv) != "" {
		if err := bench.ServeSimChild(); err != nil {
			fmt.Fprintln(os.Stderr, "Error:", err)
			os.Exit(1)
		}
		return
	}
	out := flag.String("out", "BENCHMARKS.md", "where to write the report")
	quick := flag.Bool("quick", false, "smoke run: seconds instead of minutes")
	only := flag.String("only", "", "comma list of groups to run (speed,browser,fidelity,pacing,capacity); default all")
	chromium := flag.String("chromium", "/usr/bin/chromium", "headless chromium binary")
	budget := flag.Duration("budget", 50*time.Minute, "time budget of the whole run: capacity steps stop starting when what is left is the pacing run")
	prepare := flag.Bool("prepare", false, "only build (into the Go and compress caches) what the browser group builds, then exit: a run started afterwards measures instead of compiling")
	var o overrides
	flag.DurationVar(&o.pacing, "pacing", 0, "override: native pacing run length (full: 10m)")
	flag.DurationVar(&o.browserSession, "browser-session", 0, "override: browser session length, transport=browser (full: 2m)")
	flag.DurationVar(&o.workerSession, "worker-session", 0, "override: browser session length of the session_thread=worker rows, without and with the stall (full: 10m)")
	flag.DurationVar(&o.mainSession, "main-session", 0, "override: browser session length of the session_thread=main rows, without and with the stall (full: 2m)")
	flag.DurationVar(&o.capStep, "capacity-step", 0, "override: input per session per capacity step (full: 20s)")
	flag.StringVar(&o.capSteps, "capacity-steps", "", "override: comma list of capacity steps (full: 16,32,64,128,256,512,1024)")
	flag.Parse()

	if *prepare {
		if err := bench.Prepare(context.Background(), "."); err != nil {
			fmt.Fprintln(os.Stderr, "Error:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "bench: prepared (the hello world and the start-up floor are built and compressed)")
		return
	}
	cfg := bench.FullConfig()
	if *quick {
		cfg = bench.QuickConfig()
	}
	if err := o.apply(&cfg); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(2)
	}
	cfg.Chromium = *chromium
	cfg.Log = os.Stderr
	start := time.Now()
	cfg.Deadline = start.Add(*budget)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	want, err := newGroupSet(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(2)
	}
	if want.has("pacing") {
		// Capacity runs before the fixed-length pacing run: leave it room.
		cfg.Deadline = cfg.Deadline.Add(-cfg.PacingNative - 30*time.Second)
	}
	cmd := "go run ./cmd/bench " + strings.Join(os.Args[1:], " ")
	doc := &bench.Doc{Machine: bench.DetectMachine(cfg.Chromium), Quick: cfg.Quick, Command: strings.TrimSpace(cmd)}
	failed := runGroups(ctx, &cfg, want, doc)
	doc.Machine.LoadEnd = bench.LoadAverage()
	doc.Elapsed = time.Since(start)
	if err := doc.WriteFile(*out); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s in %v\n", *out, doc.Elapsed.Round(time.Second))
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "Error: %d benchmark group(s) failed (see %s)\n", failed, *out)
		os.Exit(1)
	}
}

// overrides are the flags that replace one length or list of the chosen
// config; zero values keep the config's own.
type overrides struct {
	pacing, browserSession, workerSession, mainSession, capStep time.Duration
	capSteps                                                    string
}

func (o overrides) apply(cfg *bench.Config) error {
	if o.pacing > 0 {
		cfg.PacingNative = o.pacing
	}
	if o.browserSession > 0 {
		cfg.PacingBrowser = o.browserSession
	}
	if o.workerSession > 0 {
		cfg.ThreadWorker = o.workerSession
	}
	if o.mainSession > 0 {
		cfg.ThreadMain = o.mainSession
	}
	if o.capStep > 0 {
		cfg.CapacityStep = o.capStep
	}
	if o.capSteps != "" {
		steps, err := parseSteps(o.capSteps)
		if err != nil {
			return err
		}
		cfg.CapacitySteps = steps
	}
	return nil
}

// parseSteps reads the -capacity-steps list: positive integers, commas
// between them.
func parseSteps(s string) ([]int, error) {
	var steps []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-capacity-steps %q: want positive integers", s)
		}
		steps = append(steps, n)
	}
	return steps, nil
}

// group is one section of the report and the code that measures it.
type group struct {
	name string
	fn   func(context.Context, *bench.Config, *bench.Shared) *bench.Section
}

// groups are every group, in the order a run takes them.
var groups = []group{
	{"fidelity", bench.FidelityGroup},
	{"browser", bench.BrowserGroup},
	{"speed", bench.SpeedGroup},
	{"capacity", bench.CapacityGroup}, // its steps stop starting at -budget minus the pacing run
	{"pacing", bench.PacingGroup},     // fixed length: last
}

// groupSet is the -only list; empty means every group.
type groupSet map[string]bool

// newGroupSet reads the -only list; a name that is no group is an error
// (a typo would otherwise run nothing and still write a report).
func newGroupSet(only string) (groupSet, error) {
	want := groupSet{}
	for _, g := range strings.Split(only, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		if !slices.ContainsFunc(groups, func(x group) bool { return x.name == g }) {
			names := make([]string, len(groups))
			for i, x := range groups {
				names[i] = x.name
			}
			return nil, fmt.Errorf("-only %q: no group %q (the groups: %s)", only, g, strings.Join(names, ", "))
		}
		want[g] = true
	}
	return want, nil
}

func (s groupSet) has(g string) bool { return len(s) == 0 || s[g] }

// runGroups runs the chosen groups in their fixed order, appends their
// sections to doc and returns how many failed; an interrupt stops it after
// the group that was running.
func runGroups(ctx context.Context, cfg *bench.Config, want groupSet, doc *bench.Doc) int {
	shared := &bench.Shared{}
	failed := 0
	for _, g := range groups {
		if !want.has(g.name) {
			continue
		}
		t0 := time.Now()
		sec := g.fn(ctx, cfg, shared)
		fmt.Fprintf(os.Stderr, "%s bench: %s done in %v (load %s)\n", time.Now().UTC().Format("15:04:05"), g.name, time.Since(t0).Round(time.Second), bench.LoadAverage())
		if sec.Err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "bench: %s failed: %v\n", g.name, sec.Err)
		}
		doc.Sections = append(doc.Sections, sec)
		if ctx.Err() != nil {
			break
		}
	}
	return failed
}
