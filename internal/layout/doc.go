// Package layout holds no code: its test checks each package's imports
// against the layout STYLE.md fixes (metrics is pure, session never imports
// metrics, only app imports go-app).
package layout
