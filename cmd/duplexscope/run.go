//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
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
  --handshake-timeout DUR  how long a session waits for session.created after connecting (default 20s; a
                       server that loads its model on connect may need longer), at most 1h
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

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRunFlags(args, stderr)
	if err != nil {
		return flagError(err)
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

// runBench runs the benchmark described by o: plan (inputs, resume),
// pool (the sessions), outputs (files, summary, upload).
func runBench(ctx context.Context, o *runOptions, stdout, stderr io.Writer) (*runSummary, error) {
	started := time.Now()
	in, err := loadRunInputs(o)
	if err != nil {
		return nil, err
	}
	if err := prepareOut(o); err != nil {
		return nil, err
	}
	if len(in.levels) > 0 {
		return runLoadCurve(ctx, o, in.samples, in.dopts, in.refAudio, in.levels, stdout)
	}
	plan, err := planResume(o, in.samples)
	if err != nil {
		return nil, err
	}
	stats := &liveStats{}
	progress := newSessionProgress(o.Progress, len(plan.todo), stderr, stats)
	runner := newSessionRunner(o, in, stats, progress)
	outcomes := runPool(ctx, len(plan.todo), o.Concurrency, func(i int) outcome { return runner.run(ctx, plan.todo[i]) }, progress.step)
	progress.finish()
	out := &runOutputs{o: o, in: in, plan: plan, started: started, now: time.Now, stdout: stdout}
	return out.finish(ctx, outcomes, stats)
}
