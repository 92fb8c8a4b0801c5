// Package e2e holds duplexscope's real-browser tests (build tag e2e): the
// real server (page, archive, simulator) on 127.0.0.1, driven by Debian's
// chromium through chromedp with a fake microphone playing
// testdata/fake-mic.wav (the launcher and the stack are
// internal/browsertest's, shared with the server's browser tests and the
// bench). Run with `make e2e` (it builds web/app.wasm first)
// or `go test -tags e2e ./e2e/...`; a missing wasm build or chromium fails
// the tests with the command to run, never skips them.
package e2e
