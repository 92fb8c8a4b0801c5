// Package browsertest is the one real-browser harness of the e2e tests, the
// server's browser tests, the accessibility helper's test and the bench's
// browser group: Launch starts headless Debian chromium through chromedp
// with the flags every caller shares (fake media devices, an optional fake
// microphone file, autoplay allowed, a fresh profile), and NewStack starts
// the server as `duplexscope serve` mounts it (page, archive in memory,
// simulator) on 127.0.0.1:0, and Open loads a page with a bound, saying
// where a stuck load stood (and getting past Chromium's wedged renderer
// once). A missing chromium or wasm build is an error that says what to
// run: tests fail on it, never skip.
package browsertest
