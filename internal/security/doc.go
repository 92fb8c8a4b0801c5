// Package security is duplexscope's attack suite (`make security`): every
// test starts `duplexscope serve` as a subprocess on loopback, attacks it the
// way a hostile link or client would, and checks the attack is refused, with
// the server's RSS and CPU sampled from /proc during the bombs.
//
// The tests carry the `security` build tag so `go test ./...` skips them; the
// Makefile runs them as their own step, without -race (RSS bounds would be
// meaningless under the race detector's shadow memory).
package security
