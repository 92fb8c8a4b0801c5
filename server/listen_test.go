//go:build !js

package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
)

// pcmDC is n samples of a constant level (PCM16 LE): every sample is
// non-zero, so where a lane's audio starts is exact to the sample.
func pcmDC(n int, v int16) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// wireLog is a session's duplex-trace/v1 log: stream start at 1000 ms, 3 s
// of input in 200 ms appends, resp_0's audio (0.5 s, five packets arriving
// at once at 2250 ms: faster than real time), resp_1's (0.25 s) arriving at
// 2500 ms while resp_0 still plays, transcripts of both sides.
func wireLog(t *testing.T, userText string) []byte {
	t.Helper()
	type ev struct {
		T   float64        `json:"t_ms"`
		Dir string         `json:"dir"`
		Ev  map[string]any `json:"event"`
	}
	evs := []ev{{1000, "local", map[string]any{"type": "duplexscope.stream_start"}}}
	for i := 0; i < 15; i++ {
		evs = append(evs, ev{1000 + 200*float64(i), "send", map[string]any{"type": "input_audio_buffer.append",
			"audio": base64.StdEncoding.EncodeToString(pcmDC(3200, 4000))}})
	}
	evs = append(evs, ev{2100, "recv", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_0"}}})
	evs = append(evs, ev{2200, "recv", map[string]any{"type": "response.output_audio_transcript.delta", "response_id": "resp_0", "delta": "Hello <b>there</b>"}})
	for i := 0; i < 5; i++ {
		evs = append(evs, ev{2250, "recv", map[string]any{"type": "response.output_audio.delta", "response_id": "resp_0",
			"delta": base64.StdEncoding.EncodeToString(pcmDC(2400, 8000))}})
	}
	evs = append(evs, ev{2500, "recv", map[string]any{"type": "response.output_audio.delta", "response_id": "resp_1",
		"delta": base64.StdEncoding.EncodeToString(pcmDC(6000, -8000))}})
	if userText != "" {
		evs = append(evs, ev{2050, "recv", map[string]any{"type": "conversation.item.input_audio_transcription.completed", "item_id": "item_1", "transcript": userText}})
	}
	b, err := json.Marshal(map[string]any{"format": "duplex-trace/v1", "session": map[string]any{"session_id": "sess-1", "stream_start_ms": 1000.0}, "events": evs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// uploadWithWireLog archives a fixture report whose session has the wire
// log attached, as the page uploads one.
func uploadWithWireLog(t *testing.T, e *env, log []byte, edit func(*report.Report)) string {
	t.Helper()
	sum := sha256.Sum256(log)
	body := fixture{model: "m", n: 2, ttfp: 300, edit: func(r *report.Report) {
		r.Attachments = append(r.Attachments, report.Attachment{Name: "wire-log.json", Kind: report.AttachWireLog, ContentType: "application/json",
			SizeBytes: int64(len(log)), SHA256: hex.EncodeToString(sum[:]), SessionID: "sess-1"})
		start := 1000.0
		r.Sessions[0].WireLog, r.Sessions[0].StreamStartMs = "wire-log.json", &start
		r.Responses[0].Transcript = "Hello <b>there</b>"
		if edit != nil {
			edit(r)
		}
	}}.json(t)
	id := upload(t, e, body)
	if code, _, b := e.do("PUT", "/api/reports/"+id+"/attachments/wire-log.json", log); code != 201 {
		t.Fatalf("attach = %d %s", code, b)
	}
	return id
}

// firstNonZero is the index of a lane's first non-zero sample (-1: none).
func firstNonZero(pcm []byte) int {
	for i := 0; i+1 < len(pcm); i += 2 {
		if pcm[i] != 0 || pcm[i+1] != 0 {
			return i / 2
		}
	}
	return -1
}

// TestListenAudioAligned: each rebuilt lane puts its audio on the session
// timeline: a reply at offset X s starts at sample X·rate, a reply that
// arrives while another plays starts when that one ends, the input starts
// at stream start, and every lane spans the same time.
func TestListenAudioAligned(t *testing.T) {
	e := newEnv(t, nil)
	id := uploadWithWireLog(t, e, wireLog(t, ""), nil)
	cases := []struct {
		lane      string
		rate      int
		firstAt   int // first non-zero sample
		sampleAt  int // a sample to read …
		wantLevel int16
	}{
		{"replies", 24000, 30000, 30000, 8000},          // resp_0 received at 1.25 s
		{"replies", 24000, 30000, 42000 - 1, 8000},      // resp_0's last sample (0.5 s later)
		{"replies", 24000, 30000, 42000, -8000},         // resp_1 (received at 1.5 s) queued until 1.75 s
		{"input", 16000, 0, 16000*3 - 1, 4000},          // the last input sample (3 s)
		{"mix", 24000, 0, 30000 + 100, 8000 + 4000 - 1}, // input (resampled) + reply
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s@%d", c.lane, c.sampleAt), func(t *testing.T) {
			code, h, b := e.do("GET", "/api/reports/"+id+"/audio/"+c.lane+".wav", nil)
			if code != 200 {
				t.Fatalf("GET = %d %s", code, b)
			}
			if ct := h.Get("Content-Type"); ct != "audio/wav" {
				t.Errorf("Content-Type = %q", ct)
			}
			clip, err := audio.DecodeWAV(b)
			if err != nil {
				t.Fatal(err)
			}
			if clip.Rate != c.rate {
				t.Fatalf("rate = %d, want %d", clip.Rate, c.rate)
			}
			// Every lane ends with the session: resp_1 ends at 2.0 s, the input at 3.0 s.
			if got, want := float64(len(clip.Samples))/float64(clip.Rate), 3.0; got < want-0.001 || got > want+0.001 {
				t.Errorf("duration = %.4f s, want %.1f s", got, want)
			}
			pcm := audio.FloatToPCM16(clip.Samples)
			if got := firstNonZero(pcm); got != c.firstAt {
				t.Errorf("first non-zero sample = %d, want %d", got, c.firstAt)
			}
			got := int16(binary.LittleEndian.Uint16(pcm[2*c.sampleAt:]))
			if d := int(got) - int(c.wantLevel); d < -60 || d > 60 {
				t.Errorf("sample %d = %d, want ≈ %d", c.sampleAt, got, c.wantLevel)
			}
		})
	}
	for _, c := range []struct {
		path string
		code int
	}{
		{"/api/reports/" + id + "/audio/other.wav", 404},
		{"/api/reports/" + id + "/audio/replies.wav?session=1", 404},
		{"/api/reports/" + id + "/audio/replies.wav?session=-1", 400},
		{"/api/reports/" + strings.Repeat("b", 32) + "/audio/replies.wav", 404},
	} {
		if code, _, b := e.do("GET", c.path, nil); code != c.code {
			t.Errorf("GET %s = %d %s, want %d", c.path, code, b, c.code)
		}
	}
}

// TestShareTranscripts: the share page shows both sides' words, escaped,
// the user's from the server's transcription, else the dataset's clip text;
// and its player points at the rebuilt lanes with each reply's start.
func TestShareTranscripts(t *testing.T) {
	second := audio.EncodeWAV(make([]float32, 16000), 16000) // 1 s
	ds := fstest.MapFS{
		"manifest.jsonl": {Data: []byte(`{"sample_id":"c1","audio":"c1.wav","text":"book a <table> for two"}` + "\n" +
			`{"sample_id":"c2","audio":"c2.wav","text":"at seven"}` + "\n" + `{"sample_id":"c3","audio":"c3.wav","text":"never sent"}` + "\n")},
		"c1.wav": {Data: second}, "c2.wav": {Data: second}, "c3.wav": {Data: second},
	}
	e := newEnv(t, func(c *server.Config) { c.Datasets = map[string]fs.FS{"builtin": ds} })
	cases := []struct {
		name      string
		userText  string
		sample    string
		want      []string
		forbidden []string
	}{
		{"server transcription", "what <script>alert(1)</script>", "",
			[]string{`data-speaker="user" data-t="1.050"`, `<q>what &lt;script&gt;alert(1)&lt;/script&gt;</q>`,
				`data-speaker="model" data-t="1.250" data-response="resp_0"`, `<q>Hello &lt;b&gt;there&lt;/b&gt;</q>`},
			[]string{"<script>alert", "<b>there", "clip text of dataset"}},
		{"dataset clip text (CLI: one clip per session)", "", "c1",
			[]string{`<q>book a &lt;table&gt; for two</q>`, "clip text of dataset builtin", "The server sent no transcription of the input"},
			[]string{"<table> for two", "at seven"}},
		// The page joins the clips with 1.5 s gaps: c1 at 0 s, c2 at 2.5 s,
		// c3 at 5 s, after the 3 s of input this session sent.
		{"dataset clip text (page: clips joined)", "", "",
			[]string{`data-speaker="user" data-t="0.000"><strong>user</strong> <button type="button" class="seek" data-t="0.000" data-session="sess-1" aria-label="play from 0.00 s">▶ 0.00 s</button>: <q>book a &lt;table&gt; for two</q>`,
				`data-speaker="user" data-t="2.500"><strong>user</strong> <button type="button" class="seek" data-t="2.500" data-session="sess-1" aria-label="play from 2.50 s">▶ 2.50 s</button>: <q>at seven</q>`},
			[]string{"never sent"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := uploadWithWireLog(t, e, wireLog(t, c.userText), func(r *report.Report) { r.Sessions[0].SampleID = c.sample })
			code, _, b := e.do("GET", "/r/"+id, nil)
			if code != 200 {
				t.Fatalf("GET = %d", code)
			}
			page := string(b)
			want := append(c.want,
				`<audio controls preload="metadata" src="/api/reports/`+id+`/audio/mix.wav?session=0" data-lane="mix">`,
				`data-response="resp_0" data-start-s="1.250"`, `data-response="resp_1" data-start-s="1.750"`,
				`href="/api/reports/`+id+`/export?format=html"`, `id="chart-session"`)
			testkit.Mentions(t, "page", page, want, c.forbidden)
		})
	}
}

var (
	scriptBody = regexp.MustCompile(`(?is)(<script[^>]*>).*?</script>`)
	anyLink    = regexp.MustCompile(`(?i)\s(href|src|srcset|action|formaction|poster|cite|background|ping|data)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
)

// TestExportHTML: format=html is one file with nothing outside it (every
// src/href is data: or #), the chart runtime, options and audio inline,
// served as a sandboxed attachment, and refused with 413 over the cap.
func TestExportHTML(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.MaxExport = 1 << 20 })
	id := uploadWithWireLog(t, e, wireLog(t, "hi <there>"), nil)
	code, h, b := e.do("GET", "/api/reports/"+id+"/export?format=html", nil)
	if code != 200 {
		t.Fatalf("GET = %d %s", code, b)
	}
	for k, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Disposition":     `attachment; filename="duplexscope-` + id + `.html"`,
		"Content-Security-Policy": "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
		"X-Frame-Options":         "DENY",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	doc := string(b)
	markup := scriptBody.ReplaceAllString(doc, "$1</script>")
	links := anyLink.FindAllStringSubmatch(markup, -1)
	audioSrc := 0
	for _, l := range links {
		v := strings.Trim(l[2], `"'`)
		if strings.EqualFold(l[1], "data") { // data-* attributes are data, not links
			continue
		}
		if !strings.HasPrefix(v, "data:") && !strings.HasPrefix(v, "#") {
			t.Errorf("external reference %s=%q", l[1], v)
		}
		if strings.HasPrefix(v, "data:audio/wav;base64,") {
			audioSrc++
		}
	}
	if audioSrc != 1 {
		t.Errorf("%d inline audio sources, want 1 (the session's mixed lane)", audioSrc)
	}
	testkit.Mentions(t, "export markup", markup, nil, []string{"http://", "https://", "/assets/", "/api/", "/web/", "<link", "@import", "url("})
	testkit.Mentions(t, "export", doc, []string{"/* echarts */", `data-chart="chart-session"`, "echarts.init(", `<q>hi &lt;there&gt;</q>`,
		`<meta http-equiv="Content-Security-Policy"`}, nil)

	// the export says what the share page says: the same verdict
	_, _, share := e.do("GET", "/r/"+id, nil)
	if sv, ev := verdictEl.FindStringSubmatch(string(share)), verdictEl.FindStringSubmatch(doc); sv == nil || ev == nil || sv[1] != ev[1] || sv[2] != ev[2] {
		t.Errorf("share page verdict %v, export %v", sv, ev)
	}

	small := newEnv(t, func(c *server.Config) { c.MaxExport = 100 << 10 }) // the page and runtime fit, 3 s of audio does not
	id = uploadWithWireLog(t, small, wireLog(t, ""), nil)
	code, _, b = small.do("GET", "/api/reports/"+id+"/export?format=html", nil)
	if code != 413 || !strings.Contains(string(b), "export limit") {
		t.Errorf("over the cap: %d %s, want 413 naming the export limit", code, b)
	}
	if code, _, _ := small.do("GET", "/api/reports/"+strings.Repeat("b", 32)+"/export?format=html", nil); code != 404 {
		t.Errorf("missing report: %d, want 404", code)
	}
}

// TestShareListenNotes: a page without a playable session says why, in
// words, and the audio route answers 404 naming the cause.
func TestShareListenNotes(t *testing.T) {
	e := newEnv(t, nil)
	log := wireLog(t, "")
	sum := sha256.Sum256(log)
	declared := upload(t, e, fixture{model: "m", n: 1, ttfp: 300, edit: func(r *report.Report) {
		r.Attachments = append(r.Attachments, report.Attachment{Name: "wire-log.json", Kind: report.AttachWireLog, ContentType: "application/json",
			SizeBytes: int64(len(log)), SHA256: hex.EncodeToString(sum[:])})
		r.Sessions[0].WireLog = "wire-log.json"
	}}.json(t)) // declared, never uploaded
	none := upload(t, e, fixture{model: "m", n: 1, ttfp: 300}.json(t))
	cases := []struct {
		name, id, want string
	}{
		{"wire log not stored", declared, "is not stored (its upload may not have finished)"},
		{"no wire log", none, "This report has no wire log, so its session cannot be replayed here."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, b := e.do("GET", "/r/"+c.id, nil)
			if !strings.Contains(string(b), c.want) {
				t.Errorf("page lacks %q", c.want)
			}
			if strings.Contains(string(b), "<audio") {
				t.Errorf("page has a player with nothing to play")
			}
			if code, _, _ := e.do("GET", "/api/reports/"+c.id+"/audio/mix.wav", nil); code != 404 {
				t.Errorf("audio = %d, want 404", code)
			}
		})
	}
}
