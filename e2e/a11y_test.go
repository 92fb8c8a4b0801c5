//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/duplexscope/duplexscope/internal/axe"
)

// phoneWidth is the narrow viewport the layout must fit without sideways
// scrolling (a 390 px wide phone).
const phoneWidth = 390

// TestAccessibility runs axe-core's WCAG 2.0/2.1 A and AA rules on every
// page a person meets: the dashboard idle, running, failed and after a
// short dataset session (each tab), the share page, history and compare. It drives the
// keyboard-only paths (Tab to the WAV picker, arrows along the ARIA tabs,
// Enter on an event-log row), proves the dashboard and the share page fit
// a 390 px wide phone with no horizontal scroll (axe again at that width)
// and writes the README screenshots of the share page.
//
//	make wasm && go test -tags e2e -count=1 -run TestAccessibility ./e2e/
func TestAccessibility(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 5*time.Minute)

	open(t, ctx, s.URL+"/", chromedp.WaitVisible(chromedp.CSS("#tab-live")))
	axe.Check(t, ctx, "dashboard (idle)")
	wavPickerByKeyboard(t, ctx)

	// While running (the live demo: Stop button, live numbers).
	open(t, ctx, s.URL+"/?demo=20", chromedp.WaitVisible(chromedp.CSS("#btn-stop")))
	axe.Check(t, ctx, "dashboard (running demo)")

	run := runPage(t, s, ctx, url.Values{"autostart": {"1"}, "duration_s": {"12"}, "source": {"dataset:builtin"}}, 3*time.Minute)
	for _, tab := range tabs {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-"+tab.id)), chromedp.WaitVisible(chromedp.CSS(tab.panel))); err != nil {
			t.Fatalf("tab %s: %v", tab.id, err)
		}
		axe.Check(t, ctx, "dashboard after a session, tab "+tab.id)
	}
	tabsByKeyboard(t, ctx)
	eventLogByKeyboard(t, ctx)

	other := postReport(t, s.URL, s.getJSON(t, "/api/reports/"+run.ReportID, nil)) // a second run to compare with
	for _, path := range []string{"/r/" + run.ReportID, "/history", "/compare?ids=" + run.ReportID + "," + other} {
		open(t, ctx, s.URL+path, chromedp.WaitReady("body"))
		awaitCharts(t, ctx, path)
		axe.Check(t, ctx, path)
		if path == "/r/"+run.ReportID {
			screenshot(t, ctx, "share")
		}
	}

	// A phone: no horizontal scroll on the dashboard (after a session, so
	// the share link is shown) and on the share page.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(phoneWidth, 844)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, path, ready string }{
		{"dashboard-390", "/?" + url.Values{"autostart": {"1"}, "duration_s": {"4"}, "source": {"dataset:builtin"}}.Encode(), ""},
		{"share-390", "/r/" + run.ReportID, "body"},
	} {
		if p.ready == "" {
			awaitRun(t, ctx, s, p.path)
		} else {
			open(t, ctx, s.URL+p.path, chromedp.WaitReady(p.ready))
		}
		awaitCharts(t, ctx, p.path)
		noSideways(t, ctx, p.name)
		axe.Check(t, ctx, p.name)
		screenshot(t, ctx, p.name)
	}

	// After a failure (the error status line), on the phone. Last: a failed
	// run may be kept for a retry, which must not stand in for a later run.
	dead := url.Values{"autostart": {"1"}, "source": {"dataset:builtin"}, "url": {"ws://127.0.0.1:1/v1/realtime"}}
	open(t, ctx, s.URL+"/?"+dead.Encode())
	if _, _, err := awaitPhase(ctx, 30*time.Second, failed); err != nil {
		t.Fatalf("a session to a dead port never shows the failed status: %v", err)
	}
	noSideways(t, ctx, "dashboard-390 (failed session)")
	axe.Check(t, ctx, "dashboard-390 (failed session)")
}

// focused is the id of the focused element ("" if none has one).
func focused(ctx context.Context) (string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.id : ""`))
}

// wavPickerByKeyboard tabs from the top of the page until the WAV picker
// has the focus, then picks a file into it (what Enter would open).
func wavPickerByKeyboard(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`)); err != nil {
		t.Fatal(err)
	}
	reached := false
	for i := 0; i < 80 && !reached; i++ {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		id, err := focused(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reached = id == "wav-input"
	}
	if !reached {
		t.Fatal("Tab never reaches the WAV picker (#wav-input): it is not keyboard-reachable")
	}
	ring, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById('wav-drop')).outlineStyle`))
	if err != nil {
		t.Fatal(err)
	}
	if ring == "none" {
		t.Error("the WAV picker has the focus but shows no focus ring")
	}
	wav, _ := filepath.Abs(fakeMic)
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#wav-input"), []string{wav})); err != nil {
		t.Fatal(err)
	}
	err = pollUntil(ctx, 10*time.Second, func() (bool, error) {
		txt, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#wav-drop")))
		return strings.Contains(txt, "Input: fake-mic.wav"), err
	})
	if err != nil {
		t.Errorf("picking fake-mic.wav: the picker never shows it as the input: %v", err)
	}
}

// tabsByKeyboard walks the ARIA tabs with the arrow keys, Home and End:
// the key moves both the focus and the selection, and the tab panel
// follows.
func tabsByKeyboard(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-live")), chromedp.Focus(chromedp.CSS("#tab-live"))); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ key, want string }{
		{kb.ArrowRight, "timeline"}, {kb.ArrowRight, "log"}, {kb.End, "plain"}, {kb.ArrowRight, "live"},
		{kb.ArrowLeft, "plain"}, {kb.Home, "live"},
	} {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(step.key)); err != nil {
			t.Fatal(err)
		}
		var state struct{ Focus, Selected, Labelledby, TabStops string }
		err := pollUntil(ctx, 5*time.Second, func() (bool, error) {
			raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
				Focus: document.activeElement.id,
				Selected: [...document.querySelectorAll('[role=tablist] [role=tab][aria-selected=true]')].map(e => e.id).join(','),
				Labelledby: (document.querySelector('[role=tabpanel]') || {getAttribute: () => ''}).getAttribute('aria-labelledby'),
				TabStops: [...document.querySelectorAll('[role=tab][tabindex="0"]')].map(e => e.id).join(',')})`))
			if err != nil {
				return false, err
			}
			if err := json.Unmarshal([]byte(raw), &state); err != nil {
				return false, err
			}
			want := "tab-" + step.want
			return state.Focus == want && state.Selected == want && state.Labelledby == want && state.TabStops == want, nil
		})
		if err != nil {
			t.Errorf("after key %q: focus %q, selected %q, panel labelled by %q, tab stops %q; want all tab-%s",
				keyName(step.key), state.Focus, state.Selected, state.Labelledby, state.TabStops, step.want)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS("#tabpanel #chart-ttfp"))); err != nil {
		t.Errorf("the live tab's panel (#tabpanel) after Home: %v", err)
	}
}

func keyName(k string) string {
	return map[string]string{kb.ArrowRight: "ArrowRight", kb.ArrowLeft: "ArrowLeft", kb.Home: "Home", kb.End: "End"}[k]
}

// eventLogByKeyboard focuses the first event-log row and opens its JSON
// with Enter: rows are buttons with aria-expanded.
func eventLogByKeyboard(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-log")), chromedp.WaitVisible(chromedp.CSS("#event-log .ds-log-row")),
		chromedp.Focus(chromedp.CSS("#event-log .ds-log-row"))); err != nil {
		t.Fatal(err)
	}
	row := func() (tag, expanded string, shown bool) {
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){
			const r = document.querySelector('#event-log .ds-log-row');
			return [document.activeElement === r ? r.tagName : 'not focused', r.getAttribute('aria-expanded') || '', r.nextElementSibling && r.nextElementSibling.tagName === 'PRE' ? '1' : ''];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		return raw[0], raw[1], raw[2] == "1"
	}
	if tag, exp, open := row(); tag != "BUTTON" || exp != "false" || open {
		t.Fatalf("first event-log row: %s, aria-expanded %q, JSON shown %v; want a focused BUTTON, collapsed", tag, exp, open)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	err := pollUntil(ctx, 5*time.Second, func() (bool, error) {
		_, exp, open := row()
		return exp == "true" && open, nil
	})
	if err != nil {
		tag, exp, open := row()
		t.Errorf("Enter on an event-log row: %s, aria-expanded %q, JSON shown %v; want it expanded with its JSON", tag, exp, open)
	}
}

// tabs are the dashboard's tabs and the panel each shows.
var tabs = []struct{ id, panel string }{
	{"live", "#chart-ttfp"}, {"timeline", "#chart-timeline"}, {"log", "#event-log"}, {"plain", "#verdict"},
}

// awaitRun opens the dashboard at path and waits for its archived report.
func awaitRun(t *testing.T, ctx context.Context, s *stack, path string) {
	t.Helper()
	start := time.Now()
	open(t, ctx, s.URL+path)
	awaitReport(t, ctx, start, 3*time.Minute)
}

// awaitCharts waits until every chart box of the page has been drawn.
func awaitCharts(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	err := pollUntil(ctx, 10*time.Second, func() (bool, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[bool](
			`[...document.querySelectorAll('.chart')].every(e => e.getAttribute('data-rendered') === '1')`))
	})
	if err != nil {
		t.Errorf("%s: charts not drawn: %v", page, err)
	}
}

// noSideways fails when the page is wider than the viewport.
func noSideways(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	var m struct {
		Scroll, Inner int
		Widest        string
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){
		const inner = window.innerWidth, out = [];
		for (const e of document.body.querySelectorAll('*')) {
			const r = e.getBoundingClientRect();
			if (r.right > inner + 0.5 && getComputedStyle(e).position !== 'fixed') out.push((e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? '.' + e.className : '')) + ' ' + Math.round(r.right) + 'px');
		}
		return JSON.stringify({Scroll: document.documentElement.scrollWidth, Inner: inner, Widest: out.slice(0, 8).join(', ')});
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	if m.Inner != phoneWidth {
		t.Errorf("%s: window.innerWidth = %d, want %d (viewport emulation)", page, m.Inner, phoneWidth)
	}
	if m.Scroll > m.Inner {
		t.Errorf("%s: scrolls sideways at %d px: scrollWidth %d > innerWidth %d; elements past the right edge: %s", page, m.Inner, m.Scroll, m.Inner, m.Widest)
	} else {
		t.Logf("%s: scrollWidth %d <= innerWidth %d", page, m.Scroll, m.Inner)
	}
}
