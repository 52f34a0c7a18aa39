package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/synth"
	"stacklab/formats/golden"
)

// A paired folder's summary has the per-slice ratios; its slices share
// one factor, so node-fastify's ratio to go-nethttp does not spread while
// each row's own req/s does.
func TestPairedGolden(t *testing.T) {
	sp := synth.Pages()
	sp.Paired, sp.Runs = true, 6
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-pages-paired")
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	md := out.String()
	from := strings.Index(md, "## paired slices")
	if from < 0 {
		t.Fatalf("no paired section:\n%s", md)
	}
	to := strings.Index(md[from+1:], "\n## ")
	sec := md[from : from+1+to]
	golden.Check(t, "testdata/golden/paired.md", []byte(sec))
	if !strings.Contains(sec, "| up    | node-fastify | req/s      | 0.375 (0.375–0.375) |   6 |           0.0% |") {
		t.Errorf("a ratio the slices share should not spread:\n%s", sec)
	}
}

// Another profile's summary has no paired section.
func TestNotPairedNoSection(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-pages")
	if err := synth.Write(dir, synth.Pages()); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	if strings.Contains(out.String(), "paired slices") {
		t.Error("a full-profile summary has a paired section")
	}
}
