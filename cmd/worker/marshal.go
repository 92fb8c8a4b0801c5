package main

import (
	"bytes"
	"encoding/json"
	"runtime"

	"github.com/duplexscope/duplexscope/trace"
)

// yieldEvery is how much wire log marshalYielding writes between yields.
const yieldEvery = 16 << 10

// marshalYielding is json.Marshal(wireLog), byte for byte, but it lets the
// worker's other goroutines run every yieldEvery bytes: wasm has no
// preemption, and marshalling a minute-long session's wire log (≈ 6 MB)
// takes it 0.1–0.9 s, which in load mode would delay every frame the
// worker's other sessions have due meanwhile.
func marshalYielding(wireLog *trace.Session) ([]byte, error) {
	head := *wireLog
	head.Events = nil
	b, err := json.Marshal(head)
	const tail = `"events":[]}`
	if err != nil || !bytes.HasSuffix(b, []byte(tail)) {
		return json.Marshal(wireLog) // not the layout this expects: all at once
	}
	b = b[:len(b)-2] // up to and with the events' "["
	last := len(b)
	for i, ev := range wireLog.Events {
		if i > 0 {
			b = append(b, ',')
		}
		e, err := json.Marshal(ev)
		if err != nil {
			return nil, err
		}
		b = append(b, e...)
		if len(b)-last >= yieldEvery {
			runtime.Gosched()
			last = len(b)
		}
	}
	return append(b, ']', '}'), nil
}
