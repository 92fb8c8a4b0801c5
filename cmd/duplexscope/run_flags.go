//go:build !js

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/loadrun"
	"github.com/duplexscope/duplexscope/session"
)

// run's flags: runOptions and their parsing (the vLLM spellings are in
// run_vllm.go).

// runOptions are run's parsed flags.
type runOptions struct {
	URL, Model, Dataset, Split, MediaRoot string
	Limit, Concurrency, FrameMs           int
	Out                                   string
	Resume, Overwrite                     bool
	Upload, RefAudio                      string
	Settle, Timeout                       time.Duration
	Handshake                             time.Duration // --handshake-timeout
	RunID                                 string
	RunCap                                string // --run-cap: load-run capability (loadrun.CapHeader)
	ShardIndex, ShardCount                int
	Progress                              bool
	ServerVAD                             bool          // --turn-detection server_vad
	Probe                                 string        // --probe FILE
	LoadCurve                             string        // --load-curve 1,2,4,8,16
	JoinAfter                             time.Duration // --join-after (load curve)
	FrameGiven                            bool          // --frame-ms named (else the server's tick may replace 200)
	Name, Notes                           string        // --name, --notes: run.name, run.notes
	Tags                                  []string      // --tag (repeatable): run.tags
	vllmSpellings                         vllmFlags     // vLLM spellings (run_vllm.go)
}

func parseRunFlags(args []string, stderr io.Writer) (*runOptions, error) {
	o := &runOptions{}
	fs := newFlagSet("run", runUsage, stderr)
	fs.StringVar(&o.URL, "url", "", "server base URL")
	fs.StringVar(&o.Model, "model", "", "served model name")
	fs.StringVar(&o.Dataset, "dataset", "", "builtin | DIR | FILE.json(l)")
	fs.StringVar(&o.Split, "split", "", "split filter")
	fs.StringVar(&o.MediaRoot, "media-root", "", "base of relative media paths")
	fs.IntVar(&o.Limit, "limit", 0, "max samples")
	fs.IntVar(&o.Concurrency, "concurrency", 1, "sessions at a time")
	fs.StringVar(&o.Out, "out", "", "output directory")
	fs.BoolVar(&o.Resume, "resume", false, "skip finished samples, merge")
	fs.BoolVar(&o.Overwrite, "overwrite", false, "replace earlier results")
	fs.StringVar(&o.Upload, "upload", "", "archive server URL")
	fs.StringVar(&o.RefAudio, "ref-audio", "", "reference voice WAV")
	fs.IntVar(&o.FrameMs, "frame-ms", session.FrameOmniInteract, "append size in ms")
	fs.DurationVar(&o.Settle, "settle", 2*time.Second, "completion settle")
	fs.DurationVar(&o.Timeout, "timeout", 15*time.Minute, "completion timeout")
	fs.DurationVar(&o.Handshake, "handshake-timeout", 20*time.Second, "wait for session.created")
	fs.StringVar(&o.RunID, "run-id", "", "run id shared by shards")
	fs.StringVar(&o.RunCap, "run-cap", os.Getenv("DUPLEXSCOPE_RUN_CAP"), "load run capability (from the run's creator, or a shared secret)")
	shard := fs.String("shard", "", "i/n")
	td := fs.String("turn-detection", "none", "none (model-native, one final commit) | server_vad")
	fs.BoolVar(&o.Progress, "progress", true, "show a progress bar")
	fs.StringVar(&o.Probe, "probe", "", "JSON list of {kind, clip, offset_s} probes to inject")
	fs.StringVar(&o.LoadCurve, "load-curve", "", "comma list of concurrency levels (e.g. 1,2,4,8,16)")
	fs.DurationVar(&o.JoinAfter, "join-after", time.Second, "load curve: the joining session starts this long after the level's others")
	fs.StringVar(&o.Name, "name", "", "a name for the run (history, share and compare show it)")
	fs.StringVar(&o.Notes, "notes", "", "notes about the run")
	fs.Func("tag", "a tag for the run (repeatable)", func(v string) error {
		o.Tags = append(o.Tags, v)
		return nil
	})
	registerVLLMFlags(fs, &o.vllmSpellings)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o.FrameGiven = set["frame-ms"]
	if err := applyVLLM(o, set); err != nil {
		return nil, err
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"--url (or --base-url)", o.URL}, {"--model", o.Model}, {"--dataset (or --dataset-path)", o.Dataset}, {"--out (or --save-result)", o.Out}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("run: unexpected arguments %q", fs.Args())
	case len(missing) > 0:
		return nil, fmt.Errorf("run: missing %s", strings.Join(missing, ", "))
	case o.Resume && o.Overwrite:
		return nil, errors.New("run: --resume and --overwrite exclude each other")
	case o.Concurrency < 1:
		return nil, fmt.Errorf("run: --concurrency %d, want ≥ 1", o.Concurrency)
	case o.FrameMs < 10 || o.FrameMs > 10000:
		return nil, fmt.Errorf("run: --frame-ms %d, want 10…10000 (200, 80 or 1000 as the references use)", o.FrameMs)
	case o.Limit < 0:
		return nil, fmt.Errorf("run: --limit %d, want ≥ 0", o.Limit)
	case o.JoinAfter < 0:
		return nil, fmt.Errorf("run: --join-after %v, want ≥ 0", o.JoinAfter)
	case o.Handshake <= 0 || o.Handshake > time.Hour:
		return nil, fmt.Errorf("run: --handshake-timeout %v, want more than 0 and at most 1h", o.Handshake)
	}
	if err := checkLabelFlags(o); err != nil {
		return nil, err
	}
	switch *td {
	case "none":
	case "server_vad":
		o.ServerVAD = true
	default:
		return nil, fmt.Errorf("run: --turn-detection %q, want none or server_vad", *td)
	}
	if *shard != "" {
		si, sn, err := loadrun.ParseShard(*shard)
		if err != nil {
			return nil, fmt.Errorf("run: --%w", err)
		}
		o.ShardIndex, o.ShardCount = si, sn
		if o.RunID == "" {
			return nil, errors.New("run: --shard needs --run-id")
		}
	}
	if o.RunID != "" && !loadrun.ValidRunID(o.RunID) {
		return nil, fmt.Errorf("run: --run-id %q, want [A-Za-z0-9._-]{1,128}", o.RunID)
	}
	if o.RunCap != "" && !loadrun.ValidRunCap(o.RunCap) {
		return nil, errors.New("run: --run-cap: want 22–128 letters, digits, '-' or '_' (e.g. openssl rand -hex 16)")
	}
	return o, nil
}

// checkLabelFlags refuses --name, --notes and --tag values report.json
// would refuse, naming the flag.
func checkLabelFlags(o *runOptions) error {
	fes := report.CheckLabels(o.Name, o.Notes, o.Tags)
	if len(fes) == 0 {
		return nil
	}
	fe := fes[0]
	flagName := map[string]string{"run.name": "--name", "run.notes": "--notes"}[fe.Path]
	if flagName == "" {
		flagName = "--tag" // run.tags, run.tags[i]
	}
	return fmt.Errorf("run: %s: %s", flagName, fe.Reason)
}
