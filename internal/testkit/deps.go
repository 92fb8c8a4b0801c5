package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Deps returns the packages `go list -deps .` lists for the test's package,
// with env (KEY=VALUE, e.g. GOOS=js) added to the environment. It fails the
// test unless the list holds mustList, so a broken listing cannot pass a
// check that some package is absent.
func Deps(t testing.TB, mustList string, env ...string) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps[mustList] {
		t.Fatalf("go list -deps does not list %s; got %d packages", mustList, len(deps))
	}
	return deps
}
