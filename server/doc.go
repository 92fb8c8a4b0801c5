//go:build !js

// Package server is duplexscope's HTTP server: the go-app page and its
// assets (pre-compressed app.wasm), the archive API (/api/…), server-rendered
// share, run, compare and history pages, a websocket proxy restricted to
// allowed targets, the embedded simulator, /healthz and Prometheus /metrics.
//
// server.New(cfg) returns an http.Handler; `duplexscope serve` mounts it and
// tests mount it on httptest.NewServer.
//
// # Web security
//
// Every request first passes policy (policy.go): a Host allow-list (421),
// foreign-Origin writes and proxy use refused (403), API writes only with a
// Content-Type no cross-site page can send unpreflighted (415); the
// embedded simulator is exempt. Every HTML answer carries a CSP, defined
// in pages.go only. The proxy (proxy.go) is opt-in and checks the address
// it dials inside the dialer.
//
// # Clocks
//
// The server stamps created_at with its wall clock (display and ordering
// only). It never computes latencies from its own clock: every number on a
// page comes from the report and is labelled with the clock it came from
// (server clock, client receive clock, playback clock).
package server
