//go:build !js

package sim

import (
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/leakcheck"
)

// TestMain fails the package when goroutines outlive the tests (waiting
// up to 10 s for closing connections to wind down).
func TestMain(m *testing.M) { leakcheck.Main(m, 10*time.Second) }
