package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// frameClock is an AudioWorklet that only keeps time: the input worklet in
// clip mode with no clip posts one silent frame every frameMs of audio
// clock, even in a background tab, and the load page paces every session's
// input from those posts (Go timers are throttled setTimeout there).
type frameClock struct {
	ctx  app.Value
	node app.Value
	fn   app.Func
}

// newFrameClock starts the clock; onTick runs in the worklet's message
// callback (never block in it). Call from a controller goroutine.
func newFrameClock(frameMs int, onTick func(seq int)) (*frameClock, error) {
	w := app.Window()
	ac, err := audioContextClass()
	if err != nil {
		return nil, fmt.Errorf("%w, which paces the sessions", err)
	}
	c := &frameClock{ctx: ac.New(jsObject(map[string]any{"latencyHint": "interactive"}))}
	if _, err := await(c.ctx.Get("audioWorklet").Call("addModule", "/web/mic-worklet.js")); err != nil {
		c.close()
		return nil, fmt.Errorf("loading the pacing worklet: %w", err)
	}
	c.node = w.Get("AudioWorkletNode").New(c.ctx, "duplexscope-input", jsObject(map[string]any{
		"numberOfInputs": 0, "numberOfOutputs": 1, "outputChannelCount": []any{1},
		"processorOptions": jsObject(map[string]any{"mode": "clip", "frameMs": frameMs}),
	}))
	c.fn = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if d := args[0].Get("data"); d.Get("type").String() == "frame" {
			onTick(d.Get("seq").Int())
		}
		return nil
	})
	c.node.Get("port").Set("onmessage", c.fn)
	c.node.Call("connect", c.ctx.Get("destination")) // a node nobody pulls is not processed
	c.ctx.Call("resume")
	return c, nil
}

func (c *frameClock) close() {
	if c == nil {
		return
	}
	if c.node != nil {
		c.node.Get("port").Set("onmessage", nil)
	}
	if c.ctx != nil {
		c.ctx.Call("close")
	}
	if c.fn != nil {
		c.fn.Release()
	}
}
