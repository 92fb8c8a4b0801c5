//go:build !js

package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/report"
)

// listenPage is the share page's "Listen" and "What was said" sections
// (templates/listen.html).
type listenPage struct {
	Listen      []listenView
	ListenNote  string // why nothing plays, when nothing does
	Transcripts []transcriptLine
	// TranscriptNote says where the user's lines come from when the server
	// sent no transcription of the input.
	TranscriptNote string
	Export         bool // the single-file HTML export: no links out
	exportFields
}

// MaxListen is the longest lane the player rebuilds, in seconds.
func (listenPage) MaxListen() int { return MaxListenSeconds }

// listenView is one session's player.
type listenView struct {
	Index    int
	Session  string
	Duration string
	// Mix, Input and Replies are the rebuilt lanes: URLs on the share page,
	// data: URIs (Mix only) in the HTML export.
	Mix, Input, Replies template.URL
	Starts              []replyStart
	Cut                 bool
}

// replyStart is when a reply starts playing in the player.
type replyStart struct {
	ResponseID string
	AtS        string // seconds since stream start, 3 decimals
	At         string // "12.3 s"
}

// transcriptLine is one line of "What was said".
type transcriptLine struct {
	Session, Who, At, AtS, Text, Origin, ResponseID string
	Playable                                        bool // its session has a player: the time seeks it
}

func fmtS(s float64) string { return strconv.FormatFloat(s, 'f', 2, 64) + " s" }

// addListen fills the player, transcripts and the session timeline chart
// of a report's page. export builds the single-file variant (lanes inlined
// as data: URIs, mixed lane only); budget bounds the bytes inlined there
// (0: no bound), and errExportTooLarge says it would be exceeded.
func (s *Server) addListen(ctx context.Context, p *page, rep *report.Report, id string, export bool, budget int64) error {
	p.Export = export
	sessions := listenSessions(rep)
	base := "/api/reports/" + id + "/audio/"
	var used int64
	byResp := map[string]float64{}
	var first *sessionAudio // the session the timeline chart shows
	firstSID := ""
	var wireTexts []transcriptLine
	userFromWire := false
	for _, ls := range sessions {
		sa, err := s.sessionAudioFor(ctx, id, ls)
		if err != nil {
			s.log.Warn("listen", "id", id, "session", ls.Session.SessionID, "err", err)
			p.ListenNote = "The wire log of session " + ls.Session.SessionID + " could not be read, so it cannot be played."
			if errors.Is(err, errNoWireLog) {
				p.ListenNote = "The wire log of session " + ls.Session.SessionID + " is not stored (its upload may not have finished), so it cannot be played."
			}
			continue
		}
		v := listenView{Index: ls.Index, Session: ls.Session.SessionID, Duration: fmtS(sa.DurationS()), Cut: sa.Cut}
		if export {
			b, ok := sa.wav("mix")
			if !ok {
				continue
			}
			used += int64(base64.StdEncoding.EncodedLen(len(b))) + 32
			if budget > 0 && used > budget {
				return errExportTooLarge
			}
			v.Mix = template.URL("data:audio/wav;base64," + base64.StdEncoding.EncodeToString(b))
		} else {
			q := "?session=" + strconv.Itoa(ls.Index)
			v.Mix, v.Input, v.Replies = template.URL(base+"mix.wav"+q), template.URL(base+"input.wav"+q), template.URL(base+"replies.wav"+q)
		}
		for _, rid := range sa.ReplyOrder {
			at := sa.ReplyStartS[rid]
			byResp[ls.Session.SessionID+"\x00"+rid] = at
			v.Starts = append(v.Starts, replyStart{ResponseID: rid, AtS: strconv.FormatFloat(at, 'f', 3, 64), At: fmtS(at)})
		}
		p.Listen = append(p.Listen, v)
		for _, tt := range sa.Texts {
			if tt.Who == "user" {
				userFromWire = true
				wireTexts = append(wireTexts, transcriptLine{Session: ls.Session.SessionID, Who: "user", At: fmtS(tt.AtS),
					AtS: strconv.FormatFloat(tt.AtS, 'f', 3, 64), Text: tt.Text, Origin: tt.Origin})
			}
		}
		if first == nil {
			first, firstSID = sa, ls.Session.SessionID
		}
	}
	if len(sessions) == 0 {
		p.ListenNote = "This report has no wire log, so its session cannot be replayed here."
		if hasAttachmentKind(rep, report.AttachOutputAudio) {
			p.ListenNote += " output.wav under Downloads holds the replies end to end (not on the session's timeline)."
		}
	}
	p.Transcripts = append(p.Transcripts, wireTexts...)
	var clipCaptions []chart.Caption
	if !userFromWire {
		sentS := -1.0
		if first != nil {
			sentS = float64(len(first.Input)) / 2 / inputRate
		}
		lines := s.captionLines(rep, sentS)
		p.Transcripts, p.TranscriptNote = append(p.Transcripts, lines...), captionNote(rep, s)
		for _, l := range lines {
			if at, err := strconv.ParseFloat(l.AtS, 64); err == nil && l.Session == firstSID {
				clipCaptions = append(clipCaptions, chart.Caption{TS: at, Lane: chart.LaneUser, Text: clip40(l.Text)})
			}
		}
	}
	if first != nil {
		p.Charts = append(p.Charts, sessionTimelineChart("chart-session", first, rep, firstSID, clipCaptions))
	}
	p.Transcripts = append(p.Transcripts, modelTranscripts(rep, byResp)...)
	markPlayable(p.Listen, p.Transcripts)
	sortTranscripts(rep, p.Transcripts)
	return nil
}

// modelTranscripts are the model's transcripts as the report stores them,
// at the time the reply starts playing when the wire log tells it (byResp:
// session id NUL response id → seconds since stream start).
func modelTranscripts(rep *report.Report, byResp map[string]float64) []transcriptLine {
	var out []transcriptLine
	for _, x := range rep.Responses {
		if strings.TrimSpace(x.Transcript) == "" {
			continue
		}
		l := transcriptLine{Session: x.SessionID, Who: "model", Text: x.Transcript, ResponseID: x.ResponseID, Origin: "model transcript"}
		if at, ok := byResp[x.SessionID+"\x00"+x.ResponseID]; ok {
			l.At, l.AtS = fmtS(at), strconv.FormatFloat(at, 'f', 3, 64)
			l.Origin = "model transcript · reply starts (playback placement)"
		}
		out = append(out, l)
	}
	return out
}

// markPlayable marks the lines whose session has a player, so their time
// seeks it.
func markPlayable(listen []listenView, lines []transcriptLine) {
	playable := map[string]bool{}
	for _, v := range listen {
		playable[v.Session] = true
	}
	for i := range lines {
		lines[i].Playable = playable[lines[i].Session]
	}
}

// sortTranscripts puts lines one session after another (in the report's
// session order), each in time order (lines without a time, dataset clip
// text, first).
func sortTranscripts(rep *report.Report, lines []transcriptLine) {
	order := map[string]int{}
	for i, se := range rep.Sessions {
		if _, ok := order[se.SessionID]; !ok {
			order[se.SessionID] = i
		}
	}
	at := func(l transcriptLine) float64 {
		if v, err := strconv.ParseFloat(l.AtS, 64); err == nil {
			return v
		}
		return -1
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if order[a.Session] != order[b.Session] {
			return order[a.Session] < order[b.Session]
		}
		return at(a) < at(b)
	})
}

func hasAttachmentKind(r *report.Report, kind string) bool {
	for _, a := range r.Attachments {
		if a.Kind == kind {
			return true
		}
	}
	return false
}

// captionLines are the dataset's clip texts standing in for the user's
// words when the server sent no transcription: per session by sample id
// (CLI runs), else the clips of the dataset at their offsets on the one
// joined stream of a browser run, those that started before sentS seconds
// of input were sent (sentS < 0: unknown, all clips, untimed).
func (s *Server) captionLines(rep *report.Report, sentS float64) []transcriptLine {
	if rep.Run.Source.Kind != report.SourceDataset || rep.Run.Source.Dataset == "" {
		return nil
	}
	clips, fsys, ok := s.datasetManifest(rep.Run.Source.Dataset)
	if !ok {
		return nil
	}
	text := map[string]string{}
	for _, c := range clips {
		text[c.SampleID] = c.Text
	}
	origin := "clip text of dataset " + rep.Run.Source.Dataset
	var out []transcriptLine
	for _, se := range rep.Sessions {
		if t := text[se.SampleID]; se.SampleID != "" && strings.TrimSpace(t) != "" {
			out = append(out, transcriptLine{Session: se.SessionID, Who: "user", At: fmtS(0), AtS: "0.000", Text: t, Origin: origin})
		}
	}
	if len(out) > 0 {
		return out
	}
	sid := ""
	if len(rep.Sessions) == 1 {
		sid = rep.Sessions[0].SessionID
	}
	if len(clips) > maxCaptionClips {
		clips = clips[:maxCaptionClips]
	}
	offs, timed := clipOffsets(fsys, clips, rep.Run.FrameMs)
	for i, c := range clips {
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		l := transcriptLine{Session: sid, Who: "user", Text: c.Text, Origin: origin + " (clip " + c.SampleID + ")"}
		if timed && sentS >= 0 {
			if offs[i] >= sentS {
				break // never sent: the run stopped before this clip
			}
			l.At, l.AtS = fmtS(offs[i]), strconv.FormatFloat(offs[i], 'f', 3, 64)
		}
		out = append(out, l)
	}
	return out
}

// maxCaptionClips bounds the clips read for one page.
const maxCaptionClips = 200

// Gaps the page puts between dataset clips (app/dataset-source.go:
// clipGapMs, labelledGapMs).
const (
	pageClipGapMs     = 1500
	pageLabelledGapMs = 6000
)

// clipOffsets places a served dataset's clips on a browser run's joined
// input stream as the page joins them (app/dataset-source.go loadDataset):
// each clip after the ones before it and a gap of silence (a labelled
// set's gap rounded up so the clip starts on a frame boundary). ok is
// false when a clip cannot be read.
func clipOffsets(fsys fs.FS, clips []manifestLine, frameMs int) ([]float64, bool) {
	labelled := false
	for _, c := range clips {
		if t := strings.TrimSpace(string(c.TurnTaking)); t != "" && t != "null" {
			labelled = true
		}
	}
	var out []float64
	cursor := 0 // bytes of 16 kHz PCM16
	for i, c := range clips {
		b, err := fs.ReadFile(fsys, c.Audio)
		if err != nil {
			return nil, false
		}
		clip, err := audio.DecodeWAV(b)
		if err != nil {
			return nil, false
		}
		if i > 0 {
			gap := audio.FrameBytes(inputRate, pageClipGapMs)
			if labelled {
				gap = audio.FrameBytes(inputRate, pageLabelledGapMs)
				if f := audio.FrameBytes(inputRate, frameMs); f > 0 {
					if r := (cursor + gap) % f; r != 0 {
						gap += f - r
					}
				}
			}
			cursor += gap
		}
		out = append(out, float64(cursor)/2/inputRate)
		cursor += len(audio.ToInputPCM16(clip))
	}
	return out, true
}

func captionNote(rep *report.Report, s *Server) string {
	if rep.Run.Source.Kind != report.SourceDataset {
		return "The server sent no transcription of the input."
	}
	if _, _, ok := s.datasetManifest(rep.Run.Source.Dataset); !ok {
		return "The server sent no transcription of the input, and dataset " + rep.Run.Source.Dataset + " is not served here to show its clip text."
	}
	return "The server sent no transcription of the input: the user's lines are the dataset's clip text (what the clips say, not what the server recognised)."
}

// sessionTimelineChart is the two-lane timeline of one session: the rebuilt
// input and replies on one time axis, with markers and transcript marks.
func sessionTimelineChart(id string, sa *sessionAudio, rep *report.Report, sid string, extra []chart.Caption) chartView {
	tl := chart.Timeline{User: levels(sa.Input, inputRate), Model: levels(sa.Replies, replyRate), Markers: sa.Markers, Captions: extra}
	for _, tt := range sa.Texts {
		l := chart.LaneUser
		if tt.Who == "model" {
			l = chart.LaneModel
		}
		tl.Captions = append(tl.Captions, chart.Caption{TS: tt.AtS, Lane: l, Text: clip40(tt.Text)})
	}
	have := map[string]bool{}
	for _, tt := range sa.Texts {
		if tt.Who == "model" {
			have[tt.ResponseID] = true
		}
	}
	for _, x := range rep.Responses {
		if at, ok := sa.ReplyStartS[x.ResponseID]; ok && x.SessionID == sid && !have[x.ResponseID] && strings.TrimSpace(x.Transcript) != "" {
			tl.Captions = append(tl.Captions, chart.Caption{TS: at, Lane: chart.LaneModel, Text: clip40(x.Transcript)})
		}
	}
	b, err := chart.TimelineOptionsThemed(tl, chart.LightTheme) // the share page is light
	if err != nil {
		b = []byte("{}")
	}
	return chartView{ID: id, Title: fmt.Sprintf("Session %s — user and model on one time axis (seconds since stream start)", sid),
		Points: len(tl.User) + len(tl.Model), JSON: template.JS(b)}
}

func clip40(s string) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return string(r)
}
