package turntaking

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// Chunk is a run of mono PCM16 samples placed on a timeline.
type Chunk struct {
	StartMs float64
	Rate    int
	PCM     []byte // little-endian 16-bit
}

// VADChunks is VAD over chunks placed on one timeline (gaps between chunks
// are silence): frames are taken within each chunk, then speech frames are
// joined and filtered across chunks by the same rule.
func VADChunks(chunks []Chunk, opt *VADOptions) []Interval {
	o := opt.withDefaults()
	var raw []Interval
	for _, c := range chunks {
		if n := len(c.PCM) / 2; c.Rate > 0 && n > 0 {
			raw = o.frames(raw, c.StartMs, n, c.Rate, func(k int) float64 {
				return float64(int16(binary.LittleEndian.Uint16(c.PCM[2*k:]))) / 32768
			})
		}
	}
	return o.dropShort(raw)
}

// Channels reconstructs both channels of a recorded session on the client
// clock (trace milliseconds) and returns their speech intervals:
//
//   - user: the audio of the "send" input_audio_buffer.append events
//     (base64 PCM16 in "audio", sample_rate_hz or 16 000 Hz), laid end to
//     end from the first append's send time (the input media timeline of
//     a paced stream);
//   - model: the audio of "recv" response.output_audio.delta events
//     ("delta", else "audio"; sample_rate_hz or 24 000 Hz) played serially:
//     each packet starts at max(its receive time, the end of the previous
//     packet) — a simulated player, as when no playback clock was recorded.
//     A received output_audio_buffer.cleared stops the player at its
//     receive time: queued audio after that instant is dropped.
func Channels(s trace.Session, opt *VADOptions) (user, model []Interval) {
	c := buildChannels(s)
	return VADChunks(c.user, opt), VADChunks(c.model, opt)
}

// channels is the reconstructed audio of a session.
type channels struct {
	user, model []Chunk
	modelResp   []string          // response id of each model chunk
	transcript  map[string]string // response id → transcript text
	originMs    float64           // t_ms of the first append (user media time 0)
	hasUser     bool
}

func buildChannels(s trace.Session) channels {
	return RecordTrace(s).c
}

// Recorder rebuilds both channels of a session event by event, by the
// rules of Channels, decoding each event once: a live view adds events as
// they are logged and rescores at the cost of VAD alone, where ScoreTrace
// decodes the whole trace again (its JSON and base64 are ~90 % of a
// pass). The zero value is ready; a Recorder is not safe for concurrent
// use.
type Recorder struct {
	c                   channels
	userNext, modelNext float64
	done                map[string]bool // responses whose transcript is final
	lastMs              float64
}

// RecordTrace returns a Recorder holding every event of s.
func RecordTrace(s trace.Session) *Recorder {
	r := &Recorder{}
	for _, ev := range s.Events {
		r.Add(ev)
	}
	return r
}

// LastMs is the trace time of the last event added (0 before any).
func (r *Recorder) LastMs() float64 { return r.lastMs }

// Input kinds: what of an event the channels use.
const (
	InputUser            = "user"             // sent audio (an append)
	InputModel           = "model"            // received model audio (an output_audio.delta)
	InputCleared         = "cleared"          // output_audio_buffer.cleared: the player stops
	InputTranscript      = "transcript"       // a transcript delta
	InputTranscriptFinal = "transcript_final" // the response's whole transcript
)

// Input is one event's part in the channels, decoded once: the session
// worker decodes each event for its player and hands the page these, so
// the page's live pass never reads the wire again.
type Input struct {
	TMs        float64
	Kind       string // Input* ("" : nothing for the channels)
	ResponseID string
	PCM        []byte // PCM16 LE mono (user, model)
	Rate       int
	Text       string // transcript, transcript_final
}

// DecodeInput reads what the channels take from ev (Kind "" when nothing).
func DecodeInput(ev trace.Event) Input {
	in := Input{TMs: ev.TMs}
	var e struct {
		Type       string          `json:"type"`
		Audio      json.RawMessage `json:"audio"`
		Delta      json.RawMessage `json:"delta"`
		RateHz     json.RawMessage `json:"sample_rate_hz"`
		ResponseID json.RawMessage `json:"response_id"`
		Response   json.RawMessage `json:"response"`
		Transcript string          `json:"transcript"`
	}
	if json.Unmarshal(ev.Event, &e) != nil {
		return in
	}
	in.ResponseID, _ = protocol.IdentityOfFields(e.ResponseID, e.Response) // "" = none, as metrics
	switch {
	case ev.Dir == trace.DirSend && e.Type == "input_audio_buffer.append":
		in.Kind = InputUser
		in.PCM, in.Rate = decodePCM(e.Audio, e.RateHz, 16000)
	case ev.Dir == trace.DirRecv && e.Type == "response.output_audio.delta":
		payload := e.Delta
		if len(pcmString(payload)) == 0 {
			payload = e.Audio
		}
		in.Kind = InputModel
		in.PCM, in.Rate = decodePCM(payload, e.RateHz, 24000)
	case ev.Dir == trace.DirRecv && e.Type == "output_audio_buffer.cleared":
		in.Kind = InputCleared
	case ev.Dir == trace.DirRecv && e.Type == "response.output_audio_transcript.delta":
		in.Kind, in.Text = InputTranscript, pcmString(e.Delta)
	case ev.Dir == trace.DirRecv && e.Type == "response.output_audio_transcript.done":
		in.Kind, in.Text = InputTranscriptFinal, e.Transcript
	}
	return in
}

// Add adds the next event of the session (events in trace order).
func (r *Recorder) Add(ev trace.Event) { r.AddInput(DecodeInput(ev)) }

// AddInput adds the next event's input (trace order).
func (r *Recorder) AddInput(in Input) {
	r.lastMs = max(r.lastMs, in.TMs)
	c := &r.c
	if c.transcript == nil {
		c.transcript, r.done = map[string]string{}, map[string]bool{}
	}
	rid := in.ResponseID
	switch in.Kind {
	case InputUser:
		if len(in.PCM) == 0 {
			return
		}
		if !c.hasUser {
			r.userNext, c.hasUser, c.originMs = in.TMs, true, in.TMs
		}
		c.user = append(c.user, Chunk{StartMs: r.userNext, Rate: in.Rate, PCM: in.PCM})
		r.userNext += float64(len(in.PCM)/2) * 1000 / float64(in.Rate)
	case InputModel:
		if len(in.PCM) == 0 {
			return
		}
		start := max(in.TMs, r.modelNext)
		c.model = append(c.model, Chunk{StartMs: start, Rate: in.Rate, PCM: in.PCM})
		c.modelResp = append(c.modelResp, rid)
		r.modelNext = start + float64(len(in.PCM)/2)*1000/float64(in.Rate)
	case InputCleared:
		c.model, c.modelResp = cutAt(c.model, c.modelResp, in.TMs)
		r.modelNext = min(r.modelNext, in.TMs)
	case InputTranscript:
		if !r.done[rid] {
			c.transcript[rid] += in.Text
		}
	case InputTranscriptFinal:
		if in.Text != "" {
			c.transcript[rid], r.done[rid] = in.Text, true
		}
	}
}

// cutAt drops model audio scheduled at or after t and shortens the chunk
// playing at t.
func cutAt(chunks []Chunk, resp []string, t float64) ([]Chunk, []string) {
	n := 0
	for i, ch := range chunks {
		if ch.StartMs >= t {
			continue
		}
		keep := int((t - ch.StartMs) * float64(ch.Rate) / 1000)
		if 2*keep < len(ch.PCM) {
			ch.PCM = ch.PCM[:2*keep]
		}
		chunks[n], resp[n] = ch, resp[i]
		n++
	}
	return chunks[:n], resp[:n]
}

func pcmString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func decodePCM(payload, rateRaw json.RawMessage, def int) ([]byte, int) {
	s := pcmString(payload)
	if s == "" {
		return nil, 0
	}
	pcm, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, 0
	}
	rate := def
	var r int
	if json.Unmarshal(rateRaw, &r) == nil && r > 0 {
		rate = r
	}
	return pcm, rate
}

// UserSpeech is VAD over the user channel held so far (the sent audio, on
// the trace clock): the speech intervals the speech-end anchors come from.
func (r *Recorder) UserSpeech(opt *VADOptions) []Interval { return VADChunks(r.c.user, opt) }

// SpeechEndToFirstSound pairs replies with the user speech they answer:
// for each reply's first-sound instant (same clock as user), the time
// since the end of the last user speech interval that ended at or before
// it. A reply gets nil when the user was still speaking at that instant
// (it talked over the user), when no user speech ended before it, or when
// an earlier reply already sounded after that speech end (only the first
// reply after a speech end answers it; later ones would count the same
// silence twice). nil entries of firstSound (never played) stay nil.
func SpeechEndToFirstSound(user []Interval, firstSound []*float64) []*float64 {
	out := make([]*float64, len(firstSound))
	for i, t := range firstSound {
		if t == nil {
			continue
		}
		speaking := false
		for _, iv := range user {
			if iv.StartMs <= *t && *t < iv.EndMs {
				speaking = true
				break
			}
		}
		end, ok := LastEndBefore(user, *t)
		if speaking || !ok {
			continue
		}
		answered := false
		for j, u := range firstSound {
			if j != i && u != nil && *u >= end && (*u < *t || *u == *t && j < i) {
				answered = true
				break
			}
		}
		if !answered {
			v := *t - end
			out[i] = &v
		}
	}
	return out
}
