package main

import (
	"context"
	"errors"
	"io"
)

const scoreUsage = `duplexscope score (not yet implemented)`

func scoreCmd(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("score: not implemented yet")
}
