//go:build !js

package server

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/report"
)

// badge is a small label on share, history and compare: what produced a
// run, what it ran against, whether it finished. Kind and Value are stable
// (data-badge, data-value); Text is for people.
type badge struct {
	Kind, Value, Text, Title string
}

// Target badge values.
const (
	targetSim    = "sim"    // this server's built-in simulator
	targetServer = "server" // anything else: a real server (or another simulator)
)

// clientBadge names who produced a run (run.client).
func clientBadge(client string) badge {
	switch client {
	case report.ClientBrowser:
		return badge{"client", client, "browser", "measured by the browser page (playback clock)"}
	case report.ClientCLI:
		return badge{"client", client, "CLI", "measured by duplexscope run (simulated playback, nothing played)"}
	case report.ClientImport:
		return badge{"client", client, "import", "imported from a vLLM-Omni file (server numbers only)"}
	}
	return badge{"client", "unknown", "unknown client", ""}
}

// targetBadge says whether a run's target_url was this server's built-in
// simulator. The rule (README, "Badges"): the server embeds the simulator,
// the URL's path is the simulator's (/v1/realtime or under /sim/), and its
// host is this server as the request reached it: the request's Host name,
// or a loopback name or address (localhost, 127.0.0.0/8, ::1) or this
// server's own address, on the port the request arrived on or named in its
// Host. Anything else is a real server, named by its host; an empty
// target (imports) has no target badge (ok false).
func (s *Server) targetBadge(r *http.Request, target string) (badge, bool) {
	if target == "" {
		return badge{}, false
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return badge{"target", targetServer, "real server", "target " + target}, true
	}
	if s.cfg.Sim != nil && (u.Path == "/v1/realtime" || strings.HasPrefix(u.Path, "/sim/")) && s.isSelf(r, u) {
		return badge{"target", targetSim, "built-in simulator", "this server's embedded simulator (" + u.Host + u.Path + ")"}, true
	}
	return badge{"target", targetServer, "real server · " + u.Host, "target " + u.Host + u.Path}, true
}

// isSelf reports whether u's host:port is this server as r reached it.
func (s *Server) isSelf(r *http.Request, u *url.URL) bool {
	host, port := splitHost(u.Host)
	if port == "" {
		port = map[string]string{"ws": "80", "http": "80", "wss": "443", "https": "443"}[u.Scheme]
	}
	reqHost, reqPort := splitHost(r.Host)
	var localIP netip.Addr
	localPort := ""
	if ap, ok := localAddr(r); ok {
		localIP, localPort = ap.Addr(), strconv.Itoa(int(ap.Port()))
	}
	if port != reqPort && port != localPort {
		return false
	}
	if host == reqHost || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && (ip.Unmap().IsLoopback() || ip.Unmap() == localIP)
}

// runBadges are a run's badges: client, target, and "incomplete" for a run
// whose sessions did not all finish.
func (s *Server) runBadges(r *http.Request, client, target string, complete bool) []badge {
	out := []badge{clientBadge(client)}
	if b, ok := s.targetBadge(r, target); ok {
		out = append(out, b)
	}
	if !complete {
		out = append(out, badge{"status", "incomplete", "incomplete", "a session ended early or failed; its numbers cover what was measured"})
	}
	return out
}

// runTitle is how pages name a run: its name, else "MODEL" with the prefix.
func runTitle(r *report.Report, prefix string) string {
	if r.Run.Name != "" {
		return r.Run.Name
	}
	return prefix + r.Run.Model
}

// teamView is what share, history and compare show to tell runs apart.
type teamView struct {
	Badges []badge
	// Labels of the run on a share page (nil on other pages).
	Labels *labelsView
}

// labelsView is a run's name, notes (by line) and tags, and the link that
// picks it for a comparison in history.
type labelsView struct {
	ID, Name    string
	NotesLines  []string
	Tags        []string
	CompareWith string
}

func labelsOf(id string, r *report.Report) *labelsView {
	v := &labelsView{ID: id, Name: r.Run.Name, Tags: r.Run.Tags}
	if r.Run.Notes != "" {
		v.NotesLines = strings.Split(r.Run.Notes, "\n")
	}
	if id != "" {
		v.CompareWith = "/history?pick=" + url.QueryEscape(id)
	}
	return v
}
