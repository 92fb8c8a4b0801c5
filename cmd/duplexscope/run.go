package main

import (
	"context"
	"errors"
	"io"
)

const runUsage = `duplexscope run (not yet implemented)`

func runCmd(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("run: not implemented yet")
}
