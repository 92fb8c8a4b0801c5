package app

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Tabs of the dashboard.
var tabs = []struct{ ID, Label string }{
	{"live", "Live numbers"},
	{"timeline", "Timeline"},
	{"log", "Event log"},
	{"plain", "Plain language"},
}

// dashboardPage is the "/" route: connect panel, status, and the tabs.
type dashboardPage struct {
	app.Compo
	settings Settings
	pageHost string
	notes    []string
	snap     liveSnapshot
	pending  string
	tab      string
	started  bool
	actions  *panelActions
}

func newDashboardPage() *dashboardPage {
	p := &dashboardPage{tab: "live"}
	p.actions = &panelActions{
		change: func(s Settings) { p.settings = s },
		start:  p.start,
		stop:   func(ctx app.Context) { ctx.NewAction(actionStop) },
		useClips: func(ctx app.Context) {
			p.settings.Source, p.settings.DroppedPCM, p.settings.DroppedName = SourceDataset+":builtin", nil, ""
			p.start(ctx)
		},
	}
	return p
}

func (p *dashboardPage) OnNav(ctx app.Context) {
	u := ctx.Page().URL()
	def := DefaultSettings(u.Host, u.Scheme == "https")
	s, errs := ParseSettings(u.Query(), def)
	errs = append(errs, UnknownParams(u.Query(), SettingsParams, []string{"demo"})...)
	p.settings, p.pageHost = s, u.Host
	p.notes = p.notes[:0]
	for _, e := range errs {
		p.notes = append(p.notes, e.Error())
	}
	if s.View != "" {
		p.tab = s.View
	}
	ctx.ObserveState(stateLive, &p.snap)
	ctx.ObserveState(statePending, &p.pending)
	if app.IsClient {
		setStall(s.StallMs, s.StallEveryMs)
		if n, err := strconv.Atoi(u.Query().Get("demo")); err == nil && n > 0 && !p.started {
			p.started = true
			runDemo(ctx, min(n, 2000))
			return
		}
		ctx.NewAction(actionRetryPending)
		checkLinkDataset(ctx, s, func(err error) { p.notes = append(p.notes, err.Error()) })
		switch {
		case s.Autostart && len(errs) > 0:
			// Never run a silently different test: the person reads the
			// errors and presses Start on what the form shows.
			p.notes = append(p.notes, "autostart=1 was not followed because of the errors above.")
		case s.Autostart && !p.started:
			p.start(ctx)
		}
	}
}

// connectPanel is the form; its fields change only with the settings, the
// notes and whether a run is under way (not with each live snapshot).
func (p *dashboardPage) connectPanel() *connectPanel {
	return &connectPanel{Settings: p.settings, PageHost: p.pageHost, Running: p.running(), Notes: p.notes, Actions: p.actions}
}

func (p *dashboardPage) start(ctx app.Context) {
	p.started = true
	ctx.NewActionWithValue(actionStart, p.settings)
}

func (p *dashboardPage) running() bool { return phaseBusy(p.snap.Phase) }

// phaseBusy tells whether a run in phase is under way (its form is locked).
func phaseBusy(phase string) bool {
	switch phase {
	case phaseConnecting, phaseStreaming, phaseFinishing, phaseSaving:
		return true
	}
	return false
}

func (p *dashboardPage) Render() app.UI {
	currentTab.Store(p.tab)
	return app.Div().Class("ds-page").Body(
		app.Elem("header").Class("ds-header").Body(
			app.Img().Src("/web/icons/icon.svg").Alt("").Role("presentation"), // decorative; go-app drops an empty alt
			app.H1().Text("duplexscope"),
			app.Elem("span").Class("ds-sub").Body(app.Text("full-duplex speech latency, measured where you hear it · "), app.Elem("a").ID("link-load-page").Attr("href", "/load").Text("load curve")),
		),
		p.connectPanel(),
		stallBanner(p.settings.StallMs, p.settings.StallEveryMs),
		&statusLine{Snap: p.snap, Pending: p.pending, Source: p.settings.Source, Actions: p.actions},
		&shareBox{Share: p.snap.Share, Phase: p.snap.Phase},
		// ARIA tabs: one tab stop (the selected tab), arrows/Home/End move
		// between tabs and select them (automatic activation).
		app.Div().Class("ds-tabs").Role("tablist").Aria("label", "Views of the run").Body(app.Range(tabs).Slice(func(i int) app.UI {
			t := tabs[i]
			on := p.tab == t.ID
			tabIndex := -1
			if on {
				tabIndex = 0
			}
			return app.Elem("button").Attr("type", "button").ID("tab-"+t.ID).Class(activeClass(on)).Role("tab").
				Aria("selected", strconv.FormatBool(on)).Aria("controls", "tabpanel").TabIndex(tabIndex).Text(t.Label).
				OnClick(func(ctx app.Context, e app.Event) { p.tab = t.ID }).
				OnKeyDown(func(ctx app.Context, e app.Event) { p.onTabKey(ctx, e, i) })
		})),
		app.Div().ID("tabpanel").Role("tabpanel").Aria("labelledby", "tab-"+p.tab).TabIndex(0).Body(
			app.If(p.tab == "live", func() app.UI { return &liveView{Snap: p.snap} }).
				ElseIf(p.tab == "timeline", func() app.UI { return &timelineView{Snap: p.snap} }).
				ElseIf(p.tab == "log", func() app.UI { return &eventLogView{Rows: p.snap.Log} }).
				Else(func() app.UI {
					return &plainViewCompo{Plain: p.snap.Plain, Warnings: p.snap.Warnings, Final: p.snap.Final}
				}),
		),
	)
}

// onTabKey moves the selection along the tab list (WAI-ARIA tabs pattern)
// and keeps the keyboard focus on the selected tab.
func (p *dashboardPage) onTabKey(ctx app.Context, e app.Event, i int) {
	next := tabKeyTarget(e.Get("key").String(), i, len(tabs))
	if next < 0 {
		return
	}
	e.PreventDefault()
	p.tab = tabs[next].ID
	id := "tab-" + tabs[next].ID
	ctx.Defer(func(ctx app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			el.Call("focus")
		}
	})
}

// tabKeyTarget is the tab index a key moves to from tab i of n (wrapping),
// or -1 for a key the tab list does not handle.
func tabKeyTarget(key string, i, n int) int {
	switch key {
	case "ArrowRight":
		return (i + 1) % n
	case "ArrowLeft":
		return (i + n - 1) % n
	case "Home":
		return 0
	case "End":
		return n - 1
	}
	return -1
}

func activeClass(on bool) string {
	if on {
		return "ds-active"
	}
	return ""
}
