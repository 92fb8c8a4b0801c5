package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// wavDrop accepts a WAV file (drop, or pick with the mouse or the
// keyboard) as the session's input.
type wavDrop struct {
	app.Compo
	Name  string
	OnPCM func(ctx app.Context, name string, pcm []byte)
	err   string
}

func (w *wavDrop) Render() app.UI {
	label := "Drop a WAV here (or pick one) to use it as input"
	if w.Name != "" {
		label = "Input: " + w.Name
	}
	if w.err != "" {
		label = w.err
	}
	return app.Elem("label").Class("ds-drop").ID("wav-drop").
		OnDragOver(func(ctx app.Context, e app.Event) { e.PreventDefault() }).
		OnDrop(func(ctx app.Context, e app.Event) {
			e.PreventDefault()
			files := e.Get("dataTransfer").Get("files")
			if files.Length() > 0 {
				w.read(ctx, files.Index(0))
			}
		}).Body(
		app.Text(label),
		// Visually hidden, not display:none: the input stays in the tab
		// order, so Tab reaches the picker and Enter/Space opens it (the
		// label draws the focus ring, see .ds-drop:focus-within).
		app.ElemSelfClosing("input").Attr("type", "file").ID("wav-input").Class("ds-visually-hidden").Attr("accept", "audio/wav,.wav").
			OnChange(func(ctx app.Context, e app.Event) {
				files := ctx.JSSrc().Get("files")
				if files.Length() > 0 {
					w.read(ctx, files.Index(0))
				}
			}),
	)
}

func (w *wavDrop) read(ctx app.Context, file app.Value) {
	name := file.Get("name").String()
	p := file.Call("arrayBuffer")
	ctx.Async(func() {
		buf, err := await(p)
		if err != nil {
			ctx.Dispatch(func(ctx app.Context) { w.err = "Could not read " + name + ": " + err.Error() })
			return
		}
		b := bytesFromJS(app.Window().Get("Uint8Array").New(buf))
		pcm, err := wavToInput(b)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				w.err = name + " is not a WAV file duplexscope can read: " + err.Error()
				return
			}
			w.err = ""
			if w.OnPCM != nil {
				w.OnPCM(ctx, name, pcm)
			}
		})
	})
}
