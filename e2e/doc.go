// Package e2e holds duplexscope's real-browser tests (build tag e2e): the
// real server (page, archive, simulator) on 127.0.0.1, driven by Debian's
// chromium through chromedp with a fake microphone playing
// testdata/fake-mic.wav (the launcher and the stack are
// internal/browsertest's, shared with the server's browser tests and the
// bench). Run with `make e2e` (it builds web/app.wasm first)
// or `go test -tags e2e ./e2e/...`; a missing wasm build or chromium fails
// the tests with the command to run, never skips them.
//
// # Which tests run in parallel
//
// A test whose assertions bound a time (receive stamps against the
// simulator's truth, pacing, turn-taking anchors, stalls, verdict bands,
// probes) runs alone: a second browser beside it would add load that
// its bound does not allow for. A test that only checks what the page shows, sends or archives
// (forms, faults, worker fallbacks, uploads, sign-in, labels, share pages, load curves on the
// simulator's clock, accessibility, hostile input) calls t.Parallel(), so
// Go runs those after the timed ones, two at a time (-parallel defaults to
// the 2 cores): their sessions are real time and mostly wait. Every wait in
// them polls for an event with a deadline of minutes, never a sleep. make
// test runs the two kinds in two processes (`make e2e-timed`, and `make
// e2e-untimed` beside it under SCHED_IDLE, so it gets only the cycles the
// timed tests leave idle); the Makefile's E2E_TIMED lists the timed ones
// and TestTimedList keeps it equal to the tests without t.Parallel.
//
// Every browser here runs V8 with --liftoff-only (browsertest.TestJIT):
// tiering Go's wasm up to TurboFan cost about 4.5 s of CPU per page load,
// which on 2 cores slowed the pages it was meant to speed up (the e2e run
// took 796 s with it, 737 s without; the timed tests, real-time bound,
// took the same).
package e2e
