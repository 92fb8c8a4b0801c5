//go:build !js

package axe

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

//go:embed testdata/axe.min.js
var source string

// Tags are the rule tags the check runs: WCAG 2.0 and 2.1, levels A and AA.
var Tags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

// Violation is one failed axe rule with the nodes that fail it.
type Violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []Node `json:"nodes"`
}

// Node is one failing element: its CSS target path (nested for frames and
// shadow roots), its HTML and axe's summary of what to fix.
type Node struct {
	Target         []json.RawMessage `json:"target"`
	HTML           string            `json:"html"`
	FailureSummary string            `json:"failureSummary"`
}

// Run injects axe-core into the page of ctx (once per document; DevTools
// evaluation is not subject to the page's CSP) and returns the WCAG A/AA
// violations of the whole document as it is now.
func Run(ctx context.Context) ([]Violation, error) {
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === "object"`))
	if err != nil {
		return nil, fmt.Errorf("axe: probing the page: %w", err)
	}
	if !loaded {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](source+"\n;undefined")); err != nil {
			return nil, fmt.Errorf("axe: injecting axe-core: %w", err)
		}
	}
	tags, _ := json.Marshal(Tags)
	// JSON.stringify keeps only the fields we read (axe's result objects
	// are large and carry DOM references).
	expr := `axe.run(document, {runOnly: {type: "tag", values: ` + string(tags) + `}, resultTypes: ["violations"]})
		.then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.map(n => ({target: n.target, html: n.html, failureSummary: n.failureSummary}))}))))`
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("axe: running the rules: %w", err)
	}
	var out []Violation
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("axe: reading the results: %w", err)
	}
	return out, nil
}

// Check runs axe on the page of ctx and fails t with one line per
// violation (rule id, impact, help) and per failing node (target, HTML).
// page names the page in the messages. It returns the violations so a
// caller can log counts.
func Check(t testing.TB, ctx context.Context, page string) []Violation {
	t.Helper()
	vs, err := Run(ctx)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if len(vs) > 0 {
		t.Errorf("%s: %d WCAG A/AA violations (axe-core, tags %s):\n%s", page, len(vs), strings.Join(Tags, ","), Format(vs))
	} else {
		t.Logf("%s: no WCAG A/AA violations (axe-core, tags %s)", page, strings.Join(Tags, ","))
	}
	return vs
}

// Format lists violations, one rule per paragraph with its failing nodes.
func Format(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  [%s] %s: %s (%d nodes)\n", v.Impact, v.ID, v.Help, len(v.Nodes))
		for _, n := range v.Nodes {
			var target []string
			for _, t := range n.Target {
				target = append(target, string(t))
			}
			html := n.HTML
			if len(html) > 200 {
				html = html[:200] + "…"
			}
			fmt.Fprintf(&b, "      target %s  %s\n", strings.Join(target, " > "), html)
			if n.FailureSummary != "" {
				fmt.Fprintf(&b, "        %s\n", strings.ReplaceAll(n.FailureSummary, "\n", " / "))
			}
		}
	}
	return b.String()
}
