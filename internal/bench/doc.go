//go:build !js

// Package bench is duplexscope's benchmark harness (`make bench`): it
// measures the tool's own measurement error against the simulator's ground
// truth, its input pacing, how many paced sessions one runner holds, what
// the browser page costs, and how fast metrics and the archive are, and
// writes BENCHMARKS.md.
//
// Every machine-dependent figure is reported in absolute units and as a
// ratio against a baseline measured in the same run (a bare websocket
// reader, a naive time.Ticker / setInterval pacer, a go-app hello world, the
// in-memory archive, encoding/json on the same data).
//
// # Clocks
//
// Timing-fidelity errors are differences of intervals: (client receive
// instant of event B − of event A) − (simulator emit instant of B − of A).
// Each interval is taken on one clock (client monotonic receive clock,
// simulator monotonic emit clock), so the difference does not depend on
// the clocks' origins. Pacing lags are on the client send clock.
//
// Run it with `go run ./cmd/bench -out BENCHMARKS.md` (full, about
// 50 minutes on 2 cores) or `-quick` (a smoke run of a few minutes).
package bench
