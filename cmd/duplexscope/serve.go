//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/app"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/pg"
	"github.com/duplexscope/duplexscope/server/archive/sqlite"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/session/probe/clips"
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
                         (default $DUPLEXSCOPE_WRITE_TOKEN); people sign in at /signin to save from the page
  --proxy-allow LIST     websocket proxy targets, comma-separated host or host:port (opt-in:
                         without it /proxy reaches only this server's simulator; loopback
                         services only when listed as localhost[:PORT] or 127.0.0.1[:PORT])
  --public-host LIST     host names (NAME or NAME:PORT) the server answers to besides loopback,
                         localhost and its own address; any other Host header gets 421
  --allow-origin LIST    foreign page origins (https://ci.example) allowed to write and use
                         the proxy; other pages' writes get 403
  --public               listen on a non-loopback address without a write token (an open
                         archive: anyone who reaches it may upload; deletes stay loopback-only)
  --attachment-quota-count N     attachments per report (default 1024; -1 = unlimited)
  --attachment-quota-report SIZE attachment bytes per report (default 1GiB; -1 = unlimited)
  --attachment-quota-total SIZE  attachment bytes of the whole archive (default 16GiB; -1 = unlimited)
  --upload-rate N        uploads per second per client address (default 20; -1 = unlimited)
  --body-grace D, --body-min-rate B/s  a request body must arrive within D + size/B
                         (default 30s, 4096 B/s); slower bodies are cut (slowloris)
  --log text|json        log format on stderr (default text)
  --sim-profile NAME     simulator profile (per session: sim_profile query parameter)
  --sim-fault LIST       simulator fault modes (sim_fault)
  --sim-event-names current|legacy  (sim_event_names)
  --sim-scenario FILE    simulator scenario JSON
  --sim-seed N, --sim-rtf X, --sim-behavior LIST
  --sim-max-sessions N   simulator sessions open at once (default 256; more get HTTP 503)

Examples:
  duplexscope serve
  duplexscope serve --addr 0.0.0.0:8080 --write-token "$(openssl rand -hex 16)"
  duplexscope serve --db postgres://duplexscope@db.internal/duplexscope --proxy-allow gpu-box:8099`

type serveOptions struct {
	Addr, Data, DB, WriteToken, LogFormat string
	ProxyAllow                            []string
	PublicHosts, AllowOrigins             []string
	UploadRate                            float64
	Public                                bool
	Quota                                 archive.Quota
	Sim                                   *sim.Options
	BodyGrace                             time.Duration
	BodyMinRate                           int64
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", serveUsage, stderr)
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
	fs.BoolVar(&o.Public, "public", false, "serve a non-loopback address without a write token")
	fs.IntVar(&o.Quota.PerReport, "attachment-quota-count", server.DefaultAttachmentQuota.PerReport, "attachments per report (-1 = unlimited)")
	quotaReport := fs.String("attachment-quota-report", "1GiB", "attachment bytes per report (-1 = unlimited)")
	quotaTotal := fs.String("attachment-quota-total", "16GiB", "attachment bytes of the archive (-1 = unlimited)")
	fs.DurationVar(&o.BodyGrace, "body-grace", server.DefaultBodyGrace, "request bodies: time allowed before the rate counts")
	fs.Int64Var(&o.BodyMinRate, "body-min-rate", server.DefaultBodyMinRate, "request bodies: slowest accepted upload, bytes per second (slower ones are cut)")
	o.Sim = sim.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return &exitError{2, fmt.Errorf("serve: unexpected arguments %q", fs.Args())}
	}
	o.ProxyAllow, o.PublicHosts, o.AllowOrigins = splitList(*proxyAllow), splitList(*publicHost), splitList(*allowOrigin)
	for _, a := range o.AllowOrigins {
		if u, err := url.Parse(a); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimRight(u.Path, "/") != "" {
			return &exitError{2, fmt.Errorf("serve: --allow-origin %q: want an origin like https://ci.example", a)}
		}
	}
	for _, q := range []struct {
		flag, v string
		dst     *int64
	}{{"--attachment-quota-report", *quotaReport, &o.Quota.PerReportBytes}, {"--attachment-quota-total", *quotaTotal, &o.Quota.TotalBytes}} {
		n, err := parseSize(q.v)
		if err != nil {
			return &exitError{2, fmt.Errorf("serve: %s: %w", q.flag, err)}
		}
		*q.dst = n
	}
	if o.Quota.PerReport == 0 {
		return &exitError{2, errors.New("serve: --attachment-quota-count must be positive or -1 (unlimited)")}
	}
	if err := checkListen(o); err != nil {
		return &exitError{2, err}
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

	page := app.Handler(&app.HandlerOptions{
		Assets:  web.FS,
		Version: versionOrEmpty(),
	})
	srv, err := server.New(server.Config{
		Store:        store,
		App:          page,
		Web:          web.FS,
		Sim:          simSrv,
		Datasets:     dataset.Bundled(),
		ProbeClip:    clips.StandardClip,
		ProbeKinds:   probe.Kinds,
		WriteToken:   o.WriteToken,
		ProxyAllow:   o.ProxyAllow,
		PublicHosts:  o.PublicHosts,
		AllowOrigins: o.AllowOrigins,
		Logger:       log,
		UploadRate:   o.UploadRate,
		Version:      version,

		AttachmentQuota: o.Quota,
	})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if err := checkBound(o, ln.Addr()); err != nil {
		ln.Close()
		return &exitError{2, err}
	}
	if o.WriteToken == "" && o.Public {
		const warn = "PUBLIC ARCHIVE WITHOUT A WRITE TOKEN: anyone who can reach %s may upload reports and attachments and list the archive (deletes stay loopback-only). Add --write-token to guard writes."
		fmt.Fprintf(stderr, "duplexscope: WARNING: "+warn+"\n", ln.Addr())
		log.Warn(fmt.Sprintf(warn, ln.Addr()))
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(h, slog.LevelWarn)}
	// Slow bodies are cut per request (server.BodyDeadlines), not by
	// ReadTimeout, which would also end hijacked websocket sessions.
	hs.Handler = server.BodyDeadlines(srv, o.BodyGrace, o.BodyMinRate)
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

// notLoopback is the refusal of an open archive on a reachable address.
func notLoopback(addr string) error {
	return fmt.Errorf("serve: refusing to listen on %s: it is not a loopback address and there is no write token, so anyone who can reach it could upload to this archive. Add --write-token T (recommended: people then sign in at /signin), or --public to serve an open archive on purpose", addr)
}

// checkListen refuses, before binding, a listen address that is plainly
// not loopback (":8080", "0.0.0.0:…", a public IP) for an open archive.
func checkListen(o serveOptions) error {
	if o.WriteToken != "" || o.Public {
		return nil
	}
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return fmt.Errorf("serve: --addr %q: %w", o.Addr, err)
	}
	if host == "" {
		return notLoopback(o.Addr)
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
		return notLoopback(o.Addr)
	}
	return nil
}

// checkBound checks the address actually bound (a host name may resolve to
// anything).
func checkBound(o serveOptions, a net.Addr) error {
	if o.WriteToken != "" || o.Public {
		return nil
	}
	if ta, ok := a.(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
		return notLoopback(o.Addr)
	}
	return nil
}

// parseSize reads a byte size: "1048576", "512MiB", "16GiB", "1.5GB"
// (binary units; KB/MB/GB mean the same as KiB/MiB/GiB); "-1" is no bound.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "-1" {
		return -1, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40}, {"B", 1}} {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("want a positive size such as 512MiB or 16GiB, or -1 for no bound; got %q", s)
	}
	return int64(f * float64(mult)), nil
}
