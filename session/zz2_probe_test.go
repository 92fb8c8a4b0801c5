//go:build !js

package session

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestZZBigMessage(t *testing.T) {
	clock := SystemClock()
	sent := make(chan time.Duration, 1000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := websocket.Accept(w, r, nil)
		msg := []byte(`"` + strings.Repeat("A", 65000) + `"`)
		for i := 0; i < 200; i++ {
			time.Sleep(5 * time.Millisecond)
			sent <- clock.Now()
			c.Write(context.Background(), websocket.MessageText, msg)
		}
		c.Close(1000, "")
	}))
	defer ts.Close()
	conn, err := dialCoder(context.Background(), "ws"+strings.TrimPrefix(ts.URL, "http"), clock)
	if err != nil {
		t.Fatal(err)
	}
	var d []float64
	for i := 0; i < 200; i++ {
		m, err := conn.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		d = append(d, durMs(m.At-<-sent))
	}
	sort.Float64s(d)
	t.Logf("delay p50 %.3f p90 %.3f p99 %.3f ms", d[100], d[180], d[198])
}
