// Package dataset loads the input clips of a headless duplex run: a local
// directory with manifest.jsonl, Omni-DuplexEval and OmniInteract record
// files (docs/metrics.md#dataset-inputs), or the bundled "builtin" set embedded in the binary.
//
// Every sample's audio is delivered as the protocol's input format: 16 kHz
// mono little-endian PCM16. WAV files of any rate, depth and channel count
// are decoded and resampled with audio.Resample (band-limited); any other
// media (video soundtracks, mp3, …) is decoded with the system ffmpeg when
// present, else Load reports a clear error naming the file and the missing
// tool.
//
// # Manifest (manifest.jsonl, one JSON object per line)
//
//	{"sample_id": "greeting", "split": "builtin", "audio": "greeting.wav", "text": "Hello there."}
//
// audio is a path relative to the manifest; text is optional.
//
// # Record layouts (first present non-null key wins)
//
//	sample_id ← sample_id | id | uid | name | video_rel   (stringified)
//	split     ← split | subset | config
//	audio     ← audio | question_audio | question_wav      (path, or {"path": …} / {"bytes": base64})
//	video     ← video | video_path | video_file            (soundtrack via ffmpeg when audio is absent)
//	text      ← text | question_text | question | instruction
//
// A .json file may hold a list or an object with "data" or "samples"; .jsonl
// holds one record per line. Relative media paths resolve against
// Options.MediaRoot, else the manifest's directory. Soundtracks taken from a
// video are padded with zeros (or truncated) to ceil(duration_s)·32 000 bytes,
// as OmniInteract does.
//
// # Standard probe clips
//
// ProbeClip(kind) is the one definition of the clips a barge-in / overlap
// probe injects when it names none (`run --probe`, GET /api/probes, the
// page): interruption and backchannel are the labelled speech of the
// turn-taking cases of the same name, side_talk a builtin sentence at
// −12 dB, noise 1 s of seeded white noise. They are cut from the bundled
// audio, so no WAV is added.
package dataset
