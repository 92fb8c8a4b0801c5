// Package coderws is the coder/websocket client API that session's "coder"
// transport uses, without net/http in wasm.
//
// Natively it is github.com/coder/websocket itself (type aliases and a thin
// Dial). Under GOOS=js it is a trimmed copy of that module's browser
// implementation (v1.8.15 ws_js.go and internal/wsjs, ISC licence, see
// LICENSE.txt): the same code on the same paths, minus the parts session
// never calls (Writer, CloseRead, Accept, subprotocols) and minus the
// *http.Response in Dial's result. That one type is why upstream imports
// net/http, whose DefaultTransport keeps crypto/tls, x509 and the FIPS
// crypto in any wasm that links it: about 375 KB of brotli in the session
// worker, which links no other HTTP code.
package coderws
