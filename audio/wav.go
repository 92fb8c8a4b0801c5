package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Clip is decoded mono audio.
type Clip struct {
	Rate    int       // sample rate in Hz
	Samples []float32 // mono, [-1, 1]
}

// Duration is the clip's length in seconds.
func (c *Clip) Duration() float64 {
	if c.Rate <= 0 {
		return 0
	}
	return float64(len(c.Samples)) / float64(c.Rate)
}

// WAV format tags.
const (
	wavPCM        = 1
	wavFloat      = 3
	wavExtensible = 0xFFFE
)

// ErrNotWAV is returned (wrapped) for input that is not a RIFF/WAVE file.
var ErrNotWAV = errors.New("not a RIFF/WAVE file")

// ReadWAV decodes a WAV file: integer PCM of 8, 16, 24 or 32 bits or IEEE
// float of 32 or 64 bits (plain or WAVE_FORMAT_EXTENSIBLE), any rate, any
// channel count. Multi-channel audio is mixed down to mono by averaging.
// A data chunk whose declared size runs past the end of the file (streamed
// WAVs) is read to the end.
func ReadWAV(r io.Reader) (*Clip, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read wav: %w", err)
	}
	return DecodeWAV(data)
}

// DecodeWAV is ReadWAV on bytes in memory.
func DecodeWAV(data []byte) (*Clip, error) {
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return nil, fmt.Errorf("decode wav: %w", ErrNotWAV)
	}
	var (
		haveFmt             bool
		tag, channels, bits int
		rate                int
		blockAlign          int
		pcm                 []byte
		haveData            bool
	)
	p := 12
	for p+8 <= len(data) {
		id := string(data[p : p+4])
		size := int(binary.LittleEndian.Uint32(data[p+4:]))
		body := p + 8
		end := body + size
		if size < 0 || end > len(data) || end < body {
			end = len(data)
		}
		switch id {
		case "fmt ":
			if end-body < 16 {
				return nil, fmt.Errorf("decode wav: fmt chunk of %d bytes, want ≥ 16", end-body)
			}
			f := data[body:end]
			tag = int(binary.LittleEndian.Uint16(f[0:]))
			channels = int(binary.LittleEndian.Uint16(f[2:]))
			rate = int(binary.LittleEndian.Uint32(f[4:]))
			blockAlign = int(binary.LittleEndian.Uint16(f[12:]))
			bits = int(binary.LittleEndian.Uint16(f[14:]))
			if tag == wavExtensible {
				if len(f) < 26 {
					return nil, errors.New("decode wav: WAVE_FORMAT_EXTENSIBLE fmt chunk too short")
				}
				tag = int(binary.LittleEndian.Uint16(f[24:])) // first two bytes of the sub-format GUID
			}
			haveFmt = true
		case "data":
			pcm = data[body:end]
			haveData = true
		}
		p = end + (size & 1) // chunks are padded to even sizes
		if haveData && haveFmt {
			break
		}
	}
	if !haveFmt {
		return nil, errors.New("decode wav: no fmt chunk")
	}
	if !haveData {
		return nil, errors.New("decode wav: no data chunk")
	}
	if channels < 1 || rate < 1 {
		return nil, fmt.Errorf("decode wav: %d channels at %d Hz", channels, rate)
	}
	bytesPer := bits / 8
	if bits%8 != 0 || bytesPer < 1 {
		return nil, fmt.Errorf("decode wav: unsupported %d-bit samples", bits)
	}
	if blockAlign < bytesPer*channels {
		blockAlign = bytesPer * channels
	}
	var dec func([]byte) float64
	switch {
	case tag == wavPCM && bits == 8:
		dec = func(b []byte) float64 { return (float64(b[0]) - 128) / 128 }
	case tag == wavPCM && bits == 16:
		dec = func(b []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(b))) / 32768 }
	case tag == wavPCM && bits == 24:
		dec = func(b []byte) float64 {
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			return float64(v) / (1 << 23)
		}
	case tag == wavPCM && bits == 32:
		dec = func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31) }
	case tag == wavFloat && bits == 32:
		dec = func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	case tag == wavFloat && bits == 64:
		dec = func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
	default:
		return nil, fmt.Errorf("decode wav: unsupported format tag %d with %d-bit samples", tag, bits)
	}
	frames := len(pcm) / blockAlign
	out := make([]float32, frames)
	inv := 1 / float64(channels)
	for i := 0; i < frames; i++ {
		fr := pcm[i*blockAlign:]
		var s float64
		for c := 0; c < channels; c++ {
			s += dec(fr[c*bytesPer:])
		}
		out[i] = float32(s * inv)
	}
	return &Clip{Rate: rate, Samples: out}, nil
}

// EncodeWAV returns a mono PCM16 WAV file of samples at rate Hz.
func EncodeWAV(samples []float32, rate int) []byte {
	var b bytes.Buffer
	_ = WriteWAV(&b, samples, rate) // a bytes.Buffer never fails
	return b.Bytes()
}

// WriteWAV writes samples as a mono PCM16 WAV file at rate Hz.
func WriteWAV(w io.Writer, samples []float32, rate int) error {
	return WritePCM16WAV(w, FloatToPCM16(samples), rate)
}

// WritePCM16WAV wraps little-endian mono PCM16 bytes in a WAV header.
func WritePCM16WAV(w io.Writer, pcm []byte, rate int) error {
	hdr := make([]byte, 44)
	copy(hdr[0:], "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:], uint32(36+len(pcm)))
	copy(hdr[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(hdr[16:], 16)
	binary.LittleEndian.PutUint16(hdr[20:], wavPCM)
	binary.LittleEndian.PutUint16(hdr[22:], 1)
	binary.LittleEndian.PutUint32(hdr[24:], uint32(rate))
	binary.LittleEndian.PutUint32(hdr[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(hdr[32:], 2)
	binary.LittleEndian.PutUint16(hdr[34:], 16)
	copy(hdr[36:], "data")
	binary.LittleEndian.PutUint32(hdr[40:], uint32(len(pcm)))
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("write wav header: %w", err)
	}
	if _, err := w.Write(pcm); err != nil {
		return fmt.Errorf("write wav data: %w", err)
	}
	return nil
}

// ToInputPCM16 converts a clip of any rate to the protocol's input format:
// 16 kHz mono little-endian PCM16.
func ToInputPCM16(c *Clip) []byte {
	return FloatToPCM16(Resample(c.Samples, c.Rate, InputRate))
}
