//go:build !js

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/loadcurve"
	"github.com/duplexscope/duplexscope/loadrun"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/duplexscope/duplexscope/turntaking"
)

const runUsage = `duplexscope run --url WS_URL --model NAME --dataset DIR|builtin --out DIR [flags]

Runs one paced duplex session per dataset sample against a vLLM-Omni
/v1/realtime?duplex=1 server (or the simulator), N at a time, and writes:

  OUT/report.json            duplexscope report (report.Schema), what --upload posts
  OUT/duplex_metrics.json    vLLM-Omni duplex_metrics.json (merged on --resume)
  OUT/result.json            run-level keys (duplex_stream_*, num_/mean_/median_/p99_duplex_*),
                             run info, pacing and failures
  OUT/traces/NAME.trace.json one duplex-trace/v1 wire log per session (audio kept;
                             duplexscope score / replay read it). NAME = split__sample_id.

Input is sent in --frame-ms appends on an absolute schedule (frame k at stream
start + k·frame), then one final commit; a session is complete by the
OmniInteract rule (committed, all responses done, a post-commit decision, no
event for --settle). Times are client monotonic (receive clock) unless the
server reported them (server clock); every row says which.

Flags:
  --url WS_URL         server base URL (duplex=1 and autostart=0 are added; model= defaulted)
  --model NAME         served model name
  --dataset SRC        "builtin", "turntaking" (labelled turn-taking cases), "video" (one clip with frames), a directory with
                       manifest.jsonl, or a .json/.jsonl record file. Records with a "turntaking":
                       {"cases": [{id, category, onset_ms, offset_ms, anchor_ms, window_ms}]} member are
                       scored from their wire logs (TOR per category with cases/takeovers, latency over
                       takeover cases): report.json turn_taking, result.json turn_taking, summary lines
  --split S            only this split ("" or "all": every split)
  --limit K            at most K samples (after --split, before --shard)
  --media-root DIR     base of relative media paths in record files
  --concurrency N      sessions at a time (default 1)
  --out DIR            output directory (refused if it holds results, unless --resume or --overwrite)
  --resume             skip samples whose trace in OUT/traces is complete; merge duplex_metrics.json
                       by (split, sample_id), keeping earlier rows of skipped samples (re-scored from their
                       wire logs when duplex_metrics.json lacks them: a run killed before writing it loses
                       nothing); a corrupt duplex_metrics.json is refused (exit 2) before anything runs
  --overwrite          delete earlier results in OUT first
  --upload SERVER_URL  POST report.json to SERVER_URL/api/reports (token: $DUPLEXSCOPE_WRITE_TOKEN)
  --ref-audio WAV      reference voice sent as session.ref_audio (MiniCPM-o needs one)
  --frame-ms MS        append size: 200 (default, OmniInteract), 80 (PersonaPlex), 1000 (Omni-DuplexEval)
  --turn-detection M   none (default: model-native duplex, one final commit with the tail rule) or
                       server_vad (1.5 s silence tail, no commit; complete when no response is open)
  --settle DUR         completion settle (default 2s)
  --timeout DUR        per-session completion timeout after the stream (default 15m)
  --name N             a name for the run (report run.name; history, share and compare show it instead of the model):
                       at most 200 characters, no control characters
  --notes TEXT         notes about the run (run.notes): at most 4000 characters
  --tag T              a tag for the run (run.tags), repeatable: at most 16 unique tags of 1–64 characters
                       (names, notes and tags can be changed later with PATCH /api/reports/{id})
  --run-id R --shard i/n   this process runs shard i (1-based) of n of run R (samples k with k mod n = i-1);
                       the archive merges shards of one run id
  --progress=false     no progress bar
  --probe FILE         inject probe clips into every session's input and measure stop latency (OUT/probes.json
                       and report.json probes);
                       FILE is a JSON list of {"kind": interruption|backchannel|side_talk|noise,
                       "clip": WAV path (relative to FILE) | "builtin:SAMPLE_ID" | "noise" | "standard:KIND",
                       "offset_s": S, "gain": G (default 1), "duration_s": D (clip "noise" only, default 1)};
                       clip omitted (or "standard"): the kind's standard clip (also GET /api/probes), recorded
                       as "standard:KIND", e.g. [{"kind": "backchannel", "offset_s": 6}, {"kind": "interruption",
                       "offset_s": 8}]
  --load-curve LIST    load-curve mode: for each N in LIST (e.g. 1,2,4,8,16) run N concurrent paced sessions
                       plus one session joining --join-after later; writes OUT/loadcurve.json (TTFP p50/p99 with
                       origin, RTF, pacing lag, underruns per N, and every session's numbers) and OUT/report.json
                       (load_curve + the sessions' metrics; --upload shares it) instead of the dataset run files.
                       With --run-id R --upload URL the levels are reported live to URL (/load?run_id=R shows
                       them); adding --shard i/n makes this one of n runners: level N's sessions k with
                       k mod n = i-1 run here, each level starts when all n runners are ready, shard 1 runs
                       the joiner, and the archive pools the n shard reports into one curve (/runs/R)
  --run-cap CAP        load run capability (default $DUPLEXSCOPE_RUN_CAP): the first runner creates run R and
                       prints its capability; the other shards must pass it. Shards started together may all
                       pass the same secret instead (22–128 of [A-Za-z0-9_-]); the first to arrive creates R with it
  --join-after DUR     load curve: delay of the joining session (default 1s)
  --save-result        also write the vllm bench serve --save-result file (vLLM's top-level keys; ours under
                       "duplexscope"): RESULT_DIR/{label}-infqps-concurrency{N}-{model}-{date}.json
  --result-dir D --result-filename F   where it goes (default ., the name above); without --out the run files
                       go to RESULT_DIR/duplexscope-DATE/
  --keep-video         keep video frame bytes in the wire logs (default: {"bytes": N, "sha256": …} per frame)
  vLLM spellings       --dataset-name omniinteract|omni-duplex-eval, --dataset-path, --num-prompts (OmniInteract
                       default 3; 0 = all), --max-concurrency, --base-url/--host/--port + --endpoint,
                       --omniinteract-subsets, --omniinteract-timeout-s, --request-id-prefix, --label,
                       --metadata KEY=VALUE, --backend openai-realtime-duplex, --request-rate inf; --burstiness,
                       --seed, --disable-shuffle are recorded only

Records with a video (OmniInteract cases, a manifest's "video") send frames extracted by ffmpeg at the
reference's boundaries. Without --frame-ms a server tick (capabilities.chunk_period_ms) below 200 ms is
used as the append size; a given size that disagrees with the tick is warned about. The run ends with the
reference's "Duplex Per-Response Latency" block.

Exit status: 0 every session completed; 1 at least one session failed (a
summary of which and why is printed; results are still written); 2 bad usage
(bad flags, unreadable dataset, --out holding results without --resume or
--overwrite).

Examples:
  duplexscope run --url ws://127.0.0.1:8080/v1/realtime --model sim --dataset builtin --concurrency 4 --out out/
  duplexscope run --url ws://gpu:8099 --model openbmb/MiniCPM-o-4_5 --ref-audio voice.wav \
      --dataset ./omni-duplexeval.jsonl --split RTD_OCR --out runs/ocr --resume`

// runOptions are run's parsed flags.
type runOptions struct {
	URL, Model, Dataset, Split, MediaRoot string
	Limit, Concurrency, FrameMs           int
	Out                                   string
	Resume, Overwrite                     bool
	Upload, RefAudio                      string
	Settle, Timeout                       time.Duration
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
	vllm                                  vllmFlags     // vLLM spellings (run_vllm.go)
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRunFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{code: 2, err: err}
	}
	sum, err := runBench(ctx, o, stdout, stderr)
	if err != nil {
		return err
	}
	if len(sum.Failed) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "run: %d of %d sessions failed:", len(sum.Failed), sum.Ran)
		for _, f := range sum.Failed {
			fmt.Fprintf(&b, "\n  %s/%s: %s", f.Split, f.SampleID, f.Error)
		}
		return &exitError{code: 1, err: errors.New(b.String())}
	}
	return nil
}

func parseRunFlags(args []string, stderr io.Writer) (*runOptions, error) {
	o := &runOptions{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, runUsage) }
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
	registerVLLMFlags(fs, &o.vllm)
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
	}
	if fes := report.CheckLabels(o.Name, o.Notes, o.Tags); len(fes) > 0 {
		fe := fes[0]
		flagName := map[string]string{"run.name": "--name", "run.notes": "--notes"}[fe.Path]
		if flagName == "" {
			flagName = "--tag" // run.tags, run.tags[i]
		}
		return nil, fmt.Errorf("run: %s: %s", flagName, fe.Reason)
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

// runFailure names a session that failed and why.
type runFailure struct {
	SampleID string `json:"sample_id"`
	Split    string `json:"split"`
	Error    string `json:"error"`
}

// runSummary is what a run did.
type runSummary struct {
	Ran, Skipped int
	Failed       []runFailure
	Report       *report.Report
	ShareURL     string
}

// Output file names inside --out.
const (
	fileReport  = "report.json"
	fileMetrics = "duplex_metrics.json"
	fileResult  = "result.json"
	dirTraces   = "traces"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// traceName is the file name of a sample's wire log: split__sample_id with
// unsafe characters replaced (plus a hash of the key when any were, so
// distinct keys never collide).
func traceName(split, sampleID string) string {
	key := split + "__" + sampleID
	name := unsafeName.ReplaceAllString(key, "_")
	if name != key || strings.HasPrefix(name, ".") {
		h := sha256.Sum256([]byte(split + "\x00" + sampleID))
		name = strings.TrimLeft(name, ".") + "-" + hex.EncodeToString(h[:4])
	}
	return name + ".trace.json"
}

// prepareOut applies the --resume / --overwrite rules to the output dir.
func prepareOut(o *runOptions) error {
	ents, err := os.ReadDir(o.Out)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return &exitError{code: 2, err: fmt.Errorf("run: --out: %w", err)}
	case len(ents) > 0 && !o.Resume && !o.Overwrite:
		return &exitError{code: 2, err: fmt.Errorf("run: --out %s already holds results; pass --resume to continue that run or --overwrite to replace it", o.Out)}
	case len(ents) > 0 && o.Overwrite:
		for _, n := range []string{fileReport, fileMetrics, fileResult, dirTraces, "duplex_metrics.partial.json"} {
			if err := os.RemoveAll(filepath.Join(o.Out, n)); err != nil {
				return fmt.Errorf("run: --overwrite: %w", err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, dirTraces), 0o755); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// traceComplete reports whether a stored wire log finished cleanly.
func traceComplete(t *trace.Session) bool {
	var ex session.Extra
	return len(t.Session.Extra) > 0 && json.Unmarshal(t.Session.Extra, &ex) == nil && !ex.Incomplete
}

func readTrace(path string) (*trace.Session, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := trace.DecodeSession(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// liveStats collects the TTFP of every finished response for the progress
// bar, with the clock each came from.
type liveStats struct {
	mu     sync.Mutex
	ttfp   []float64
	server int // how many came from the server clock
}

func (l *liveStats) add(v float64, server bool) {
	l.mu.Lock()
	l.ttfp = append(l.ttfp, v)
	if server {
		l.server++
	}
	l.mu.Unlock()
}

func (l *liveStats) describe() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ttfp) == 0 {
		return "TTFP p50 –"
	}
	s := append([]float64(nil), l.ttfp...)
	sort.Float64s(s)
	origin := "server clock"
	switch {
	case l.server == 0:
		origin = "client receive clock"
	case l.server < len(s):
		origin = "mixed clocks"
	}
	return fmt.Sprintf("TTFP p50 %.1f ms (%s, %d responses)", metrics.Percentile(s, 0.5), origin, len(s))
}

// liveObserver feeds a session's events to a metrics.Accumulator and
// reports each finished response's TTFP to the live stats.
type liveObserver struct {
	acc    metrics.Accumulator
	stats  *liveStats
	onResp func()
	seen   map[string]bool
}

func (o *liveObserver) OnState(session.State, error) {}

func (o *liveObserver) OnEvent(ev trace.Event) {
	o.acc.Add(ev)
	if ev.Dir != trace.DirRecv || !bytes.Contains(ev.Event, []byte(`"response.done"`)) {
		return
	}
	for _, row := range o.acc.Snapshot().Rows {
		if row.Raw == nil || o.seen[row.ResponseID] {
			continue
		}
		o.seen[row.ResponseID] = true
		o.stats.add(row.Raw.TTFPMs, row.Raw.TTFPClock == metrics.ClockServer)
		if o.onResp != nil {
			o.onResp()
		}
	}
}

// runBench runs the benchmark described by o.
func runBench(ctx context.Context, o *runOptions, stdout, stderr io.Writer) (*runSummary, error) {
	started := time.Now()
	var refAudio []byte
	if o.RefAudio != "" {
		b, err := os.ReadFile(o.RefAudio)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: --ref-audio: %w", err)}
		}
		refAudio = b
	}
	dopts := &dataset.Options{Split: o.Split, Limit: o.Limit, MediaRoot: o.MediaRoot}
	samples, err := loadSamples(o, dopts)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("run: %w", err)}
	}
	if len(samples) == 0 {
		return nil, &exitError{code: 2, err: fmt.Errorf("run: dataset %s has no samples (split %q)", o.Dataset, o.Split)}
	}
	if o.ShardCount > 0 && o.LoadCurve == "" { // load-curve shards split sessions, not samples
		var mine []dataset.Sample
		for k, s := range samples {
			if k%o.ShardCount == o.ShardIndex-1 {
				mine = append(mine, s)
			}
		}
		samples = mine
	}
	var probes []session.Probe
	if o.Probe != "" {
		if probes, err = loadProbes(o.Probe); err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: --probe: %w", err)}
		}
	}
	var levels []int
	if o.LoadCurve != "" {
		if levels, err = loadcurve.ParseLevels(o.LoadCurve); err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: --load-curve: %w", err)}
		}
	}
	if len(levels) > 0 && o.ShardCount > 0 && o.Upload == "" {
		return nil, &exitError{code: 2, err: errors.New("run: --load-curve with --shard needs --upload SERVER_URL: the server starts each level on every runner at once")}
	}
	if err := prepareOut(o); err != nil {
		return nil, err
	}
	if len(levels) > 0 {
		return runLoadCurve(ctx, o, samples, dopts, refAudio, levels, stdout)
	}
	var existing *metrics.Report
	if o.Resume {
		b, err := os.ReadFile(filepath.Join(o.Out, fileMetrics))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("run: --resume: %w", err)
		default:
			if existing, err = metrics.ParseReport(b); err != nil {
				// Refused before any session runs, so nothing is lost
				// (the reference only failed after generating: docs/metrics.md#merge-on-resume).
				return nil, &exitError{code: 2, err: fmt.Errorf("run: --resume: %s is not a valid duplex_metrics.json (%w); fix or remove it, or use --overwrite", filepath.Join(o.Out, fileMetrics), err)}
			}
		}
	}
	var todo []dataset.Sample
	skipped := 0
	// recovered: complete wire logs of skipped samples that the existing
	// duplex_metrics.json does not hold (a run killed before it wrote the
	// file): their metrics come from the wire log, so nothing is lost.
	var recovered []metrics.SessionResult
	inExisting := map[string]bool{}
	if existing != nil {
		for _, e := range existing.Sessions {
			sp, _ := e.Get("split")
			id, _ := e.Get("sample_id")
			if sps, ok := sp.(string); ok {
				if ids, ok := id.(string); ok {
					inExisting[sps+"\x00"+ids] = true
				}
			}
		}
	}
	for _, s := range samples {
		if o.Resume {
			if t, err := readTrace(filepath.Join(o.Out, dirTraces, traceName(s.Split, s.SampleID))); err == nil && traceComplete(t) {
				skipped++
				if !inExisting[s.Split+"\x00"+s.SampleID] {
					recovered = append(recovered, metrics.ScoreSession(*t))
				}
				continue
			}
		}
		todo = append(todo, s)
	}

	stats := &liveStats{}
	var bar *progressbar.ProgressBar
	if o.Progress && len(todo) > 0 {
		bar = progressbar.NewOptions(len(todo),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("sessions  "+stats.describe()),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	var barMu sync.Mutex
	describe := func() {
		if bar != nil {
			barMu.Lock()
			bar.Describe("sessions  " + stats.describe())
			barMu.Unlock()
		}
	}

	type outcome struct {
		sample dataset.Sample
		trace  *trace.Session
		res    *session.Result
		err    error
		ran    bool
	}
	outcomes := make([]outcome, len(todo))
	reqIndex := map[string]int{} // the request index of the reference's session ids
	for k, s := range samples {
		reqIndex[s.Key()] = k
	}
	frameMs := o.FrameMs
	if !o.FrameGiven {
		frameMs = 0 // the session applies the server's tick (session.Config.FrameMs)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(o.Concurrency, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s := todo[i]
				oc := outcome{sample: s, ran: true}
				pcm, err := s.PCM(ctx, dopts)
				if err == nil && len(probes) > 0 {
					pcm = session.InjectProbes(pcm, probes)
				}
				var video session.VideoSource
				if err == nil {
					var dropped int
					if video, dropped, err = videoFor(ctx, &s, dopts); dropped > 0 {
						barMu.Lock() // stderr is shared with the progress bar
						fmt.Fprintf(stderr, "run: %s/%s: %d video frames over %d KiB were dropped\n", s.Split, s.SampleID, dropped, dataset.MaxFrameBytes>>10)
						barMu.Unlock()
					}
				}
				if err != nil {
					oc.err = err
				} else {
					live := &liveObserver{stats: stats, onResp: describe, seen: map[string]bool{}}
					cfg := &session.Config{
						URL: o.URL, Model: o.Model, FrameMs: frameMs, RefAudio: refAudio, ServerVAD: o.ServerVAD,
						Settle: o.Settle, CompletionTimeout: o.Timeout,
						SampleID: s.SampleID, Split: s.Split, Observers: []session.Observer{live},
						Video: video, KeepVideo: o.vllm.KeepVideo, SessionID: sessionIDFor(o, &s, reqIndex[s.Key()]),
					}
					oc.res, oc.err = session.Run(ctx, cfg, pcm)
					if oc.res != nil {
						oc.trace = oc.res.Trace
					}
				}
				if oc.trace != nil {
					b, err := json.Marshal(oc.trace)
					if err == nil {
						err = writeFileAtomic(filepath.Join(o.Out, dirTraces, traceName(s.Split, s.SampleID)), b)
					}
					if err != nil && oc.err == nil {
						oc.err = fmt.Errorf("write trace: %w", err)
					}
				}
				outcomes[i] = oc
				if bar != nil {
					barMu.Lock()
					_ = bar.Add(1)
					barMu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range todo {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if bar != nil {
		_ = bar.Finish()
	}

	sum := &runSummary{Skipped: skipped}
	var results []metrics.SessionResult
	var probeResults []session.ProbeResult
	for i, oc := range outcomes {
		if oc.trace != nil && len(probes) > 0 {
			probeResults = append(probeResults, session.AnalyzeProbes(oc.trace, probes)...)
		}
		if !oc.ran { // never started: the run was interrupted
			oc = outcome{sample: todo[i], err: fmt.Errorf("not run: %w", context.Cause(ctx))}
		}
		sum.Ran++
		if oc.err != nil {
			sum.Failed = append(sum.Failed, runFailure{SampleID: oc.sample.SampleID, Split: oc.sample.Split, Error: oc.err.Error()})
		}
		if oc.trace != nil {
			results = append(results, metrics.ScoreSession(*oc.trace))
		}
	}
	var dm metrics.Report
	if o.Resume {
		dm = metrics.MergeReport(existing, append(recovered, results...))
	} else {
		dm = metrics.BuildReport(results)
	}
	if err := writeFileAtomic(filepath.Join(o.Out, fileMetrics), dm.File()); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	rep, err := buildRunReport(o, dm, samples, sum.Failed, started)
	if err != nil {
		return nil, err
	}
	if len(probes) > 0 {
		rep.Probes = probeReport(probeResults)
	}
	sum.Report = rep
	rb, err := report.MarshalIndent(rep)
	if err != nil {
		return nil, fmt.Errorf("run: report: %w", err)
	}
	if o.Resume && len(todo) == 0 {
		// Nothing ran: keep the earlier report.json byte for byte when it
		// says the same (only the wall-clock run times differ), so a
		// re-upload sends the same Idempotency-Key and cannot store a
		// second copy of a report whose first upload's answer was lost.
		if prev, err := os.ReadFile(filepath.Join(o.Out, fileReport)); err == nil && sameReport(prev, rb) {
			rb = prev
		}
	}
	if err := writeFileAtomic(filepath.Join(o.Out, fileReport), rb); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	res := buildResult(o, dm, rep, sum, started)
	if err := writeFileAtomic(filepath.Join(o.Out, fileResult), res); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if len(probes) > 0 {
		b, _ := json.MarshalIndent(map[string]any{"clock": "client monotonic (receive / simulated playback)", "probes": probeResults}, "", "  ")
		if err := writeFileAtomic(filepath.Join(o.Out, "probes.json"), append(b, '\n')); err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
	}
	if o.vllm.SaveResult {
		p, err := writeSaveResult(o, rep, sum, started)
		if err != nil {
			return nil, fmt.Errorf("run: --save-result: %w", err)
		}
		fmt.Fprintf(stdout, "run: result → %s\n", p)
	}
	fmt.Fprint(stdout, dm.Console())
	for _, w := range rep.Warnings {
		if w.Code == report.WarnFrameTick {
			fmt.Fprintf(stdout, "run: warning: %s\n", w.Message)
		}
	}
	fmt.Fprintf(stdout, "run: %d sessions (%d skipped, %d failed) → %s\n", sum.Ran, skipped, len(sum.Failed), o.Out)
	fmt.Fprintf(stdout, "run: %s\n", stats.describe())
	printTurnTaking(stdout, rep.TurnTaking)
	return sum, uploadTo(ctx, o, rb, sum, stdout)
}

// uploadTo POSTs report.json to --upload (when given) and says where it went.
func uploadTo(ctx context.Context, o *runOptions, rb []byte, sum *runSummary, stdout io.Writer) error {
	if o.Upload == "" {
		return nil
	}
	u, err := uploadReport(ctx, o, rb)
	if err != nil {
		return fmt.Errorf("run: upload: %w (results are in %s)", err, o.Out)
	}
	sum.ShareURL = u
	fmt.Fprintf(stdout, "run: uploaded → %s\n", u)
	return nil
}

// sameReport reports whether two report.json files are equal but for the
// run's wall-clock start and end times.
func sameReport(a, b []byte) bool {
	norm := func(x []byte) []byte {
		r, err := report.Decode(x, report.DefaultLimits)
		if err != nil {
			return nil
		}
		r.Run.StartedAt, r.Run.EndedAt = "", ""
		out, err := report.MarshalIndent(r)
		if err != nil {
			return nil
		}
		return out
	}
	na, nb := norm(a), norm(b)
	return na != nil && bytes.Equal(na, nb)
}

// buildRunReport assembles report.json from the merged metrics and every
// wire log in OUT/traces that belongs to this run's samples.
func buildRunReport(o *runOptions, dm metrics.Report, samples []dataset.Sample, failed []runFailure, started time.Time) (*report.Report, error) {
	failedBy := map[string]string{}
	for _, f := range failed {
		failedBy[f.Split+"\x00"+f.SampleID] = f.Error
	}
	mb, err := dm.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("run: metrics: %w", err)
	}
	host, _ := os.Hostname()
	run := report.Run{
		TargetURL: o.URL, Model: o.Model, FrameMs: o.FrameMs, Version: version, Client: report.ClientCLI,
		Machine:     report.Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Hostname: host, GoVersion: runtime.Version()},
		Source:      report.Source{Kind: report.SourceDataset, Dataset: o.Dataset, Split: o.Split},
		Concurrency: o.Concurrency, RunID: o.RunID,
		StartedAt: started.UTC().Format(time.RFC3339), EndedAt: time.Now().UTC().Format(time.RFC3339),
		Name: o.Name, Notes: o.Notes, Tags: o.Tags,
	}
	if u, err := url.Parse(o.URL); err == nil {
		run.Profile = u.Query().Get("sim_profile")
	}
	if o.ShardCount > 0 {
		run.Shard = &report.Shard{Index: o.ShardIndex, Count: o.ShardCount}
	}
	rep, err := report.New(run, mb)
	if err != nil {
		return nil, fmt.Errorf("run: report: %w", err)
	}
	rep.Warnings = append(rep.Warnings, report.ValueWarnings(dm)...) // values written as null
	frame := float64(o.FrameMs)
	var lagging, legacy, underruns int
	var tickWarn string
	tt := &ttCollector{}
	for _, s := range samples {
		name := traceName(s.Split, s.SampleID)
		t, err := readTrace(filepath.Join(o.Out, dirTraces, name))
		if err != nil {
			// No wire log: the session never opened (handshake failure,
			// unreadable media). A failure of this run stays in the report.
			if msg, ok := failedBy[s.Split+"\x00"+s.SampleID]; ok {
				rep.Sessions = append(rep.Sessions, report.SessionExtra{SampleID: s.SampleID, Split: s.Split, Complete: false, Error: msg})
			}
			continue
		}
		var ex session.Extra
		_ = json.Unmarshal(t.Session.Extra, &ex)
		extras := responseExtras(t)
		for _, x := range extras {
			underruns += x.Underruns
		}
		rep.Responses = append(rep.Responses, extras...)
		se := report.SessionExtra{
			SampleID: s.SampleID, Split: s.Split, Complete: !ex.Incomplete, Error: ex.Error,
			WireLog: name, StreamStartMs: t.Session.StreamStartMs,
		}
		if t.Session.SessionID != nil {
			se.SessionID = *t.Session.SessionID
		}
		se.ServerSessionID, se.VideoFramesSent = ex.ServerSessionID, session.VideoFramesSent(t)
		if b, err := os.ReadFile(filepath.Join(o.Out, dirTraces, name)); err == nil {
			h := sha256.Sum256(b)
			rep.Attachments = append(rep.Attachments, report.Attachment{Name: name, Kind: report.AttachWireLog, ContentType: "application/json",
				SizeBytes: int64(len(b)), SHA256: hex.EncodeToString(h[:]), SessionID: se.SessionID})
		}
		if ex.Pacing.Frames > 0 {
			se.PacingLagP99, se.PacingLagMax = ptrTo(ex.Pacing.P99Ms), ptrTo(ex.Pacing.MaxMs)
			f := frame // the append size the session used (the server's tick may have replaced the default)
			if ex.FrameMs > 0 {
				f = float64(ex.FrameMs)
			}
			if ex.Pacing.MaxMs > f {
				lagging++
			}
		}
		for _, w := range ex.Warnings {
			if strings.HasPrefix(w, "legacy") {
				legacy++
			}
			if strings.HasPrefix(w, session.WarnFrameTickPrefix) && tickWarn == "" {
				tickWarn = w
			}
		}
		rep.Sessions = append(rep.Sessions, se)
		tt.add(s, se.SessionID, t)
	}
	rep.TurnTaking = tt.report()
	if lagging > 0 {
		rep.Warnings = append(rep.Warnings, report.Warning{Code: report.WarnPacingLag,
			Message: fmt.Sprintf("%d sessions sent an input frame more than one frame (%d ms) late (client send clock).", lagging, o.FrameMs)})
	}
	if underruns > 0 {
		rep.Warnings = append(rep.Warnings, report.Warning{Code: report.WarnPlaybackUnderrun,
			Message: fmt.Sprintf("The simulated playback ran out of audio %d times (audio arrived slower than real time; client receive clock).", underruns)})
	}
	if legacy > 0 {
		rep.Warnings = append(rep.Warnings, report.Warning{Code: report.WarnLegacyEventNames, Message: report.WarningCodes[report.WarnLegacyEventNames]})
	}
	if tickWarn != "" {
		rep.Warnings = append(rep.Warnings, report.Warning{Code: report.WarnFrameTick, Message: "The " + tickWarn + "."})
	}
	report.Finish(rep)
	return rep, nil
}

func ptrTo[T any](v T) *T { return &v }

// heardOrigin labels heard latencies of headless runs.
const heardOrigin = "simulated serial playback clock (headless: playback starts when audio is received and the player is free)"

// responseExtras derives per-response extras from a wire log: heard TTFP
// (response.created receive → first sample played on the simulated playback
// clock, both client monotonic), underruns, truncation, transcript.
func responseExtras(t *trace.Session) []report.ResponseExtra {
	sid := ""
	if t.Session.SessionID != nil {
		sid = *t.Session.SessionID
	}
	type acc struct {
		created, start *float64
		ex             report.ResponseExtra
	}
	byID := map[string]*acc{}
	var order []string
	get := func(id string) *acc {
		a := byID[id]
		if a == nil {
			a = &acc{ex: report.ResponseExtra{SessionID: sid, ResponseID: id}}
			byID[id] = a
			order = append(order, id)
		}
		return a
	}
	for _, e := range t.Events {
		var ev struct {
			Type       string          `json:"type"`
			ResponseID json.RawMessage `json:"response_id"`
			Transcript string          `json:"transcript"`
			Cleared    bool            `json:"cleared"`
			UnderrunMs float64         `json:"underrun_ms"`
			Response   struct {
				ID     json.RawMessage `json:"id"`
				Status string          `json:"status"`
			} `json:"response"`
		}
		if json.Unmarshal(e.Event, &ev) != nil {
			continue
		}
		id, ok := protocol.IdentityOf(ev.ResponseID, ev.Response.ID) // the metrics' rule
		if !ok {
			continue
		}
		switch {
		case e.Dir == trace.DirRecv && ev.Type == "response.created":
			if a := get(id); a.created == nil {
				a.created = ptrTo(e.TMs)
			}
		case e.Dir == trace.DirRecv && ev.Type == "response.output_audio_transcript.done":
			get(id).ex.Transcript = ev.Transcript
		case e.Dir == trace.DirRecv && ev.Type == "output_audio_buffer.cleared",
			e.Dir == trace.DirRecv && ev.Type == "response.done" && ev.Response.Status == "cancelled": // cut off before any audio
			get(id).ex.Truncated = true
		case e.Dir == trace.DirLocal && ev.Type == "duplexscope.playback_start":
			if a := get(id); a.start == nil {
				a.start = ptrTo(e.TMs)
			}
		case e.Dir == trace.DirLocal && ev.Type == "duplexscope.playback_end":
			a := get(id)
			a.ex.Truncated = a.ex.Truncated || ev.Cleared
			if ev.UnderrunMs > 0 {
				a.ex.Underruns++
			}
		}
	}
	// End of the user's speech (VAD of the sent audio, trace clock) → first
	// sample on the simulated player: the same pairing as the page.
	user, _ := turntaking.Channels(*t, nil)
	starts := make([]*float64, len(order))
	for i, id := range order {
		starts[i] = byID[id].start
	}
	ends := turntaking.SpeechEndToFirstSound(user, starts)
	var out []report.ResponseExtra
	for i, id := range order {
		a := byID[id]
		if a.created != nil && a.start != nil {
			a.ex.HeardTTFPMs = ptrTo(metrics.Round(*a.start-*a.created, 3))
			a.ex.HeardOrigin = heardOrigin
			if e := ends[i]; e != nil {
				a.ex.SpeechEndToHeardMs = ptrTo(metrics.Round(*e, 3))
			}
		}
		if a.ex.HeardTTFPMs == nil && a.ex.Transcript == "" && !a.ex.Truncated && a.ex.Underruns == 0 {
			continue
		}
		out = append(out, a.ex)
	}
	return out
}

// buildResult writes result.json: the run-level keys of duplex_metrics.json
// plus run information, OmniInteract-style pacing figures and failures.
func buildResult(o *runOptions, dm metrics.Report, rep *report.Report, sum *runSummary, started time.Time) []byte {
	var lagMax float64
	for _, s := range rep.Sessions {
		if s.PacingLagMax != nil && *s.PacingLagMax > lagMax {
			lagMax = *s.PacingLagMax
		}
	}
	meanLag, _ := pacingLag(loadRunSessions(o, rep))
	head := metrics.Object{
		{Key: "date", Value: started.UTC().Format(time.RFC3339)},
		{Key: "backend", Value: "openai-realtime-duplex"},
		{Key: "url", Value: o.URL},
		{Key: "model_id", Value: o.Model},
		{Key: "dataset", Value: o.Dataset},
		{Key: "split", Value: o.Split},
		{Key: "frame_ms", Value: o.FrameMs},
		{Key: "max_concurrency", Value: o.Concurrency},
		{Key: "duration_s", Value: time.Since(started).Seconds()},
		{Key: "num_sessions", Value: len(rep.Sessions)},
		{Key: "completed", Value: sum.Ran - len(sum.Failed)},
		{Key: "failed", Value: len(sum.Failed)},
		{Key: "skipped", Value: sum.Skipped},
		{Key: "pacing_mean_lag_s", Value: meanLag},
		{Key: "pacing_max_lag_s", Value: lagMax / 1000},
		{Key: "pacing_clock", Value: "client monotonic send clock"},
	}
	if o.RunID != "" {
		head = append(head, metrics.Member{Key: "run_id", Value: o.RunID})
	}
	if o.ShardCount > 0 {
		head = append(head, metrics.Member{Key: "shard", Value: fmt.Sprintf("%d/%d", o.ShardIndex, o.ShardCount)})
	}
	full := dm.Object()
	for _, m := range full {
		if m.Key == "duplex_request_metrics" || m.Key == "duplex_session_metrics" {
			continue
		}
		head = append(head, m)
	}
	clean, _ := metrics.Finite(head) // a non-finite run-level value is null, as in duplex_metrics.json (report.json warns)
	b, err := clean.(metrics.Object).MarshalJSON()
	if err != nil {
		b = []byte("{}")
	}
	var fails []runFailure
	fails = append(fails, sum.Failed...)
	fb, _ := json.Marshal(fails)
	if fails == nil {
		fb = []byte("[]")
	}
	if tb := turnTakingJSON(rep.TurnTaking); tb != nil {
		b = append(b[:len(b)-1], []byte(`,"turn_taking":`)...)
		b = append(b, tb...)
		b = append(b, '}')
	}
	// Append "failures" to the object.
	b = append(b[:len(b)-1], []byte(`,"failures":`)...)
	b = append(b, fb...)
	b = append(b, '}')
	var pretty bytes.Buffer
	if json.Indent(&pretty, b, "", "  ") == nil {
		return append(pretty.Bytes(), '\n')
	}
	return b
}

// uploadReport POSTs report.json to SERVER/api/reports and returns the share URL.
func uploadReport(ctx context.Context, o *runOptions, body []byte) (string, error) {
	base := strings.TrimRight(o.Upload, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/reports", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	h := sha256.Sum256(body)
	req.Header.Set("Idempotency-Key", "run-"+hex.EncodeToString(h[:16]))
	if tok := os.Getenv("DUPLEXSCOPE_WRITE_TOKEN"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST %s/api/reports: %s: %s", base, resp.Status, strings.TrimSpace(string(rb)))
	}
	var created struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := json.Unmarshal(rb, &created); err != nil {
		return "", fmt.Errorf("POST %s/api/reports: %w", base, err)
	}
	// The wire logs follow as the report's attachments (OUT/traces/NAME).
	var r struct {
		Attachments []report.Attachment `json:"attachments"`
	}
	_ = json.Unmarshal(body, &r)
	for _, a := range r.Attachments {
		if a.Kind != report.AttachWireLog {
			continue
		}
		data, err := os.ReadFile(filepath.Join(o.Out, dirTraces, a.Name))
		if err != nil {
			return "", fmt.Errorf("attachment %s: %w", a.Name, err)
		}
		u := base + "/api/reports/" + url.PathEscape(created.ID) + "/attachments/" + url.PathEscape(a.Name)
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, u, bytes.NewReader(data))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", a.ContentType)
		if tok := os.Getenv("DUPLEXSCOPE_WRITE_TOKEN"); tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", fmt.Errorf("PUT %s: %w", u, err)
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		// 409: a retried upload finds the attachment already stored; the
		// server checked it against the declared sha256, so it is this one.
		if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusConflict {
			return "", fmt.Errorf("PUT %s: %s: %s", u, resp.Status, strings.TrimSpace(string(msg)))
		}
	}
	return base + created.URL, nil
}

// loadProbes reads a --probe file: a JSON list of {kind, clip, offset_s,
// gain, duration_s}. clip is a WAV path (relative to the file),
// "builtin:SAMPLE_ID", "noise" (white noise, duration_s long, default 1 s),
// or "standard:KIND"; empty or "standard" means the standard clip of the
// probe's kind (dataset.ProbeClip), recorded as "standard:KIND".
func loadProbes(path string) ([]session.Probe, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var specs []struct {
		Kind      string   `json:"kind"`
		Clip      string   `json:"clip"`
		OffsetS   float64  `json:"offset_s"`
		Gain      *float64 `json:"gain"`
		DurationS float64  `json:"duration_s"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []session.Probe
	for i, sp := range specs {
		p := session.Probe{Kind: sp.Kind, Clip: sp.Clip, OffsetS: sp.OffsetS}
		if err := session.ValidateProbe(p); err != nil {
			return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
		}
		var (
			pcm []byte    // the clip as PCM16 (standard, builtin) …
			x   []float32 // … or as samples (noise, WAV files)
		)
		switch {
		case sp.Clip == "" || sp.Clip == "standard" || strings.HasPrefix(sp.Clip, dataset.StandardClipPrefix):
			kind := strings.TrimPrefix(sp.Clip, dataset.StandardClipPrefix)
			if sp.Clip == "" || sp.Clip == "standard" {
				kind = sp.Kind
			}
			var name string
			if pcm, name, err = dataset.ProbeClip(kind); err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			p.Clip = name
		case sp.Clip == "noise":
			d := sp.DurationS
			if d <= 0 {
				d = 1
			}
			x = dataset.Noise(int(d*audio.InputRate), dataset.NoiseSeed+uint32(i))
		case strings.HasPrefix(sp.Clip, "builtin:"):
			s, err := dataset.Find(dataset.BuiltinName, strings.TrimPrefix(sp.Clip, "builtin:"))
			if err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			if pcm, err = s.PCM(context.Background(), nil); err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
		default:
			f := sp.Clip
			if !filepath.IsAbs(f) {
				f = filepath.Join(filepath.Dir(path), f)
			}
			wb, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			c, err := audio.DecodeWAV(wb)
			if err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			x = audio.Resample(c.Samples, c.Rate, audio.InputRate)
		}
		if sp.Gain != nil {
			if x == nil {
				x = audio.PCM16ToFloat(pcm)
			}
			for k := range x {
				x[k] *= float32(*sp.Gain)
			}
			pcm = nil
		}
		if pcm == nil {
			pcm = audio.FloatToPCM16(x)
		}
		p.PCM = pcm
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no probes", path)
	}
	return out, nil
}
