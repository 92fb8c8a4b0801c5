//go:build !js

package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/sim"
)

// TestSimBehaviorsMatchSimulator: the connect panel offers exactly the
// simulator's behaviours (the page does not import sim, so the list is
// kept here and checked against it).
func TestSimBehaviorsMatchSimulator(t *testing.T) {
	t.Parallel()
	var want []string
	for _, b := range sim.Behaviors() {
		want = append(want, b[0])
	}
	if diff := cmp.Diff(want, SimBehaviors); diff != "" {
		t.Errorf("SimBehaviors (-sim +app)\n%s", diff)
	}
}

// TestSimProfilesMatchSimulator: profile= accepts exactly the simulator's
// profiles.
func TestSimProfilesMatchSimulator(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(sim.Profiles(), SimProfiles); diff != "" {
		t.Errorf("SimProfiles (-sim +app)\n%s", diff)
	}
}
