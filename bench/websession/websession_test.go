package websession

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReadsBackAndIsPrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	if err := Write(p, Session{Cookie: "lab_session=abc; lab_csrf=x", Token: "tok"}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600: a session is a credential", st.Mode().Perm())
	}
	s, err := Read(p)
	if err != nil || s.Cookie != "lab_session=abc; lab_csrf=x" || s.Token != "tok" {
		t.Fatalf("read back %+v, %v", s, err)
	}
}

func TestReadRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"not-json":  "cookie: x",
		"other":     `{"format":"other","cookie":"a=b"}`,
		"no-cookie": `{"format":"stacklab-websession-1","cookie":""}`,
		"newline":   `{"format":"stacklab-websession-1","cookie":"a=b\r\nX-Evil: 1"}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}
