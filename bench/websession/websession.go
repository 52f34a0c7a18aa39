// Package websession is the format of a signed-in window's session: the
// Cookie header and the CSRF token the lab's sign-in got from the app
// (verify signin writes it, plan oha reads it into oha's arguments). It
// lives in the bench's scratch folder only, mode 0600, and never in a
// results folder: a session is a credential.
package websession

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Session is what the load sends to be signed in.
type Session struct {
	Format string `json:"format"`
	// Cookie is every cookie the app set, as one Cookie header's value.
	Cookie string `json:"cookie"`
	// Token is the CSRF token of the page the session ended on (the
	// account page's order form, or the sign-in form's when not signed in).
	Token string `json:"csrf_token"`
}

const Format = "stacklab-websession-1"

// Write writes s to path, readable by its owner only.
func Write(path string, s Session) error {
	s.Format = Format
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// Read reads a session file; a file of another format is an error.
func Read(path string) (*Session, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Session
	if err := json.Unmarshal(b, &s); err != nil || s.Format != Format {
		return nil, fmt.Errorf("%s: not a session file (%s)", path, Format)
	}
	if s.Cookie == "" || strings.ContainsAny(s.Cookie+s.Token, "\r\n") {
		return nil, fmt.Errorf("%s: no cookie, or a line break in the cookie or token", path)
	}
	return &s, nil
}
