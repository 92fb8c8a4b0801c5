// Package leakcheck is the TestMain of packages whose tests must not leave
// goroutines behind (sessions, the simulator): it fails the test binary
// when goroutines outlive the tests.
package leakcheck
