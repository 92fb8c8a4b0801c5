package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of run.name, run.notes and run.tags (characters, i.e. code points,
// as JSON Schema's maxLength counts them).
const (
	MaxNameChars  = 200
	MaxNotesChars = 4000
	MaxTags       = 16
	MaxTagChars   = 64
)

// CheckLabels returns the problems of a run's name, notes and tags (nil when
// they are fine): length caps, a tag count cap, no empty or duplicate tag,
// no tag with leading or trailing space, and no control characters (notes
// may hold newlines and tabs) nor bidirectional overrides, which would make
// a label read differently from what it holds.
func CheckLabels(name, notes string, tags []string) []FieldError {
	var errs []FieldError
	add := func(path, reason string, args ...any) {
		errs = append(errs, FieldError{Path: path, Reason: fmt.Sprintf(reason, args...)})
	}
	text := func(path, s string, maxChars int, multiline bool) {
		if !utf8.ValidString(s) {
			add(path, "not valid UTF-8")
			return
		}
		if n := utf8.RuneCountInString(s); n > maxChars {
			add(path, "%d characters, at most %d", n, maxChars)
		}
		if i := strings.IndexFunc(s, func(r rune) bool { return badLabelRune(r, multiline) }); i >= 0 {
			r, _ := utf8.DecodeRuneInString(s[i:])
			add(path, "contains the control character %U", r)
		}
	}
	text("run.name", name, MaxNameChars, false)
	text("run.notes", notes, MaxNotesChars, true)
	if len(tags) > MaxTags {
		add("run.tags", "%d tags, at most %d", len(tags), MaxTags)
	}
	seen := map[string]bool{}
	for i, t := range tags {
		if i >= MaxTags {
			break
		}
		p := fmt.Sprintf("run.tags[%d]", i)
		switch {
		case strings.TrimSpace(t) == "":
			add(p, "empty")
			continue
		case strings.TrimSpace(t) != t:
			add(p, "has leading or trailing space")
		case seen[t]:
			add(p, "duplicate tag %q", t)
		}
		seen[t] = true
		text(p, t, MaxTagChars, false)
	}
	return errs
}

// badLabelRune: control characters (C0, DEL, C1; newline and tab allowed
// in multi-line text) and the bidirectional embedding/override/isolate
// characters.
func badLabelRune(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\t') {
		return false
	}
	return unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
