//go:build !js

// Package sim is a protocol-faithful simulator of vLLM-Omni's full-duplex
// realtime endpoint (docs/protocol.md#simulator), with ground-truth timings and fault
// injection. It stands in for a GPU server in tests, in the demo page and
// for measuring duplexscope's own measurement error.
//
// # Mounting
//
//	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
//	opts := sim.RegisterFlags(fs) // --sim-profile --sim-fault --sim-event-names --sim-scenario --sim-seed --sim-rtf --sim-behavior
//	_ = fs.Parse(args)
//	s, err := sim.New(opts)       // error: unknown profile/fault, bad scenario file
//	for _, p := range sim.Routes() { mux.Handle(p, s) } // "/v1/realtime", "/sim/"
//	defer s.Close()               // ends live sessions (close 1001) and waits for them
//
// Routes: GET /v1/realtime (websocket; any query is accepted, duplex=1 is
// not enforced), GET /sim/sessions/{id}/truth ({id} = session.created's
// session.id; 404 when unknown or evicted; the last 1 000 sessions are
// kept), GET /sim/sessions (kept ids), GET /sim/options (profiles, faults
// and behaviours with descriptions, for menus).
//
// Per-session websocket query parameters win over the flags: model,
// sim_profile, sim_fault (comma list; empty = none), sim_event_names
// (current|legacy), sim_seed, sim_rtf, sim_behavior (comma list),
// sim_ttfp_ms and sim_response_ms (fixed overrides), sim_packet_ms (audio
// per output delta), sim_turns_ms (a fixed
// turn schedule, comma-separated input-clock ms, e.g. a dataset sample's
// labelled turn ends). A bad value answers
// the upgrade with HTTP 400 naming the parameter.
//
// # Bounds
//
// Parameters stay in realistic ranges, finite (NaN, ±Inf and out-of-range
// values answer HTTP 400; flags and scenario files fail at start):
// sim_rtf / --sim-rtf / rtf 0.05…10, sim_ttfp_ms 0…60 000,
// sim_response_ms up to 300 000 (5 min), sim_packet_ms and packet_ms
// 10…10 000, sim_turns_ms at most 10 000 entries; scenario draws are
// clamped to the same maxima. Audio packets are generated one at a time, so a session's
// memory does not grow with its response length. At most
// --sim-max-sessions (default 256) sessions are open at once; the next
// gets HTTP 503 with the reason. A client frame may be at most
// MaxFrameBytes (≈1.1 MiB: a 10 s PCM16 append plus two 256 KiB camera
// JPEGs, base64, plus JSON); a bigger one closes the session with 1009.
// session.update's idle_timeout_s is capped at 1 h.
//
// Video (video.go): an append's video_frames must hold 1–2 bare-base64
// JPEG/PNG frames (else error invalid_video_frames, the append is not
// taken). Each frame delays the next response's TTFT and TTFP by
// sim_video_frame_ms / --sim-video-frame-ms (0…1000, default 40): the
// model's image prefill. Truth lists video_frames_received and, per frame,
// the append that carried it (append_index, audio_end_ms after it).
//
// # Session behaviour
//
// The first message must be session.update within 10 s (else an error
// config_timeout and close 1008). The session then gets session.created
// (session.id "duplex-…", model from session.update, else the query, else
// the profile; pcm16 formats; capabilities.chunk_period_ms 1000 or 80) and
// one session.updated. A later session.update is accepted silently, except
// a new model (model_update_unsupported), ref_audio
// (ref_audio_update_unsupported) or a voice after audio was appended
// (voice_update_after_audio_unsupported). Rates default to 16 kHz in and 24 kHz out;
// audio.output.sample_rate_hz may choose 8–48 kHz; any input rate but
// 16 000 is rejected with unsupported_audio_format. Appends are validated
// (base64 → bad_audio, odd length → bad_audio, format or rate →
// unsupported_audio_format, missing audio → bad_event), every error echoing
// the client's event_id in error.event_id. The input clock counts decoded
// bytes, never duration_ms.
//
// User turns come from an energy detector on the 16 kHz input: 20 ms
// frames, speech when the frame RMS ≥ vad.threshold_dbfs (−40 dBFS in the
// built-in profiles), a turn starts after vad.min_speech_ms of speech
// (120 ms minicpmo, 80 personaplex, 60 test) and ends after vad.silence_ms
// of silence (500, 300, 200) or after vad.max_turn_ms (4 000, 4 000,
// 2 000). Scenario period_ms also ends a turn every N ms of input, and
// turns_ms replaces detection with a fixed schedule (dataset runs).
//
// Text comes text_lead_ms before the first audio (a negative lead sends
// audio first; the first audio delta then carries only ttfp_ms and the
// first text adds ttft_ms), or at an independent ttft_ms distribution.
//
// Each answered turn is one response whose request start is the accept
// time of the append that ended the turn; response.created is emitted at
// that start (then conversation.item.added, response.output_item.added,
// response.content_part.added). The first transcript delta comes at TTFT
// with metadata.vllm_omni.response_request_metrics {source, measurement_origin,
// ttft_ms}; response.speak precedes the first audio delta at TTFP, which
// carries ttft_ms and ttfp_ms (repeated on later deltas) and, when
// session.update asked for extra_body.return_stage_metrics (or the
// scenario says "always"), stage_metrics["0"] {num_tokens_out, vllm_ttft_ms,
// vllm_tpot_ms, vllm_itl_ms, vllm_itls_ms} computed by the token-weighted
// rule over the deltas' true emit times (one engine output per delta,
// tokens_per_output tokens each). Audio deltas are base64 PCM16 mono of a
// synthetic voice (glottal pulses through formant filters, never silence),
// format pcm16, sample_rate_hz, metadata.audio_duration_ms cumulative
// integer, paced packet_ms × rtf apart. The response ends with
// output_audio.done, output_audio_transcript.done, content_part.done,
// output_item.done, conversation.item.done, response.done and
// rate_limits.updated. A turn that ends while a response plays is answered
// when it finishes (its request start is then that moment).
//
// Barge-in: barge_in "keep_talking" (minicpmo, test: MiniCPM-o's
// listen_only) ignores user speech during a response; "truncate"
// (personaplex) answers speech onset with output_audio_buffer.cleared and
// response.done status cancelled (status_details.reason "barge_in"), then
// answers the new turn when it ends.
//
// Other client events: input_audio_buffer.commit → committed (item ids,
// input_commit_seq, overlap_deferred when a response is open) and one final
// decision (a response for unanswered speech, else a terminal listen:
// response.created, response.listen with model_listen, response.done);
// an empty buffer → input_audio_buffer_empty. playback.ack →
// playback.acknowledged, or playback_item_not_found for an unknown
// response. session.close → session.closed (reason client_close) and close
// 1000. Also heartbeat → heartbeat_ack, input_audio_buffer.clear → cleared,
// response.cancel / output_audio_buffer.clear → truncation as above,
// response.create → a response now, unknown types → unknown_event. Binary
// frames are ignored. idle_timeout_s (default 300) without client messages →
// session.expired and close. Legacy names (--sim-event-names legacy):
// response.audio.delta, response.audio_transcript.delta, response.audio.done,
// response.audio_transcript.done replace the current names; never both.
//
// # Profiles
//
//	minicpmo     MiniCPM-o 4.5-like (default): 1000 ms units, listen_only, TTFP p50 490 / p99 970 / mean ≈ 552 ms
//	             (piecewise-linear quantiles), text 40 ms before audio, 1000 ms packets at RTF 0.7, ~2.6 s answers, listen beats
//	personaplex  PersonaPlex-like: 80 ms ticks, truncating barge-in, TTFP lognormal median 160 ms, 80 ms packets at RTF 0.9
//	test         fast: TTFP 30 ms, 400 ms answers in 100 ms packets at RTF 0.25, 200 ms silence ends a turn
//	periodic     minicpmo timing, but answers every 3 s of input whatever it holds (muted or silent input too)
//
// # Scenario files
//
// --sim-scenario FILE is JSON with the keys of Scenario; "base" names the
// profile it extends (default minicpmo) and absent keys keep the base's
// values. Distributions are a number (fixed) or {"dist": "fixed"|"normal"|
// "lognormal"|"uniform"|"quantiles", "value", "mean", "stddev", "median",
// "sigma", "points": [[q, v], …], "min", "max"}. Example:
//
//	{"base": "test", "seed": 7, "ttfp_ms": {"dist": "lognormal", "median": 300, "sigma": 0.4},
//	 "rtf": 0.5, "response_ms": 1500, "tokens_per_output": 3, "turns_ms": [2000, 5000, 9000]}
//
// # Faults
//
// --sim-fault / sim_fault, comma-separated:
//
//	no_request_metrics      no response_request_metrics: clients fall back to their receive clock
//	legacy_audio            audio delta/done under legacy names: clients play them, metrics do not count them
//	no_sample_rate          no sample_rate_hz on deltas: clients assume 24 000
//	no_audio_duration       no metadata.audio_duration_ms: clients count decoded bytes
//	audio_field             payload in "audio" instead of "delta": clients read delta, else audio
//	flat_error              errors in the flat {"error":"…","code":"…"} shape: clients parse both shapes
//	unexpected_close        session.closed reason server_shutdown after the first response.done, close 1000:
//	                        clients fail the session as unexpectedly closed, keeping what arrived
//	slow_handshake          session.created after handshake_delay_ms (35 s): clients fail on their handshake timeout
//	dropped_event           the first response's second audio delta is never sent (audio_duration_ms jumps):
//	                        clients continue; byte-counted duration is short of the server's
//	dropped_done            the first response's response.done never comes: the completion wait times out;
//	                        clients flag the session incomplete naming the open response
//	malformed_json          one truncated JSON frame after the first response.created: clients skip it and continue
//	error_event             error {server_error, engine_error} after the first response.done: the session goes on;
//	                        benchmark clients fail it (not a tolerated code) but keep its metrics
//	delayed_burst           each response's audio after the first packet arrives in one burst BurstDelay (1 s)
//	                        after the last packet's normal time, then response.done: client (and true) RTF
//	                        rise, server TTFP unchanged; playback underruns while the burst is held back
//	disconnect_mid_response TCP dropped (no close frame, no session.closed) after the first response's second
//	                        audio delta: clients flag the session incomplete and keep its metrics
//	stalled_reader          the server stops reading for stall_ms (5 s; test 1 s) when the first response
//	                        starts: client sends may block; clients must keep receiving, not deadlock
//	slow_writer             frames written in 1 KiB fragments 20 ms apart: deltas arrive late and bunched;
//	                        clients must not time out mid-frame
//	replayed_events         every event carries server_event_seq; after the first response.done the last 3
//	                        frames come again with their original seqs (a resume replay): clients drop events
//	                        whose seq ≤ the last accepted one, so no response.done is seen twice
//
// # Turn-taking behaviours
//
// --sim-behavior / sim_behavior (issue 11 scores against known answers):
// interrupts_pauses (150 ms of silence ends a turn), ignores_backchannels
// (user turns with < 1 s of speech get no answer), responds_backchannels
// (every turn of ≥ 60 ms speech is answered), slow_takeover (+1 500 ms TTFT
// and TTFP), yields (truncating barge-in, then answers), holds_floor (never
// truncates), contended (+40 ms TTFT and TTFP per other session open on the
// simulator when the turn starts: a known slope for load curves).
//
// # Clocks
//
// Every time in the truth and in response_request_metrics is the
// simulator's server-monotonic Clock (milliseconds since the Server's
// clock origin), read just before a frame is handed to the websocket
// write. ttft_ms/ttfp_ms are first text/audio emit time minus the request
// start and equal the truth exactly; created_ms is response.created's emit
// time, so a client's receive-clock interval created → first audio
// estimates first_audio_ms − created_ms. Tests inject a ManualClock and
// drive the engine without sleeping.
//
// # Code layout
//
// A session is an engine (engine.go): a state machine that never reads a
// clock, its outputs waiting in an outputQueue (queue.go). input.go takes
// client events; turns.go makes user turns from the input (vad.go and a
// turnClock); response.go runs the model's responses; frames.go renders
// their frames; emit.go stamps each frame and records it in the truth
// (truth.go). server.go runs the websocket around an engine.
package sim
