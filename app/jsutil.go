package app

import (
	"errors"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// await blocks the calling goroutine until the JS promise p settles. It must
// not run on the UI goroutine or inside a JS callback (the promise could
// never resolve); controller goroutines started with ctx.Async may call it.
func await(p app.Value) (app.Value, error) {
	type result struct {
		v   app.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail app.Func
	ok = app.FuncOf(func(_ app.Value, args []app.Value) any {
		var v app.Value = app.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		ch <- result{v: v}
		return nil
	})
	fail = app.FuncOf(func(_ app.Value, args []app.Value) any {
		msg := "promise rejected"
		if len(args) > 0 {
			msg = jsErrorString(args[0])
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	p.Call("then", ok, fail)
	r := <-ch
	ok.Release()
	fail.Release()
	return r.v, r.err
}

// jsErrorString renders a JS error (or any value) for a person.
func jsErrorString(v app.Value) string {
	if v == nil || v.IsUndefined() || v.IsNull() {
		return "unknown error"
	}
	if v.Type() == app.TypeObject {
		name, msg := v.Get("name"), v.Get("message")
		if !msg.IsUndefined() {
			if !name.IsUndefined() && name.String() != "" {
				return fmt.Sprintf("%s: %s", name.String(), msg.String())
			}
			return msg.String()
		}
	}
	return v.String()
}

// perfNow returns performance.now() in ms (the session clock in browsers).
func perfNow() float64 {
	return app.Window().Get("performance").Call("now").Float()
}

// pageTimeOrigin is performance.timeOrigin (ms since the epoch): the
// origin of every stamp on the page's timeline.
func pageTimeOrigin() float64 {
	return app.Window().Get("performance").Get("timeOrigin").Float()
}

// bytesToJS copies b into a new Uint8Array.
func bytesToJS(b []byte) app.Value {
	u := app.Window().Get("Uint8Array").New(len(b))
	app.CopyBytesToJS(u, b)
	return u
}

// bytesFromJS copies a Uint8Array into Go.
func bytesFromJS(u app.Value) []byte {
	b := make([]byte, u.Get("byteLength").Int())
	app.CopyBytesToGo(b, u)
	return b
}

// jsObject builds a plain JS object from m.
func jsObject(m map[string]any) app.Value {
	o := app.Window().Get("Object").New()
	for k, v := range m {
		o.Set(k, v)
	}
	return o
}

// audioContextClass is the browser's AudioContext constructor (prefixed in
// older Safari), or an error where the browser has no Web Audio.
func audioContextClass() (app.Value, error) {
	w := app.Window()
	ac := w.Get("AudioContext")
	if ac.IsUndefined() {
		ac = w.Get("webkitAudioContext")
	}
	if ac.IsUndefined() {
		return nil, errors.New("this browser has no Web Audio (AudioContext)")
	}
	return ac, nil
}
