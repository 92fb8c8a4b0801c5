package session

import (
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/leakcheck"
)

// TestMain fails the package when goroutines outlive the tests (sessions must
// stop their reader, processor and dispatcher goroutines on Close/failure).
func TestMain(m *testing.M) { leakcheck.Main(m, 5*time.Second) }
