package quietlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The quick profile's wait gives up after 60 s and the bench measures
// anyway: that run must not be recorded as quiet, whatever the watch saw.
func TestRunAfterATimedOutWaitIsNotQuiet(t *testing.T) {
	r := Report{Share: half, WindowS: 580.1, Busiest: []Process{{PID: 1, Comm: "process_api", CPUShare: 0.007}},
		Waits: []Wait{{At: "before the run", Load: 2, ForS: 5, TimeoutS: 60, WaitedS: 60, Load1: 9.8}}}
	r.Judge(nil)
	want := []string{"load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on)"}
	if r.Quiet || !reflect.DeepEqual(r.Why, want) {
		t.Errorf("quiet %v, why %q; want not quiet, why %q", r.Quiet, r.Why, want)
	}
	if v := r.Verdict(); v != "quiet: NO over 580.1 s: "+want[0] {
		t.Errorf("verdict %q", v)
	}
}

func TestEveryReasonIsListedInOrder(t *testing.T) {
	r := Report{Share: half, WindowS: 39.6,
		Busiest: []Process{{PID: 3221, Comm: "rustc", CPUShare: 0.671}, {PID: 5663, Comm: "gzip", CPUShare: 0.249}},
		Waits: []Wait{
			{At: "before the run", Quiet: true, Load: 2, ForS: 5, WaitedS: 7, Load1: 1.2, LongestQuietS: 5},
			// load fell under the threshold, but not for long enough
			{At: "after building rust-loco's image", Load: 2, ForS: 5, TimeoutS: 60, WaitedS: 60, Load1: 1.7, LongestQuietS: 3},
			{At: "before the run", Load: 2, ForS: 60, WaitedS: 12.4, Load1: 4, Interrupted: true},
		}}
	r.Judge(nil)
	want := []string{
		"load1 under 2.0 for only 3 s of 5 s after building rust-loco's image (the gate waited 60 s and went on)",
		"load1 4.00 ≥ 2.0 before the run (the gate's wait was interrupted after 12 s)",
		"rustc (pid 3221) outside the lab used 0.67 CPU > 0.50 over the 40 s run",
	}
	if r.Quiet || !reflect.DeepEqual(r.Why, want) {
		t.Errorf("why %q\nwant %q", r.Why, want)
	}
}

func TestQuietOnlyWhenTheWaitsHeldAndNobodyWasBusy(t *testing.T) {
	r := Report{Share: half, WindowS: 30, Busiest: []Process{{PID: 9, Comm: "cc1", CPUShare: 0.5}},
		Waits: []Wait{{At: "before the run", Quiet: true, Load: 2, ForS: 60, WaitedS: 61, Load1: 0.4, LongestQuietS: 60}}}
	r.Judge(nil)
	if !r.Quiet || r.Why != nil {
		t.Errorf("quiet %v, why %q: 0.50 CPU is not more than 0.50, and the wait held", r.Quiet, r.Why)
	}
	if v := r.Verdict(); !strings.HasPrefix(v, "quiet: YES over 30.0 s: the gate's 1 wait(s) held; no process") {
		t.Errorf("verdict %q", v)
	}
	// the bench asked for the gate's record and there is none: not quiet
	r.Judge(errors.New("run-1.gate.json is missing"))
	if r.Quiet || len(r.Why) != 1 || r.Why[0] != "no record of the gate's wait (run-1.gate.json is missing)" {
		t.Errorf("missing gate file: quiet %v, why %q", r.Quiet, r.Why)
	}
}

// The bench records the gate file as the run's evidence as soon as the
// wait ends, and the watch reads it back when the run is over.
func TestGateFileCollectsARunsWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run-1.gate.json")
	if _, err := ReadGate(path); err == nil || !strings.Contains(err.Error(), "run-1.gate.json is missing") {
		t.Errorf("missing file: %v", err)
	}
	if err := AppendWait(path, Wait{At: "before the run", Quiet: true, Load: 2, ForS: 5, WaitedS: 5, Load1: 0.3, LongestQuietS: 5}); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGate(path)
	if err != nil || !g.Quiet || len(g.Waits) != 1 {
		t.Fatalf("after a wait that held: %+v, %v", g, err)
	}
	if err := AppendWait(path, Wait{At: "after building java-spring's image", Load: 2, ForS: 5, TimeoutS: 60, WaitedS: 60, Load1: 6.5}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil || v["quiet"] != false || len(v["waits"].([]any)) != 2 {
		t.Fatalf("gate file %s (%v)", b, err)
	}
	// `quiet verdict` reads a gate file as it reads a watch's
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Verdict(); got != "quiet: NO: load1 6.50 ≥ 2.0 after building java-spring's image (the gate waited 60 s and went on)" {
		t.Errorf("verdict %q", got)
	}
	if err := os.WriteFile(path, []byte(`{"quiet":tr`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendWait(path, Wait{Quiet: true}); err == nil {
		t.Error("a corrupt gate file was overwritten without a word")
	}
}

// `quiet verdict` and the bench's redo rule read a report back with Read:
// evidence from before the gate kept its reasons gets them from its
// processes, and a file that is no report is an error naming it.
func TestReadGivesOlderEvidenceItsReasons(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "run-1.quiet.json")
	if err := os.WriteFile(old, []byte(`{"quiet":false,"share":0.5,"window_s":4.011,"load1":[8.48],"busiest":[{"pid":23443,"comm":"compile","cpu_share":0.504}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := "quiet: NO over 4.0 s: compile (pid 23443) outside the lab used 0.50 CPU > 0.50 over the 4 s run"; r.Quiet || r.Verdict() != want {
		t.Errorf("quiet %v, verdict %q; want %q", r.Quiet, r.Verdict(), want)
	}
	if r.Share == nil || *r.Share != 0.5 {
		t.Errorf("share %v, want 0.5", r.Share)
	}
	// a gate file states no share, which is not a share of 0
	gate := filepath.Join(dir, "run-1.gate.json")
	if err := AppendWait(gate, Wait{At: "before the run", Quiet: true, Load: 2, ForS: 5, WaitedS: 5, Load1: 0.3, LongestQuietS: 5}); err != nil {
		t.Fatal(err)
	}
	if r, err := Read(gate); err != nil || r.Share != nil || r.Verdict() != "quiet: YES so far: the gate's 1 wait(s) held" {
		t.Errorf("gate file read as a report: share %v, verdict %q, %v", r.Share, r.Verdict(), err)
	}
	bad := filepath.Join(dir, "run-2.quiet.json")
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": not a quiet watch report: ") {
		t.Errorf("an empty report: %v", err)
	}
}

// half is the share the quick profile's watch is given.
var half = func() *float64 { v := 0.5; return &v }()
