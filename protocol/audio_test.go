package protocol

import (
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPCM16RoundTrip(t *testing.T) {
	t.Parallel()
	in := []int16{0, 1, -1, 32767, -32768, 1234}
	got, err := DecodePCM16(EncodePCM16(in))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if EncodePCM16([]int16{1, -2}) != "AQD+/w==" {
		t.Errorf("little-endian encoding: %s", EncodePCM16([]int16{1, -2}))
	}
	if _, err := DecodePCM16("AAAA"); !errors.Is(err, ErrOddLength) {
		t.Errorf("3 bytes: err = %v", err)
	}
	if _, err := DecodePCM16("AA=A"); err == nil {
		t.Error("bad base64 accepted")
	}
	if _, err := DecodePCM16("data:audio/wav;base64,AAAA"); err == nil {
		t.Error("data URL accepted as bare base64")
	}
}

func TestDurations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bytes          int64
		rate           int
		floor, halfEvn int64
		ms             float64
	}{
		{6400, 16000, 200, 200, 200},
		{32000, 16000, 1000, 1000, 1000},
		{31998, 16000, 999, 1000, 999.9375}, // final-commit tail rule chunk
		{16, 16000, 0, 0, 0.5},              // 0.5 → half-even 0
		{48, 16000, 1, 2, 1.5},              // 1.5 → half-even 2
		{80, 16000, 2, 2, 2.5},              // 2.5 → half-even 2
		{4800, 24000, 100, 100, 100},
		{3, 24000, 0, 0, 0.0625},
		{0, 16000, 0, 0, 0},
		{100, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		if got := DurationMs(tc.bytes, tc.rate, RoundFloor); got != tc.floor {
			t.Errorf("DurationMs(%d, %d, floor) = %d, want %d", tc.bytes, tc.rate, got, tc.floor)
		}
		if got := DurationMs(tc.bytes, tc.rate, RoundHalfEven); got != tc.halfEvn {
			t.Errorf("DurationMs(%d, %d, half-even) = %d, want %d", tc.bytes, tc.rate, got, tc.halfEvn)
		}
		if got := AudioMs(tc.bytes, tc.rate); got != tc.ms {
			t.Errorf("AudioMs(%d, %d) = %v, want %v", tc.bytes, tc.rate, got, tc.ms)
		}
	}
	if BytesForMs(200, 16000) != 6400 || BytesForMs(80, 16000) != 2560 || BytesForMs(100, 24000) != 4800 {
		t.Error("BytesForMs")
	}
	if AudioDuration(4800, 24000) != 100*time.Millisecond {
		t.Errorf("AudioDuration = %v", AudioDuration(4800, 24000))
	}
}

func TestBuildRealtimeURL(t *testing.T) {
	t.Parallel()
	model := url.Values{"model": {"openbmb/MiniCPM-o-4_5"}}
	tests := []struct {
		base     string
		defaults url.Values
		want     string
		wantErr  bool
	}{
		{"http://127.0.0.1:8080", model, "ws://127.0.0.1:8080/v1/realtime?autostart=0&duplex=1&model=openbmb%2FMiniCPM-o-4_5", false},
		{"https://h.example/", nil, "wss://h.example/v1/realtime?autostart=0&duplex=1", false},
		{"ws://h:1/custom/path?model=keep&autostart=1", model, "ws://h:1/custom/path?autostart=0&duplex=1&model=keep", false},
		{"wss://h/v1/realtime?duplex=0&x=1", nil, "wss://h/v1/realtime?autostart=0&duplex=1&x=1", false},
		{"ftp://h", nil, "", true},
		{"http://", nil, "", true},
		{"::bad", nil, "", true},
	}
	for _, tc := range tests {
		got, err := BuildRealtimeURL(tc.base, tc.defaults)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("BuildRealtimeURL(%q) = %q, %v; want %q (err %v)", tc.base, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestNewEventID(t *testing.T) {
	t.Parallel()
	a, b := NewEventID(), NewEventID()
	if len(a) != 36 || a[:4] != "evt_" || a == b {
		t.Errorf("ids %q %q", a, b)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for ga, legacy := range gaToLegacy {
		if LegacyName(ga) != legacy || GAName(legacy) != ga || !IsLegacy(legacy) || IsLegacy(ga) {
			t.Errorf("legacy mapping %s ↔ %s", ga, legacy)
		}
	}
	if !IsAudioDelta(TypeLegacyAudioDelta) || !IsAudioDelta(TypeResponseOutputAudioDelta) || IsAudioDelta(TypeResponseDone) {
		t.Error("IsAudioDelta")
	}
	if IsTextDelta(TypeLegacyAudioTranscriptDelta) || !IsTextDelta(TypeResponseTextDelta) {
		t.Error("IsTextDelta")
	}
	if ClientAlias(TypeLegacyPushChunk) != TypeInputAudioBufferAppend || ClientAlias(TypeLegacyCloseSession) != TypeSessionClose {
		t.Error("ClientAlias")
	}
}
