package layout

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docPointer matches a pointer into docs/ ("docs/metrics.md#stream-window",
// also inside "../docs/…" links); bareAnchor a further "#anchor" on the
// same line, which refers to the file the line last pointed at.
var (
	docPointer = regexp.MustCompile(`docs/([a-z]+\.md)(#[A-Za-z0-9_-]+)?`)
	bareAnchor = regexp.MustCompile(`(?:^|[\s(,])#([a-z0-9][a-z0-9_-]*)`)
	mdLink     = regexp.MustCompile(`\]\(([a-z]+\.md)?(#[A-Za-z0-9_-]+)?\)`)
	// The outside spec's file names: the code points at docs/ instead.
	specName = regexp.MustCompile(`\b(METRICS|PROTOCOL|STYLE)\.md\b`)
)

// TestDocPointers keeps the comments' pointers into docs/ valid: every
// docs/X.md they name exists, every #anchor is a heading of that file (as
// GitHub spells heading anchors), and no Go file names one of the outside
// spec's files (specName), which are not in the repository. It also checks
// the links between the docs/ pages.
func TestDocPointers(t *testing.T) {
	root := filepath.Join("..", "..")
	docs := filepath.Join(root, "docs")
	anchors := map[string]map[string]bool{} // file name → anchors, loaded on use
	anchorsOf := func(name string) (map[string]bool, error) {
		if a, ok := anchors[name]; ok {
			return a, nil
		}
		a, err := headingAnchors(filepath.Join(docs, name))
		if err != nil {
			return nil, err
		}
		anchors[name] = a
		return a, nil
	}
	check := func(where, file, anchor string) {
		a, err := anchorsOf(file)
		if err != nil {
			t.Errorf("%s: points at docs/%s, which cannot be read: %v", where, file, err)
			return
		}
		if anchor != "" && !a[anchor] {
			t.Errorf("%s: docs/%s has no heading for #%s", where, file, anchor)
		}
	}
	pointers := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		isGo, isMd := strings.HasSuffix(path, ".go"), strings.HasSuffix(path, ".md")
		if !isGo && !isMd {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		inDocs := strings.HasPrefix(rel, "docs/")
		return eachLine(path, func(n int, line string) {
			where := fmt.Sprintf("%s:%d", rel, n)
			if isGo && specName.MatchString(line) {
				t.Errorf("%s: points at the outside spec (%s); point at docs/ instead", where, specName.FindString(line))
			}
			last := ""
			for _, m := range docPointer.FindAllStringSubmatchIndex(line, -1) {
				last = line[m[2]:m[3]]
				anchor := ""
				if m[4] >= 0 {
					anchor = line[m[4]+1 : m[5]]
				}
				check(where, last, anchor)
				pointers++
			}
			if last != "" && isGo {
				for _, m := range bareAnchor.FindAllStringSubmatch(line, -1) {
					check(where, last, m[1])
				}
			}
			if inDocs {
				for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
					file := m[1]
					if file == "" {
						file = filepath.Base(rel)
					}
					if file == "README.md" && m[2] == "" {
						continue
					}
					check(where, file, strings.TrimPrefix(m[2], "#"))
				}
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if pointers == 0 {
		t.Fatal("no pointer into docs/ found: the walk is broken")
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file: lower case, characters other than letters, digits,
// spaces, '-' and '_' dropped, spaces turned into '-', repeats numbered
// -1, -2, …; headings inside fenced code blocks do not count.
func headingAnchors(path string) (map[string]bool, error) {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	err := eachLine(path, func(_ int, line string) {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			return
		}
		if fence || !strings.HasPrefix(line, "#") {
			return
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, k)
		} else {
			seen[a] = 1
		}
		out[a] = true
	})
	return out, err
}

func eachLine(path string, f func(n int, line string)) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		f(n, sc.Text())
	}
	return sc.Err()
}
