package audio_test

import (
	"fmt"

	"github.com/duplexscope/duplexscope/audio"
)

func ExampleFrameBytes() {
	fmt.Println(audio.FrameBytes(audio.InputRate, 200), audio.FrameBytes(audio.InputRate, 80), audio.FrameBytes(audio.OutputRate, 100))
	fmt.Println(audio.BytesToMs(4800, audio.OutputRate), audio.BytesToMsFloor(6398, audio.InputRate))
	// Output:
	// 6400 2560 4800
	// 100 199
}
