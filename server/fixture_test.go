//go:build !js

package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

type fixture struct {
	model   string
	n       int
	ttfp    float64 // base TTFP (ms); responses spread ±20 %
	seed    uint64
	source  string // row source (default server)
	frameMs int
	runID   string
	shard   *report.Shard
	session string
	edit    func(*report.Report)
}

// build returns a valid report with deterministic pseudo-random rows.
func (f fixture) build(t testing.TB) *report.Report {
	t.Helper()
	if f.source == "" {
		f.source = report.SourceServer
	}
	if f.frameMs == 0 {
		f.frameMs = 200
	}
	if f.session == "" {
		f.session = "sess-1"
	}
	rng := rand.New(rand.NewPCG(f.seed, 7))
	var rows []string
	var extras []report.ResponseExtra
	for i := 0; i < f.n; i++ {
		ttfp := f.ttfp * (0.8 + 0.4*rng.Float64())
		ttft := ttfp * 0.8
		gen := 900 + 200*rng.Float64()
		dur := 1000.0
		origin := `{"ttft":"accepted native-append start","ttfp":"accepted native-append start","tpot":"Stage-0 engine mean time per output token","rtf":"response.created client receive to last audio packet divided by emitted audio duration","client_ttft":"c","client_ttfp":"c"}`
		rows = append(rows, fmt.Sprintf(`{"session_id":%q,"request_index":%d,"response_id":"resp_%d","source":%q,"measurement_origin":%s,"ttft_ms":%.3f,"ttfp_ms":%.3f,"audio_generation_ms":%.3f,"audio_duration_ms":%.1f,"response_created_to_first_text_ms":%.3f,"response_created_to_first_audio_ms":%.3f,"tpot_ms":12.5,"rtf":%.6f,"client_ttft_ms":%.3f,"client_ttfp_ms":%.3f}`,
			f.session, i, i, f.source, origin, ttft, ttfp, gen, dur, ttft+20, ttfp+20, gen/dur, ttft+20, ttfp+20))
		heard := ttfp + 60
		extras = append(extras, report.ResponseExtra{SessionID: f.session, ResponseID: fmt.Sprintf("resp_%d", i), HeardTTFPMs: &heard, HeardOrigin: "playback clock"})
	}
	sess := fmt.Sprintf(`{"session_id":%q,"audio_turn_count":%d,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_ttft_ms":1200.5,"stream_ttfp_ms":1300.25,"stream_rtf":2.5,"stream_audio_generation_ms":9000.0,"stream_audio_duration_ms":3600.0}`, f.session, f.n)
	r, err := report.New(report.Run{
		TargetURL: "ws://127.0.0.1:8080/v1/realtime", Model: f.model, Profile: "minicpmo", FrameMs: f.frameMs,
		Version: "test", Client: report.ClientCLI, Machine: report.Machine{OS: "linux", Arch: "amd64", CPUs: 2},
		Source: report.Source{Kind: report.SourceDataset, Dataset: "builtin"}, Concurrency: 1,
		RunID: f.runID, Shard: f.shard, StartedAt: "2026-12-02T11:00:00Z",
	}, []byte(`{"duplex_request_metrics":[`+strings.Join(rows, ",")+`],"duplex_session_metrics":[`+sess+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Responses = extras
	r.Sessions = []report.SessionExtra{{SessionID: f.session, Complete: true}}
	if f.edit != nil {
		f.edit(r)
	}
	report.Finish(r)
	return r
}

func (f fixture) json(t testing.TB) []byte {
	t.Helper()
	b, err := report.MarshalIndent(f.build(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// att is an attachment a fixture report declares (name, type, bytes).
type att struct {
	name, ctype string
	body        []byte
}

// declare returns a fixture edit that declares the attachments with their
// size and sha256, as the page and the CLI do.
func declare(as ...att) func(*report.Report) {
	return func(r *report.Report) {
		for _, a := range as {
			sum := sha256.Sum256(a.body)
			r.Attachments = append(r.Attachments, report.Attachment{Name: a.name, Kind: report.AttachOther, ContentType: a.ctype,
				SizeBytes: int64(len(a.body)), SHA256: hex.EncodeToString(sum[:])})
		}
	}
}

type reportT = report.Report

// attachmentNoSHA is a declaration without size or sha256 (hand-made reports).
func attachmentNoSHA(name string) report.Attachment {
	return report.Attachment{Name: name, Kind: report.AttachOther}
}
