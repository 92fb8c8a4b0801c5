//go:build security && linux

package security

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Quota of the disk attack: small so the test is quick, the rule is the
// same at the default 16 GiB.
const (
	quotaTotal  = 8 << 20
	quotaReport = 3 << 20
	quotaCount  = 4
	chunk       = 1 << 20
)

// dataSlack bounds the data directory beyond the attachment quota: the
// SQLite file and its WAL (reports, indexes, freed pages not yet reused).
const dataSlack = 3 * quotaTotal

// TestAttachmentFlood: one client tries to store 20 × 4 MiB of attachments
// (the 2 GB in 16.5 s, scaled to the quota); the archive stops at
// the quotas with 413/507 and a message, and the data directory stays
// bounded.
func TestAttachmentFlood(t *testing.T) {
	s := Start(t, "--attachment-quota-total", "8MiB", "--attachment-quota-report", "3MiB", "--attachment-quota-count", fmt.Sprint(quotaCount))
	sm := s.Sample()
	start := time.Now()
	codes := map[int]int{}
	var msg507, msg413 string
	stored := 0
	for r := range 20 {
		var blobs []blob
		for i := range 4 {
			b := make([]byte, chunk)
			rand.Read(b)
			blobs = append(blobs, blob{fmt.Sprintf("part-%d.bin", i), b})
		}
		id := upload(t, s, reportJSON(t, fmt.Sprint("flood-", r), blobs...))
		for _, b := range blobs {
			resp, body := s.Do(t, Request{Method: "PUT", Path: "/api/reports/" + id + "/attachments/" + b.name, Header: map[string]string{"Content-Type": "application/octet-stream"}, Body: b.data})
			codes[resp.StatusCode]++
			switch resp.StatusCode {
			case http.StatusCreated:
				stored += len(b.data)
			case http.StatusInsufficientStorage:
				msg507 = string(body)
			case http.StatusRequestEntityTooLarge:
				msg413 = string(body)
			}
		}
	}
	u := sm.Stop()
	disk := dirBytes(t, s.Data)
	if stored > quotaTotal {
		t.Errorf("stored %d attachment bytes, quota %d", stored, quotaTotal)
	}
	if codes[http.StatusInsufficientStorage] == 0 || !strings.Contains(msg507, "attachment space is full") {
		t.Errorf("no 507 with a message: %v %s", codes, msg507)
	}
	if codes[http.StatusRequestEntityTooLarge] == 0 || !strings.Contains(msg413, "quota") {
		t.Errorf("no per-report 413 with a message: %v %s", codes, msg413)
	}
	if disk > quotaTotal+dataSlack {
		t.Errorf("data directory %d bytes, want ≤ %d", disk, quotaTotal+dataSlack)
	}
	Attack(t, "6", "one client PUTs 20 reports × 4 × 1 MiB attachments (quota 8 MiB total, 3 MiB / 4 per report)",
		fmt.Sprintf("%d stored, %d × 413 (per report), %d × 507 (archive full); %.1f MiB stored, data dir %.1f MiB in %v; %s (before: 8 × 60 MiB to one report in 7.7 s, data dir 543 MiB, no bound)",
			codes[201], codes[413], codes[507], float64(stored)/(1<<20), float64(disk)/(1<<20), time.Since(start).Round(time.Millisecond), u))
}

// TestAttachmentDeclarations: an attachment must be declared by its
// report, with the declared bytes, once.
func TestAttachmentDeclarations(t *testing.T) {
	s := Start(t)
	wire := []byte(`{"kind":"session","events":[]}`)
	id := upload(t, s, reportJSON(t, "m", blob{"wire-log.json", wire}))
	base := "/api/reports/" + id + "/attachments/"
	cases := []struct {
		what, name string
		body       []byte
		want       int
		before     string
	}{
		{"undeclared name", "extra.bin", []byte("x"), 403, "201"},
		{"declared name, wrong sha256", "wire-log.json", bytes.Repeat([]byte("x"), len(wire)), 400, "201"},
		{"declared name, right bytes", "wire-log.json", wire, 201, "201"},
		{"second PUT of the name", "wire-log.json", wire, 409, "201, overwritten"},
	}
	for _, c := range cases {
		resp, b := s.Do(t, Request{Method: "PUT", Path: base + c.name, Header: map[string]string{"Content-Type": "application/json"}, Body: c.body})
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %s, want %d", c.what, resp.StatusCode, b, c.want)
		}
		Attack(t, "2", "PUT attachment: "+c.what, fmt.Sprintf("%d (before: %s)", resp.StatusCode, c.before))
	}
}
