package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/formats/speed"
)

// writeRun is a run folder of two rows and two windows each, every
// reading 7 ms but the one after rust-axum's page on the app's CPUs.
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

// A window 30% slower flags its row; the evidence names it and, for the
// bench, says it is measured again, and the rows file lists it.
func TestJudgeFlagsTheSlowRow(t *testing.T) {
	v, err := Judge(writeRun(t, 9_100_000), speed.Threshold)
	if err != nil {
		t.Fatal(err)
	}
	if v.Windows != 4 || len(v.Rows) != 1 || v.Rows[0] != "rust-axum" {
		t.Fatalf("verdict %+v: want 4 windows, rust-axum flagged", v)
	}
	want := "canary: the CPU-speed canary was more than 10% off the run's median around 1 of 4 windows: rust-axum page (after app +30%)"
	if got := v.Line(false); got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}
	dir := t.TempDir()
	out, rows := filepath.Join(dir, "run-1.canary.json"), filepath.Join(dir, "run-1.canary.rows")
	if err := v.Write(out, rows); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(rows); string(b) != "rust-axum\n" {
		t.Errorf("rows %q", b)
	}
	if b, _ := os.ReadFile(out); !strings.HasSuffix(string(b), `(after app +30%); measured again at the run's end: rust-axum","rows":["rust-axum"]}`+"\n") {
		t.Errorf("evidence %s", b)
	}
}

// A steady run flags nothing and writes no evidence.
func TestJudgeSteadyRunWritesNothing(t *testing.T) {
	v, err := Judge(writeRun(t, 7_100_000), speed.Threshold)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Line(true); got != "canary: 4 windows, none more than 10% off the run's median" || v.Reason(true) != "" {
		t.Errorf("line %q, reason %q", got, v.Reason(true))
	}
	out := filepath.Join(t.TempDir(), "run-1.canary.json")
	if err := v.Write(out, out+".rows"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("evidence written for a steady run")
	}
}

// A canary file that is not one is an error naming the file and line.
func TestJudgeNamesABadFile(t *testing.T) {
	dir := writeRun(t, 7_000_000)
	p := filepath.Join(dir, "go-nethttp/json.canary.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{bad\n")
	f.Close()
	if _, err := Judge(dir, speed.Threshold); err == nil || !strings.HasPrefix(err.Error(), p+":5: not a canary reading") {
		t.Errorf("error %v", err)
	}
}
