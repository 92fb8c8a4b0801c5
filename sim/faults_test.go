//go:build !js

package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// TestFaults exercises every fault mode on the engine with injected time
// and checks its signature in the emitted frames.
func TestFaults(t *testing.T) {
	t.Parallel()
	firstResp := func(h *harness) string { return h.truth().Responses[0].ResponseID }
	respFrames := func(h *harness, rid, typ string) []rec {
		var out []rec
		for _, r := range h.ofType(typ) {
			if str(r.ev, "response_id") == rid {
				out = append(out, r)
			}
		}
		return out
	}
	tests := []struct {
		fault string
		extra func(h *harness) // extra client traffic before close
		check func(t *testing.T, h *harness)
	}{
		{FaultNoRequestMetrics, nil, func(t *testing.T, h *harness) {
			for _, r := range h.out {
				if bytes.Contains(r.frame, []byte("response_request_metrics")) {
					t.Fatalf("metrics in %s", r.frame)
				}
			}
			if len(h.ofType(protocol.TypeResponseOutputAudioDelta)) == 0 {
				t.Fatal("no audio")
			}
		}},
		{FaultLegacyAudio, nil, func(t *testing.T, h *harness) {
			if len(h.ofType(protocol.TypeResponseOutputAudioDelta)) != 0 || len(h.ofType(protocol.TypeLegacyAudioDelta)) == 0 ||
				len(h.ofType(protocol.TypeLegacyAudioDone)) == 0 || len(h.ofType(protocol.TypeResponseOutputAudioTranscriptDelta)) == 0 {
				t.Fatalf("%v", h.types())
			}
		}},
		{FaultNoSampleRate, nil, func(t *testing.T, h *harness) {
			for _, r := range h.ofType(protocol.TypeResponseOutputAudioDelta) {
				if _, ok := r.ev["sample_rate_hz"]; ok {
					t.Fatalf("sample_rate_hz in %s", r.frame[:200])
				}
			}
		}},
		{FaultNoAudioDuration, nil, func(t *testing.T, h *harness) {
			for _, r := range h.ofType(protocol.TypeResponseOutputAudioDelta) {
				if _, ok := num(r.ev, "metadata", "audio_duration_ms"); ok {
					t.Fatal("audio_duration_ms present")
				}
			}
		}},
		{FaultAudioField, nil, func(t *testing.T, h *harness) {
			for _, r := range h.ofType(protocol.TypeResponseOutputAudioDelta) {
				if str(r.ev, "audio") == "" || r.ev["delta"] != nil {
					t.Fatal("payload not in audio")
				}
			}
		}},
		{FaultFlatError, func(h *harness) {
			h.send(h.now, map[string]any{"type": "playback.ack", "response_id": "nope", "played_ms": 0})
		}, func(t *testing.T, h *harness) {
			e := h.ofType(protocol.TypeError)
			if len(e) != 1 || str(e[0].ev, "error") == "" || str(e[0].ev, "code") != protocol.CodePlaybackItemNotFound {
				t.Fatalf("%v", e)
			}
		}},
		{FaultUnexpectedClose, nil, func(t *testing.T, h *harness) {
			last := h.out[len(h.out)-1]
			if last.ev["type"] != protocol.TypeSessionClosed || str(last.ev, "reason") != "server_shutdown" || last.act != actClose {
				t.Fatalf("last = %s", last.frame)
			}
			if n := len(h.ofType(protocol.TypeResponseDone)); n != 1 {
				t.Errorf("%d response.done before the close", n)
			}
			if h.truth().EndReason != "unexpected_close" {
				t.Error(h.truth().EndReason)
			}
		}},
		{FaultSlowHandshake, nil, func(t *testing.T, h *harness) {
			c := h.ofType(protocol.TypeSessionCreated)
			if len(c) != 1 || c[0].t != 35*time.Second {
				t.Fatalf("session.created at %v", c)
			}
		}},
		{FaultDroppedEvent, nil, func(t *testing.T, h *harness) {
			d := respFrames(h, firstResp(h), protocol.TypeResponseOutputAudioDelta)
			var durs []float64
			for _, r := range d {
				v, _ := num(r.ev, "metadata", "audio_duration_ms")
				durs = append(durs, v)
			}
			if len(d) != 3 || durs[0] != 100 || durs[1] != 300 {
				t.Fatalf("first response deltas: %v", durs)
			}
			if d2 := respFrames(h, h.truth().Responses[1].ResponseID, protocol.TypeResponseOutputAudioDelta); len(d2) != 4 {
				t.Errorf("second response has %d deltas", len(d2))
			}
			if a := h.truth().Responses[0].AudioMs; a != 300 {
				t.Errorf("truth audio_ms %v, want the 300 ms actually sent", a)
			}
		}},
		{FaultDroppedDone, nil, func(t *testing.T, h *harness) {
			if len(respFrames(h, firstResp(h), protocol.TypeResponseDone)) != 0 || len(h.ofType(protocol.TypeResponseDone)) < 2 {
				t.Fatalf("%v", h.types())
			}
		}},
		{FaultMalformedJSON, nil, func(t *testing.T, h *harness) {
			n := 0
			for i, r := range h.out {
				if r.ev == nil {
					n++
					if h.out[i-1].ev["type"] != protocol.TypeResponseCreated {
						t.Errorf("malformed frame after %v", h.out[i-1].ev["type"])
					}
				}
			}
			if n != 1 {
				t.Fatalf("%d malformed frames", n)
			}
		}},
		{FaultErrorEvent, nil, func(t *testing.T, h *harness) {
			e := h.ofType(protocol.TypeError)
			if len(e) != 1 || str(e[0].ev, "error", "code") != protocol.CodeEngineError || str(e[0].ev, "error", "type") != protocol.ErrorTypeServer {
				t.Fatalf("%v", e)
			}
			if countSpeak(h) < 3 {
				t.Error("session did not continue after the error")
			}
		}},
		{FaultDelayedBurst, nil, func(t *testing.T, h *harness) {
			for _, tr := range h.truth().Responses {
				d := respFrames(h, tr.ResponseID, protocol.TypeResponseOutputAudioDelta)
				if tr.Kind != "speak" || len(d) < 3 {
					continue
				}
				if d[1].t == d[0].t || d[1].t != d[len(d)-1].t {
					t.Fatalf("%s delta times %v %v %v", tr.ResponseID, d[0].t, d[1].t, d[len(d)-1].t)
				}
				// The burst comes BurstDelay after the last packet's normal
				// time, so more than BurstDelay after the first packet; the
				// truth records the real emit times.
				if gap := d[len(d)-1].t - d[0].t; gap <= BurstDelay || tr.LastAudioMs == nil || tr.DoneMs == nil ||
					*tr.LastAudioMs-*tr.FirstAudioMs != float64(gap)/float64(time.Millisecond) || *tr.DoneMs < *tr.LastAudioMs {
					t.Fatalf("%s: first→burst %v, truth first %v last %v done %v: want the burst > %v after the first packet",
						tr.ResponseID, gap, tr.FirstAudioMs, tr.LastAudioMs, tr.DoneMs, BurstDelay)
				}
			}
		}},
		{FaultDisconnectMidResponse, nil, func(t *testing.T, h *harness) {
			last := h.out[len(h.out)-1]
			d := respFrames(h, firstResp(h), protocol.TypeResponseOutputAudioDelta)
			if last.act != actDisconnect || len(d) != 2 || string(last.frame) != string(d[1].frame) {
				t.Fatalf("last %s act %d", last.frame[:80], last.act)
			}
			if h.truth().EndReason != "disconnect" {
				t.Error(h.truth().EndReason)
			}
		}},
		{FaultStalledReader, nil, func(t *testing.T, h *harness) {
			if h.stalls != 1 {
				t.Fatalf("%d stalls", h.stalls)
			}
		}},
		// Every frame has an increasing server_event_seq except the 3 replays,
		// which repeat earlier seqs: the client's de-duplication rule (drop
		// seq ≤ last accepted) restores the original stream.
		{FaultReplayedEvents, nil, func(t *testing.T, h *harness) {
			var last float64
			var dropped []string
			for _, r := range h.out {
				seq, ok := num(r.ev, "server_event_seq")
				if !ok {
					t.Fatalf("no server_event_seq: %s", r.frame[:min(120, len(r.frame))])
				}
				if seq <= last {
					dropped = append(dropped, r.ev["type"].(string))
					continue
				}
				last = seq
			}
			want := []string{"response.output_item.done", "conversation.item.done", "response.done"}
			if strings.Join(dropped, ",") != strings.Join(want, ",") {
				t.Errorf("dropped %v, want %v", dropped, want)
			}
			replays := 0
			for _, e := range h.truth().Events {
				if e.Replay {
					replays++
				}
			}
			if replays != 3 || len(h.truth().Events) != len(h.out) {
				t.Errorf("truth: %d replays, %d events for %d frames", replays, len(h.truth().Events), len(h.out))
			}
		}},
		{FaultSlowWriter, nil, func(t *testing.T, h *harness) {
			if !h.slow || len(h.ofType(protocol.TypeResponseOutputAudioDelta)) == 0 {
				t.Fatal("outputs not marked slow")
			}
		}},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.fault] = true
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, mustProfile(t, ProfileTest), "sim_fault="+tc.fault)
			h.update(0)
			start := time.Duration(0)
			if tc.fault == FaultSlowHandshake {
				start = 36 * time.Second
			}
			end := h.stream(start+10*ms, speechPCM(threeTurns...), 200)
			if tc.extra != nil {
				tc.extra(h)
			}
			h.runUntil(end + 3*time.Second)
			h.send(end+3*time.Second, map[string]any{"type": "session.close"})
			h.runUntil(end + 4*time.Second)
			tc.check(t, h)
		})
	}
	for _, f := range Faults() {
		if !covered[f[0]] {
			t.Errorf("fault %s not exercised", f[0])
		}
	}
}

// TestFaultList documents every fault in doc.go.
func TestFaultList(t *testing.T) {
	t.Parallel()
	doc := readFile(t, "doc.go")
	for _, f := range Faults() {
		if !strings.Contains(doc, "//\t"+f[0]+" ") {
			t.Errorf("fault %s missing from doc.go's table", f[0])
		}
	}
	for _, b := range Behaviors() {
		if !strings.Contains(doc, b[0]) {
			t.Errorf("behavior %s missing from doc.go", b[0])
		}
	}
	for _, p := range Profiles() {
		if !strings.Contains(doc, "//\t"+p+" ") {
			t.Errorf("profile %s missing from doc.go", p)
		}
	}
}
