//go:build !js

package browsertest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/duplexscope/duplexscope/app"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/session/probe/clips"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/web"
)

// Stack is the real server (page, archive in memory, simulator) on
// 127.0.0.1:0, mounted as `duplexscope serve` mounts it.
type Stack struct {
	URL    string
	Server *server.Server
	Sim    *sim.Server
	Store  *archive.Memory
	http   *httptest.Server
}

// NewStack starts a Stack. edit, when not nil, changes the server's config
// (a write token, the proxy allow-list, the upload rate); wrap, when not
// nil, puts a handler in front of the server (fault injection).
func NewStack(edit func(*server.Config), wrap func(http.Handler) http.Handler) (*Stack, error) {
	simSrv, err := sim.New(nil)
	if err != nil {
		return nil, err
	}
	st := &Stack{Sim: simSrv, Store: archive.NewMemory()}
	cfg := server.Config{
		Store:      st.Store,
		App:        app.Handler(&app.HandlerOptions{Assets: web.FS}),
		Web:        web.FS,
		Sim:        simSrv,
		Datasets:   dataset.Bundled(),
		ProbeClip:  clips.StandardClip,
		ProbeKinds: probe.Kinds,
	}
	if edit != nil {
		edit(&cfg)
	}
	if st.Server, err = server.New(cfg); err != nil {
		simSrv.Close()
		return nil, err
	}
	var h http.Handler = st.Server
	if wrap != nil {
		h = wrap(h)
	}
	st.http = httptest.NewServer(h)
	st.URL = st.http.URL
	return st, nil
}

// Close stops the listener, the server and the simulator.
func (s *Stack) Close() {
	s.http.Close()
	s.Server.Close()
	s.Sim.Close()
}

// StartStack is NewStack for a test: it fails t on an error and closes the
// stack when t ends.
func StartStack(t testing.TB, edit func(*server.Config), wrap func(http.Handler) http.Handler) *Stack {
	t.Helper()
	st, err := NewStack(edit, wrap)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}
