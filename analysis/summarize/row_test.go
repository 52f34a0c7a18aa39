package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/synth"
)

// The bench prints each stack's line as soon as its windows are done,
// from a folder with no checksums yet and later rows not measured.
func TestRowLineInProgress(t *testing.T) {
	dir := build(t, "2026-12-01-local-pages", synth.Pages(), func(dir string) {
		must(t, os.RemoveAll(filepath.Join(dir, "raw", "run-3", "node-fastify")))
		must(t, os.Remove(filepath.Join(dir, results.ChecksumsFile)))
		must(t, synth.WriteJSON(win(dir, 3, "go-nethttp", "json", ".loadgen.json"),
			results.Loadgen{CPUs: "1", CPUSeconds: 14.6, WindowS: 15, Saturated: true}))
		must(t, synth.WriteOha(win(dir, 3, "go-nethttp", "page", ".json"),
			synth.Window{Seconds: 15, OK: 150000, Status: map[string]int64{"500": 3}, P50: 0.003, P99: 0.02}))
	}, true)
	var out, errb bytes.Buffer
	if code := run([]string{"--row", "go-nethttp", "--run", "3", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errb.String())
	}
	line := out.String()
	for _, want := range []string{"go-nethttp, run 3: up ", " S (", "page ✗", "(req/s of 2xx, CPU per request; S: oha saturated)\n"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Errorf("want one line, got %q", line)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err == nil {
		t.Error("--row wrote summary.md")
	}
	// A row the run has not measured yet: one line, exit 2, nothing on stdout.
	out.Reset()
	errb.Reset()
	if code := run([]string{"--row", "node-fastify", "--run", "3", dir}, &out, &errb); code != 2 || out.Len() != 0 ||
		!strings.Contains(errb.String(), "run 3 has no window of node-fastify") {
		t.Errorf("unmeasured row: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for _, args := range [][]string{{"--row", "go-nethttp", dir}, {"--run", "0", "--row", "x", dir}, {"--row"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
