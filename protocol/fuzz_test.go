package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode checks that Decode never panics, that a typed result always
// re-encodes, and that encoding is a fixed point after one round trip.
// Seeds: testdata/fuzz/FuzzDecode plus every testdata/decode case.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "decode", "*", "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Decode(data)
		if ev == nil {
			t.Fatal("nil event")
		}
		if err != nil {
			if _, ok := ev.(*Unknown); !ok {
				t.Fatalf("error %v with typed %T", err, ev)
			}
			return
		}
		_ = ev.Validate()
		b1, err := Marshal(ev)
		if err != nil {
			t.Fatalf("Marshal(%T): %v", ev, err)
		}
		if std, _ := json.Marshal(ev); string(std) != string(b1) {
			t.Fatalf("Marshal differs from json.Marshal:\n%s\n%s", b1, std)
		}
		ev2, err := Decode(b1)
		if err != nil {
			t.Fatalf("re-decode %s: %v", b1, err)
		}
		b2, err := Marshal(ev2)
		if err != nil {
			t.Fatal(err)
		}
		if string(b1) != string(b2) {
			t.Fatalf("not a fixed point:\n%s\n%s", b1, b2)
		}
	})
}
