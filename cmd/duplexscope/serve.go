package main

import (
	"context"
	"errors"
	"io"
)

const serveUsage = `duplexscope serve (not yet implemented)`

func serveCmd(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("serve: not implemented yet")
}
