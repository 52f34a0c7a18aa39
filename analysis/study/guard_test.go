package study

import (
	"strings"
	"testing"
)

// [guard] sets the margins analysis/guard holds routes to; a key left out
// keeps its default, a margin out of range is one line.
func TestGuardMargins(t *testing.T) {
	const cases = "[[case]]\nname = \"up\"\npath = \"/up\"\n"
	s, err := Parse("/tmp/g.toml", []byte(cases), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Guard != DefaultGuard || s.Guard.P95 != 20 || s.Guard.ErrorRate != 1 {
		t.Errorf("no [guard]: %+v, want the defaults (p95 20%%, errors 1 point)", s.Guard)
	}
	s, err = Parse("/tmp/g.toml", []byte("[guard]\nreq_per_sec = 5\np99 = 35.5\n"+cases), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Guard{ReqPerSec: 5, P95: 20, P99: 35.5, ErrorRate: 1, CPU: 10}); s.Guard != want {
		t.Errorf("[guard] req_per_sec and p99: %+v, want %+v", s.Guard, want)
	}
	for text, want := range map[string]string{
		"[guard]\np95 = 0\n":          "/tmp/g.toml: guard.p95: want a margin above 0 and below 100",
		"[guard]\ncpu = \"10%\"\n":    "/tmp/g.toml:2: cpu: want a number, got a TOML string",
		"[guard]\nerror = 1\n":        "/tmp/g.toml:2: guard.error: unknown key",
		"[guard]\nerror_rate = 100\n": "guard.error_rate: want a margin above 0 and below 100",
	} {
		_, err := Parse("/tmp/g.toml", []byte(text+cases), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
