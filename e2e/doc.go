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
// (forms, faults, uploads, sign-in, labels, share pages, load curves on the
// simulator's clock, accessibility, hostile input) calls t.Parallel(), so
// Go runs those after the timed ones, two at a time (-parallel defaults to
// the 2 cores): their sessions are real time and mostly wait. Every wait in
// them polls for an event with a deadline of minutes, never a sleep.
package e2e
