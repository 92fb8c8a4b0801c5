package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrNoFFmpeg is returned (wrapped) when non-WAV media needs ffmpeg and none
// is installed.
var ErrNoFFmpeg = errors.New("ffmpeg not found: non-WAV media (video soundtracks, mp3, …) needs it; install it with `apt-get install ffmpeg` or convert the file to WAV")

// decodeFFmpeg extracts the first audio stream of file as 16 kHz mono s16le.
func decodeFFmpeg(ctx context.Context, bin, file string) ([]byte, error) {
	exe, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w (looked for %q)", ErrNoFFmpeg, bin)
	}
	cmd := exec.CommandContext(ctx, exe, "-nostdin", "-v", "error", "-i", file,
		"-vn", "-ac", "1", "-ar", "16000", "-f", "s16le", "-acodec", "pcm_s16le", "-")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ffmpeg: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if out.Len() == 0 {
		return nil, errors.New("ffmpeg: no audio stream decoded")
	}
	b := out.Bytes()
	return b[:len(b)&^1], nil
}
