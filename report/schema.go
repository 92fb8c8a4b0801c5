package report

import _ "embed"

// SchemaJSON is the JSON Schema (draft 2020-12) of a v1 report,
// report/schema/report.v1.json. Decode enforces more than it says (string
// and array limits, UTF-8, finite numbers); SCHEMA.md documents both.
//
//go:embed schema/report.v1.json
var SchemaJSON []byte
