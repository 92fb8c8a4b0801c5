//go:build !js

package main

import (
	"net"
	"strings"
	"testing"
)

// TestCheckListen: an open archive (no token) refuses addresses others can
// reach unless --public; a token or --public lets any address through.
func TestCheckListen(t *testing.T) {
	cases := []struct {
		addr, token string
		public      bool
		ok          bool
	}{
		{"127.0.0.1:8080", "", false, true},
		{"[::1]:8080", "", false, true},
		{"localhost:8080", "", false, true}, // checked again once bound
		{"0.0.0.0:8080", "", false, false},
		{":8080", "", false, false},
		{"[::]:0", "", false, false},
		{"192.0.2.10:80", "", false, false},
		{"0.0.0.0:8080", "tok", false, true},
		{"0.0.0.0:8080", "", true, true},
		{"nonsense", "", false, false},
	}
	for _, tc := range cases {
		err := checkListen(serveOptions{Addr: tc.addr, WriteToken: tc.token, Public: tc.public})
		if tc.ok != (err == nil) {
			t.Errorf("checkListen(%q, token %q, public %v) = %v, want ok=%v", tc.addr, tc.token, tc.public, err, tc.ok)
		}
		if err != nil && tc.addr != "nonsense" && !strings.Contains(err.Error(), "--public") {
			t.Errorf("refusal does not say how to proceed: %v", err)
		}
	}
	bound := []struct {
		ip string
		ok bool
	}{{"127.0.0.1", true}, {"::1", true}, {"10.0.0.1", false}, {"0.0.0.0", false}}
	for _, b := range bound {
		err := checkBound(serveOptions{Addr: "x"}, &net.TCPAddr{IP: net.ParseIP(b.ip), Port: 1})
		if b.ok != (err == nil) {
			t.Errorf("checkBound(%s) = %v, want ok=%v", b.ip, err, b.ok)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1 << 20, true}, {"512MiB", 512 << 20, true}, {"16GiB", 16 << 30, true}, {"1.5GB", 3 << 29, true},
		{"64 KiB", 64 << 10, true}, {"-1", -1, true}, {"0", 0, false}, {"-5MiB", 0, false}, {"lots", 0, false}, {"1e30GiB", 0, false}, {"", 0, false},
	}
	for _, tc := range cases {
		got, err := parseSize(tc.in)
		if tc.ok != (err == nil) || (tc.ok && got != tc.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
