// Package gen writes package protocol's per-event boilerplate from one
// table, protocol/events.txt: the JSON methods that keep unknown keys, the
// keep methods Decode fills events through, ResponseIdentity, the plain
// required-field Validate methods and the registration of wire names.
// Rules that are more than "this field is required" stay hand-written
// beside the types (the table says "own").
//
// The generator reads the struct definitions of the package's hand-written
// files (go/parser), so a required key is spelled as on the wire and its
// check follows its Go type: a string must not be "", a pointer not nil.
// protocol's TestGeneratedIsCurrent compares Generate's output with the
// committed file, so a stale file fails the tests; `go generate ./protocol/`
// (command protogen) rewrites it.
//
// # Wasm
//
// Stdlib-only; protocol's test runs it under GOOS=js GOARCH=wasm too.
package gen
