//go:build !js

package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
)

// vllmFlags are `vllm bench serve --omni` / `vllm bench omni-duplex-eval`
// spellings run accepts, so a vLLM command line works with the binary
// swapped (vllm/benchmarks/serve.py add_cli_args; vLLM-Omni's OmniInteract
// flags, docs/metrics.md#dataset-inputs). Each maps onto run's own flag of the same meaning.
type vllmFlags struct {
	DatasetName     string // omniinteract | omni-duplex-eval
	DatasetPath     string
	NumPrompts      int
	MaxConcurrency  int
	SaveResult      bool
	ResultDir       string
	ResultFilename  string
	RequestIDPrefix string
	Subsets         multiFlag // --omniinteract-subsets
	BaseURL         string
	Host            string
	Port            int
	Endpoint        string
	Backend         string
	Label           string
	Metadata        multiFlag // KEY=VALUE, saved in the result file
	RequestRate     string
	Burstiness      float64
	Seed            int
	DisableShuffle  bool
	TimeoutS        float64 // --omniinteract-timeout-s
	KeepVideo       bool    // duplexscope: keep frame bytes in wire logs
}

// multiFlag collects a repeated (or comma-separated) flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error {
	*m = append(*m, splitList(v)...)
	return nil
}

func registerVLLMFlags(fs *flag.FlagSet, v *vllmFlags) {
	fs.StringVar(&v.DatasetName, "dataset-name", "", "vLLM: omniinteract | omni-duplex-eval (with --dataset-path)")
	fs.StringVar(&v.DatasetPath, "dataset-path", "", "vLLM: dataset directory or record file")
	fs.IntVar(&v.NumPrompts, "num-prompts", -1, "vLLM: sessions to run (--limit; 0 = all; OmniInteract default 3)")
	fs.IntVar(&v.MaxConcurrency, "max-concurrency", 0, "vLLM: sessions at a time (--concurrency)")
	fs.BoolVar(&v.SaveResult, "save-result", false, "vLLM: write the bench serve result JSON")
	fs.StringVar(&v.ResultDir, "result-dir", "", "vLLM: directory of the --save-result file (default .)")
	fs.StringVar(&v.ResultFilename, "result-filename", "", "vLLM: name of the --save-result file")
	fs.StringVar(&v.RequestIDPrefix, "request-id-prefix", "", "vLLM: request id prefix (default bench-<8 hex>-)")
	fs.Var(&v.Subsets, "omniinteract-subsets", "vLLM-Omni: OmniInteract subsets (1q1a,1q1a_math,1qna; default all)")
	fs.StringVar(&v.BaseURL, "base-url", "", "vLLM: server base URL (with --endpoint; instead of --url)")
	fs.StringVar(&v.Host, "host", "", "vLLM: server host (with --port and --endpoint; instead of --url)")
	fs.IntVar(&v.Port, "port", 8000, "vLLM: server port")
	fs.StringVar(&v.Endpoint, "endpoint", "/v1/realtime", "vLLM: API endpoint")
	fs.StringVar(&v.Backend, "backend", "openai-realtime-duplex", "vLLM: backend (only openai-realtime-duplex)")
	fs.StringVar(&v.Label, "label", "", "vLLM: result label")
	fs.Var(&v.Metadata, "metadata", "vLLM: KEY=VALUE saved in the result file (repeatable)")
	fs.StringVar(&v.RequestRate, "request-rate", "inf", "vLLM: only inf (sessions start as slots free up)")
	fs.Float64Var(&v.Burstiness, "burstiness", 1.0, "vLLM: recorded only")
	fs.IntVar(&v.Seed, "seed", 0, "vLLM: recorded only")
	fs.BoolVar(&v.DisableShuffle, "disable-shuffle", false, "vLLM: duplexscope never shuffles (accepted)")
	fs.Float64Var(&v.TimeoutS, "omniinteract-timeout-s", 0, "vLLM-Omni: per-session completion timeout (--timeout)")
	fs.BoolVar(&v.KeepVideo, "keep-video", false, "keep video frame bytes in the wire logs (default: {bytes, sha256})")
}

// applyVLLM maps the vLLM spellings onto o. set reports which flags the
// command line named.
func applyVLLM(o *runOptions, set map[string]bool) error {
	v := &o.vllmSpellings
	switch v.DatasetName {
	case "", dataset.KindOmniInteract, dataset.KindDuplexEval:
	default:
		return fmt.Errorf("run: --dataset-name %q, want %s or %s", v.DatasetName, dataset.KindOmniInteract, dataset.KindDuplexEval)
	}
	if v.DatasetPath != "" {
		if o.Dataset != "" && o.Dataset != v.DatasetPath {
			return errors.New("run: give --dataset or --dataset-path, not both")
		}
		o.Dataset = v.DatasetPath
	}
	if v.DatasetName == dataset.KindOmniInteract && o.Dataset == "" {
		return errors.New("run: --dataset-name omniinteract needs --dataset-path DIR (the OmniInteract data directory)")
	}
	if set["num-prompts"] {
		if v.NumPrompts < 0 {
			return fmt.Errorf("run: --num-prompts %d, want ≥ 0", v.NumPrompts)
		}
		o.Limit = v.NumPrompts
	} else if v.DatasetName == dataset.KindOmniInteract && !set["limit"] {
		o.Limit = 3 // the reference's OmniInteract default
	}
	if v.DatasetName == dataset.KindDuplexEval && !set["frame-ms"] {
		o.FrameMs, o.FrameGiven = 1000, true // Omni-DuplexEval streams 1 000 ms units (unit_ms)
	}
	if set["max-concurrency"] {
		if v.MaxConcurrency <= 0 {
			return errors.New("run: --max-concurrency must be greater than 0")
		}
		o.Concurrency = v.MaxConcurrency
	}
	if v.Backend != "openai-realtime-duplex" {
		return fmt.Errorf("run: --backend %q: duplexscope speaks only openai-realtime-duplex", v.Backend)
	}
	if v.RequestRate != "inf" {
		return fmt.Errorf("run: --request-rate %s: only inf (every session starts as soon as a --max-concurrency slot is free)", v.RequestRate)
	}
	if v.TimeoutS < 0 || v.TimeoutS > 86400 {
		return fmt.Errorf("run: --omniinteract-timeout-s %g, want 0…86400", v.TimeoutS)
	}
	if v.TimeoutS > 0 {
		o.Timeout = time.Duration(v.TimeoutS * float64(time.Second))
	}
	for _, m := range v.Metadata {
		if !strings.Contains(m, "=") {
			return fmt.Errorf("run: --metadata %q: use KEY=VALUE", m)
		}
	}
	if o.URL == "" {
		switch {
		case v.BaseURL != "":
			o.URL = strings.TrimRight(v.BaseURL, "/") + v.Endpoint
		case v.Host != "":
			o.URL = "http://" + net.JoinHostPort(v.Host, strconv.Itoa(v.Port)) + v.Endpoint
		}
		if o.URL != "" {
			if _, err := url.Parse(o.URL); err != nil {
				return fmt.Errorf("run: server URL: %w", err)
			}
		}
	}
	if v.RequestIDPrefix == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		v.RequestIDPrefix = "bench-" + hex.EncodeToString(b[:]) + "-"
	}
	if o.Out == "" && v.SaveResult {
		// A vLLM command line names no --out: the run files go next to
		// the result file, in a directory of their own.
		dir := v.ResultDir
		if dir == "" {
			dir = "."
		}
		o.Out = filepath.Join(dir, "duplexscope-"+time.Now().Format("20060102-150405"))
	}
	return nil
}
