//go:build !js

// Command duplexscope benchmarks full-duplex speech-to-speech servers.
//
// Verbs: serve, sim, run, score, replay, version. See `duplexscope help`.
// One file per verb (serve.go, sim.go, run.go, score.go, replay.go); run
// is plan → pool → outputs: run_flags.go and run_vllm.go parse its flags,
// run_plan.go reads the inputs and applies --resume, run_pool.go runs the
// sessions --concurrency at a time, run_outputs.go scores them and writes
// the files (report.json from run_report.go, --save-result from
// run_saveresult.go) and uploads them (run_upload.go); --load-curve runs in
// run_loadcurve.go.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// version is set with -ldflags "-X main.version=…".
var version = "dev"

// command is one CLI verb: fn parses args and runs.
type command struct {
	usage string
	fn    func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"serve":   {serveUsage, serveCmd},
	"sim":     {simUsage, simCmd},
	"run":     {runUsage, runCmd},
	"score":   {scoreUsage, scoreCmd},
	"replay":  {replayUsage, replayCmd},
	"version": {"duplexscope version\n\nPrints the version.", versionCmd},
}

// exitError carries a specific exit code (e.g. 2 for bad input to score).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// newFlagSet is a verb's flag set: its errors go to stderr, -h prints usage.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage) }
	return fs
}

// flagError is a verb's answer to a failed flag parse: none after -h (the
// usage is printed), else a usage error (exit code 2).
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return &exitError{code: 2, err: err}
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprintln(stdout, c.usage)
				return 0
			}
		}
		printHelp(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "Error: unknown command %q\n\n", args[0])
		printHelp(stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := c.fn(ctx, args[1:], stdout, stderr); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil {
				fmt.Fprintf(stderr, "Error: %v\n", ee.err)
			}
			return ee.code
		}
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "duplexscope — benchmark full-duplex speech-to-speech servers\n\nUsage: duplexscope <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintln(w, "\nRun `duplexscope help <command>` for a command's flags.")
}

func versionCmd(_ context.Context, _ []string, stdout, _ io.Writer) error {
	fmt.Fprintln(stdout, version)
	return nil
}
