package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
)

// Actions and state of the /load page.
const (
	actionLoadStart = "/load/start" // value: LoadSettings
	actionLoadStop  = "/load/stop"
	stateLoad       = "load" // loadSnapshot
)

// loadPage is the "/load" route: the load curve from the browser.
type loadPage struct {
	app.Compo
	settings LoadSettings
	levels   string // the levels field as typed
	notes    []string
	snap     loadSnapshot
	started  bool
}

func (p *loadPage) OnNav(ctx app.Context) {
	u := ctx.Page().URL()
	s, errs := ParseLoadSettings(u.Query(), DefaultLoadSettings(u.Host, u.Scheme == "https"))
	errs = append(errs, UnknownParams(u.Query(), SettingsParams, LoadParams)...)
	p.settings, p.levels = s, levelsText(s.Levels)
	p.notes = p.notes[:0]
	for _, e := range errs {
		p.notes = append(p.notes, "Ignored URL parameter: "+e.Error())
	}
	ctx.ObserveState(stateLoad, &p.snap)
	if app.IsClient {
		setStall(s.StallMs, s.StallEveryMs)
	}
	if app.IsClient && s.Autostart && len(errs) > 0 {
		// Never run a silently different curve: the errors are read first.
		p.notes = append(p.notes, "autostart=1 was not followed because of the errors above: press Start to run what the form shows.")
	} else if app.IsClient && (s.Autostart || s.Watch) && !p.started {
		p.start(ctx)
	}
}

func (p *loadPage) start(ctx app.Context) {
	lv, err := loadcurve.ParseLevels(p.levels)
	if err != nil {
		p.notes = append(p.notes[:0], "Levels: "+err.Error())
		return
	}
	p.settings.Levels = lv
	p.started = true
	ctx.NewActionWithValue(actionLoadStart, p.settings)
}

func (p *loadPage) running() bool { return phaseBusy(p.snap.Phase) }

func levelsText(l []int) string {
	var s []string
	for _, n := range l {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

func (p *loadPage) Render() app.UI {
	s := p.settings
	snap := p.snap
	set := func(f func(*LoadSettings)) { f(&p.settings) }
	return app.Div().Class("ds-page").Body(
		app.Elem("header").Class("ds-header").Body(
			app.Img().Src("/web/icons/icon.svg").Alt("").Role("presentation"), // decorative; go-app drops an empty alt
			app.H1().Text("duplexscope — load curve"),
			app.Elem("span").Class("ds-sub").Body(app.Text("how latency grows with concurrent sessions · "), app.Elem("a").Attr("href", "/").Text("single session")),
		),
		app.Elem("section").Class("ds-panel").ID("load-connect").Body(
			app.Elem("h2").Text("Load"),
			app.Div().Class("ds-row").Body(
				field("Server URL", "ds-wide", app.ElemSelfClosing("input").ID("in-url").Attr("value", s.URL).OnChange(func(ctx app.Context, e app.Event) {
					set(func(s *LoadSettings) { s.URL = ctx.JSSrc().Get("value").String() })
				})),
				field("Model", "", app.ElemSelfClosing("input").ID("in-model").Attr("value", s.Model).OnChange(func(ctx app.Context, e app.Event) {
					set(func(s *LoadSettings) { s.Model = ctx.JSSrc().Get("value").String() })
				})),
				field("Simulator profile", "", app.ElemSelfClosing("input").ID("in-profile").Attr("value", s.Profile).OnChange(func(ctx app.Context, e app.Event) {
					set(func(s *LoadSettings) { s.Profile = ctx.JSSrc().Get("value").String() })
				})),
				field("Levels (sessions at once)", "", app.ElemSelfClosing("input").ID("in-levels").Attr("value", p.levels).OnChange(func(ctx app.Context, e app.Event) {
					p.levels = ctx.JSSrc().Get("value").String()
				})),
				field("Join after (s)", "", app.ElemSelfClosing("input").ID("in-join").Attr("type", "number").Attr("min", 0).Attr("value", strconv.FormatFloat(s.JoinS, 'f', -1, 64)).
					OnChange(func(ctx app.Context, e app.Event) {
						j, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
						if err == nil && j >= 0 {
							set(func(s *LoadSettings) { s.JoinS = j })
						}
					})),
				app.If(!p.running(), func() app.UI {
					return app.Elem("button").ID("btn-load-start").Class("ds-btn").Text("Start").OnClick(func(ctx app.Context, e app.Event) { p.start(ctx) })
				}).Else(func() app.UI {
					return app.Elem("button").ID("btn-load-stop").Class("ds-btn ds-stop").Text("Stop").
						OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionLoadStop) })
				}),
				app.Elem("a").ID("link-load").Attr("href", "/load?"+s.Query().Encode()).Text("link to this test"),
			),
			app.P().Class("ds-hint").Text(fmt.Sprintf("Each level runs N sessions at once, each streaming a clip of dataset %s in real time (paced by %s; nothing is played), plus one session that joins %.1f s later — what a new user meets under load. "+
				"Several pages or `duplexscope run --load-curve` processes can share one curve: give them the same run_id and shard=i/n.", s.DatasetName(), pacedBy(s.SessionThread), s.JoinS)),
			app.If(s.RunID != "", func() app.UI {
				return app.P().Class("ds-hint").ID("load-run-id").Text(fmt.Sprintf("Run %s%s — watch it live at /load?run_id=%s&watch=1", s.RunID, shardText(s), s.RunID))
			}),
			app.Range(p.notes).Slice(func(i int) app.UI { return app.P().Class("ds-hint ds-error").Text(p.notes[i]) }),
		),
		stallBanner(s.StallMs, s.StallEveryMs),
		app.P().ID("load-status").Class(statusClass(snap.Phase)).Attr("data-phase", snap.Phase).Text(orText(snap.Status, "Ready. Press Start.")),
		app.If(snap.Error != "" && snap.Phase != phaseFailed, func() app.UI { return app.P().Class("ds-status ds-error").Text(snap.Error) }),
		&shareBox{Share: snap.Share, Phase: snap.Phase},
		app.If(len(snap.RunLinks) > 0, func() app.UI {
			return app.Div().ID("load-runner-links").Class("ds-hint").Body(
				app.Text("Links for the other runners of this run (they carry its capability: share them only with those runners):"),
				app.Elem("ul").Body(app.Range(snap.RunLinks).Slice(func(i int) app.UI {
					return app.Elem("li").Body(app.Elem("a").Attr("href", snap.RunLinks[i]).Text(snap.RunLinks[i]))
				})),
			)
		}),
		app.If(len(snap.Warnings) > 0, func() app.UI {
			return app.Elem("ul").Class("ds-warnings").Body(app.Range(snap.Warnings).Slice(func(i int) app.UI { return app.Elem("li").Text(snap.Warnings[i]) }))
		}),
		app.Elem("section").Class("ds-panel").Body(
			&echart{ID: "chart-load", Class: "ds-tall", Option: snap.Chart, Points: snap.Points},
			app.P().Class("ds-hint").Text("Curve of "+orText(snap.Source, "the sessions of this page")+". TTFP: server clock when the server reports it, else the client receive clock (each line says which); RTF: client receive clock; underruns: simulated playback clock; pacing lag: client send clock."),
		),
		app.Elem("section").Class("ds-panel").Body(
			app.Elem("h2").Text("Levels"),
			app.Elem("table").Class("ds-table").ID("load-levels").Body(
				app.Elem("tr").Body(app.Elem("th").Text("sessions"), app.Elem("th").Text("reported"), app.Elem("th").Text("responses"), app.Elem("th").Text("TTFP p50"), app.Elem("th").Text("TTFP p99"),
					app.Elem("th").Text("TTFP clock"), app.Elem("th").Text("join TTFP"), app.Elem("th").Text("RTF p50"), app.Elem("th").Text("pacing lag p99"), app.Elem("th").Text("underruns"), app.Elem("th").Text("failed")),
				app.Range(snap.Rows).Slice(func(i int) app.UI {
					r := snap.Rows[i]
					return app.Elem("tr").Attr("data-sessions", r.N).Attr("data-complete", r.Complete).Body(
						app.Elem("td").Text(r.Sessions), app.Elem("td").Text(r.Reported), app.Elem("td").Text(r.Responses), app.Elem("td").Text(r.P50), app.Elem("td").Text(r.P99),
						app.Elem("td").Text(r.Origin), app.Elem("td").Text(r.Join), app.Elem("td").Text(r.RTF), app.Elem("td").Text(r.Lag), app.Elem("td").Text(r.Underruns), app.Elem("td").Text(r.Failed))
				}),
			),
			app.If(len(snap.Sessions) > 0, func() app.UI {
				return app.Div().Class("ds-row").ID("load-sessions").Style("margin-top", "8px").Body(app.Range(snap.Sessions).Slice(func(i int) app.UI {
					d := snap.Sessions[i]
					name := fmt.Sprintf("N=%d #%d", d.Level, d.Index)
					if d.Joiner {
						name += " (joiner)"
					}
					return app.Elem("span").Class("ds-dot ds-dot-"+d.State).Attr("data-state", d.State).
						Title(fmt.Sprintf("%s: %s, %d responses", name, d.State, d.Responses)).Text(strconv.Itoa(d.Responses))
				}))
			}),
		),
	)
}

// pacedBy names the clock the sessions' input is paced by.
func pacedBy(thread string) string {
	if thread == SessionThreadMain {
		return "this page's audio clock, on its main thread"
	}
	return "the session worker's clock, off this page's main thread"
}

func shardText(s LoadSettings) string {
	if s.Shards == 0 {
		return ""
	}
	return fmt.Sprintf(", this page is runner %d of %d", s.Shard, s.Shards)
}

func statusClass(phase string) string {
	if phase == phaseFailed {
		return "ds-status ds-error"
	}
	return "ds-status"
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func handleLoadStart(ctx app.Context, a app.Action) {
	s, ok := a.Value.(LoadSettings)
	if !ok {
		return
	}
	r := loadSlot.replace(func(old *loadRun) *loadRun {
		if old != nil {
			old.stop()
			old.cancel()
		}
		return newLoadRun(s, publisher[loadSnapshot](ctx, stateLoad))
	})
	ctx.Async(r.run)
}

func handleLoadStop(ctx app.Context, a app.Action) {
	if r := loadSlot.get(); r != nil {
		r.stop()
	}
}
