//go:build !js

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/app"
	"github.com/duplexscope/duplexscope/archive"
	"github.com/duplexscope/duplexscope/archive/pg"
	"github.com/duplexscope/duplexscope/archive/sqlite"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/web"
)

const serveUsage = `duplexscope serve [flags]

Serves the dashboard page and its assets, the report archive (/api/…), share
pages (/r/{id}), compare (/compare?ids=A,B), history (/history), a websocket
proxy (/proxy?target=ws://…) and the embedded simulator
(ws://ADDR/v1/realtime?duplex=1&model=NAME). Prints the URL; Ctrl-C shuts down
gracefully (in-flight uploads finish).

Flags:
  --addr HOST:PORT       listen address (default 127.0.0.1:8080)
  --data DIR             data directory of the SQLite archive (default ./data)
  --db postgres://…      use PostgreSQL instead of SQLite (teams sharing one archive)
  --write-token T        require "Authorization: Bearer T" for writes and deletes
                         (default $DUPLEXSCOPE_WRITE_TOKEN); pages get an upload capability
  --proxy-allow LIST     websocket proxy targets, comma-separated host or host:port (opt-in:
                         without it /proxy reaches only this server's simulator; loopback
                         services only when listed as localhost[:PORT] or 127.0.0.1[:PORT])
  --public-host LIST     host names (NAME or NAME:PORT) the server answers to besides loopback,
                         localhost and its own address; any other Host header gets 421
  --allow-origin LIST    foreign page origins (https://ci.example) allowed to write and use
                         the proxy; other pages' writes get 403
  --upload-rate N        uploads per second per client address (default 20; -1 = unlimited)
  --log text|json        log format on stderr (default text)
  --sim-profile NAME     simulator profile (per session: sim_profile query parameter)
  --sim-fault LIST       simulator fault modes (sim_fault)
  --sim-event-names current|legacy  (sim_event_names)
  --sim-scenario FILE    simulator scenario JSON
  --sim-seed N, --sim-rtf X, --sim-behavior LIST

Examples:
  duplexscope serve
  duplexscope serve --addr 0.0.0.0:8080 --write-token "$(openssl rand -hex 16)"
  duplexscope serve --db postgres://duplexscope@db.internal/duplexscope --proxy-allow gpu-box:8099`

type serveOptions struct {
	Addr, Data, DB, WriteToken, LogFormat string
	ProxyAllow                            []string
	PublicHosts, AllowOrigins             []string
	UploadRate                            float64
	Sim                                   *sim.Options
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, serveUsage) }
	var o serveOptions
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&o.Data, "data", "./data", "data directory (SQLite archive)")
	fs.StringVar(&o.DB, "db", "", "postgres://… archive instead of SQLite")
	fs.StringVar(&o.WriteToken, "write-token", os.Getenv("DUPLEXSCOPE_WRITE_TOKEN"), "write token")
	proxyAllow := fs.String("proxy-allow", "", "websocket proxy targets (host or host:port)")
	publicHost := fs.String("public-host", "", "host names the server answers to (NAME[:PORT],…)")
	allowOrigin := fs.String("allow-origin", "", "foreign origins allowed to write (https://HOST,…)")
	fs.Float64Var(&o.UploadRate, "upload-rate", 20, "uploads per second per client (-1 = unlimited)")
	fs.StringVar(&o.LogFormat, "log", "text", "log format: text or json")
	o.Sim = sim.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{2, err}
	}
	if fs.NArg() > 0 {
		return &exitError{2, fmt.Errorf("serve: unexpected arguments %q", fs.Args())}
	}
	for _, a := range strings.Split(*proxyAllow, ",") {
		if a = strings.TrimSpace(a); a != "" {
			o.ProxyAllow = append(o.ProxyAllow, a)
		}
	}
	o.PublicHosts, o.AllowOrigins = splitList(*publicHost), splitList(*allowOrigin)
	for _, a := range o.AllowOrigins {
		if u, err := url.Parse(a); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimRight(u.Path, "/") != "" {
			return &exitError{2, fmt.Errorf("serve: --allow-origin %q: want an origin like https://ci.example", a)}
		}
	}
	if o.DB != "" && !strings.HasPrefix(o.DB, "postgres://") && !strings.HasPrefix(o.DB, "postgresql://") {
		return &exitError{2, fmt.Errorf("serve: --db must be a postgres:// URL, got %q", o.DB)}
	}
	return serve(ctx, o, stdout, stderr)
}

func openStore(ctx context.Context, o serveOptions) (archive.Store, string, error) {
	if o.DB != "" {
		s, err := pg.Open(ctx, o.DB)
		return s, "postgres", err
	}
	s, err := sqlite.Open(ctx, o.Data)
	if err != nil {
		return nil, "", err
	}
	return s, "sqlite " + s.Path, nil
}

// serve runs the server until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, o serveOptions, stdout, stderr io.Writer) error {
	var h slog.Handler = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})
	if o.LogFormat == "json" {
		h = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})
	}
	log := slog.New(h)

	store, desc, err := openStore(ctx, o)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer store.Close()

	simSrv, err := sim.New(o.Sim)
	if err != nil {
		return &exitError{2, fmt.Errorf("serve: simulator: %w", err)}
	}
	defer simSrv.Close()

	var srv *server.Server
	page := app.Handler(&app.HandlerOptions{
		Assets:           web.FS,
		Version:          versionOrEmpty(),
		UploadCapability: func(*http.Request) string { return srv.Capability() },
	})
	srv, err = server.New(server.Config{
		Store:        store,
		App:          page,
		Web:          web.FS,
		Sim:          simSrv,
		Datasets:     dataset.Bundled(),
		ProbeClip:    dataset.ProbeClip,
		ProbeKinds:   session.ProbeKinds,
		WriteToken:   o.WriteToken,
		ProxyAllow:   o.ProxyAllow,
		PublicHosts:  o.PublicHosts,
		AllowOrigins: o.AllowOrigins,
		Logger:       log,
		UploadRate:   o.UploadRate,
		Version:      version,
	})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(h, slog.LevelWarn)}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "duplexscope: serving %s (archive: %s, simulator: ws://%s/v1/realtime?duplex=1)\n", url, desc, ln.Addr())
	log.Info("serving", "url", url, "archive", desc, "write_token", o.WriteToken != "", "proxy_allow", o.ProxyAllow, "public_hosts", o.PublicHosts, "allow_origins", o.AllowOrigins)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	srv.Close()
	if err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, a := range strings.Split(v, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func versionOrEmpty() string {
	if version == "dev" {
		return ""
	}
	return version
}
