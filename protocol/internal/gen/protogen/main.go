// Command protogen rewrites protocol/zz_events.go from protocol/events.txt
// (see package gen). `go generate ./protocol/` runs it in protocol/.
package main

import (
	"fmt"
	"os"

	"github.com/duplexscope/duplexscope/protocol/internal/gen"
)

func main() {
	src, err := gen.Generate(".")
	if err == nil {
		err = os.WriteFile(gen.Output, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}
