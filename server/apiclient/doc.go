// Package apiclient is the one client of the archive API (README, "HTTP
// API"): the CLI's --upload, the page's saves, labels and GETs of clips and
// lists, and the load-run runners (server/loadrun.Client) all send through
// it, natively and in wasm.
//
// It owns what every call shares: the base URL and path joining, JSON
// bodies and answers, the bearer token, Idempotency-Keys, a bound on what
// it reads of an answer (Client.MaxAnswer), and turning an answer that is
// not 2xx into an *Error a person can read (the server's {"error"} message
// and the status). The transport is injectable (Client.HTTP, anything with
// Do); by default it is http.DefaultClient natively and, in wasm, the
// browser's fetch called directly (fetch_js.go), which keeps net/http's
// native transport out of app.wasm.
//
// # Uploading a report: the one partial-failure rule
//
// Client.UploadReport stores the report first (POST /api/reports, after
// minting a report capability with the same key when Upload.Capability is
// set) and then PUTs each attachment. The rule follows from what the server
// guarantees: the same Idempotency-Key replays the stored report (and mints
// the same id), and an attachment is written once and checked against the
// sha256 its report declares, so a 409 means these very bytes are stored.
//
//   - Until the report exists (the mint or the POST failed, or its answer
//     was lost) UploadReport returns only the error. The caller keeps the
//     whole upload and sends it again with the same key: the page keeps it
//     in browser storage and retries, the CLI says where report.json is and
//     `run --resume --upload` sends it again. Nothing is stored twice.
//   - Once the report exists every attachment is tried. One the server could
//     not take for a passing reason (no answer, 408, 429, a 5xx other than
//     501 and 507) is tried again, AttachmentTries times in all; a 409 counts
//     as stored. When some still did not arrive, the Result carries the id and
//     share URL all the same and the error is a *PartialError naming each
//     attachment and why. The run is never dropped: the report is stored, and
//     sending the upload again with the same key adds only what is missing.
package apiclient
