package conformance

import "testing"

func TestCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		exp, act  string
		wantMatch bool
	}{
		{"int equals float", `{"a": 200}`, `{"a": 200.0}`, true},
		{"key order ignored", `{"a": 1, "b": 2}`, `{"b": 2, "a": 1}`, true},
		{"relative tolerance", `1000000`, `1000000.9`, true},
		{"beyond relative tolerance", `1000000`, `1000001.5`, false},
		{"absolute tolerance near zero", `0`, `0.0000000005`, true},
		{"beyond absolute tolerance", `0`, `0.000001`, false},
		{"rounding off by 0.001 fails", `100.062`, `100.063`, false},
		{"null vs absent", `{"a": null}`, `{}`, false},
		{"absent vs null", `{}`, `{"a": null}`, false},
		{"null vs zero", `{"a": null}`, `{"a": 0}`, false},
		{"string vs number", `"1"`, `1`, false},
		{"bool vs int", `true`, `1`, false},
		{"array length", `[1, 2]`, `[1]`, false},
		{"array order", `[1, 2]`, `[2, 1]`, false},
		{"nested", `{"x": [{"y": 1.5}]}`, `{"x": [{"y": 1.5000000001}]}`, true},
		{"string identical", `"a"`, `"b"`, false},
		{"NaN matches NaN", `{"a": NaN}`, `{"a": NaN}`, true},
		{"NaN is not a number", `NaN`, `0`, false},
		{"Infinity matches Infinity", `[Infinity, -Infinity]`, `[Infinity, -Infinity]`, true},
		{"Infinity sign", `Infinity`, `-Infinity`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Compare([]byte(tc.exp), []byte(tc.act))
			if (err == nil) != tc.wantMatch {
				t.Errorf("Compare(%s, %s) = %v, want match %v", tc.exp, tc.act, err, tc.wantMatch)
			}
		})
	}
}
