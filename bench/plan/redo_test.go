package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/formats/speed"
)

// redoRun is a bench's scratch folder and a run's raw folder of two rows
// and two windows each, every canary reading 7 ms but the one after
// rust-axum's page on the app's CPUs (slowNs), as bench/canary writes them.
func redoRun(t *testing.T, slowNs int64) (work, raw string) {
	t.Helper()
	dir := t.TempDir()
	work, raw = filepath.Join(dir, "work"), filepath.Join(dir, "raw", "run-1")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"go-nethttp/page", "go-nethttp/json", "rust-axum/page", "rust-axum/json"} {
		p := filepath.Join(raw, w+".canary.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"before app", "before loadgen", "after app", "after loadgen"} {
			ns := int64(7_000_000)
			if i == 2 && l == "after app" {
				ns = slowNs
			}
			if err := speed.Append(p, speed.Reading{Label: l, Rounds: speed.Rounds, Tries: speed.Tries, BestNs: ns}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return work, raw
}

// quietFile is a quiet watch's file in work, quiet or not.
func quietFile(t *testing.T, work string, quiet bool) string {
	t.Helper()
	p := filepath.Join(work, "run-1.quiet.json")
	body := `{"quiet":true,"share":0.5,"window_s":30,"load1":[0.4],"busiest":[{"pid":9,"comm":"cc1","cpu_share":0.1}]}`
	if !quiet {
		body = `{"quiet":false,"why":["load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on)"],"share":0.5,"window_s":580.1,"load1":[9.8],"busiest":[]}`
	}
	if err := os.WriteFile(p, []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// redo runs plan redo and reads its KEY=VALUE lines back.
func redo(t *testing.T, work string, args ...string) map[string]string {
	t.Helper()
	code, out, errs := runPlan(append([]string{"redo", work}, args...)...)
	if code != 0 {
		t.Fatalf("plan redo %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("not KEY=VALUE: %q", l)
		}
		got[k] = v
	}
	if len(got) != 5 {
		t.Fatalf("want REDO, REDO_ATTEMPT, REDO_NOTE, REDO_EVIDENCE and REDO_ROWS_FILE, got %q", out)
	}
	return got
}

// The canary flagged rust-axum's page: that row is measured again, the
// canary's words are the note and the evidence, and the rows file names it.
func TestRedoCanaryRows(t *testing.T) {
	work, raw := redoRun(t, 9_100_000)
	got := redo(t, work, "--run", "1", "--attempt", "0", "--max", "2", "--canary-redo", "1", "--raw", raw)
	note := "run 1: canary: the CPU-speed canary was more than 10% off the run's median around 1 of 4 windows: rust-axum page (after app +30%); measured again at the run's end: rust-axum (attempt 2 of 3)"
	if got["REDO"] != "rows" || got["REDO_ATTEMPT"] != "1" || got["REDO_NOTE"] != note {
		t.Errorf("answer %q\nwant rows, attempt 1, note %q", got, note)
	}
	if got["REDO_EVIDENCE"] != filepath.Join(work, "run-1.canary.json") || got["REDO_ROWS_FILE"] != filepath.Join(work, "run-1.canary.rows") {
		t.Errorf("evidence %q, rows %q", got["REDO_EVIDENCE"], got["REDO_ROWS_FILE"])
	}
	if b, _ := os.ReadFile(got["REDO_ROWS_FILE"]); string(b) != "rust-axum\n" {
		t.Errorf("rows file %q", b)
	}
	if b, _ := os.ReadFile(got["REDO_EVIDENCE"]); !strings.Contains(string(b), `measured again at the run's end: rust-axum","rows":["rust-axum"]}`) {
		t.Errorf("evidence %s", b)
	}
	// the tests' threshold (LAB_CANARY_THRESHOLD) reaches the canary
	if got := redo(t, work, "--run", "1", "--max", "2", "--canary-redo", "1", "--raw", raw, "--threshold", "0.5"); got["REDO"] != "keep" {
		t.Errorf("a 30%% slower window at a 50%% threshold: %q", got)
	}
	// a steady canary leaves no evidence of an earlier ask behind
	if _, err := os.Stat(filepath.Join(work, "run-1.canary.rows")); err == nil {
		t.Error("the rows file of the earlier ask is still there")
	}
}

// Once the profile's attempts are used, a flagged or busy run is kept,
// the canary not asked and nothing said.
func TestRedoAttemptsExhaustedKeep(t *testing.T) {
	work, raw := redoRun(t, 9_100_000)
	q := quietFile(t, work, false)
	for _, args := range [][]string{
		{"--run", "1", "--attempt", "2", "--max", "2", "--canary-redo", "1", "--raw", raw},
		{"--run", "1", "--attempt", "2", "--max", "2", "--quiet-gate", "1", "--quiet", q},
		{"--run", "1", "--attempt", "0", "--max", "0", "--canary-redo", "1", "--raw", raw, "--quiet-gate", "1", "--quiet", q},
	} {
		got := redo(t, work, args...)
		if got["REDO"] != "keep" || got["REDO_ATTEMPT"] != args[3] || got["REDO_NOTE"] != "" || got["REDO_EVIDENCE"] != "" {
			t.Errorf("%q: %q; want keep, the attempt unchanged, no note", args, got)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "run-1.canary.json")); err == nil {
		t.Error("the canary was asked with no attempt left")
	}
}

// A run the quiet watch saw busy is walked again, its file the evidence
// and its verdict in the note; a quiet one, or one with no watch, is kept.
func TestRedoNotQuietRun(t *testing.T) {
	work, _ := redoRun(t, 7_000_000)
	q := quietFile(t, work, false)
	got := redo(t, work, "--run", "1", "--attempt", "1", "--max", "2", "--quiet-gate", "1", "--quiet", q)
	note := "run 1 was not quiet (quiet: NO over 580.1 s: load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on)); discarding it, attempt 3 of 3"
	if got["REDO"] != "run" || got["REDO_ATTEMPT"] != "2" || got["REDO_NOTE"] != note || got["REDO_EVIDENCE"] != q {
		t.Errorf("answer %q\nwant run, attempt 2, note %q", got, note)
	}
	quietFile(t, work, true)
	if got := redo(t, work, "--run", "1", "--max", "2", "--quiet-gate", "1", "--quiet", q); got["REDO"] != "keep" || got["REDO_NOTE"] != "" {
		t.Errorf("a quiet run: %q", got)
	}
	if got := redo(t, work, "--run", "1", "--max", "2", "--quiet-gate", "1", "--quiet", filepath.Join(work, "none.json")); got["REDO"] != "keep" {
		t.Errorf("no watch file: %q", got)
	}
	// a watch file that is no report says nothing for the run: walked again, the reason named
	if err := os.WriteFile(q, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := redo(t, work, "--run", "1", "--max", "2", "--quiet-gate", "1", "--quiet", q); got["REDO"] != "run" ||
		!strings.HasPrefix(got["REDO_NOTE"], "run 1 was not quiet (quiet verdict: "+q+": not a quiet watch report: ") {
		t.Errorf("an empty watch file: %q", got)
	}
}

// With the quiet gate off (--no-quiet) a busy run is kept, and with
// canary_redo off a flagged one goes on to the gate.
func TestRedoSwitchesOff(t *testing.T) {
	work, raw := redoRun(t, 9_100_000)
	q := quietFile(t, work, false)
	if got := redo(t, work, "--run", "1", "--max", "2", "--quiet-gate", "0", "--quiet", q); got["REDO"] != "keep" || got["REDO_NOTE"] != "" {
		t.Errorf("quiet gate off: %q", got)
	}
	if got := redo(t, work, "--run", "1", "--max", "2", "--canary-redo", "0", "--raw", raw, "--quiet-gate", "1", "--quiet", q); got["REDO"] != "run" {
		t.Errorf("canary_redo off, not quiet: %q; want run", got)
	}
}

// A canary file the verdict cannot read keeps the run, and the note
// names the file and its line (summarize will refuse it too).
func TestRedoUnreadableCanaryKeeps(t *testing.T) {
	work, raw := redoRun(t, 9_100_000)
	bad := filepath.Join(raw, "go-nethttp", "json.canary.jsonl")
	if err := os.WriteFile(bad, []byte("{\"label\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := redo(t, work, "--run", "1", "--max", "2", "--canary-redo", "1", "--raw", raw)
	if got["REDO"] != "keep" || got["REDO_ATTEMPT"] != "0" || !strings.HasPrefix(got["REDO_NOTE"], "run 1: canary verdict: "+bad+":1: not a canary reading") {
		t.Errorf("answer %q; want keep, the file named", got)
	}
	if _, err := os.Stat(filepath.Join(work, "run-1.canary.json")); err == nil {
		t.Error("evidence written from an unreadable canary")
	}
}

// Bad flags are one line, exit 2.
func TestRedoBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"redo", "w", "--max", "2"},
		{"redo", "w", "--run", "1"},
		{"redo", "w", "--run", "1", "--max", "2", "--quiet-gate", "yes"},
		{"redo", "w", "--run", "1", "--max", "2", "--canary-redo", "2"},
	} {
		if code, out, errs := runPlan(args...); code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "plan redo: ") {
			t.Errorf("%q: exit %d, out %q, err %q", args, code, out, errs)
		}
	}
}
