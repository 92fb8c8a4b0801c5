//go:build !js

package bench

import "context"

func SpeedGroup(ctx context.Context, c *Config, sh *Shared) *Section { return &Section{Title: "speed"} }
