package app

import "github.com/duplexscope/duplexscope/session/tracker"

// logRow is one event-log line (folded by the session tracker).
type logRow = tracker.LogRow
