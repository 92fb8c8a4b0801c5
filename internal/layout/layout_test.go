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
	// The specific metrics/ subpackages first: ruleFor takes the first match.
	{"metrics/turntaking", []string{"trace", "protocol", "metrics"}},
	{"metrics/loadcurve", []string{"metrics", "trace", "protocol"}},
	{"metrics", []string{"trace", "protocol"}},
	// Probes mix bundled clips into the input and read wire logs.
	{"session/probe/clips", []string{"audio", "dataset", "session/probe"}},
	{"session/probe", []string{"trace", "protocol", "audio"}},
	// The live views' tracker runs in the session worker too: the session
	// and the pure metrics, never go-app or the charts.
	{"session/tracker", []string{"trace", "protocol", "audio", "metrics", "session"}},
	// session may use the pure metrics (itself only trace and protocol),
	// so the pacing lag's percentiles are the one definition.
	{"session", []string{"trace", "protocol", "audio", "metrics", "github.com/coder/websocket"}},
	{"dataset", []string{"audio"}},
	{"chart", []string{"metrics", "trace", "report", "github.com/go-echarts/go-echarts/v2"}},
	{"report", []string{"metrics", "trace", "protocol"}},
	// The one archive client is linked into the page: the standard library
	// only (what app.wasm already links).
	{"server/apiclient", nil},
}

// goApp may only be imported by app/, cmd/wasm and the go-app hello-world
// baseline the benchmark measures the page's size against.
const goApp = "github.com/maxence-charriere/go-app"

// testkit is the tests' shared helpers: test files only may import it.
const testkit = module + "internal/testkit"

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
			if strings.HasPrefix(imp, goApp) && rel != "app" && !strings.HasPrefix(rel, "app/") && rel != "cmd/wasm" && rel != "internal/bench/hello" && !strings.HasPrefix(rel, "e2e") {
				t.Errorf("%s imports go-app; only app/ may", path)
			}
			if imp == testkit {
				t.Errorf("%s imports %s, which is for tests only", path, imp)
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

// maxTopLevel bounds the top-level folders that hold Go code (docs/ and
// scripts/ hold none): the card's app, web, server and metrics stay easy to
// find (docs/style.md#layout).
const maxTopLevel = 15

// TestTopLevel keeps the top level small and documented: at most
// maxTopLevel folders hold Go code, and the README's "What is where" table
// names each of them.
func TestTopLevel(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || !holdsGo(filepath.Join(root, e.Name())) {
			continue
		}
		dirs = append(dirs, e.Name())
		if !strings.Contains(string(readme), "| `"+e.Name()+"/") && !strings.Contains(string(readme), ", `"+e.Name()+"/") {
			t.Errorf("top-level folder %s/ is not in the README's What is where table", e.Name())
		}
	}
	if len(dirs) > maxTopLevel {
		t.Errorf("%d top-level folders hold Go code, at most %d: %v", len(dirs), maxTopLevel, dirs)
	}
	if len(dirs) < 4 {
		t.Fatalf("layout test sees only %v: wrong root?", dirs)
	}
}

// holdsGo reports whether dir or a folder below it has a .go file.
func holdsGo(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
