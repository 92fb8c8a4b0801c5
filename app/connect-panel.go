package app

import (
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// connectPanel edits Settings and starts/stops the session.
type connectPanel struct {
	app.Compo
	Settings Settings
	PageHost string // the page's host: the embedded simulator lives there
	Running  bool
	// Notes are the link's errors (URL parameters the page will not run
	// as given), shown as an alert above the Start button.
	Notes   []string
	Actions *panelActions
}

// panelActions are what the dashboard does for its panels: one value for
// the page's life, handed to each panel as the same pointer. go-app
// re-renders a child component whose fields changed, and func values never
// compare equal, so closures as fields would re-render the connect panel
// (69 elements) with every live snapshot.
type panelActions struct {
	change   func(Settings)
	start    func(app.Context)
	stop     func(app.Context)
	useClips func(app.Context) // the status line's way out of a refused microphone
}

func (c *connectPanel) set(ctx app.Context, f func(*Settings)) {
	s := c.Settings
	f(&s)
	c.Settings = s
	if c.Actions != nil && c.Actions.change != nil {
		c.Actions.change(s)
	}
}

func (c *connectPanel) Render() app.UI {
	s := c.Settings
	return app.Elem("section").Class("ds-panel").ID("connect").Body(
		app.Elem("h2").Text("Connect"),
		app.Div().Class("ds-row").Body(append(c.targetFields(s), c.inputFields(s)...)...),
		app.Div().Class("ds-row").Style("margin-top", "10px").Body(c.actions(s)...),
		c.linkErrors(),
	)
}

// targetFields: what the run talks to (URL, model, preset, simulator
// profile, frame).
func (c *connectPanel) targetFields(s Settings) []app.UI {
	return []app.UI{
		fieldFor("in-url", "Server URL (any vLLM-Omni /v1/realtime)", "ds-wide", app.ElemSelfClosing("input").ID("in-url").Attr("value", s.URL).
			OnChange(func(ctx app.Context, e app.Event) {
				c.set(ctx, func(s *Settings) { s.URL = ctx.JSSrc().Get("value").String() })
			})),
		fieldFor("in-model", "Model", "", app.ElemSelfClosing("input").ID("in-model").Attr("value", s.Model).
			OnChange(func(ctx app.Context, e app.Event) {
				c.set(ctx, func(s *Settings) { s.Model = ctx.JSSrc().Get("value").String() })
			})),
		fieldFor("in-preset", "Preset", "", app.Elem("select").ID("in-preset").Body(
			// A preset is shown only when model, profile and frame are all
			// its own; anything else is "custom" (the fields show it).
			app.Elem("option").Attr("value", "").Text(presetNone(s)).Attr("selected", matchingPreset(s) < 0),
			app.Range(Presets).Slice(func(i int) app.UI {
				return app.Elem("option").Attr("value", Presets[i].Name).Text(Presets[i].Label).Attr("selected", matchingPreset(s) == i)
			}),
		).OnChange(func(ctx app.Context, e app.Event) {
			name := ctx.JSSrc().Get("value").String()
			for _, p := range Presets {
				if p.Name == name {
					c.set(ctx, func(s *Settings) { s.Model, s.Profile, s.FrameMs = p.Model, p.Profile, p.FrameMs })
				}
			}
		})),
		c.choice("in-profile", "Simulator profile (sim_profile)", func(s *Settings, v string) { s.Profile = v },
			app.Elem("option").Attr("value", "").Text("— none (server default) —").Attr("selected", s.Profile == ""),
			app.Range(SimProfiles).Slice(func(i int) app.UI {
				return app.Elem("option").Attr("value", SimProfiles[i]).Text(SimProfiles[i]).Attr("selected", s.Profile == SimProfiles[i])
			}),
		),
		c.choice("in-frame", "Frame", func(s *Settings, v string) { s.FrameMs, _ = strconv.Atoi(v) },
			app.Range(frameChoices(s.FrameMs)).Slice(func(i int) app.UI {
				n := frameChoices(s.FrameMs)[i]
				return app.Elem("option").Attr("value", strconv.Itoa(n)).Text(strconv.Itoa(n)+" ms").Attr("selected", s.FrameMs == n)
			}),
		),
	}
}

// inputFields: what the run sends and for how long.
func (c *connectPanel) inputFields(s Settings) []app.UI {
	return []app.UI{
		c.choice("in-source", "Input", func(s *Settings, v string) { s.Source, s.DroppedPCM, s.DroppedName = v, nil, "" },
			app.Elem("option").Attr("value", SourceMic).Text("Microphone").Attr("selected", s.Source == SourceMic && s.DroppedPCM == nil),
			app.Elem("option").Attr("value", "dataset:builtin").Text("Bundled clips (builtin)").Attr("selected", s.Source == "dataset:builtin"),
			app.Elem("option").Attr("value", "dataset:turntaking").Text("Labelled turn-taking cases (turntaking)").Attr("selected", s.Source == "dataset:turntaking"),
			app.Elem("option").Attr("value", "dataset:video").Text("Video clip with frames (video)").Attr("selected", s.Source == "dataset:video"),
			app.If(otherDataset(s.Source), func() app.UI {
				// A served dataset the panel does not list: shown as given.
				return app.Elem("option").Attr("value", s.Source).Text("Dataset "+s.DatasetName()).Attr("selected", true)
			}),
		),
		c.choice("in-video", "Video", func(s *Settings, v string) { s.Video = v },
			app.Elem("option").Attr("value", VideoOff).Text("Off").Attr("selected", s.Video != VideoCamera),
			app.Elem("option").Attr("value", VideoCamera).Text("Camera (~1 fps JPEG)").Attr("selected", s.Video == VideoCamera),
		),
		c.choice("in-session-thread", "Session runs in", func(s *Settings, v string) { s.SessionThread = v },
			app.Elem("option").Attr("value", SessionThreadWorker).Text("worker thread").Attr("selected", s.SessionThread != SessionThreadMain),
			app.Elem("option").Attr("value", SessionThreadMain).Text("page main thread (baseline)").Attr("selected", s.SessionThread == SessionThreadMain),
		),
		app.If(s.Video == VideoCamera, func() app.UI {
			return app.Div().ID(CameraPreviewID).Class("ds-camera").Title("camera preview")
		}),
		app.If(s.TargetsEmbeddedSim(c.PageHost), func() app.UI {
			return fieldFor("in-behavior", "Simulator behaviour (Ctrl-click: several)", "", app.Elem("select").ID("in-behavior").Attr("multiple", true).Attr("size", 3).Body(
				app.Range(SimBehaviors).Slice(func(i int) app.UI {
					b := SimBehaviors[i]
					return app.Elem("option").Attr("value", b).Text(b).Attr("selected", slices.Contains(strings.Split(s.Behavior, ","), b))
				}),
			).OnChange(func(ctx app.Context, e app.Event) {
				opts := ctx.JSSrc().Get("selectedOptions")
				var names []string
				for i := 0; i < opts.Length(); i++ {
					names = append(names, opts.Index(i).Get("value").String())
				}
				c.set(ctx, func(s *Settings) { s.Behavior = strings.Join(names, ",") })
			}))
		}),
		fieldFor("in-duration", "Stop after (s, 0 = Stop button)", "", app.ElemSelfClosing("input").ID("in-duration").Attr("type", "number").Attr("min", 0).Attr("value", strconv.FormatFloat(s.DurationS, 'f', -1, 64)).
			OnChange(func(ctx app.Context, e app.Event) {
				d, _ := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
				c.set(ctx, func(s *Settings) { s.DurationS = d })
			})),
	}
}

// actions: the proxy and audible switches, a dropped WAV, Start/Stop and
// the link to this test.
func (c *connectPanel) actions(s Settings) []app.UI {
	return []app.UI{
		checkbox("in-proxy", "Connect through this server's proxy", s.Proxy, func(ctx app.Context, on bool) { c.set(ctx, func(s *Settings) { s.Proxy = on }) }),
		checkbox("in-audible", "Play clips here too", s.Audible, func(ctx app.Context, on bool) { c.set(ctx, func(s *Settings) { s.Audible = on }) }),
		&wavDrop{Name: s.DroppedName, OnPCM: func(ctx app.Context, name string, pcm []byte) {
			c.set(ctx, func(s *Settings) { s.DroppedPCM, s.DroppedName, s.Source = pcm, name, SourceMic })
		}},
		app.If(!c.Running, func() app.UI {
			return app.Elem("button").ID("btn-start").Class("ds-btn").Text("Start").OnClick(func(ctx app.Context, e app.Event) { c.Actions.start(ctx) })
		}).Else(func() app.UI {
			return app.Elem("button").ID("btn-stop").Class("ds-btn ds-stop").Text("Stop").OnClick(func(ctx app.Context, e app.Event) { c.Actions.stop(ctx) })
		}),
		app.Elem("a").ID("link-test").Attr("href", "/?"+s.Query().Encode()).Text("link to this test"),
	}
}

// linkErrors lists the link's values the page will not run as given.
func (c *connectPanel) linkErrors() app.UI {
	return app.If(len(c.Notes) > 0, func() app.UI {
		return app.Div().ID("url-errors").Class("ds-error").Attr("role", "alert").Body(
			app.P().Text("This link has values the page will not run as given (the form above shows what Start runs):"),
			app.Elem("ul").Body(app.Range(c.Notes).Slice(func(i int) app.UI { return app.Elem("li").Text(c.Notes[i]) })),
		)
	})
}

// fieldFor is field with its label tied to the input id (for screen
// readers and a click on the label).
func fieldFor(id, label, class string, input app.UI) app.UI {
	return app.Div().Class("ds-field "+class).Body(app.Elem("label").Attr("for", id).Text(label), input)
}

// matchingPreset is the index of the preset whose model, profile and
// frame are all s's, or -1.
func matchingPreset(s Settings) int {
	for i, p := range Presets {
		if p.Model == s.Model && p.Profile == s.Profile && p.FrameMs == s.FrameMs {
			return i
		}
	}
	return -1
}

// presetNone is the preset list's first entry: a prompt, or "custom" when
// the fields already hold a profile no preset matches.
func presetNone(s Settings) string {
	if s.Profile != "" {
		return "— custom (see the fields) —"
	}
	return "— choose —"
}

// frameChoices are the selectable frame sizes plus ms when it is another
// valid size (from a link), so the form shows what will be sent.
func frameChoices(ms int) []int {
	if ms <= 0 || slices.Contains(FrameSizes, ms) {
		return FrameSizes
	}
	out := append([]int{ms}, FrameSizes...)
	slices.Sort(out)
	return out
}

// otherDataset reports whether source is a dataset the panel does not list.
func otherDataset(source string) bool {
	name, ok := strings.CutPrefix(source, SourceDataset+":")
	return ok && !slices.Contains(BundledDatasets, name)
}

func field(label, class string, input app.UI) app.UI {
	return app.Div().Class("ds-field "+class).Body(app.Elem("label").Text(label), input)
}

func checkbox(id, label string, on bool, set func(app.Context, bool)) app.UI {
	return app.Elem("label").Class("ds-hint").Body(
		app.ElemSelfClosing("input").ID(id).Attr("type", "checkbox").Attr("checked", on).OnChange(func(ctx app.Context, e app.Event) { set(ctx, ctx.JSSrc().Get("checked").Bool()) }),
		app.Text(" "+label),
	)
}

// choice is a labelled select #id of options; a change sets the run's
// settings with set(settings, the chosen value).
func (c *connectPanel) choice(id, label string, set func(s *Settings, v string), options ...app.UI) app.UI {
	return fieldFor(id, label, "", app.Elem("select").ID(id).Body(options...).OnChange(func(ctx app.Context, e app.Event) {
		v := ctx.JSSrc().Get("value").String()
		c.set(ctx, func(s *Settings) { set(s, v) })
	}))
}
