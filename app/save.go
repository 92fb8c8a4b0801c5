package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/apiclient"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// shareInfo is the outcome of saving a run.
type shareInfo struct {
	ID, URL string // report id and share link (/r/{id})
	Pending bool   // kept in browser storage, to be retried
	Error   string
	JSONURL string // downloads (server export when saved, blob: URLs otherwise)
	VLLMURL string
	CSVURL  string
	WireLog string // attachment URL of the wire log
	// Capability is the report capability the page uploaded with; the
	// share box's labels form (share-labels.go) PATCHes with it.
	Capability string
	// SignIn: the archive has a write token and this browser has not
	// signed in; the run is kept (Pending) until it does.
	SignIn bool
	// Progress says, in words, how the page's retries of a failed upload
	// go (attempts, the next try, delivery).
	Progress string
}

// errSignIn is the archive's answer when it needs a sign-in to save.
var errSignIn = errors.New("this archive needs sign-in to save: sign in at /signin (your run is kept)")

// saveInput is what a finished run hands to saveRun.
type saveInput struct {
	Settings  Settings
	Trace     *trace.Session
	Final     metrics.SessionResult
	Resp      []respView
	Warnings  []warning
	InputPCM  []byte // 16 kHz
	OutputPCM []byte // 24 kHz, responses concatenated in order
	Pacing    pacingView
	Complete  bool
	Error     string
	StartedAt time.Time
	UserAgent string
	// Probes are copies of the run's barge-in probes; StreamStartMs places
	// their offsets; ReceivedMs is the audio received per response (ms).
	Probes        []sentProbe
	StreamStartMs float64
	ReceivedMs    map[string]float64
	// Labels are a labelled dataset's turn-taking cases (nil: derived cases).
	Labels *streamLabels
	// UserSpeech is VAD of the audio sent (trace clock): the speech ends
	// of speech_end_to_heard_ms.
	UserSpeech []turntaking.Interval
}

// buildSaveInput collects the finished run (r.mu not held).
func (r *liveRun) buildSaveInput(wireLog *trace.Session) saveInput {
	err := r.life.state().err
	r.mu.Lock()
	in := saveInput{Settings: r.settings, Trace: wireLog, InputPCM: r.inputPCM, Complete: err == nil,
		UserAgent: app.Window().Get("navigator").Get("userAgent").String(), StartedAt: time.Now()}
	if r.final != nil {
		in.Final = *r.final
	}
	if err != nil {
		in.Error = errorWords(err)
	}
	for _, id := range r.wire.Order() {
		in.Resp = append(in.Resp, r.respViewLocked(id))
	}
	in.OutputPCM = r.playback.output(r.wire.Order())
	in.StreamStartMs = r.wire.StreamStartMs()
	in.Labels, _, in.UserSpeech = r.turns.current()
	in.ReceivedMs = map[string]float64{}
	for _, id := range r.wire.Order() {
		in.ReceivedMs[id] = r.wire.Response(id).ReceivedMs()
	}
	in.Probes = r.probes.copies()
	snap := r.snapshotLocked()
	r.mu.Unlock()
	in.Warnings = snap.Warnings
	in.Pacing = snap.Pacing
	return in
}

// attachmentBlob is an attachment's bytes and reference.
type attachmentBlob struct {
	Ref  report.Attachment
	Body []byte
}

// buildReport turns a finished run into the archive's report and its
// attachments (wire log, input and output audio).
func buildReport(in saveInput, version string) (*report.Report, []attachmentBlob, error) {
	dm := metrics.BuildReport([]metrics.SessionResult{in.Final})
	src := report.Source{Kind: report.SourceMic}
	if name := in.Settings.DatasetName(); name != "" {
		src = report.Source{Kind: report.SourceDataset, Dataset: name}
	} else if in.Settings.DroppedPCM != nil {
		src = report.Source{Kind: report.SourceDataset, Dataset: "dropped:" + in.Settings.DroppedName}
	}
	run := report.Run{
		TargetURL: in.Settings.reportTarget(), Model: in.Settings.Model, Profile: in.Settings.Profile,
		FrameMs: in.Settings.FrameMs, Version: version, Client: report.ClientBrowser,
		Machine: report.Machine{UserAgent: in.UserAgent, OS: "browser", Arch: "wasm"}, Source: src,
		EndedAt: time.Now().UTC().Format(time.RFC3339),
	}
	// Non-finite server values become null (issue 16); the rows are escaped
	// as json.Marshal, which the page used before, wrote them.
	rep, err := report.FromMetricsHTML(run, dm)
	if err != nil {
		return nil, nil, err
	}
	rep.Warnings = append(rep.Warnings, report.ValueWarnings(dm)...)
	sid := ""
	if in.Trace != nil && in.Trace.Session.SessionID != nil {
		sid = *in.Trace.Session.SessionID
	}
	rep.Responses = append(rep.Responses, responseExtras(in.Resp, in.UserSpeech, sid)...)
	var blobs []attachmentBlob
	add := func(name, kind, ctype string, body []byte) {
		sum := sha256.Sum256(body)
		ref := report.Attachment{Name: name, Kind: kind, ContentType: ctype, SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), SessionID: sid}
		rep.Attachments = append(rep.Attachments, ref)
		blobs = append(blobs, attachmentBlob{Ref: ref, Body: body})
	}
	sx := report.SessionExtra{SessionID: sid, Complete: in.Complete, Error: in.Error}
	if in.Trace != nil {
		wl, err := json.Marshal(in.Trace)
		if err != nil {
			return nil, nil, fmt.Errorf("wire log: %w", err)
		}
		add("wire-log.json", report.AttachWireLog, "application/json", wl)
		sx.WireLog = "wire-log.json"
		sx.StreamStartMs = in.Trace.Session.StreamStartMs
		sx.VideoFramesSent = session.VideoFramesSent(in.Trace)
	}
	if in.Pacing.Frames > 0 {
		p99, mx := in.Pacing.P99Ms, in.Pacing.MaxMs
		sx.PacingLagP99, sx.PacingLagMax = &p99, &mx
	}
	if sid != "" && strings.Contains(in.Settings.URL, "/v1/realtime") {
		sx.TruthURL = "/sim/sessions/" + sid + "/truth"
	}
	rep.Sessions = append(rep.Sessions, sx)
	if len(in.InputPCM) > 0 {
		var b bytes.Buffer
		if err := audio.WritePCM16WAV(&b, in.InputPCM, 16000); err == nil {
			add("input.wav", report.AttachInputAudio, "audio/wav", b.Bytes())
		}
	}
	if len(in.OutputPCM) > 0 {
		var b bytes.Buffer
		if err := audio.WritePCM16WAV(&b, in.OutputPCM, 24000); err == nil {
			add("output.wav", report.AttachOutputAudio, "audio/wav", b.Bytes())
		}
	}
	rep.Probes = probeReports(in.Probes, in.StreamStartMs, in.ReceivedMs, sid)
	var onsets []float64
	for _, p := range in.Probes {
		if on, ok := p.interruptionOnset(); ok {
			onsets = append(onsets, on)
		}
	}
	rep.TurnTaking = traceTurnTaking(in.Trace, in.Labels, onsets, sid)
	rep.Warnings = reportWarnings(in.Warnings, sid)
	report.Finish(rep)
	return rep, blobs, nil
}

// saveRun builds the report and uploads it with its attachments; on
// failure it keeps the report in browser storage for a retry (returned).
func saveRun(ctx context.Context, in saveInput) (shareInfo, *keptUpload, error) {
	rep, blobs, err := buildReport(in, app.Getenv("GOAPP_VERSION"))
	if err != nil {
		return shareInfo{Error: err.Error()}, nil, err
	}
	return saveReportKept(ctx, rep, blobs)
}

// saveReport uploads a finished report with its attachments; on failure
// it keeps the report in browser storage for a retry (nothing is lost).
func saveReport(ctx context.Context, rep *report.Report, blobs []attachmentBlob) (shareInfo, error) {
	info, _, err := saveReportKept(ctx, rep, blobs)
	return info, err
}

// keptUpload is a report whose upload failed: kept in browser storage
// under Key, and here in full (attachments too) for the page's retries.
type keptUpload struct {
	Key   string
	Body  []byte
	Blobs []attachmentBlob
	Local shareInfo // the blob: downloads
}

// attempt uploads the kept report once more (same Idempotency-Key: a
// report the server already stored is not stored twice); once delivered
// it leaves browser storage.
func (k *keptUpload) attempt(ctx context.Context) (shareInfo, error) {
	info, err := uploadReport(ctx, k.Key, k.Body, k.Blobs)
	if err != nil {
		return shareInfo{}, err
	}
	dropPending(k.Key)
	return info, nil
}

// saveReportKept is saveReport that also returns the kept upload when it
// failed (nil when delivered).
func saveReportKept(ctx context.Context, rep *report.Report, blobs []attachmentBlob) (shareInfo, *keptUpload, error) {
	body, err := report.MarshalIndent(rep)
	if err != nil {
		return shareInfo{Error: err.Error()}, nil, err
	}
	local := localDownloads(rep, body)
	key := apiclient.NewKey()
	info, err := uploadReport(ctx, key, body, blobs)
	if err != nil {
		keepPending(pendingUpload{Key: key, Report: body, WireLog: wireLogOf(blobs)})
		local.Pending, local.Error, local.SignIn = true, uploadWords(err), errors.Is(err, errSignIn)
		return local, &keptUpload{Key: key, Body: body, Blobs: blobs, Local: local}, err
	}
	return info, nil, nil
}

func wireLogOf(blobs []attachmentBlob) []byte {
	for _, b := range blobs {
		if b.Ref.Kind == report.AttachWireLog {
			return b.Body
		}
	}
	return nil
}

// uploadReport sends the report and its attachments through the one
// archive client (apiclient: its partial-failure rule), with a capability
// minted for this one report under key (the server's cookie from /signin
// authorises the mint when the archive has a write token). A retry with
// the same key lands on the report it started. A report stored without
// some attachment is delivered; the share box says which did not arrive.
func uploadReport(ctx context.Context, key string, body []byte, blobs []attachmentBlob) (shareInfo, error) {
	atts := make([]apiclient.Attachment, len(blobs))
	for i, b := range blobs {
		atts[i] = apiclient.Attachment{Name: b.Ref.Name, ContentType: b.Ref.ContentType, Body: b.Body}
	}
	res, err := archiveClient("").UploadReport(ctx, apiclient.Upload{Key: key, Report: body, Attachments: atts, Capability: true})
	partial, _ := errors.AsType[*apiclient.PartialError](err)
	if err != nil && partial == nil {
		return shareInfo{}, signInNeeded(err)
	}
	base := "/api/reports/" + res.ID
	info := shareInfo{ID: res.ID, URL: res.URL, Capability: res.Capability,
		JSONURL: base + "/export?format=json", VLLMURL: base + "/export?format=vllm", CSVURL: base + "/export?format=csv"}
	for _, b := range blobs {
		if b.Ref.Kind == report.AttachWireLog && slices.Contains(res.Stored, b.Ref.Name) {
			info.WireLog = base + "/attachments/" + b.Ref.Name
		}
	}
	if partial != nil {
		info.Error = partial.Error()
	}
	return info, nil
}

// archiveClient is the page's client of its own server's archive API,
// writing with capability (when given); the browser adds the sign-in
// cookie by itself.
func archiveClient(capability string) *apiclient.Client {
	return &apiclient.Client{Base: pageOrigin(), Token: capability}
}

// signInNeeded turns the archive's 401 into errSignIn (the page asks the
// person to sign in and keeps the run).
func signInNeeded(err error) error {
	if he, ok := errors.AsType[*apiclient.Error](err); ok && he.Code == http.StatusUnauthorized {
		return errSignIn
	}
	return err
}

// pageOrigin is the page's scheme://host.
func pageOrigin() string {
	u := app.Window().URL()
	return u.Scheme + "://" + u.Host
}

// localDownloads offers the report as blob: URLs when the server has none.
func localDownloads(rep *report.Report, body []byte) shareInfo {
	info := shareInfo{JSONURL: blobURL(body, "application/json")}
	if v, err := report.VLLM(rep); err == nil {
		info.VLLMURL = blobURL(v, "application/json")
	}
	var csv bytes.Buffer
	if report.CSV(&csv, rep) == nil {
		info.CSVURL = blobURL(csv.Bytes(), "text/csv")
	}
	return info
}

func blobURL(b []byte, ctype string) string {
	w := app.Window()
	blob := w.Get("Blob").New([]any{bytesToJS(b)}, jsObject(map[string]any{"type": ctype}))
	return w.Get("URL").Call("createObjectURL", blob).String()
}
