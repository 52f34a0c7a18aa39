package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/formats/speed"
)

func writeRun(t *testing.T, slow int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run-1")
	for i, w := range []string{"go-nethttp/page", "go-nethttp/json", "rust-axum/page", "rust-axum/json"} {
		p := filepath.Join(dir, w+".canary.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"before app", "before loadgen", "after app", "after loadgen"} {
			ns := int64(7_000_000)
			if i == 2 && l == "after app" {
				ns = slow
			}
			if err := speed.Append(p, speed.Reading{Label: l, Rounds: speed.Rounds, Tries: speed.Tries, BestNs: ns}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// A run whose canary stayed put passes; one window 30% slower fails the
// run with the reason written for the manifest.
func TestVerdict(t *testing.T) {
	evidence := filepath.Join(t.TempDir(), "canary.json")
	var out, errb bytes.Buffer
	if rc := run([]string{"verdict", "--out", evidence, writeRun(t, 7_100_000)}, &out, &errb); rc != 0 {
		t.Fatalf("steady run: exit %d %s %s", rc, out.String(), errb.String())
	}
	if _, err := os.Stat(evidence); err == nil {
		t.Error("evidence written for a steady run")
	}
	out.Reset()
	if rc := run([]string{"verdict", "--out", evidence, writeRun(t, 9_100_000)}, &out, &errb); rc != 1 {
		t.Fatalf("slowed run: exit %d %s", rc, out.String())
	}
	b, err := os.ReadFile(evidence)
	if err != nil || !strings.Contains(string(b), `"reason":"the CPU-speed canary was more than 10% off the run's median around 1 of 4 windows: rust-axum page (after app +30%)"`) {
		t.Errorf("evidence %s, %v", b, err)
	}
	if rc := run([]string{"verdict", "--out", evidence}, &out, &errb); rc != 2 {
		t.Errorf("no folder: exit %d", rc)
	}
}

// A reading the app contended (its cgroup busy for 40% of the canary's
// time, a JIT still compiling after the window) is not a slow CPU: it is
// left out, and the run passes.
func TestVerdictLeavesOutContended(t *testing.T) {
	dir := writeRun(t, 7_000_000)
	busy, el := int64(16_000_000), int64(40_000_000)
	p := filepath.Join(dir, "rust-axum/page.canary.jsonl")
	if err := speed.Append(p, speed.Reading{Label: "after app", Rounds: speed.Rounds, Tries: speed.Tries, BestNs: 11_000_000, AppBusyNs: &busy, ElapsedNs: &el}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	evidence := filepath.Join(t.TempDir(), "canary.json")
	if rc := run([]string{"verdict", "--out", evidence, dir}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s %s", rc, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "(1 app-CPU readings left out: the app itself used over 10% of the CPU during them)") {
		t.Errorf("out %q", out.String())
	}
	// the same reading with the app idle is a slow CPU
	idle := int64(100_000)
	if err := speed.Append(p, speed.Reading{Label: "after app", Rounds: speed.Rounds, Tries: speed.Tries, BestNs: 11_000_000, AppBusyNs: &idle, ElapsedNs: &el}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if rc := run([]string{"verdict", "--out", evidence, dir}, &out, &errb); rc != 1 {
		t.Errorf("an idle app and a slow reading: exit %d %s", rc, out.String())
	}
}

// With --rows, the rows with a flagged window are written one a line for
// the bench to measure again, and the evidence says so.
func TestVerdictRows(t *testing.T) {
	dir := t.TempDir()
	evidence, rows := filepath.Join(dir, "canary.json"), filepath.Join(dir, "canary.rows")
	var out, errb bytes.Buffer
	if rc := run([]string{"verdict", "--out", evidence, "--rows", rows, writeRun(t, 9_100_000)}, &out, &errb); rc != 1 {
		t.Fatalf("slowed run: exit %d %s", rc, out.String())
	}
	if b, err := os.ReadFile(rows); err != nil || string(b) != "rust-axum\n" {
		t.Errorf("rows %q, %v; want rust-axum alone", b, err)
	}
	if b, _ := os.ReadFile(evidence); !strings.Contains(string(b), `; measured again at the run's end: rust-axum","rows":["rust-axum"]`) {
		t.Errorf("evidence %s", b)
	}
}
