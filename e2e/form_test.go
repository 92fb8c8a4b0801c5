//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/duplexscope/duplexscope/internal/browsertest"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
)

// gumWatch counts getUserMedia calls (window.__gum), installed before any
// page script runs.
const gumWatch = `window.__gum=0;(function(){var md=navigator.mediaDevices;if(md&&md.getUserMedia){var o=md.getUserMedia.bind(md);md.getUserMedia=function(c){window.__gum++;return o(c)}}})();`

func onNewDocument(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	if err := browsertest.OnNewDocument(ctx, src); err != nil {
		t.Fatal(err)
	}
}

func evalString(ctx context.Context, js string) (string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[string](js))
}

// pageReady waits until the wasm has rendered the connect form.
func pageReady(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := pollUntil(ctx, 60*time.Second, func() (bool, error) {
		v, err := evalString(ctx, `(document.getElementById("in-model")&&!document.getElementById("app-wasm-loader"))?"y":""`)
		return v == "y", err
	}); err != nil {
		t.Fatalf("the page never rendered the form: %v", err)
	}
}

// TestBrowserLinkShowsWhatRuns: a link's values are shown as they will be
// sent (frame_ms=123, profile=personaplex, a dataset the panel does not
// list), and values the page will not run are errors on the page naming
// the parameter and value — with autostart=1 nothing starts.
func TestBrowserLinkShowsWhatRuns(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 2*time.Minute)

	q := url.Values{"frame_ms": {"123"}, "profile": {"personaplex"}, "source": {"dataset:builtin"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	pageReady(t, ctx)
	got, err := evalString(ctx, `["in-frame","in-profile","in-source"].map(function(i){return document.getElementById(i).value}).join("|")+"|"+!!document.getElementById("url-errors")+"|"+document.getElementById("link-test").getAttribute("href")`)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(got, "|")
	if len(parts) != 5 || parts[0] != "123" || parts[1] != "personaplex" || parts[2] != "dataset:builtin" || parts[3] != "false" {
		t.Errorf("form shows frame|profile|source|errors = %q, want 123|personaplex|dataset:builtin|false", got)
	}
	if len(parts) == 5 && (!strings.Contains(parts[4], "frame_ms=123") || !strings.Contains(parts[4], "profile=personaplex")) {
		t.Errorf("link to this test %q does not carry frame_ms=123 and profile=personaplex", parts[4])
	}

	bad := url.Values{"profile": {"nope"}, "frame_ms": {"abc"}, "source": {"dataset:nope"}, "autostart": {"1"}, "fram_ms": {"80"}}
	open(t, ctx, s.URL+"/?"+bad.Encode())
	pageReady(t, ctx)
	want := []string{`profile="nope"`, "unknown simulator profile", `frame_ms="abc"`, `fram_ms="80"`, "unknown parameter",
		`source="dataset:nope"`, `no dataset "nope"`, "autostart=1 was not followed"}
	var text string
	if err := pollUntil(ctx, 20*time.Second, func() (bool, error) {
		text, err = evalString(ctx, `(function(){var e=document.getElementById("url-errors");return e?e.getAttribute("role")+" "+e.innerText:""})()`)
		return strings.Contains(text, "no dataset"), err
	}); err != nil {
		t.Logf("errors shown: %q", text)
	}
	if !strings.HasPrefix(text, "alert ") {
		t.Errorf("the link's errors are not an alert: %q", text)
	}
	testkit.Mentions(t, fmt.Sprintf("the page's link errors %q", text), text, want, nil)
	src, _ := evalString(ctx, `document.getElementById("in-source").value`)
	if src != "dataset:nope" {
		t.Errorf("the form's input shows %q, want dataset:nope (what the link names, flagged)", src)
	}
	// autostart=1 with errors: no session starts.
	if phase, _ := attr(ctx, "#status", "data-phase"); phase != "" && phase != "idle" {
		t.Errorf("a link with errors started a run (phase %q)", phase)
	}
	// Every visible label of the connect form names an input.
	unlinked, err := evalString(ctx, `Array.from(document.querySelectorAll("#connect .ds-field label")).filter(function(l){return !l.control}).map(function(l){return l.textContent}).join("; ")`)
	if err != nil || unlinked != "" {
		t.Errorf("labels not tied to an input: %q (%v)", unlinked, err)
	}
	live, _ := evalString(ctx, `(function(){var e=document.getElementById("status-region");return e?e.getAttribute("role")+"/"+e.getAttribute("aria-live"):""})()`)
	if live != "status/polite" {
		t.Errorf("status region role/aria-live = %q, want status/polite", live)
	}
}

// TestBrowserDatasetRunAsksNoMic: a dataset run never calls getUserMedia
// (no microphone prompt); a mic run does (the counter works).
func TestBrowserDatasetRunAsksNoMic(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	onNewDocument(t, ctx, gumWatch)
	for _, tc := range []struct {
		source  string
		wantMic bool
	}{{"dataset:builtin", false}, {"mic", true}} {
		q := url.Values{"autostart": {"1"}, "duration_s": {"3"}, "source": {tc.source}, "url": {wsOf(s.URL) + "/v1/realtime?sim_profile=test"}}
		run := runPage(t, s, ctx, q, 2*time.Minute)
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__gum`))
		if err != nil {
			t.Fatal(err)
		}
		if (n > 0) != tc.wantMic {
			t.Errorf("source=%s: %d getUserMedia calls (report %s), want mic=%v", tc.source, n, run.ReportID, tc.wantMic)
		}
		t.Logf("source=%s: %d getUserMedia calls", tc.source, n)
	}
}

// TestBrowserDialErrors: each cause of a failed connection gets its words
// on the page, direct and through the server's proxy.
func TestBrowserDialErrors(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	requireBuild(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	closer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		c.Close(4321, "model not loaded (test)")
	}))
	defer closer.Close()
	nf := strings.TrimPrefix(notFound.URL, "http://")
	cl := strings.TrimPrefix(closer.URL, "http://")
	s := startStackWith(t, func(c *server.Config) { c.ProxyAllow = []string{dead, nf, cl} })
	ctx := browser(t, fakeMic, 3*time.Minute)
	cases := []struct {
		name, target string
		proxy        bool
		kind         string
		want         []string
	}{
		{"dead port", "ws://" + dead + "/v1/realtime", false, "refused", []string{"connection refused", dead}},
		{"wrong path", "ws://" + nf + "/nope", false, "wrong-path", []string{"wrong path", "/v1/realtime"}},
		{"dead port via proxy", "ws://" + dead + "/v1/realtime", true, "refused", []string{"connection refused", "through this server's proxy", dead}},
		{"wrong path via proxy", "ws://" + nf + "/nope", true, "wrong-path", []string{"wrong path", "404 not found at " + nf + "/nope"}},
		{"server close", "ws://" + cl + "/v1/realtime", false, "closed", []string{"code 4321", "model not loaded (test)"}},
		{"server close via proxy", "ws://" + cl + "/v1/realtime", true, "closed", []string{"code 4321", "model not loaded (test)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{"autostart": {"1"}, "duration_s": {"3"}, "source": {"dataset:builtin"}, "url": {tc.target}}
			if tc.proxy {
				q.Set("proxy", "1")
			}
			open(t, ctx, s.URL+"/?"+q.Encode())
			text, phase, err := awaitPhase(ctx, 60*time.Second, failed)
			if err != nil {
				t.Fatalf("the page never failed: %v (status %q, phase %q)", err, text, phase)
			}
			kind, _ := attr(ctx, "#status", "data-error")
			role, _ := attr(ctx, "#status", "role")
			if kind != tc.kind || role != "alert" {
				t.Errorf("data-error %q role %q, want %q alert", kind, role, tc.kind)
			}
			low := strings.ToLower(text)
			for _, w := range tc.want {
				if !strings.Contains(low, strings.ToLower(w)) {
					t.Errorf("status %q does not say %q", text, w)
				}
			}
			if strings.Contains(text, "websocket closed: 1006") && !strings.Contains(low, "1006 before") {
				t.Errorf("status is the raw close: %q", text)
			}
			t.Logf("%s: %s", tc.name, text)
		})
	}
}

// TestBrowserUploadRetriedNow: an upload the archive refuses is retried
// by the open page (no new visit), its attempts are shown in words, and
// the share link appears once it is delivered; the kept copy then leaves
// browser storage.
func TestBrowserUploadRetriedNow(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	s.FailUploads.Store(true)
	q := url.Values{"autostart": {"1"}, "duration_s": {"3"}, "source": {"dataset:builtin"}, "url": {wsOf(s.URL) + "/v1/realtime?sim_profile=test"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	var progress string
	if err := pollUntil(ctx, 2*time.Minute, func() (bool, error) {
		var err error
		progress, err = evalString(ctx, `(document.getElementById("upload-progress")||{}).innerText||""`)
		return strings.Contains(progress, "attempt"), err
	}); err != nil {
		t.Fatalf("the page never showed its upload attempts: %v", err)
	}
	if !strings.Contains(progress, "503 Service Unavailable") || strings.Contains(progress, "POST ") || strings.Contains(progress, "/api/") {
		t.Errorf("upload progress %q: want the archive's answer in words, no request internals", progress)
	}
	if page, _ := s.Store.List(ctx, archive.Filter{}); len(page.Items) != 0 {
		t.Fatalf("archive holds %d reports while uploads fail", len(page.Items))
	}
	s.FailUploads.Store(false) // the archive recovers; the page must deliver by itself
	var link string
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		var err error
		link, err = evalString(ctx, `(function(){var a=document.getElementById("share-link");return a?a.getAttribute("href"):""})()`)
		return link != "", err
	}); err != nil {
		t.Fatalf("no share link after the archive recovered: %v", err)
	}
	page, err := s.Store.List(ctx, archive.Filter{})
	if err != nil || len(page.Items) != 1 || !strings.HasSuffix(link, page.Items[0].ID) {
		t.Fatalf("archive %v (%v), share link %q: want the one delivered report", page.Items, err, link)
	}
	progress, _ = evalString(ctx, `(document.getElementById("upload-progress")||{}).innerText||""`)
	if !strings.Contains(progress, "saved on attempt") {
		t.Errorf("after delivery the page says %q, want the attempt it was saved on", progress)
	}
	n, err := pendingUploads(ctx)
	if err != nil || n != 0 {
		t.Errorf("pending uploads after delivery: %d (%v), want 0", n, err)
	}
	t.Logf("delivered as %s; %s", link, progress)
}

// TestBrowserMicDeniedOffersClips: a refused microphone says so and what
// to do, and one click on "Use the bundled clips instead" runs the test
// with the bundled clips (no microphone).
func TestBrowserMicDeniedOffersClips(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	// The browser's answer to a refused prompt (NotAllowedError): the test
	// browser's fake media UI accepts every prompt, and overrides
	// Browser.setPermission, so the refusal is injected at getUserMedia.
	onNewDocument(t, ctx, `navigator.mediaDevices.getUserMedia=function(){return Promise.reject(new DOMException("Permission denied","NotAllowedError"))};`)
	q := url.Values{"autostart": {"1"}, "duration_s": {"3"}, "source": {"mic"}, "url": {wsOf(s.URL) + "/v1/realtime?sim_profile=test"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	text, _, err := awaitPhase(ctx, 60*time.Second, failed)
	if err != nil {
		t.Fatalf("a denied mic never failed the run: %v (status %q)", err, text)
	}
	kind, _ := attr(ctx, "#status", "data-error")
	if kind != "mic-denied" || !strings.Contains(text, "microphone was blocked") || !strings.Contains(text, "bundled clips") {
		t.Errorf("denied mic: status %q (data-error %q), want the block said and the bundled clips offered", text, kind)
	}
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#btn-use-clips"))); err != nil {
		t.Fatalf("no one-click switch to the bundled clips: %v", err)
	}
	// The failed run stays drawn until the new one renders its first
	// phase: judging the page before that reads the old failure.
	if now, _, err := awaitPhase(ctx, 30*time.Second, func(phase string) bool { return !failed(phase) }); err != nil {
		t.Fatalf("the switch to the bundled clips started no new run: %v (status %q)", err, now)
	}
	run := awaitReport(t, ctx, start, 2*time.Minute)
	var rep struct {
		Run struct {
			Source struct {
				Kind, Dataset string
			} `json:"source"`
		} `json:"run"`
	}
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	if rep.Run.Source.Dataset != "builtin" {
		t.Errorf("after the switch the run's source is %+v, want dataset builtin", rep.Run.Source)
	}
	t.Logf("denied: %s → switched, report %s", text, run.ReportID)
}

// TestBrowserMicNeedsSecurePage: a page opened over plain http at a name
// that is not localhost has no microphone (nor audio worklets); the page
// says it needs https or localhost instead of crashing.
func TestBrowserMicNeedsSecurePage(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	requireBuild(t)
	s := startStackWith(t, func(c *server.Config) { c.PublicHosts = []string{"insecure.test"} })
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	// A name for 127.0.0.1 that is not localhost: http://insecure.test is
	// not a secure context.
	ctx := browser(t, fakeMic, 2*time.Minute, browsertest.Flag("host-resolver-rules", "MAP insecure.test 127.0.0.1"))
	onNewDocument(t, ctx, `window.__logs=[];["log","error","warn"].forEach(function(k){var o=console[k];console[k]=function(){window.__logs.push(k+": "+Array.from(arguments).join(" "));o.apply(console,arguments)}});window.addEventListener("error",function(e){window.__logs.push("uncaught: "+e.message)});window.addEventListener("unhandledrejection",function(e){window.__logs.push("rejection: "+e.reason)});`)
	page := "http://insecure.test:" + u.Port()
	q := url.Values{"autostart": {"1"}, "duration_s": {"3"}, "source": {"mic"}, "url": {"ws://insecure.test:" + u.Port() + "/v1/realtime?sim_profile=test"}}
	open(t, ctx, page+"/?"+q.Encode())
	secure, err := evalString(ctx, `String(window.isSecureContext)`)
	if err != nil || secure != "false" {
		t.Fatalf("isSecureContext = %q (%v): the test page must be insecure", secure, err)
	}
	text, _, err := awaitPhase(ctx, 60*time.Second, failed)
	if err != nil {
		logs, _ := evalString(ctx, `(window.__logs||[]).join("\n")`)
		t.Fatalf("a mic run on an insecure page never failed: %v (status %q)\n%s", err, text, logs)
	}
	kind, _ := attr(ctx, "#status", "data-error")
	if kind != "insecure" || !strings.Contains(text, "https") || !strings.Contains(text, "localhost") {
		t.Errorf("insecure page: status %q (data-error %q), want https and localhost explained", text, kind)
	}

	t.Logf("insecure page: %s", text)
}
