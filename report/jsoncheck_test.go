package report

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeySet: duplicates are found as Go's decoder matches field names
// (simple case folding), both in the short list and, past 16 keys, in the
// folded map.
func TestKeySet(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("key%d", i))
	}
	for _, tc := range []struct {
		name  string
		keys  []string
		probe string
		want  bool
	}{
		{"empty", nil, "a", false},
		{"exact", []string{"model"}, "model", true},
		{"case", []string{"model"}, "MODEL", true},
		{"kelvin sign", []string{"k"}, "\u212a", true},
		{"long s", []string{"schema"}, "\u017fchema", true},
		{"different", []string{"model", "schema"}, "models", false},
		{"past 16: case", many, "KEY3", true},
		{"past 16: kelvin sign", many, "\u212aey19", true},
		{"past 16: different", many, "key20", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var k keySet
			for _, key := range tc.keys {
				if k.has([]byte(key)) {
					t.Fatalf("has(%q) before adding it", key)
				}
				k.add([]byte(key))
			}
			if got := k.has([]byte(tc.probe)); got != tc.want {
				t.Errorf("has(%q) = %v, want %v", tc.probe, got, tc.want)
			}
			if (k.folded != nil) != (len(tc.keys) > 16) {
				t.Errorf("%d keys: folded map in use = %v", len(tc.keys), k.folded != nil)
			}
		})
	}
}

// TestJSONScanPath: the path names the innermost key and the index of the
// array element being read.
func TestJSONScanPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		stack []jsonFrame
		want  string
	}{
		{"top", nil, ""},
		{"object before its first key", []jsonFrame{{}}, ""},
		{"key", []jsonFrame{{key: []byte("run")}, {key: []byte("model")}}, "run.model"},
		{"array element", []jsonFrame{{key: []byte("metrics")}, {key: []byte("duplex_request_metrics")}, {array: true, count: 4}, {key: []byte("ttft_ms")}},
			"metrics.duplex_request_metrics[3].ttft_ms"},
		{"array before its first element", []jsonFrame{{key: []byte("tags")}, {array: true}}, "tags[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := jsonScan{stack: tc.stack}
			if got := s.path(); got != tc.want {
				t.Errorf("path() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestJSONScanIsKey: a string is a key only inside an object and only when
// the next non-space byte is ':'.
func TestJSONScanIsKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc   string
		array, want bool
	}{
		{"key", `"a":1`, false, true},
		{"key before spaces", "\"a\" \t\r\n:1", false, true},
		{"value", `"a",`, false, false},
		{"value at the end", `"a"`, false, false},
		{"in an array", `"a":`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := jsonScan{b: []byte(tc.doc), stack: []jsonFrame{{array: tc.array}}}
			if got := s.isKey(2); got != tc.want {
				t.Errorf("isKey in %q = %v, want %v", tc.doc, got, tc.want)
			}
		})
	}
}

// TestCheckJSONAllocations: the scan keeps keys as the document's own
// bytes (a string per key cost 2 000 allocations here), so checking 200
// objects of 10 keys allocates a few times (9 and 3 when written), for
// uploads (duplicate and surrogate checks) and stored reports (neither).
func TestCheckJSONAllocations(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"rows":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k := range 10 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"key_%d":%d`, k, i)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	doc := []byte(b.String())
	for _, stored := range []bool{false, true} {
		lim := DefaultLimits
		lim.Stored = stored
		if err := CheckJSON(doc, lim); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(5, func() { _ = CheckJSON(doc, lim) }); n > 50 {
			t.Errorf("Stored=%v: %v allocations for 200 objects of 10 keys (2 000 keys)", stored, n)
		}
	}
}
