package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The owner file as the bench writes it through record is what reap reads:
// the bench's pid, and the results folder new-dir opened.
func TestOwnerFileRoundTrip(t *testing.T) {
	lab, results := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(lab, ".work"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ownCmd(lab, []string{"--pid", "4242", "--results", results}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := newDirCmd(results, []string{"--host", "local", "--study", "io", "--label", "x", "--owner", lab}, &out); err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(out.String())
	if !strings.HasSuffix(dir, "-local-io-x") {
		t.Errorf("folder %q", dir)
	}
	if st, err := os.Stat(filepath.Join(dir, "raw")); err != nil || !st.IsDir() {
		t.Errorf("no raw/ in %s: %v", dir, err)
	}
	first, pid, run := owner(lab)
	if pid != 4242 || run != dir || !strings.HasSuffix(first, ", writing "+results) {
		t.Errorf("owner read back: %q, pid %d, run %q", first, pid, run)
	}
	if err := newDirCmd(results, []string{"--host", "local"}, &out); err == nil {
		t.Error("new-dir without --study: no error")
	}
}

// A folder of that name taken: the next number after it.
func TestNewDirTaken(t *testing.T) {
	root := t.TempDir()
	for _, want := range []string{"2026-12-06-h-s", "2026-12-06-h-s-2", "2026-12-06-h-s-3"} {
		dir, err := newDir(root, "2026-12-06", "h", "s", "")
		if err != nil || filepath.Base(dir) != want {
			t.Errorf("got %q %v, want %s", dir, err, want)
		}
	}
}
