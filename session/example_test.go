package session_test

import (
	"fmt"
	"time"

	"github.com/duplexscope/duplexscope/session"
)

// The final-commit tail rule drops the last sample of input that is a whole
// number of model units (1000 ms = 32 000 bytes here).
func ExampleApplyTailRule() {
	fmt.Println(len(session.ApplyTailRule(make([]byte, 64000), 1000)))
	fmt.Println(len(session.ApplyTailRule(make([]byte, 64100), 1000)))
	// Output:
	// 63998
	// 64100
}

// Frame k of 200 ms is due at start + k·200 ms however late earlier frames were.
func ExamplePacer_Due() {
	p := session.Pacer{Start: 5 * time.Second, Rate: 16000}
	for _, k := range []int{0, 1, 10000} {
		fmt.Println(p.Due(k * 6400))
	}
	// Output:
	// 5s
	// 5.2s
	// 33m25s
}
