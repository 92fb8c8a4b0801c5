// Package audio converts, reads, writes and resamples the PCM audio a duplex
// session carries: 16 kHz mono PCM16 input, 24 kHz mono PCM16 output.
//
// It is stdlib-only and builds and tests under GOOS=js GOARCH=wasm, so the
// browser page and the headless runner convert audio the same way.
//
// Samples are float32 in [-1, 1] inside the package; PCM16 is little-endian
// signed 16-bit. Float → PCM16 uses the browser demo's asymmetric rule
// (s < 0 ? s·32768 : s·32767, clamped) so page and CLI produce identical bytes.
//
// Resample is a band-limited windowed-sinc (Kaiser) resampler: the low-pass
// cutoff sits at 90 % of the lower Nyquist frequency with ≥ 80 dB stop-band
// attenuation, so a 44.1 kHz recording resampled to 16 kHz keeps its tones
// below ~6.5 kHz unchanged and removes content above 8 kHz instead of
// aliasing it.
package audio
