//go:build !js

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/duplexscope/duplexscope/report"
)

// --upload: report.json and its wire logs to the archive.

// uploadTo POSTs report.json to --upload (when given) and says where it went.
func uploadTo(ctx context.Context, o *runOptions, rb []byte, sum *runSummary, stdout io.Writer) error {
	if o.Upload == "" {
		return nil
	}
	u, err := uploadReport(ctx, o, rb)
	if err != nil {
		return fmt.Errorf("run: upload: %w (results are in %s)", err, o.Out)
	}
	sum.ShareURL = u
	fmt.Fprintf(stdout, "run: uploaded → %s\n", u)
	return nil
}

// uploadReport POSTs report.json to SERVER/api/reports and returns the share URL.
func uploadReport(ctx context.Context, o *runOptions, body []byte) (string, error) {
	base := strings.TrimRight(o.Upload, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/reports", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	h := sha256.Sum256(body)
	req.Header.Set("Idempotency-Key", "run-"+hex.EncodeToString(h[:16]))
	if tok := writeToken(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST %s/api/reports: %s: %s", base, resp.Status, strings.TrimSpace(string(rb)))
	}
	var created struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := json.Unmarshal(rb, &created); err != nil {
		return "", fmt.Errorf("POST %s/api/reports: %w", base, err)
	}
	// The wire logs follow as the report's attachments (OUT/traces/NAME).
	var r struct {
		Attachments []report.Attachment `json:"attachments"`
	}
	_ = json.Unmarshal(body, &r)
	for _, a := range r.Attachments {
		if a.Kind != report.AttachWireLog {
			continue
		}
		data, err := os.ReadFile(filepath.Join(o.Out, dirTraces, a.Name))
		if err != nil {
			return "", fmt.Errorf("attachment %s: %w", a.Name, err)
		}
		u := base + "/api/reports/" + url.PathEscape(created.ID) + "/attachments/" + url.PathEscape(a.Name)
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, u, bytes.NewReader(data))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", a.ContentType)
		if tok := writeToken(); tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", fmt.Errorf("PUT %s: %w", u, err)
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		// 409: a retried upload finds the attachment already stored; the
		// server checked it against the declared sha256, so it is this one.
		if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusConflict {
			return "", fmt.Errorf("PUT %s: %s: %s", u, resp.Status, strings.TrimSpace(string(msg)))
		}
	}
	return base + created.URL, nil
}

// writeToken is the archive's write token the run sends (--upload, and a
// load run's client).
func writeToken() string { return os.Getenv("DUPLEXSCOPE_WRITE_TOKEN") }
