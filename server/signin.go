//go:build !js

package server

import (
	"bytes"
	"html/template"
	"net/http"
	"strings"
	"time"
)

func init() {
	pageTemplates["signin"] = template.Must(template.New("signin.html").ParseFS(templateFS, "templates/layout.html", "templates/signin.html"))
}

// signinPage is the data of the sign-in page (the layout's fields plus
// the form's).
type signinPage struct {
	Title, Description, Version, EchartsPath string
	Charts                                   []chartView
	Message, Band, Next, Until               string
	TokenSet, SignedIn                       bool
}

// localNext returns next when it is a path on this server ("/history"),
// else "/": the form never redirects elsewhere.
func localNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || len(next) > 512 ||
		strings.ContainsFunc(next, func(c rune) bool { return c < 0x21 || c == 0x7f || c == '\\' }) {
		return "/"
	}
	return next
}

func (s *Server) renderSignIn(w http.ResponseWriter, r *http.Request, code int, msg, band string) {
	p := &signinPage{Title: "duplexscope · sign in", Description: "Sign in to save runs to this archive.",
		Version: s.cfg.Version, EchartsPath: s.cfg.EchartsPath, Message: msg, Band: band,
		Next: localNext(r.FormValue("next")), TokenSet: s.cfg.WriteToken != ""}
	if c, err := r.Cookie(SessionCookie); err == nil && s.validSession(c.Value) {
		p.SignedIn = true
		if exp, ok := sessionExpiry(c.Value); ok {
			p.Until = exp.UTC().Format(time.RFC3339)
		}
	}
	var buf bytes.Buffer
	if err := pageTemplates["signin"].Execute(&buf, p); err != nil {
		s.log.Error("render", "page", "signin", "err", err)
		writeError(w, http.StatusInternalServerError, "rendering failed", nil)
		return
	}
	setPageHeaders(w)
	w.Header().Set("Cache-Control", "no-store")
	// The form's POST must carry this page's Origin (no-referrer would
	// make the browser send "Origin: null").
	w.Header().Set("Referrer-Policy", "same-origin")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// handleSignInPage serves GET /signin: the token form, or the signed-in
// state with a sign-out button.
func (s *Server) handleSignInPage(w http.ResponseWriter, r *http.Request) {
	s.renderSignIn(w, r, http.StatusOK, "", "")
}

// secureRequest reports whether the client reached us over https (directly
// or through a proxy that says so): the cookie is then Secure.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func (s *Server) sessionCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: SessionCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: secureRequest(r)}
}

// handleSignIn checks the posted token and sets the session cookie. The
// form is CSRF-safe: it must come from this server's own page (Origin),
// and the cookie is SameSite=Strict; attempts are rate-limited per client.
func (s *Server) handleSignIn(w http.ResponseWriter, r *http.Request) {
	if !s.signins.allow(clientKey(r)) {
		w.Header().Set("Retry-After", "5")
		s.renderSignIn(w, r, http.StatusTooManyRequests, "Too many sign-in attempts from this address: wait a few seconds and try again.", "red")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		s.renderSignIn(w, r, http.StatusBadRequest, "The sign-in form could not be read.", "red")
		return
	}
	if !s.sameOrigin(r) {
		s.renderSignIn(w, r, http.StatusForbidden, "Sign-in must be sent from this server's own sign-in page (the request's Origin is another site).", "red")
		return
	}
	if s.cfg.WriteToken == "" {
		s.renderSignIn(w, r, http.StatusBadRequest, "", "")
		return
	}
	if !s.tokenOK(r.PostFormValue("token")) {
		s.log.Warn("sign-in with a wrong token", "remote", r.RemoteAddr)
		s.renderSignIn(w, r, http.StatusUnauthorized, "That is not this archive's write token.", "red")
		return
	}
	http.SetCookie(w, s.sessionCookie(r, s.sessionValue(s.now().Add(SessionTTL)), int(SessionTTL/time.Second)))
	s.log.Info("signed in", "remote", r.RemoteAddr)
	http.Redirect(w, r, localNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// handleSignOut clears the session cookie (same-origin forms only).
func (s *Server) handleSignOut(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.renderSignIn(w, r, http.StatusForbidden, "Sign-out must be sent from this server's own page.", "red")
		return
	}
	http.SetCookie(w, s.sessionCookie(r, "", -1))
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}
