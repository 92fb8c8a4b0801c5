package app

import "testing"

// TestTabKeyTarget: the dashboard's tab list follows the WAI-ARIA tabs
// keyboard pattern (arrows wrap, Home/End jump, other keys are left to the
// browser).
func TestTabKeyTarget(t *testing.T) {
	for _, tc := range []struct {
		key  string
		from int
		want int
	}{
		{"ArrowRight", 0, 1},
		{"ArrowRight", 3, 0},
		{"ArrowLeft", 0, 3},
		{"ArrowLeft", 2, 1},
		{"Home", 2, 0},
		{"End", 1, 3},
		{"Enter", 1, -1},
		{"Tab", 1, -1},
		{"ArrowDown", 1, -1},
	} {
		if got := tabKeyTarget(tc.key, tc.from, 4); got != tc.want {
			t.Errorf("%s from %d = %d, want %d", tc.key, tc.from, got, tc.want)
		}
	}
}
