//go:build !js

package sim_test

import (
	"flag"
	"fmt"
	"net/http"

	"github.com/duplexscope/duplexscope/sim"
)

// ExampleNew mounts the simulator the way `duplexscope serve` does.
func ExampleNew() {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	opts := sim.RegisterFlags(fs)
	_ = fs.Parse([]string{"--sim-profile", "personaplex", "--sim-fault", "no_request_metrics"})
	s, err := sim.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	mux := http.NewServeMux()
	for _, p := range sim.Routes() {
		mux.Handle(p, s)
	}
	fmt.Println(sim.Routes(), opts.Profile, opts.Fault)
	// Output: [/v1/realtime /sim/] personaplex no_request_metrics
}
