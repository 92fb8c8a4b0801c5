//go:build !js

package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/pg"
	"github.com/duplexscope/duplexscope/server/archive/pg/pgtest"
	"github.com/duplexscope/duplexscope/server/archive/sqlite"
)

// BenchmarkArchive measures, on each store, an upload of a 50-response
// report through HTTP on loopback, a list page of 50 from 1 000 reports,
// and the share page of a 500-response report (server render + transfer).
//
//	go test -run XXX -bench Archive ./server/
func BenchmarkArchive(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) archive.Store
	}{
		{"memory", func(b *testing.B) archive.Store { return archive.NewMemory() }},
		{"sqlite", func(b *testing.B) archive.Store {
			s, err := sqlite.Open(context.Background(), b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"postgres", func() func(b *testing.B) archive.Store {
			var srv *pgtest.Server
			return func(b *testing.B) archive.Store {
				if srv == nil {
					srv = pgtest.Start(b)
				}
				s, err := pg.Open(context.Background(), srv.NewDatabase(b))
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
		}()},
	}
	upload := fixture{model: "bench", n: 50, ttfp: 400}.json(b)
	big := fixture{model: "bench-500", n: 500, ttfp: 400}.json(b)
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) { benchStore(b, st.open(b), upload, big) })
	}
}

// BenchmarkSharePageCold renders the share page of a 500-response report
// without the decoded-report cache (a first view), on the in-memory store.
func BenchmarkSharePageCold(b *testing.B) {
	s, err := server.New(server.Config{Store: archive.NewMemory(), UploadRate: -1, CachedReports: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	hs := httptest.NewServer(s)
	defer hs.Close()
	resp, err := hs.Client().Post(hs.URL+"/api/reports", "application/json", bytes.NewReader(fixture{model: "bench-500", n: 500, ttfp: 400}.json(b)))
	if err != nil {
		b.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := string(out[7:39])
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := hs.Client().Get(hs.URL + "/r/" + id)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("share page: %v %v", err, resp)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func benchStore(b *testing.B, store archive.Store, upload, big []byte) {
	{
		s, err := server.New(server.Config{Store: store, UploadRate: -1})
		if err != nil {
			b.Fatal(err)
		}
		hs := httptest.NewServer(s)
		client := hs.Client()
		post := func(b *testing.B, body []byte) string {
			resp, err := client.Post(hs.URL+"/api/reports", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 201 {
				b.Fatalf("upload = %d %s", resp.StatusCode, out)
			}
			return string(out[7:39]) // {"id":"<32>"
		}
		get := func(b *testing.B, path string) {
			resp, err := client.Get(hs.URL + path)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("GET %s = %d", path, resp.StatusCode)
			}
		}
		b.Run("upload-50", func(b *testing.B) {
			b.SetBytes(int64(len(upload)))
			for i := 0; i < b.N; i++ {
				post(b, upload)
			}
		})
		for i := 0; i < 1000; i++ {
			post(b, upload)
		}
		b.Run("list-50-of-1000", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				get(b, "/api/reports?limit=50")
			}
		})
		b.Run("list-model-filter", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				get(b, "/api/reports?model=bench&limit=50&text=BENCH")
			}
		})
		id := post(b, big)
		b.Run("share-page-500", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				get(b, "/r/"+id)
			}
		})
		b.Run("compare-500", func(b *testing.B) {
			id2 := post(b, big)
			for i := 0; i < b.N; i++ {
				get(b, fmt.Sprintf("/compare?ids=%s,%s", id, id2))
			}
		})
		hs.Close()
		s.Close()
		store.Close()
	}
}
