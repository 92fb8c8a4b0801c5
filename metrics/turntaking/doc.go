// Package turntaking computes Full-Duplex-Bench style turn-taking scores
// from the speech intervals of two channels (user input, model output):
// takeover rate (TOR) per case category and response latency over the
// takeover cases.
//
// # Speech detection
//
// VAD is a documented energy rule, not a model: the signal is cut into
// non-overlapping frames (20 ms by default); a frame is speech when its RMS
// level is at least ThresholdDBFS (−40 dBFS, full scale = 1.0); speech
// frames closer than MinSilenceMs (200 ms) are joined; segments shorter
// than MinSpeechMs (100 ms) are dropped. Intervals are in milliseconds from
// the first sample, on whatever clock the samples were placed on (input
// send clock for the user channel, playback or receive clock for the model
// channel); the caller keeps both channels on one clock.
//
// # Scores
//
// A case anchors a window [AnchorMs, AnchorMs+WindowMs) at the user's speech
// end (pause, backchannel, turn end) or at the interruption onset. The model
// takes the turn when one of its speech segments starts inside the window
// and is not a backchannel; a backchannel is model speech shorter than 1 s
// (and, where a transcript exists, of at most 3 words). Speech already under
// way at the anchor is not a takeover. TOR = takeovers / cases per category
// (lower is better for pauses and user backchannels, higher for turn ends
// and interruptions); response latency = model onset − anchor, averaged over
// the takeover cases only. Every score carries its denominator.
//
// Channels rebuilds both channels of a recorded session trace (user input
// audio laid end to end from the first append, model audio played
// serially from its receive times, stopped at output_audio_buffer.cleared)
// and runs VAD on each.
//
// # Labelled sessions
//
// ScoreTrace scores a recorded session against Labels (the "turntaking"
// member of a dataset record, dataset "turntaking"; times on the clip's own
// clock): each label is moved to the trace clock by the first append's send
// time and snapped to the user channel's detected speech edge when one is
// within SnapMs (150 ms); model segments get the word count of the
// transcripts of the responses heard in them (−1 when none had one), so
// the backchannel rule can use it. Cards and Merge summarise case results
// of many sessions by the same rule as Score.
// A Recorder rebuilds the channels event by event (each event decoded
// once) and scores what it holds exactly as ScoreTrace scores that prefix
// of the trace, for live views; Rule states the rule in words.
//
// The package is pure (no I/O, no clock) and builds for wasm.
package turntaking
