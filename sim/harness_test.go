//go:build !js

package sim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"testing"
	"time"
)

// rec is one output of the engine at its (injected) emit time.
type rec struct {
	t     time.Duration
	frame []byte
	act   action
	ev    map[string]any // nil for malformed frames
}

// harness drives an engine with injected times: no goroutines, no clock.
type harness struct {
	t      testing.TB
	e      *engine
	now    time.Duration
	out    []rec
	n      int  // input bytes sent
	stalls int  // reader stalls requested
	slow   bool // outputs marked for slow writing
}

func newHarness(t testing.TB, sc Scenario, query string) *harness {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{Seed: 1}
	cfg, err := o.resolve(sc, q)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, e: newEngine(cfg, "duplex-test", 42, 0, &truthRec{})}
}

func mustProfile(t testing.TB, name string) Scenario {
	t.Helper()
	s, err := Profile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runUntil emits every output due up to at, each at its due time.
func (h *harness) runUntil(at time.Duration) {
	for {
		n, ok := h.e.next()
		if !ok || n > at {
			break
		}
		if n < h.now {
			n = h.now
		}
		h.now = n
		o, ok := h.e.pop(n)
		if !ok {
			// a deadline that produced nothing must not repeat forever
			if n2, ok2 := h.e.next(); ok2 && n2 == n {
				h.t.Fatalf("engine stuck at %v", n)
			}
			continue
		}
		h.slow = h.slow || o.slow
		r := rec{t: n, frame: o.frame, act: o.act}
		var m map[string]any
		if json.Unmarshal(o.frame, &m) == nil {
			r.ev = m
		}
		h.out = append(h.out, r)
	}
	if at > h.now {
		h.now = at
	}
}

// send delivers a client event accepted at time at.
func (h *harness) send(at time.Duration, v any) time.Duration {
	h.runUntil(at)
	b, ok := v.([]byte)
	if !ok {
		b, _ = json.Marshal(v)
	}
	stall := h.e.handle(at, b)
	if stall > 0 {
		h.stalls++
	}
	return stall
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (h *harness) update(at time.Duration) { h.send(at, sessionUpdate()) }

// stream sends pcm as chunkMs appends paced in real time from start; it
// returns the time after the last chunk.
func (h *harness) stream(start time.Duration, pcm []byte, chunkMs int) time.Duration {
	chunk := chunkMs * 32
	t := start
	for off := 0; off < len(pcm); off += chunk {
		b := pcm[off:min(off+chunk, len(pcm))]
		h.n += len(b)
		h.send(t, map[string]any{"type": "input_audio_buffer.append", "event_id": fmt.Sprintf("evt_%d", h.n),
			"audio": base64.StdEncoding.EncodeToString(b), "format": "pcm16", "sample_rate_hz": 16000})
		t += time.Duration(len(b)) * time.Second / 32000
	}
	return t
}

func (h *harness) types() []string {
	var out []string
	for _, r := range h.out {
		if r.ev == nil {
			out = append(out, "<malformed>")
			continue
		}
		out = append(out, r.ev["type"].(string))
	}
	return out
}

func (h *harness) ofType(typ string) []rec {
	var out []rec
	for _, r := range h.out {
		if r.ev != nil && r.ev["type"] == typ {
			out = append(out, r)
		}
	}
	return out
}

func (h *harness) truth() Truth {
	h.e.truth.mu.Lock()
	defer h.e.truth.mu.Unlock()
	b, _ := json.Marshal(h.e.truth.t)
	var t Truth
	_ = json.Unmarshal(b, &t)
	return t
}

var payloadRE = regexp.MustCompile(`"(delta|audio)":"[A-Za-z0-9+/=]{40,}"`)

// summary renders outputs as NDJSON with audio payloads replaced by their size.
func (h *harness) summary() []byte {
	var buf []byte
	for _, r := range h.out {
		f := payloadRE.ReplaceAllFunc(r.frame, func(m []byte) []byte {
			sub := payloadRE.FindSubmatch(m)
			raw := m[len(sub[1])+4 : len(m)-1]
			b, _ := base64.StdEncoding.DecodeString(string(raw))
			return []byte(fmt.Sprintf(`"%s":"<pcm16 %d bytes>"`, sub[1], len(b)))
		})
		buf = append(buf, fmt.Sprintf(`{"t_ms":%.3f,"act":%d,"frame":`, msOf(r.t), r.act)...)
		if r.ev == nil {
			q, _ := json.Marshal(string(f))
			buf = append(buf, q...)
		} else {
			buf = append(buf, f...)
		}
		buf = append(buf, "}\n"...)
	}
	return buf
}
