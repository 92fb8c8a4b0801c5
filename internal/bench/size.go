//go:build !js

package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/duplexscope/duplexscope/web"
)

// Sizes are a wasm build's file sizes in bytes.
type Sizes struct{ Raw, Gzip, Brotli int64 }

func fsSizes(fsys fs.FS, wasm string) (Sizes, error) {
	var s Sizes
	for _, f := range []struct {
		name string
		dst  *int64
	}{{wasm, &s.Raw}, {wasm + ".gz", &s.Gzip}, {wasm + ".br", &s.Brotli}} {
		st, err := fs.Stat(fsys, f.name)
		if err != nil {
			return s, fmt.Errorf("bench: %s: %w (make wasm writes %s, .gz and .br)", f.name, err, wasm)
		}
		*f.dst = st.Size()
	}
	return s, nil
}

// AppSizes are web/app.wasm{,.gz,.br} as embedded in the server.
func AppSizes() (Sizes, error) { return fsSizes(web.FS, "app.wasm") }

// WorkerSizes are web/session-worker.wasm{,.gz,.br}: the page's session
// worker (cmd/worker).
func WorkerSizes() (Sizes, error) { return fsSizes(web.FS, "session-worker.wasm") }

// hello is the built go-app hello world: its wasm directory and a running
// server for it.
type hello struct {
	Dir   string
	Sizes Sizes
	URL   string
	close func()
}

// buildBaselines builds and starts the hello world and the start-up floor
// (the hello world built with -tags chartfloor: plus echarts and one
// chart, loaded as the page loads).
func buildBaselines(ctx context.Context, root string) (hw, floor *hello, err error) {
	if hw, err = startHello(ctx, root, ""); err != nil {
		return nil, nil, err
	}
	if floor, err = startHello(ctx, root, floorTag); err != nil {
		hw.close()
		return nil, nil, err
	}
	return hw, floor, nil
}

// floorTag is the build tag of internal/bench/hello's start-up floor.
const floorTag = "chartfloor"

// startHello builds internal/bench/hello with tags (helloFiles) and starts
// its server.
func startHello(ctx context.Context, root, tags string) (*hello, error) {
	h, bin, err := helloFiles(ctx, root, tags)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-dir", h.Dir, "-addr", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		h.close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		h.close()
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		h.close()
		return nil, fmt.Errorf("bench: hello server did not start: %w", err)
	}
	h.URL = strings.TrimSpace(line)
	rm := h.close
	h.close = func() { cmd.Process.Kill(); cmd.Wait(); rm() }
	return h, nil
}

// Prepare builds what the browser group builds (the hello world's and the
// start-up floor's wasm, compressed, and their servers) and removes it again: the Go build cache and
// compress's cache keep the work, so a run started afterwards on the same
// tree measures instead of compiling. `make test` runs it beside the e2e
// page tests (scripts/test.sh), awaited before the quick bench.
func Prepare(ctx context.Context, root string) error {
	for _, tags := range []string{"", floorTag} {
		h, _, err := helloFiles(ctx, root, tags)
		if err != nil {
			return err
		}
		h.close()
	}
	return nil
}

// helloFiles builds internal/bench/hello (with build tags tags, "" for
// none) the way `make wasm` builds the page (GOOS=js GOARCH=wasm -trimpath
// -ldflags "-s -w", then go run ./internal/compress) into a temporary
// directory, and its native server; it returns them (h.close removes them)
// and the server binary. The floor's directory also gets the page's
// echarts.min.js and boot.js.
func helloFiles(ctx context.Context, root, tags string) (*hello, string, error) {
	dir, err := os.MkdirTemp("", "bench-hello-")
	if err != nil {
		return nil, "", err
	}
	h := &hello{Dir: dir, close: func() { os.RemoveAll(dir) }}
	run := func(env []string, args ...string) error {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("bench: %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	build := func(env []string, args ...string) error {
		return run(env, append(append([]string{"go", "build", "-tags", tags}, args...), "./internal/bench/hello")...)
	}
	if tags == floorTag {
		for _, name := range []string{"echarts.min.js", "boot.js"} {
			b, err := fs.ReadFile(web.FS, name)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
			}
			if err != nil {
				h.close()
				return nil, "", fmt.Errorf("bench: the floor's %s: %w", name, err)
			}
		}
	}
	wasm := filepath.Join(dir, "app.wasm")
	if err := build([]string{"GOOS=js", "GOARCH=wasm"}, "-trimpath", "-ldflags", "-s -w", "-o", wasm); err != nil {
		h.close()
		return nil, "", err
	}
	// compress caches by content: an unchanged hello world costs no brotli.
	if err := run(nil, "go", "run", "./internal/compress", wasm); err != nil {
		h.close()
		return nil, "", err
	}
	if h.Sizes, err = fsSizes(os.DirFS(dir), "app.wasm"); err != nil {
		h.close()
		return nil, "", err
	}
	bin := filepath.Join(dir, "hello-server")
	if err := build(nil, "-o", bin); err != nil {
		h.close()
		return nil, "", err
	}
	return h, bin, nil
}

// encodingCheck fetches base/web/app.wasm with Accept-Encoding: br, gzip
// and returns the Content-Encoding and body length the server sent.
func encodingCheck(ctx context.Context, base string) (enc string, n int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/web/app.wasm", nil)
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Accept-Encoding", "br, gzip")
	transport := &http.Transport{DisableCompression: true}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	n, err = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", n, fmt.Errorf("bench: GET /web/app.wasm: %s", resp.Status)
	}
	return resp.Header.Get("Content-Encoding"), n, err
}

func kib(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }
func mb(n int64) string  { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
