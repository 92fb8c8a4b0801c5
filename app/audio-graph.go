package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// inputFrame is one frame posted by the input worklet.
type inputFrame struct {
	Seq     int
	PCM     []byte // PCM16 LE mono 16 kHz
	CtxTime float64
	RMS     float64
	Final   bool
	RecvMs  float64 // performance.now() when the message reached Go
}

// playbackMsg is a message from the playback worklet.
type playbackMsg struct {
	Type    string
	ID      string
	Played  int // samples of ID rendered
	Dropped int
	CtxTime float64
	PerfMs  float64 // CtxTime mapped to performance.now() via getOutputTimestamp
	RMS     float64
	Count   int
}

// audioGraph owns the page's two AudioContexts: input (device rate) with the
// capture worklet, output (24 kHz) with the playback worklet.
type audioGraph struct {
	inCtx     app.Value
	outCtx    app.Value
	inNode    app.Value
	outNode   app.Value
	stream    app.Value // MediaStream (mic)
	funcs     []app.Func
	InputRate float64
	OutRate   float64
}

// audioOptions configure newAudioGraph.
type audioOptions struct {
	Mic       bool // capture the mic; else clip mode (clip posted with setClip)
	FrameMs   int  // frame size the worklet posts
	OnFrame   func(inputFrame)
	OnClipEnd func()
	// OnClipStart gets the frame (seq) whose first sample is the clip's.
	OnClipStart func(seq int)
	OnPlayback  func(playbackMsg)
	// OnProbeOnset gets the frame (seq) carrying a probe's first sample.
	OnProbeOnset func(id string, seq, sample int)
}

// newAudioGraph builds both contexts and worklets. It blocks on promises, so
// call it from a controller goroutine.
func newAudioGraph(o audioOptions) (*audioGraph, error) {
	g := &audioGraph{}
	w := app.Window()
	ac, err := audioContextClass()
	if err != nil {
		return nil, err
	}
	if !secureContext() {
		return nil, insecurePage(fmt.Errorf("window.isSecureContext is false"))
	}
	g.inCtx = ac.New(jsObject(map[string]any{"latencyHint": "interactive"}))
	g.outCtx = ac.New(jsObject(map[string]any{"sampleRate": 24000, "latencyHint": "interactive"}))
	g.InputRate = g.inCtx.Get("sampleRate").Float()
	g.OutRate = g.outCtx.Get("sampleRate").Float()
	if _, err := await(g.inCtx.Get("audioWorklet").Call("addModule", "/web/mic-worklet.js")); err != nil {
		return nil, fmt.Errorf("loading the input worklet: %w", err)
	}
	if _, err := await(g.outCtx.Get("audioWorklet").Call("addModule", "/web/playback-worklet.js")); err != nil {
		return nil, fmt.Errorf("loading the playback worklet: %w", err)
	}
	mode := "clip"
	if o.Mic {
		mode = "mic"
	}
	node := w.Get("AudioWorkletNode")
	g.inNode = node.New(g.inCtx, "duplexscope-input", jsObject(map[string]any{
		"numberOfInputs":     1,
		"numberOfOutputs":    1,
		"outputChannelCount": []any{1},
		"processorOptions":   jsObject(map[string]any{"mode": mode, "frameMs": o.FrameMs}),
	}))
	g.outNode = node.New(g.outCtx, "duplexscope-playback", jsObject(map[string]any{
		"numberOfInputs":     0,
		"numberOfOutputs":    1,
		"outputChannelCount": []any{1},
		"processorOptions":   jsObject(map[string]any{"prebufferMs": 200}),
	}))
	inMsg, outMsg := inputMessages(o), g.playbackMessages(o)
	g.funcs = append(g.funcs, inMsg, outMsg)
	g.inNode.Get("port").Set("onmessage", inMsg)
	g.outNode.Get("port").Set("onmessage", outMsg)
	g.outNode.Call("connect", g.outCtx.Get("destination"))
	if o.Mic {
		if err := g.openMic(w); err != nil {
			return nil, err
		}
	}
	g.inNode.Call("connect", g.inCtx.Get("destination"))
	return g, nil
}

// inputMessages handles the input worklet's messages (frames, clip and
// probe marks) on the page.
func inputMessages(o audioOptions) app.Func {
	return app.FuncOf(func(_ app.Value, args []app.Value) any {
		d := args[0].Get("data")
		switch d.Get("type").String() {
		case "frame":
			f := inputFrame{
				Seq: d.Get("seq").Int(), PCM: bytesFromJS(d.Get("pcm")), CtxTime: d.Get("ctxTime").Float(),
				RMS: d.Get("rms").Float(), Final: d.Get("final").Truthy(), RecvMs: perfNow(),
			}
			if o.OnFrame != nil {
				o.OnFrame(f)
			}
		case "clip-start":
			if o.OnClipStart != nil {
				o.OnClipStart(d.Get("seq").Int())
			}
		case "clip-end":
			if o.OnClipEnd != nil {
				o.OnClipEnd()
			}
		case "probe-onset":
			if o.OnProbeOnset != nil {
				o.OnProbeOnset(d.Get("id").String(), d.Get("seq").Int(), d.Get("sample").Int())
			}
		}
		return nil
	})
}

// playbackMessages handles the playback worklet's reports on the page.
func (g *audioGraph) playbackMessages(o audioOptions) app.Func {
	return app.FuncOf(func(_ app.Value, args []app.Value) any {
		d := args[0].Get("data")
		m := playbackMsg{Type: d.Get("type").String(), CtxTime: d.Get("ctxTime").Float()}
		if v := d.Get("id"); !v.IsUndefined() && !v.IsNull() {
			m.ID = v.String()
		}
		if v := d.Get("played"); !v.IsUndefined() {
			m.Played = v.Int()
		}
		if v := d.Get("dropped"); !v.IsUndefined() {
			m.Dropped = v.Int()
		}
		if v := d.Get("rms"); !v.IsUndefined() {
			m.RMS = v.Float()
		}
		if v := d.Get("count"); !v.IsUndefined() {
			m.Count = v.Int()
		}
		m.PerfMs = g.ctxToPerf(m.CtxTime)
		if o.OnPlayback != nil {
			o.OnPlayback(m)
		}
		return nil
	})
}

// openMic asks for the microphone and feeds it to the input worklet.
func (g *audioGraph) openMic(w app.Value) error {
	md := w.Get("navigator").Get("mediaDevices")
	if md.IsUndefined() {
		return classifyMic(fmt.Errorf("no microphone access here (navigator.mediaDevices is missing)"), secureContext())
	}
	constraints := jsObject(map[string]any{"audio": jsObject(map[string]any{
		"channelCount": 1, "echoCancellation": true, "noiseSuppression": false, "autoGainControl": false,
	})})
	stream, err := await(md.Call("getUserMedia", constraints))
	if err != nil {
		return classifyMic(fmt.Errorf("microphone: %w", err), true)
	}
	g.stream = stream
	src := g.inCtx.Call("createMediaStreamSource", stream)
	src.Call("connect", g.inNode)
	return nil
}

// resume starts suspended contexts (autoplay policy); returns their states.
func (g *audioGraph) resume() string {
	g.inCtx.Call("resume")
	g.outCtx.Call("resume")
	return g.inCtx.Get("state").String() + "/" + g.outCtx.Get("state").String()
}

// inputTime is the input context's audio clock (s).
func (g *audioGraph) inputTime() float64 { return g.inCtx.Get("currentTime").Float() }

// suspended reports whether either context is still waiting for a gesture.
func (g *audioGraph) suspended() bool {
	return g.inCtx.Get("state").String() == "suspended" || g.outCtx.Get("state").String() == "suspended"
}

// setClip hands the input worklet a 16 kHz PCM16 clip to stream.
func (g *audioGraph) setClip(pcm []byte, audible bool) {
	n := len(pcm) / 2
	i16 := app.Window().Get("Int16Array").New(bytesToJS(pcm[:n*2]).Get("buffer"))
	g.inNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "clip", "pcm": i16, "audible": audible}))
}

// playClip has the input worklet play a 16 kHz PCM16 clip (aloud if
// audible) without cutting frames from it: the session worker streams the
// clip itself, and the worklet then posts no frames at all.
func (g *audioGraph) playClip(pcm []byte, audible bool) {
	n := len(pcm) / 2
	i16 := app.Window().Get("Int16Array").New(bytesToJS(pcm[:n*2]).Get("buffer"))
	g.inNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "clip", "pcm": i16, "audible": audible, "playOnly": true}))
}

// inject mixes a 16 kHz PCM16 probe clip into the outgoing input.
func (g *audioGraph) inject(id string, pcm []byte) {
	n := len(pcm) / 2
	i16 := app.Window().Get("Int16Array").New(bytesToJS(pcm[:n*2]).Get("buffer"))
	g.inNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "inject", "pcm": i16, "id": id}))
}

// stopInput flushes the last partial frame and stops capture.
func (g *audioGraph) stopInput() {
	g.inNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "stop"}))
	if g.stream != nil {
		tracks := g.stream.Call("getTracks")
		for i := 0; i < tracks.Length(); i++ {
			tracks.Index(i).Call("stop")
		}
	}
}

// play queues PCM16 at the output rate for response id.
func (g *audioGraph) play(id string, pcm []byte) {
	g.outNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "push", "id": id, "pcm": bytesToJS(pcm)}))
}

// done tells the player id has no more audio.
func (g *audioGraph) done(id string) {
	g.outNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "done", "id": id}))
}

// clear drops id's queued audio (barge-in).
func (g *audioGraph) clear(id string) {
	g.outNode.Get("port").Call("postMessage", jsObject(map[string]any{"type": "clear", "id": id}))
}

// ctxToPerf maps an output-context time (s) to performance.now() ms.
func (g *audioGraph) ctxToPerf(ctxTime float64) float64 {
	ts := g.outCtx.Call("getOutputTimestamp")
	ct, pt := ts.Get("contextTime"), ts.Get("performanceTime")
	if ct.IsUndefined() || pt.IsUndefined() || pt.Float() == 0 {
		return perfNow() - (g.outCtx.Get("currentTime").Float()-ctxTime)*1000
	}
	return pt.Float() + (ctxTime-ct.Float())*1000
}

// playSnippet plays PCM16 at rate once (timeline click to play).
func (g *audioGraph) playSnippet(pcm []byte, rate int) {
	if g == nil || len(pcm) < 2 {
		return
	}
	n := len(pcm) / 2
	buf := g.outCtx.Call("createBuffer", 1, n, rate)
	f32 := app.Window().Get("Float32Array").New(n)
	for i := 0; i < n; i++ {
		f32.SetIndex(i, float64(int16(uint16(pcm[2*i])|uint16(pcm[2*i+1])<<8))/32768)
	}
	buf.Call("copyToChannel", f32, 0)
	src := g.outCtx.Call("createBufferSource")
	src.Set("buffer", buf)
	src.Call("connect", g.outCtx.Get("destination"))
	src.Call("start")
}

// close releases the contexts and callbacks.
func (g *audioGraph) close() {
	if g == nil {
		return
	}
	if g.inCtx != nil {
		g.inCtx.Call("close")
	}
	if g.outCtx != nil {
		g.outCtx.Call("close")
	}
	for _, f := range g.funcs {
		f.Release()
	}
	g.funcs = nil
}
