package session

import (
	"reflect"
	"strings"
	"testing"
)

// liftCases are frames whose decode must not depend on lifting: typical
// audio, escapes, duplicate and case-folded keys, nesting, invalid JSON.
var liftCases = []string{
	`{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAAAAAA","sample_rate_hz":24000}`,
	`{"type":"response.output_audio.delta","delta":"AAAA","audio":"BBBB"}`,
	`{"type":"response.audio.delta","audio":"AAAA"}`,
	`{"type":"response.output_audio_transcript.done","transcript":"hello there"}`,
	` { "type" : "a" , "delta" : "QUFB" } `,
	`{"type":"a\"b","delta":"QUFB","x":{"delta":"nested"},"y":["delta","QUFB"]}`,
	`{"type":"a","delta":"QU\/B"}`,
	`{"type":"a","delta":"QU` + "\x01" + `B"}`,
	`{"type":"a","delta":"QUFB","delta":"QkJC"}`,
	`{"type":"a","delta":"QUFB","DELTA":"QkJC"}`,
	`{"type":"a","Delta":"QUFB"}`,
	`{"type":"a","tranſcript":"QUFB"}`,
	`{"transcript":"QUFB","tranſcript":"QkJC"}`,
	`{"delta":"QUFB","x":1,"delta":"QkJC","audio":"Q0ND"}`,
	`{"type":"a","d\u0065lta":"QUFB"}`,
	`{"type":5,"delta":"QUFB"}`,
	`{"type":"a","response":{"id":"r1","status":7},"delta":"QUFB"}`,
	`{"type":"a","delta":5}`,
	`{"type":"a","delta":""}`,
	`{"type":"a","delta":"QUFB"} x`,
	`{"type":"a","delta":"QUFB"`,
	`{"type":"a","delta":"QUFB",}`,
	`{"type":"a" "delta":"QUFB"}`,
	`{"delta":"QUFB\`,
	`["delta","QUFB"]`,
	`{}`,
	`{"delta":"!!!!"}`,
	`{"delta":"é"}`,
}

// TestLiftLongSameDecode: lifting every string (min 1) and the typical
// 64 kB audio delta decode exactly as the whole frame does.
func TestLiftLongSameDecode(t *testing.T) {
	for _, c := range append(liftCases, string(audioDelta(3))) {
		checkLift(t, []byte(c))
	}
	// The audio is lifted in the real path, not only with min 1.
	if _, lifted, ok := liftLong(audioDelta(3), liftMin); !ok || len(lifted[0]) != 64000 {
		t.Errorf("a 64 kB audio delta: lifted %v (%d bytes), want its delta", ok, len(lifted[0]))
	}
	for _, c := range []string{`{"delta":"QUFB","delta":"QkJC"}`, `{"d\u0065lta":"QUFB"}`, `{"delta":"QU\/B"}`, `{"x":{"delta":"QUFB"}}`} {
		if _, _, ok := liftLong([]byte(c), 1); ok {
			t.Errorf("liftLong(%s) lifted: want the whole frame decoded", c)
		}
	}
}

func checkLift(t *testing.T, data []byte) {
	t.Helper()
	whole, okWhole := decodeInbound(data, 0)
	lift, okLift := decodeInbound(data, 1)
	if okWhole != okLift || (okWhole && !reflect.DeepEqual(whole, lift)) {
		t.Errorf("%.200s: lifted decode (%v) %+v, whole decode (%v) %+v", data, okLift, lift, okWhole, whole)
	}
}

func FuzzLiftLong(f *testing.F) {
	for _, c := range liftCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(strings.Repeat(" ", 3) + `{"delta":"` + strings.Repeat("QUFB", 300) + `","type":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkLift(t, data) })
}

func TestHasControl(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", false},
		{"abcdefghijklmnop", false},
		{"abcdefgh\x1fjklmnop", true},
		{"abcdefghijklmno\x00", true},
		{"\xff\xfe\x80\x9f\x20\x7f\xc3\xa9 ok", false},
		{"\x80\x80\x80\x80\x80\x80\x80\x1f", true},
		{"abc\n", true},
	} {
		if got := hasControl([]byte(tc.in)); got != tc.want {
			t.Errorf("hasControl(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
