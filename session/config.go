package session

import (
	"context"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// Config configures a Session. The zero value of every field means its
// documented default; a nil *Config is not accepted.
type Config struct {
	URL   string // server base URL (ws/wss/http/https); duplex=1 and autostart=0 are forced, model= defaulted
	Model string // served model name (session.update model and the model= query key)

	FrameMs      int    // input append size in ms: 200, 80, 1000, …; 0: 200, or the server's tick when smaller (tick.go)
	RefAudio     []byte // optional reference voice WAV → session.ref_audio data URL
	Instructions string // default "Streaming Omni Conversation."
	ServerVAD    bool   // turn_detection server_vad (1.5 s silence tail, no commit) instead of model-native
	NativeDuplex bool   // send minicpmo45_native_duplex (MiniCPM-o); also added to the URL

	Settle            time.Duration // completion settle (no new event for this long), default 2 s
	HandshakeTimeout  time.Duration // wait for session.created, default 20 s
	CompletionTimeout time.Duration // wait for the completion rule after the stream, default 900 s
	CloseTimeout      time.Duration // wait for session.closed, default 20 s
	PollInterval      time.Duration // completion / ack poll period, default 50 ms
	// PaceSpin, when > 0, makes PaceFrames sleep until PaceSpin before a
	// frame is due and spin on the clock for the rest: a browser timer
	// (Go's wasm timers are setTimeouts, rounded up to whole ms) wakes
	// 1–2 ms late, and that lateness is the send's lag. 0: sleep only.
	PaceSpin time.Duration

	Clock     Clock   // nil: SystemClock()
	Sleeper   Sleeper // nil: Clock when it is a Sleeper, else SystemClock()
	Transport string  // "" (native: coder; wasm: browser), TransportCoder, TransportBrowser
	// SocketWorker, in the browser (transport browser), is the script of a
	// dedicated worker that owns the WebSocket and stamps each message in
	// its own onmessage (web/socket-worker.js): this realm's decoding then
	// never delays a stamp. The session worker sets it (after calling
	// UseSocketWorker); if the script cannot start, the socket opens here
	// and the wire log says why.
	SocketWorker string
	// Dialer, when set, replaces Transport (in-memory tests, custom transports).
	Dialer func(ctx context.Context, url string, clock Clock) (Conn, error)

	// ExternalPlayback: the caller reports real playback with Played and
	// the session sends no acks of its own; otherwise a simulated serial
	// playback clock drives OmniInteract-style acks.
	ExternalPlayback bool

	// Customize, when set, may edit the benchmark-style session.update
	// before it is sent (voice, temperature, extra_body knobs of a preset).
	Customize func(*protocol.SessionConfig)

	SampleID, Split string // copied into the wire log's session meta (both or neither)

	// Video, when set, attaches video frames to appends (video.go); the
	// wire log keeps each frame as {"bytes", "sha256"} unless KeepVideo.
	Video     VideoSource
	KeepVideo bool
	// SessionID, when set, is the client's id for the session as the
	// reference benchmarks write it (docs/metrics.md#session-ids): the wire log's
	// session.session_id carries it and the server's id moves to
	// duplexscope.server_session_id.
	SessionID string
	Observers []Observer // get every wire-log entry and lifecycle change

	// Thread and TimeOrigins describe where a browser session ran:
	// "worker" or "main", and each realm's performance.timeOrigin (ms since
	// the epoch), recorded in the wire log so stamps taken in a worker map
	// onto the page's timeline (docs: session.duplexscope.time_origins).
	Thread      string
	TimeOrigins *TimeOrigins

	// StallMs and StallEveryMs record the page's debug main-thread stall
	// (the page's stall_ms, stall_every_ms) in the wire log's duplexscope
	// meta, so a stalled run is never read as a normal one; the session
	// itself does nothing with them.
	StallMs, StallEveryMs int
}

// TimeOrigins are the performance.timeOrigin values (ms since the epoch) of
// the page and, when the session ran in one, the worker.
type TimeOrigins struct {
	Page   float64 `json:"page"`
	Worker float64 `json:"worker,omitempty"`
	// Socket: the socket worker's (Config.SocketWorker), when the
	// WebSocket ran in one.
	Socket float64 `json:"socket,omitempty"`
}

func (c Config) withDefaults() Config {
	if c.FrameMs <= 0 {
		c.FrameMs = FrameOmniInteract
	}
	if c.Instructions == "" {
		c.Instructions = "Streaming Omni Conversation."
	}
	if c.Settle <= 0 {
		c.Settle = 2 * time.Second
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 20 * time.Second
	}
	if c.CompletionTimeout <= 0 {
		c.CompletionTimeout = 900 * time.Second
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = 20 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 50 * time.Millisecond
	}
	if c.Clock == nil {
		c.Clock = SystemClock()
	}
	if c.Sleeper == nil {
		if s, ok := c.Clock.(Sleeper); ok {
			c.Sleeper = s
		} else {
			c.Sleeper = SystemClock().(Sleeper)
		}
	}
	if c.Transport == "" {
		c.Transport = defaultTransport
	}
	return c
}
