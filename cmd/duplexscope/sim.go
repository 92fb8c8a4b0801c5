package main

import (
	"context"
	"errors"
	"io"
)

const simUsage = `duplexscope sim (not yet implemented)`

func simCmd(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("sim: not implemented yet")
}
