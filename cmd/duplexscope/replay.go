package main

import (
	"context"
	"errors"
	"io"
)

const replayUsage = `duplexscope replay (not yet implemented)`

func replayCmd(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("replay: not implemented yet")
}
