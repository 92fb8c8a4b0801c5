//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/apiclient"
)

// --upload: report.json and its wire logs to the archive.

// uploadTo uploads report.json and its wire logs to --upload (when given)
// and says where they went. Under apiclient's rule a report that is stored
// is shared even when some wire log did not arrive; the error then names
// those, and `run --resume --upload` sends them again (same key, same report).
func uploadTo(ctx context.Context, o *runOptions, rb []byte, sum *runSummary, stdout io.Writer) error {
	if o.Upload == "" {
		return nil
	}
	api := &apiclient.Client{Base: o.Upload, Token: writeToken()}
	res, err := api.UploadReport(ctx, apiclient.Upload{Key: apiclient.KeyFor(rb), Report: rb, Attachments: wireLogs(o, rb)})
	if res.ID != "" {
		sum.ShareURL = api.URL(res.URL)
		fmt.Fprintf(stdout, "run: uploaded → %s\n", sum.ShareURL)
	}
	if err != nil {
		return fmt.Errorf("run: upload to %s: %w (results are in %s)", o.Upload, err, o.Out)
	}
	return nil
}

// wireLogs are the wire logs report.json declares, read from OUT/traces
// when each is sent.
func wireLogs(o *runOptions, rb []byte) []apiclient.Attachment {
	var r struct {
		Attachments []report.Attachment `json:"attachments"`
	}
	_ = json.Unmarshal(rb, &r)
	var out []apiclient.Attachment
	for _, a := range r.Attachments {
		if a.Kind != report.AttachWireLog {
			continue
		}
		path := filepath.Join(o.Out, dirTraces, a.Name)
		out = append(out, apiclient.Attachment{Name: a.Name, ContentType: a.ContentType,
			Read: func() ([]byte, error) { return os.ReadFile(path) }})
	}
	return out
}

// writeToken is the archive's write token the run sends (--upload, and a
// load run's client).
func writeToken() string { return os.Getenv("DUPLEXSCOPE_WRITE_TOKEN") }
