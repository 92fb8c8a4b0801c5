package turntaking_test

import (
	"fmt"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
)

func ExampleScore() {
	model := []turntaking.Speech{
		{Interval: turntaking.Interval{StartMs: 5200, EndMs: 5500}, Words: 1}, // "mm-hm": a backchannel
		{Interval: turntaking.Interval{StartMs: 5800, EndMs: 9000}, Words: 14},
	}
	cases := []turntaking.Case{{ID: "turn-1", Category: turntaking.TurnEnd, AnchorMs: 5000}}
	_, cards := turntaking.Score(cases, model)
	c := cards[0]
	fmt.Printf("%s TOR %d/%d latency %.0f ms over %d\n", c.Category, c.Takeovers, c.Cases, *c.LatencyMeanMs, c.LatencyCount)
	// Output: turn_end TOR 1/1 latency 800 ms over 1
}
