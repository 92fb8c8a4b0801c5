package app

import (
	"sync"
	"syscall/js"
)

// stall is the page's running debug main-thread stall (stall_ms,
// stall_every_ms).
var stall struct {
	sync.Mutex
	ms, every int
	timer     js.Value
	fn        js.Func
}

// setStall makes the page's main thread busy-loop ms every every ms from
// now on for as long as the page is open (a new navigation's values
// replace the old; ms = 0 stops it). The interval callback is a Go func
// spinning on performance.now(): while it runs, neither the JS event loop
// (socket messages, worklet ports, timers, rendering) nor any goroutine of
// the page gets the thread — the load the stall is meant to show.
func setStall(ms, every int) {
	stall.Lock()
	defer stall.Unlock()
	if ms == stall.ms && every == stall.every {
		return
	}
	if stall.ms > 0 {
		js.Global().Call("clearInterval", stall.timer)
		stall.fn.Release()
	}
	stall.ms, stall.every = ms, every
	if ms <= 0 || every <= 0 {
		stall.ms, stall.every = 0, 0
		return
	}
	perf := js.Global().Get("performance")
	busy := float64(ms)
	stall.fn = js.FuncOf(func(js.Value, []js.Value) any {
		end := perf.Call("now").Float() + busy
		for perf.Call("now").Float() < end {
		}
		return nil
	})
	stall.timer = js.Global().Call("setInterval", stall.fn, every)
}
