// Package layout holds no code: its tests check each package's imports
// against the layout docs/style.md fixes (metrics is pure, session never imports
// metrics, only app imports go-app), and that every comment's pointer into
// docs/ names a file and heading that exist.
package layout
