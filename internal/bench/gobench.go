//go:build !js

package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// BenchLine is one parsed `go test -bench` result line.
type BenchLine struct {
	Name    string             // without the -GOMAXPROCS suffix
	N       int64              // iterations
	Metrics map[string]float64 // unit → value ("ns/op", "B/op", "allocs/op", "cpu-ns/op", …)
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// ParseBench parses `go test -bench` output; lines that are not results
// are ignored.
func ParseBench(out string) []BenchLine {
	var res []BenchLine
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		bl := BenchLine{Name: procSuffix.ReplaceAllString(f[0], ""), N: n, Metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			bl.Metrics[f[i+1]] = v
		}
		res = append(res, bl)
	}
	return res
}

// runGoBench runs `go test -run ^$ -bench pattern -benchmem -benchtime t
// -count 1 pkg` in root and parses the result.
func runGoBench(ctx context.Context, root, pkg, pattern, benchtime string) ([]BenchLine, string, error) {
	args := []string{"test", "-run", "^$", "-bench", pattern, "-benchmem", "-benchtime", benchtime, "-count", "1", "-timeout", "20m", pkg}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, string(out), fmt.Errorf("bench: go %s: %w\n%s", strings.Join(args, " "), err, tail(string(out), 2000))
	}
	return ParseBench(string(out)), string(out), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// find returns the line named name (nil if absent).
func find(lines []BenchLine, name string) *BenchLine {
	for i := range lines {
		if lines[i].Name == name {
			return &lines[i]
		}
	}
	return nil
}

func (b *BenchLine) get(unit string) float64 {
	if b == nil {
		return nan()
	}
	v, ok := b.Metrics[unit]
	if !ok {
		return nan()
	}
	return v
}
