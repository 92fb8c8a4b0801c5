package probe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []At
		wantErr bool
	}{
		{"bare seconds are interruptions", "4", []At{{"interruption", 4}}, false},
		{"spaces and empty entries", "1.5, 8,", []At{{"interruption", 1.5}, {"interruption", 8}}, false},
		{"kinds", "interruption@5,backchannel@9.5", []At{{"interruption", 5}, {"backchannel", 9.5}}, false},
		{"every kind, sorted by time", "noise@12, side_talk @ 3,backchannel@7,2",
			[]At{{"interruption", 2}, {"side_talk", 3}, {"backchannel", 7}, {"noise", 12}}, false},
		{"not a number", "x", nil, true},
		{"negative", "-1", nil, true},
		{"unknown kind", "shout@3", nil, true},
		{"missing seconds", "backchannel@", nil, true},
		{"one bad entry refuses all", "interruption@5,backchanel@9", nil, true},
		{"infinite", "Inf", nil, true},
		{"not a number NaN", "noise@NaN", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSchedule(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%q: err %v, wantErr %v", tc.in, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%q (-want +got)\n%s", tc.in, diff)
			}
			if err == nil {
				back, err := ParseSchedule(FormatSchedule(got))
				if err != nil || !cmp.Equal(got, back) {
					t.Errorf("round trip through %q: %v, %v", FormatSchedule(got), back, err)
				}
			}
		})
	}
}
