package netlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const good = `{"format":"stacklab-netpath/1","addr":"127.0.0.1:8080","pings":2000,"rtt_p50_us":31.2,"rtt_p99_us":80.5,"rtt_max_us":410.9,"stream_s":2.001,"stream_bytes":2147483648,"stream_bytes_per_s":1073204000}`

// What WriteFile writes Read reads; a corrupt, foreign, truncated or
// impossible file is refused with its path.
func TestReadChecks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "netpath.json")
	if err := os.WriteFile(p, []byte(good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "again.json")
	if err := WriteFile(q, r); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(q); string(b) != good+"\n" {
		t.Errorf("wrote %s", b)
	}
	for _, c := range []struct{ name, body, want string }{
		{"truncated", good[:40], "unexpected EOF"},
		{"foreign", strings.Replace(good, "netpath/1", "netpath/2", 1), `format is "stacklab-netpath/2"`},
		{"unknown field", strings.Replace(good, `"pings"`, `"x":1,"pings"`, 1), `unknown field "x"`},
		{"p99 under p50", strings.Replace(good, `"rtt_p99_us":80.5`, `"rtt_p99_us":3`, 1), "not a measurement"},
		{"no stream", strings.Replace(good, `"stream_bytes":2147483648`, `"stream_bytes":0`, 1), "not a measurement"},
	} {
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s: …%s", c.name, err, p, c.want)
		}
	}
}
