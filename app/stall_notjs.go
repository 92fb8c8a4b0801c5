//go:build !js

package app

// setStall is the browser's debug main-thread stall (stall_js.go); the
// server's prerender has no page thread to stall.
func setStall(ms, every int) {}
