//go:build e2e

package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTimedList: the Makefile's E2E_TIMED (the tests make e2e-timed runs
// one at a time, with everything else niced beside them) names exactly this
// package's tests that do not call t.Parallel. A timed test missing from it
// would run at nice 19 among other browsers, a listed parallel one would
// compete with the timed tests for the machine.
func TestTimedList(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^E2E_TIMED := \^\(([A-Za-z0-9|]+)\)\$\$$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no line `E2E_TIMED := ^(TestA|TestB)$$`")
	}
	listed := strings.Split(string(m[1]), "|")
	slices.Sort(listed)

	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var serial []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			if !callsParallel(fn.Body) {
				serial = append(serial, fn.Name.Name)
			}
		}
	}
	slices.Sort(serial)
	if !slices.Equal(listed, serial) {
		t.Errorf("Makefile E2E_TIMED lists %v; the tests without t.Parallel() are %v", listed, serial)
	}
}

// callsParallel reports whether a test's own statements (not a subtest's
// closure) call t.Parallel().
func callsParallel(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" {
			return true
		}
	}
	return false
}
