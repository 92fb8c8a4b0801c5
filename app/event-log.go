package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// eventLogView lists sent/received events, folded, filterable, expandable.
type eventLogView struct {
	app.Compo
	Rows     []logRow
	filter   string
	expanded map[float64]bool
}

// maxShownRows keeps the DOM small; the wire log attachment has everything.
const maxShownRows = 400

func (l *eventLogView) Render() app.UI {
	var rows []logRow
	for i := len(l.Rows) - 1; i >= 0 && len(rows) < maxShownRows; i-- {
		if l.filter == "" || strings.Contains(l.Rows[i].Type, l.filter) {
			rows = append(rows, l.Rows[i])
		}
	}
	return app.Elem("section").Class("ds-panel").ID("event-log").Body(
		app.Div().Class("ds-row").Body(
			field("Filter by type", "", app.ElemSelfClosing("input").ID("log-filter").Attr("placeholder", "e.g. response.done").Attr("value", l.filter).
				OnInput(func(ctx app.Context, e app.Event) { l.filter = ctx.JSSrc().Get("value").String() })),
			app.Elem("span").Class("ds-hint").Text(fmt.Sprintf("%d rows (newest first; repeated events folded ×n; click a row or press Enter on it for its JSON)", len(l.Rows))),
		),
		app.Div().Class("ds-log").Body(app.Range(rows).Slice(func(i int) app.UI {
			r := rows[i]
			open := l.expanded[r.TMs]
			// A real button: reachable by Tab, toggled by Enter/Space,
			// its state announced through aria-expanded.
			return app.Div().Body(
				app.Elem("button").Attr("type", "button").Class("ds-log-row ds-"+r.Dir).Attr("data-type", r.Type).
					Aria("expanded", strconv.FormatBool(open)).Body(
					app.Elem("span").Text(fmt.Sprintf("%.1f ms", r.TMs)),
					app.Elem("span").Text(r.Dir),
					app.Elem("span").Text(r.Type),
					app.Elem("span").Text(countText(r.Count)),
				).OnClick(func(ctx app.Context, e app.Event) {
					if l.expanded == nil {
						l.expanded = map[float64]bool{}
					}
					l.expanded[r.TMs] = !l.expanded[r.TMs]
				}),
				app.If(open, func() app.UI { return app.Elem("pre").Text(r.JSON) }),
			)
		})),
	)
}

func countText(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf("×%d", n)
}
