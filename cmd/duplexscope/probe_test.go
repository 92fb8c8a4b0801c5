//go:build !js

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/session/probe/clips"
)

// TestLoadProbesStandardClip: a --probe entry without a clip (or with
// "standard" / "standard:KIND") gets the kind's standard clip, recorded
// under its name; the other clip forms keep working.
func TestLoadProbesStandardClip(t *testing.T) {
	t.Parallel()
	std := func(kind string) []byte {
		pcm, _, err := clips.StandardClip(kind)
		if err != nil {
			t.Fatal(err)
		}
		return pcm
	}
	tests := []struct {
		name, file string
		wantClip   string
		wantPCM    []byte // nil: only the name is checked
		wantErr    bool
	}{
		{"clip omitted", `[{"kind":"backchannel","offset_s":2}]`, "standard:backchannel", std("backchannel"), false},
		{"clip empty", `[{"kind":"interruption","clip":"","offset_s":2}]`, "standard:interruption", std("interruption"), false},
		{"clip standard", `[{"kind":"side_talk","clip":"standard","offset_s":2}]`, "standard:side_talk", std("side_talk"), false},
		{"standard of another kind", `[{"kind":"interruption","clip":"standard:noise","offset_s":2}]`, "standard:noise", std("noise"), false},
		{"first noise clip is the standard noise", `[{"kind":"noise","clip":"noise","offset_s":2}]`, "noise", std("noise"), false},
		{"builtin", `[{"kind":"side_talk","clip":"builtin:cup","offset_s":2}]`, "builtin:cup", nil, false},
		{"unknown standard clip", `[{"kind":"noise","clip":"standard:shout","offset_s":2}]`, "", nil, true},
		{"unknown builtin clip", `[{"kind":"noise","clip":"builtin:nope","offset_s":2}]`, "", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := filepath.Join(t.TempDir(), "probes.json")
			if err := os.WriteFile(f, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			ps, err := clips.Load(f)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("loadProbes = %+v, want an error", ps)
				}
				return
			}
			if err != nil || len(ps) != 1 {
				t.Fatalf("loadProbes = %d probes, %v", len(ps), err)
			}
			if ps[0].Clip != tc.wantClip || len(ps[0].PCM) == 0 || (tc.wantPCM != nil && !bytes.Equal(ps[0].PCM, tc.wantPCM)) {
				t.Errorf("clip %q (%.0f ms), want %q with the standard audio", ps[0].Clip, audio.BytesToMs(len(ps[0].PCM), audio.InputRate), tc.wantClip)
			}
		})
	}
}

// silentDataset writes a dataset directory with one clip of silence: the
// only speech the simulator hears is the probes'.
func silentDataset(t *testing.T, seconds float64) string {
	t.Helper()
	dir := t.TempDir()
	var wav bytes.Buffer
	if err := audio.WritePCM16WAV(&wav, make([]byte, int(seconds*audio.InputRate)*2), audio.InputRate); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "silence.wav"), wav.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.jsonl"), []byte(`{"sample_id":"silence","split":"probe","audio":"silence.wav"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunStandardProbes runs `run --probe` with clip-less probes against
// simulator scenarios whose answers are known. The input is silence; the
// simulator's turns are fixed (sim_turns_ms=500,3000: answers at 0.5 s and
// 3 s of input, 6 s long, TTFP 100 ms), so the first answer plays from
// ≈ 0.6 s when a backchannel ("mm hmm", 670 ms of speech) lands at 2 s and
// an interruption ("Wait, what about Mars?", 1.66 s) at 4 s.
//
//   - personaplex + ignores_backchannels: only speech lasting 1 s
//     truncates. The backchannel is talked through (later_probe: the answer
//     is cut after the interruption's onset); the interruption cuts it once
//     1 s of it was heard: stop latency ≥ 1 s less one 200 ms input frame
//     sent ahead, ≤ the 1.7 s clip + delivery slack; the 3 s turn, held
//     back while the answer played, is answered at once (resume < 500 ms).
//   - personaplex: any speech truncates within 80 ms of its onset. The
//     backchannel cuts the first answer (≤ 450 ms: one 200 ms frame + 80 ms
//   - slack, as TestRunProbesInReport) and the model resumes with the 3 s
//     turn ≈ 1 s later; the interruption cuts that second answer (what
//     follows is the final commit's listen decision: not checked).
func TestRunStandardProbes(t *testing.T) {
	t.Parallel()
	_, ws := startSim(t)
	data := silentDataset(t, 6)
	probe := filepath.Join(t.TempDir(), "probe.json")
	if err := os.WriteFile(probe, []byte(`[{"kind":"backchannel","offset_s":2},{"kind":"interruption","clip":"standard","offset_s":4}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	type want struct {
		stoppedBy            string
		minMs, maxMs         float64 // stop latency; both 0: none
		resumeMin, resumeMax float64 // resume_after_ms; both 0: none; max < 0: not checked
	}
	const sc = "&sim_turns_ms=500,3000&sim_ttfp_ms=100&sim_response_ms=6000"
	tests := []struct {
		name, query         string
		backchannel, interr want
	}{
		{"ignores backchannels", "sim_profile=personaplex&sim_behavior=ignores_backchannels" + sc,
			want{"later_probe", 0, 0, 0, 0}, want{"cleared", 800, 2150, 0, 500}},
		{"truncates at any speech", "sim_profile=personaplex" + sc,
			want{"cleared", 0, 450, 500, 1500}, want{"cleared", 0, 450, 0, -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, _, _ := runOut(t, "--url", ws+"?"+tc.query, "--dataset", data, "--probe", probe)
			if len(rep.Probes) != 2 {
				t.Fatalf("report.json probes = %+v, want 2", rep.Probes)
			}
			lag := inputLagMs(rep)
			for i, w := range []want{tc.backchannel, tc.interr} {
				p := rep.Probes[i]
				kind := []string{"backchannel", "interruption"}[i]
				if p.Kind != kind || p.Clip != "standard:"+kind || p.ActiveResponseID == "" || p.ReceivedMs == nil {
					t.Errorf("probe %d: kind %q clip %q active %q received %v; want %s, standard:%s, during an answer", i, p.Kind, p.Clip, p.ActiveResponseID, p.ReceivedMs, kind, kind)
				}
				lat, res := -1.0, -1.0
				if p.StopLatencyMs != nil {
					lat = *p.StopLatencyMs
				}
				if p.ResumeAfterMs != nil {
					res = *p.ResumeAfterMs
				}
				if none := w.minMs == 0 && w.maxMs == 0; p.StoppedBy != w.stoppedBy || (none && p.StopLatencyMs != nil) || (!none && (lat < w.minMs || lat > w.maxMs+lag || p.PlayedMs == nil)) {
					t.Errorf("%s: stopped_by %q stop latency %v ms played %v; want %q, latency in [%v, %v + %.1f] ms (+ the run's input pacing lag)", kind, p.StoppedBy, lat, p.PlayedMs, w.stoppedBy, w.minMs, w.maxMs, lag)
				}
				if none := w.resumeMin == 0 && w.resumeMax == 0; w.resumeMax >= 0 && ((none && p.ResumeAfterMs != nil) || (!none && (res < w.resumeMin || res > w.resumeMax+lag))) {
					t.Errorf("%s: resume_after_ms %v, want in [%v, %v + %.1f] (+ the input lag; none when both 0)", kind, res, w.resumeMin, w.resumeMax, lag)
				}
				t.Logf("%s: stopped_by %s stop %.0f ms played %v received %v resume after %.0f ms, next response %.0f ms after onset",
					kind, p.StoppedBy, lat, deref(p.PlayedMs), deref(p.ReceivedMs), res, deref(p.NextResponseMs))
			}
		})
	}
}
