package app

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestLabelsBody: the tag field splits on commas, trimmed, empties
// dropped, and the PATCH body always carries all three keys (an emptied
// field clears the run's value).
func TestLabelsBody(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{{"gpu-a, fp8", []string{"gpu-a", "fp8"}}, {" , ,", nil}, {"", nil}, {"one", []string{"one"}}, {"a b, c", []string{"a b", "c"}}}
	for _, tc := range cases {
		if got := splitList(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	b, err := labelsBody("n", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || len(m) != 3 || m["name"] != "n" || m["notes"] != "" || m["tags"] == nil {
		t.Errorf("labelsBody = %s (%v), want name, notes and an empty tags list", b, err)
	}
}
