//go:build !js

// Package pgtest starts a throwaway PostgreSQL server for tests and
// benchmarks, from the Debian postgresql 15 binaries. It fails the test (it
// never skips) when the binaries are missing.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// BinDir holds initdb, pg_ctl and postgres.
var BinDir = "/usr/lib/postgresql/15/bin"

// Server is a running throwaway server.
type Server struct {
	Dir  string
	Port int
	n    atomic.Int64
}

// Start initialises and starts a server in a temporary directory and stops
// and removes it when tb ends. As root it runs the binaries as the
// postgres user (initdb refuses root).
func Start(tb testing.TB) *Server {
	tb.Helper()
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(BinDir, b)); err != nil {
			tb.Fatalf("PostgreSQL binaries missing (%v). Install them with `scripts/deps.sh test` or `apt-get install -y postgresql-15`", err)
		}
	}
	dir, err := os.MkdirTemp("", "duplexscope-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	asUser := ""
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			tb.Fatalf("running as root needs the postgres user (created by the Debian postgresql package): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			tb.Fatal(err)
		}
		asUser = "postgres"
	}
	run := func(args ...string) error {
		var cmd *exec.Cmd
		if asUser != "" {
			quoted := make([]string, len(args))
			for i, a := range args {
				quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
			}
			cmd = exec.Command("su", asUser, "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
		} else {
			cmd = exec.Command(args[0], args[1:]...)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	data := filepath.Join(dir, "data")
	if err := run(filepath.Join(BinDir, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		tb.Fatalf("initdb: %v", err)
	}
	port := freePort(tb)
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, dir)
	if err := run(filepath.Join(BinDir, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		tb.Fatalf("pg_ctl start: %v\n%s", err, log)
	}
	tb.Cleanup(func() {
		if err := run(filepath.Join(BinDir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
			tb.Errorf("pg_ctl stop: %v", err)
		}
		os.RemoveAll(dir)
	})
	return &Server{Dir: dir, Port: port}
}

func freePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// DSN returns the URL of database db.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDatabase creates an empty database and returns its DSN.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("t%d", s.n.Add(1))
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	return s.DSN(name)
}
