package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After a window: its CPU time becomes loadgen.json, the scratch files go,
// oha's "Storing results" line is dropped and an error line kept; a
// stderr with nothing else goes too; no CPU time is exit 1.
func TestRecordWindow(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "items.json")
	for name, body := range map[string]string{
		".time":   "1.250 0.500 10.100\n",
		".start":  "1796529676091271887\n",
		".db":     "",
		".stderr": "Storing results to /tmp/x.db\nsome error\n",
	} {
		if err := os.WriteFile(out+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var errb bytes.Buffer
	if code := windowCmd(out, []string{"--cpus", "0"}, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "items.loadgen.json")); err != nil {
		t.Errorf("no loadgen.json: %v", err)
	}
	for _, gone := range []string{".time", ".start", ".db"} {
		if _, err := os.Stat(out + gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there", gone)
		}
	}
	if b, _ := os.ReadFile(out + ".stderr"); string(b) != "some error\n" {
		t.Errorf("stderr %q, want the error line alone", b)
	}
	// nothing but oha's own line: the file goes; no time: exit 1
	if err := os.WriteFile(out+".stderr", []byte("Storing results to /tmp/x.db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := windowCmd(out, []string{"--cpus", "0"}, &errb); code != 1 || !strings.Contains(errb.String(), "items.json.time") {
		t.Errorf("no time: exit %d, %q", code, errb.String())
	}
	if _, err := os.Stat(out + ".stderr"); !os.IsNotExist(err) {
		t.Errorf("a stderr with oha's line alone is still there")
	}
}
