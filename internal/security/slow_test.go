//go:build security && linux

package security

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestSlowBodies (item 7): a request body trickled a byte at a time was
// never timed out. With --body-grace 1s --body-min-rate 16384 such a body
// is cut after about a second, a legitimate upload at 64 KiB/s still
// lands, and a simulator websocket idle past the grace survives.
func TestSlowBodies(t *testing.T) {
	const cutWithin = 5 * time.Second // grace 1 s + a few bytes' worth + scheduling
	s := Start(t, "--body-grace", "1s", "--body-min-rate", "16384")

	// Slowloris: 1 MB declared, one byte every 100 ms.
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/reports HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n", s.Addr)
	start := time.Now()
	cut := make(chan time.Duration, 1)
	go func() {
		_, _ = bufio.NewReader(c).ReadString(0) // returns when the server answers or closes
		cut <- time.Since(start)
	}()
	var took time.Duration
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
loop:
	for {
		select {
		case took = <-cut:
			break loop
		case <-tick.C:
			if time.Since(start) > 3*cutWithin {
				took = time.Since(start)
				break loop
			}
			if _, err := c.Write([]byte("{")); err != nil {
				took = <-cut
				break loop
			}
		}
	}
	Attack(t, "7", "slowloris body: 1 MB declared, 10 bytes/s", fmt.Sprintf("connection cut after %v", took.Round(100*time.Millisecond)))
	if took > cutWithin {
		t.Errorf("slow body held the connection %v, want cut within %v", took, cutWithin)
	}

	// A legitimate upload on a slow link: ~400 KB at 64 KiB/s.
	body := rowsReportJSON(t, "slow-link", 2000, 1, "", 0, 0)
	pr := &pacedReader{b: body, rate: 64 << 10}
	req, _ := http.NewRequest("POST", s.URL+"/api/reports", pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("slow legitimate upload: %v", err)
	}
	res.Body.Close()
	Attack(t, "7", fmt.Sprintf("legitimate %d KB upload at 64 KiB/s", len(body)/1000), fmt.Sprintf("HTTP %d after %v", res.StatusCode, pr.took().Round(100*time.Millisecond)))
	if res.StatusCode != http.StatusCreated {
		t.Errorf("slow legitimate upload: HTTP %d, want 201", res.StatusCode)
	}

	// A websocket idle past the body grace is not cut (no ReadTimeout).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws := openSim(ctx, t, s)
	time.Sleep(2500 * time.Millisecond) // idle longer than the 1 s body grace
	_ = ws.Write(ctx, websocket.MessageText, []byte(`{"type":"session.heartbeat"}`))
	if !readUntil(ctx, ws, "session.heartbeat_ack") {
		t.Error("a websocket idle past the body grace was cut")
	}
}

// pacedReader yields b at rate bytes per second.
type pacedReader struct {
	b     []byte
	off   int
	rate  int
	start time.Time
	end   time.Time
}

func (p *pacedReader) Read(buf []byte) (int, error) {
	if p.start.IsZero() {
		p.start = time.Now()
	}
	if p.off >= len(p.b) {
		p.end = time.Now()
		return 0, io.EOF
	}
	n := min(len(buf), p.rate/10, len(p.b)-p.off)
	time.Sleep(100 * time.Millisecond) // the link's pace is the input under test
	copy(buf, p.b[p.off:p.off+n])
	p.off += n
	return n, nil
}

func (p *pacedReader) took() time.Duration { return p.end.Sub(p.start) }
