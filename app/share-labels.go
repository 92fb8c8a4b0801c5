package app

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/apiclient"
)

// runLabels lets the user name a saved run, write notes and tag it: PATCH
// /api/reports/{id} with the report capability the page uploaded with (so
// it works on an archive with a write token without a sign-in).
type runLabels struct {
	app.Compo
	ReportID   string
	Capability string

	name, notes, tags string
	status            string
	failed, busy      bool
}

// splitList reads a comma-separated field (tags, behaviours): trimmed,
// empties dropped.
func splitList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// labelsBody is the PATCH body: every key, so what the form shows is what
// the run holds afterwards.
func labelsBody(name, notes string, tags []string) ([]byte, error) {
	if tags == nil {
		tags = []string{}
	}
	return json.Marshal(map[string]any{"name": name, "notes": notes, "tags": tags})
}

func (c *runLabels) save(ctx app.Context) {
	name, notes, tags := strings.TrimSpace(c.name), c.notes, splitList(c.tags)
	if fes := report.CheckLabels(name, notes, tags); len(fes) > 0 {
		c.status, c.failed = "Not saved: "+strings.TrimPrefix(fes[0].Error(), "run."), true
		return
	}
	body, err := labelsBody(name, notes, tags)
	if err != nil {
		c.status, c.failed = "Not saved: "+err.Error(), true
		return
	}
	c.busy, c.status, c.failed = true, "Saving…", false
	id, capability := c.ReportID, c.Capability
	ctx.Async(func() {
		rctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		call := apiclient.Call{Method: http.MethodPatch, Path: "/api/reports/" + id, Body: body, ContentType: "application/json"}
		err := signInNeeded(archiveClient(capability).Send(rctx, call, nil))
		ctx.Dispatch(func(ctx app.Context) {
			c.busy = false
			if err != nil {
				c.status, c.failed = "Not saved: "+err.Error()+" — your text is still here; try again.", true
				return
			}
			c.status, c.failed = "Saved: the share page, history and compare show it.", false
		})
	})
}

func (c *runLabels) Render() app.UI {
	if c.ReportID == "" {
		return app.Div().ID("run-labels-form").Attr("hidden", true)
	}
	value := func(dst *string) func(app.Context, app.Event) {
		return func(ctx app.Context, e app.Event) { *dst = ctx.JSSrc().Get("value").String() }
	}
	status := app.P().ID("labels-status").Attr("role", "status").Attr("aria-live", "polite").Text(c.status)
	if c.failed {
		status = status.Class("ds-error")
	}
	return app.Elem("form").ID("run-labels-form").Class("ds-labels").
		OnSubmit(func(ctx app.Context, e app.Event) {
			e.PreventDefault()
			if !c.busy {
				c.save(ctx)
			}
		}).Body(
		app.P().Class("ds-hint").Text("Tell this run apart: a name, notes and tags (shown on its share page, in history and in compare)."),
		app.Elem("label").Attr("for", "labels-name").Text("Name"),
		app.ElemSelfClosing("input").ID("labels-name").Attr("type", "text").Attr("name", "name").Attr("maxlength", report.MaxNameChars).
			Attr("placeholder", "e.g. fp8 build on GPU A").Attr("value", c.name).OnInput(value(&c.name)),
		app.Elem("label").Attr("for", "labels-notes").Text("Notes"),
		app.Elem("textarea").ID("labels-notes").Attr("name", "notes").Attr("maxlength", report.MaxNotesChars).Attr("rows", 3).Attr("value", c.notes).OnInput(value(&c.notes)),
		app.Elem("label").Attr("for", "labels-tags").Text("Tags (comma-separated)"),
		app.ElemSelfClosing("input").ID("labels-tags").Attr("type", "text").Attr("name", "tags").Attr("placeholder", "gpu-a, fp8").Attr("value", c.tags).OnInput(value(&c.tags)),
		app.Elem("button").ID("labels-save").Attr("type", "submit").Attr("disabled", c.busy).Text("Save name, notes and tags"),
		status,
	)
}
