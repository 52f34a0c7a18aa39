package main

import (
	_ "stacklab/formats/golden" // knows -update

	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/synth"
)

// summarized writes a synthetic folder and its outputs, as the bench and
// `just summarize` leave it.
func summarized(t *testing.T, baseline string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "2026-11-29-local-io")
	if err := synth.Write(dir, synth.IO()); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "stacklab/analysis/summarize", dir}
	if baseline != "" {
		args = append(args, "--baseline", baseline)
	}
	cmd := exec.Command("go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("summarize: %v\n%s", err, out)
	}
	return dir
}

func reproduce(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	stdout, stderr = &out, &errb
	code := run(args)
	return code, out.String(), errb.String()
}

func TestReproduces(t *testing.T) {
	// A non-default baseline must be read back from summary.json.
	dir := summarized(t, "node-fastify")
	code, out, errs := reproduce(dir)
	if code != 0 || !strings.Contains(out, "reproduce byte for byte") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestMismatchShowsFirstDifferingLine(t *testing.T) {
	dir := summarized(t, "")
	md := filepath.Join(dir, "summary.md")
	b, _ := os.ReadFile(md)
	b = bytes.Replace(b, []byte("4,900 (4,802–5,096)"), []byte("9,900 (4,802–5,096)"), 1)
	if err := os.WriteFile(md, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := reproduce(dir)
	if code != 1 || !strings.Contains(errs, md+" differs from what the raw files give: line ") ||
		!strings.Contains(errs, "9,900 (4,802–5,096)") || !strings.Contains(errs, "regenerated: \"| go-nethttp ") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
}

func TestChangedRawFileIsBadInput(t *testing.T) {
	dir := summarized(t, "")
	p := filepath.Join(dir, "raw", "run-1", "go-nethttp", "read.json")
	if err := synth.WriteOha(p, synth.Window{Seconds: 15, OK: 1, P50: 0.001, P99: 0.002}); err != nil {
		t.Fatal(err)
	}
	code, _, errs := reproduce(dir)
	want := "reproduce: " + p + ": checksum mismatch: the raw file changed after the bench wrote checksums.sha256\n"
	if code != 2 || errs != want {
		t.Fatalf("exit %d, stderr %q; want 2, %q", code, errs, want)
	}
}

func TestMissingOutputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := synth.Write(dir, synth.Pages()); err != nil {
		t.Fatal(err)
	}
	code, _, errs := reproduce(dir)
	if code != 2 || !strings.Contains(errs, "summary.json: missing: run `just summarize") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
