package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/duplexscope/duplexscope/"

// rule says which imports a package directory may use. Standard-library
// imports (no dot in the first path element) are always allowed.
type rule struct {
	dir   string
	allow []string // module-relative dirs or external prefixes
}

var rules = []rule{
	{"trace", nil},
	{"protocol", nil},
	{"audio", nil},
	{"metrics", []string{"trace", "protocol"}},
	{"turntaking", []string{"trace", "protocol", "metrics"}},
	// The live views' tracker runs in the session worker too: the session
	// and the pure metrics, never go-app or the charts.
	{"session/tracker", []string{"trace", "protocol", "audio", "metrics", "session"}},
	// session may use the pure metrics (itself only trace and protocol),
	// so the pacing lag's percentiles are the one definition.
	{"session", []string{"trace", "protocol", "audio", "metrics", "github.com/coder/websocket"}},
	{"dataset", []string{"audio"}},
	{"chart", []string{"metrics", "trace", "report", "loadcurve", "github.com/go-echarts/go-echarts/v2"}},
	{"loadcurve", []string{"metrics", "trace", "protocol"}},
	{"report", []string{"metrics", "trace", "protocol", "turntaking", "loadcurve"}},
}

// goApp may only be imported by app/, cmd/wasm and the go-app hello-world
// baseline the benchmark measures the page's size against.
const goApp = "github.com/maxence-charriere/go-app"

func TestImports(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if strings.HasPrefix(imp, goApp) && rel != "app" && !strings.HasPrefix(rel, "app/") && rel != "cmd/wasm" && rel != "bench/hello" && !strings.HasPrefix(rel, "e2e") {
				t.Errorf("%s imports go-app; only app/ may", path)
			}
			r, ok := ruleFor(rel)
			if !ok || isStd(imp) {
				continue
			}
			if !allowed(r, imp) {
				t.Errorf("%s: package %s may not import %s (docs/style.md#layout)", path, rel, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ruleFor(dir string) (rule, bool) {
	for _, r := range rules {
		if dir == r.dir || strings.HasPrefix(dir, r.dir+"/") {
			return r, true
		}
	}
	return rule{}, false
}

func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

func allowed(r rule, imp string) bool {
	if strings.HasPrefix(imp, module) {
		rel := strings.TrimPrefix(imp, module)
		if rel == r.dir || strings.HasPrefix(rel, r.dir+"/") {
			return true
		}
		for _, a := range r.allow {
			if rel == a || strings.HasPrefix(rel, a+"/") {
				return true
			}
		}
		return false
	}
	for _, a := range r.allow {
		if strings.HasPrefix(imp, a) {
			return true
		}
	}
	return false
}

func TestRulesSeeTree(t *testing.T) {
	// Guards the walker itself: the metrics directory must exist, or the
	// test above would pass vacuously.
	if _, err := os.Stat(filepath.Join("..", "..", "metrics")); err != nil {
		t.Fatalf("layout test cannot see the tree: %v", err)
	}
}
