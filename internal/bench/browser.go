//go:build !js

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/browsertest"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/trace"
)

// checkBrowserPrereqs fails with how-to-fix messages when the wasm build or
// chromium is missing.
func checkBrowserPrereqs(chromium string) error {
	if err := browsertest.RequireWasm(); err != nil {
		return err
	}
	return browsertest.RequireChromium(chromium)
}

// stack is the real server (page, archive in memory, simulator) on
// 127.0.0.1, as `duplexscope serve` mounts it.
type stack = browsertest.Stack

// startStack starts the stack with uploads unthrottled.
func startStack() (*stack, error) {
	return browsertest.NewStack(func(c *server.Config) { c.UploadRate = -1 }, nil)
}

// browser is one headless chromium with a fresh profile.
type browser struct {
	ctx    context.Context
	cancel func()
}

func newBrowser(chromium string) (*browser, error) {
	ctx, cancel, err := browsertest.Launch(browsertest.ExecPath(chromium))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	b := &browser{ctx: ctx, cancel: cancel}
	// Marks (performance.now(), ms since navigation start) when echarts
	// has finished drawing the TTFP chart with a point (data-drawn-points:
	// data-points is set when Go renders the element, and in about a third
	// of cold loads that was before the deferred echarts script had even
	// run) / the hello world's heading exists, and two animation frames
	// later (drawn).
	const marks = `(function(){if(window.__ds)return;window.__ds={};
function mark(k){if(window.__ds[k])return;window.__ds[k]=performance.now();
requestAnimationFrame(function(){requestAnimationFrame(function(){window.__ds[k+"_drawn"]=performance.now();});});}
function check(){var c=document.querySelector("#chart-ttfp");if(c&&+c.getAttribute("data-drawn-points")>0)mark("first_point");
if(document.querySelector("#hello"))mark("hello");}
new MutationObserver(check).observe(document,{subtree:true,childList:true,attributes:true,attributeFilter:["data-drawn-points","id"]});})();`
	if err := browsertest.OnNewDocument(ctx, marks); err != nil {
		b.cancel()
		return nil, fmt.Errorf("bench: chromium script: %w", err)
	}
	return b, nil
}

func (b *browser) eval(expr string, out any) error {
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(v, out)
}

// waitMark waits until window.__ds[key] is set and returns it (ms since
// navigation start).
func (b *browser) waitMark(key string, timeout time.Duration) (float64, error) {
	deadline := time.Now().Add(timeout)
	for {
		var v *float64
		if err := b.eval(fmt.Sprintf(`(window.__ds&&window.__ds[%q])||null`, key), &v); err != nil {
			return 0, err
		}
		if v != nil {
			return *v, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("bench: page mark %s not reached in %v", key, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fps counts requestAnimationFrame callbacks for d.
func (b *browser) fps(d time.Duration) (float64, error) {
	var v float64
	err := b.eval(fmt.Sprintf(`new Promise(function(res){var n=0,t0=performance.now();function f(t){n++;if(performance.now()-t0<%d)requestAnimationFrame(f);else res(n*1000/(performance.now()-t0));}requestAnimationFrame(f);})`, d.Milliseconds()), &v)
	return v, err
}

// pageSession is what one browser session measured.
type pageSession struct {
	ReportID, SessionID string
	FirstPointMs        float64 // navigation → first TTFP chart point drawn
	FirstAudioTruthMs   float64 // simulator: session open → first audio emitted
	Errors              Errors
	FrameErrs           []float64 // per-frame receive-stamp errors (FrameErrors)
	Lags                []float64 // page's pacing lags (wire log)
	IntervalLags        []float64 // setInterval baseline lags, same page, same time
	Buffering           []float64 // per response: heard TTFP − client TTFP (PlaybackBuffering)
	Player              Buffering // per response: the playback path's own delay (PlayerBuffering)
	FramesDropped       int       // input frames the page dropped (its pacing_lag warning)
	// Thread is where the wire log says the session ran: "worker" when it
	// names a worker time origin (session.duplexscope.time_origins.worker),
	// else "main".
	Thread string
}

// setIntervalJS starts the setInterval(200 ms) baseline pacer in the page:
// each callback records its lag against the absolute schedule.
const setIntervalJS = `(function(){window.__si=[];var t0=performance.now(),k=0;window.__siTimer=setInterval(function(){k++;window.__si.push(performance.now()-t0-k*200);},200);return true;})()`

// runPage streams the builtin dataset from the page for d with transport
// (and the extra page parameters, e.g. session_thread, stall_ms) and
// returns the archived session's errors against the truth.
func runPage(ctx context.Context, b *browser, st *stack, transport string, d time.Duration, extra url.Values) (*pageSession, error) {
	q := url.Values{"source": {"dataset:builtin"}, "profile": {"periodic"}, "duration_s": {fmt.Sprint(d.Seconds())}, "autostart": {"1"}, "transport": {transport}}
	for k, v := range extra {
		q[k] = v
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate(st.URL+"/?"+q.Encode())); err != nil {
		return nil, fmt.Errorf("bench: navigate: %w", err)
	}
	ps := &pageSession{}
	var err error
	if ps.ReportID, err = b.awaitReport(d); err != nil {
		return nil, err
	}
	if err := b.eval(`(function(){clearInterval(window.__siTimer);return window.__si||[];})()`, &ps.IntervalLags); err != nil {
		return nil, err
	}
	if v, err := b.waitMark("first_point_drawn", 5*time.Second); err == nil {
		ps.FirstPointMs = v
	}
	if err := ps.measureArchived(ctx, st.URL); err != nil {
		return nil, err
	}
	return ps, nil
}

// awaitReport polls the page until it has archived the session of length
// d and returns the report id; it starts the setInterval baseline once the
// page streams (not during wasm start), so both pacers share the same time.
func (b *browser) awaitReport(d time.Duration) (string, error) {
	intervalStarted := false
	deadline := time.Now().Add(d + 2*time.Minute)
	for {
		var s struct {
			Phase, Report, Status string
		}
		if err := b.eval(`(function(){var p=document.querySelector("#status"),s=document.querySelector("#share");return {Phase:p?p.getAttribute("data-phase")||"":"",Status:p?p.textContent:"",Report:s?s.getAttribute("data-report-id")||"":""};})()`, &s); err != nil {
			return "", err
		}
		if s.Phase == "streaming" && !intervalStarted {
			if err := b.eval(setIntervalJS, nil); err != nil {
				return "", fmt.Errorf("bench: setInterval baseline: %w", err)
			}
			intervalStarted = true
		}
		if s.Phase == "failed" {
			return "", fmt.Errorf("bench: the page reports a failed session: %s", s.Status)
		}
		if s.Report != "" {
			return s.Report, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("bench: no archived report after %v (status %q)", d+2*time.Minute, s.Status)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// pageReport is the part of an archived report the bench reads.
type pageReport struct {
	Metrics struct {
		Requests []json.RawMessage `json:"duplex_request_metrics"`
	} `json:"metrics"`
	Responses []HeardResponse `json:"responses"`
	Sessions  []struct {
		SessionID string `json:"session_id"`
		WireLog   string `json:"wire_log"`
	} `json:"sessions"`
	Warnings []pageWarning `json:"warnings"`
}

type pageWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// measureArchived fetches ps.ReportID's report and wire log from the
// server at base and fills the rest of ps from them and the simulator's
// truth.
func (ps *pageSession) measureArchived(ctx context.Context, base string) error {
	var rep pageReport
	if err := getJSON(ctx, base+"/api/reports/"+ps.ReportID, &rep); err != nil {
		return err
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].WireLog == "" {
		return fmt.Errorf("bench: report %s has %d sessions / no wire log", ps.ReportID, len(rep.Sessions))
	}
	ps.SessionID = rep.Sessions[0].SessionID
	raw, err := getBytes(ctx, base+"/api/reports/"+ps.ReportID+"/attachments/"+url.PathEscape(rep.Sessions[0].WireLog))
	if err != nil {
		return err
	}
	wireLog, err := trace.DecodeSession(raw)
	if err != nil {
		return fmt.Errorf("bench: wire log: %w", err)
	}
	truth, err := GetTruth(ctx, base, ps.SessionID)
	if err != nil {
		return err
	}
	var opened struct {
		OpenedMs float64 `json:"opened_ms"`
	}
	if err := getJSON(ctx, base+"/sim/sessions/"+url.PathEscape(ps.SessionID)+"/truth", &opened); err == nil {
		for _, r := range truth.Responses {
			if r.FirstAudioMs != nil {
				ps.FirstAudioTruthMs = *r.FirstAudioMs - opened.OpenedMs
				break
			}
		}
	}
	ps.Errors = CompareTruth(ReceiveStamps(wireLog.Events), truth)
	if ps.FrameErrs, err = FrameErrors(wireLog.Events, truth.Events); err != nil {
		return err
	}
	ps.Lags = PacingLags(wireLog.Events)
	ps.Buffering = PlaybackBuffering(rep.Metrics.Requests, rep.Responses)
	ps.Player = PlayerBuffering(wireLog.Events)
	ps.FramesDropped = droppedFrames(rep.Warnings)
	ps.Thread = sessionThread(wireLog.Session.Extra)
	return nil
}

// droppedFrames sums the input frames the page's pacing_lag warnings say
// it dropped.
func droppedFrames(warnings []pageWarning) int {
	dropped := 0
	for _, w := range warnings {
		var n int
		if _, err := fmt.Sscanf(w.Message, "%d input frames could not be sent in time and were dropped", &n); err == nil && w.Code == "pacing_lag" {
			dropped += n
		}
	}
	return dropped
}

// sessionThread is "worker" when the wire log's session extra names a
// worker time origin, else "main".
func sessionThread(extra json.RawMessage) string {
	var meta struct {
		TimeOrigins struct {
			Worker *float64 `json:"worker"`
		} `json:"time_origins"`
	}
	if json.Unmarshal(extra, &meta) == nil && meta.TimeOrigins.Worker != nil {
		return "worker"
	}
	return "main"
}

func getBytes(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("bench: GET %s: %s", u, resp.Status)
	}
	return b, nil
}

func getJSON(ctx context.Context, u string, out any) error {
	b, err := getBytes(ctx, u)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// coldLoad opens u in a fresh chromium profile (no cache, no service
// worker) and returns navigation → mark (ms, page clock) and → extra (NaN
// when extra is "" or never reached).
func coldLoad(chromium, u, mark, extra string) (float64, float64, error) {
	b, err := newBrowser(chromium)
	if err != nil {
		return 0, 0, err
	}
	defer b.cancel()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u)); err != nil {
		return 0, 0, err
	}
	v, err := b.waitMark(mark, 60*time.Second)
	if err != nil {
		return 0, 0, err
	}
	x := nan()
	if extra != "" {
		if e, err := b.waitMark(extra, time.Second); err == nil {
			x = e
		}
	}
	return v, x, nil
}

// demoFPS opens u (a ?demo=N page or the hello world), waits for ready
// and counts frames for d.
func demoFPS(chromium, u, mark string, d time.Duration) (float64, error) {
	b, err := newBrowser(chromium)
	if err != nil {
		return 0, err
	}
	defer b.cancel()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u)); err != nil {
		return 0, err
	}
	if _, err := b.waitMark(mark, 60*time.Second); err != nil {
		return 0, err
	}
	time.Sleep(time.Second) // let the first updates settle
	return b.fps(d)
}
