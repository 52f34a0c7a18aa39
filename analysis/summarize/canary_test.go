package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/synth"
	"stacklab/formats/golden"
)

func canarySpec() synth.Spec {
	sp := synth.Pages()
	sp.Canary = true
	return sp
}

// The canary section flags the one window whose app CPU ran 25% slower,
// and says it was an outlier of its row while no other window was.
func TestCanaryGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-pages")
	if err := synth.Write(dir, canarySpec()); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	md := out.String()
	from := strings.Index(md, "## CPU-speed canary")
	if from < 0 {
		t.Fatalf("no canary section:\n%s", md)
	}
	to := strings.Index(md[from+1:], "\n## ")
	golden.Check(t, "testdata/golden/canary.md", []byte(md[from:from+1+to]))
}

// A truncated canary file is one line naming it, exit 2, nothing written.
func TestCanaryCorrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-pages")
	if err := synth.Write(dir, canarySpec()); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "raw/run-1/go-nethttp/up.canary.jsonl")
	if err := os.WriteFile(p, []byte(`{"label":"before app","cpus":"0","rou`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	rc := run([]string{dir}, &out, &errb)
	if rc != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "up.canary.jsonl:1: not a canary reading") {
		t.Errorf("exit %d, stderr %q", rc, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err == nil {
		t.Error("summary.md written from a corrupt folder")
	}
}
