// Package testkit holds the helpers several packages' tests share: fetching
// JSON, serving a handler until the test ends, an archive gateway that
// loses its answers, `go list -deps`, and checking what a text mentions.
// It is for tests only: no non-test file imports it (a layout test checks),
// and it imports nothing of this module, so any package's tests can use it.
package testkit
