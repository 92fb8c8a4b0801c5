//go:build !js

package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBodyDeadlines: a body slower than the minimum rate is cut after the
// grace; one at a slow but sufficient rate is read whole.
func TestBodyDeadlines(t *testing.T) {
	got := make(chan string, 4)
	h := BodyDeadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		got <- fmt.Sprintf("%d %v", len(b), err != nil)
	}), 300*time.Millisecond, 1000)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	defer hs.Close()

	tests := []struct {
		name    string
		size    int
		perByte time.Duration // client's pause between chunks of 100 bytes
		wantErr bool
	}{
		{"fast", 5000, 0, false},
		{"slow link above the rate", 1000, 20 * time.Millisecond, false}, // 5 000 B/s ≥ 1 000 B/s
		{"trickle", 1000, 250 * time.Millisecond, true},                  // 400 B/s: cut
	}
	for _, tc := range tests {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", tc.size)
		body := bytes.Repeat([]byte("a"), tc.size)
		for off := 0; off < len(body); off += 100 {
			if _, err := c.Write(body[off:min(off+100, len(body))]); err != nil {
				break // the server cut us
			}
			if tc.perByte > 0 {
				time.Sleep(tc.perByte) // the client's pace is the input under test
			}
			if tc.wantErr && off > 500 {
				break
			}
		}
		res := <-got
		if strings.HasSuffix(res, "true") != tc.wantErr {
			t.Errorf("%s: read %s, want error=%v", tc.name, res, tc.wantErr)
		}
		c.Close()
	}
}
