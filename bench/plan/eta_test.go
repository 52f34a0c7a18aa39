package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The schedule counted and costed as the bench printed it before Go owned
// it (checked against the old bash on every committed study): three rows,
// two runs of the pages study's four windows, quick lengths.
func TestETAPlan(t *testing.T) {
	four := []WindowFacts{{}, {}, {}, {}}
	s := Schedule{Rows: 3, Runs: 2, WarmupS: 1, DurationS: 5, WarmEach: true, SamplerCheck: true, Windows: four}
	e := Plan(s)
	// 6 boots × 2.6 s, 24 warm-ups × 5.04 s, 24 windows × 5.3 s, 6 stops
	// × 0.15 s, 2 sampler checks × (1.04 + 3 × 5.3) s
	if got := e.LeftS(); got != 298 {
		t.Errorf("sequential first estimate %d s, want 298", got)
	}
	e.Done("window", 5400)
	e.Done("window", 5333)
	if got := e.LeftS(); got != 289 { // 22 windows left at their mean so far, 5.366 s
		t.Errorf("after two windows %d s", got)
	}
	e.RowDone(1, 0, 0) // a row that stopped after one window
	if e.Left["window"] != 22-3 || e.Left["warmup"] != 24-4 {
		t.Errorf("after a failed row: %d windows, %d warm-ups left", e.Left["window"], e.Left["warmup"])
	}
	s.WarmEach = false
	if got := Plan(s).PerRun["warmup"]; got != 3 {
		t.Errorf("a container's first window only: %d warm-ups a run, want 3", got)
	}
	s.Windows = []WindowFacts{{}, {FreshDB: true}, {Ramp: true, RampSteps: 4}, {Ceiling: true}}
	e = Plan(s)
	if e.PerRun["restart"] != 3 || e.PerRun["warmup"] != 6 || e.PerRun["ceilings"] != 1 {
		t.Errorf("per run: %v", e.PerRun)
	}
	// the generator's headroom: once a run, its warm-up and window and the
	// mock's start and stop; never in the paired profile
	s.Headroom = true
	e = Plan(s)
	if e.PerRun["headroom"] != 1 || e.GuessMs["headroom"] != 10000 {
		t.Errorf("headroom: %d a run, guessed %d ms", e.PerRun["headroom"], e.GuessMs["headroom"])
	}
	s.Paired = true
	if got := Plan(s).Left["headroom"]; got != 0 {
		t.Errorf("paired: %d headroom windows", got)
	}
	// paired: every row up once, each row's warm-up slice per case, 2 s
	// slices: 36 windows × 5.4 s, 3 boots × 3 s, 3 stops × 0.5 s, 2
	// sampler checks × 5.4 s
	s = Schedule{Paired: true, Rows: 3, Runs: 2, WarmupS: 1, DurationS: 5, SamplerCheck: true, Windows: four}
	if got := Plan(s).LeftS(); got != 215 {
		t.Errorf("paired first estimate %d s, want 215", got)
	}
}

// The quiet gate's guess: its quiet seconds, plus the time the load takes
// to decay under the gate, never past its timeout.
func TestQuietGuess(t *testing.T) {
	s := Schedule{QuietGate: true, QuietForS: 5, QuietTimeoutS: 60, QuietLoad: 2, Load1: 1}
	if got := QuietGuessMs(s); got != 6000 {
		t.Errorf("quiet host: %d ms", got)
	}
	s.Load1 = 4 // 60 ln 2 = 41.6 s
	if got := QuietGuessMs(s); got != 47588 {
		t.Errorf("load 4: %d ms", got)
	}
	s.Load1 = 40
	if got := QuietGuessMs(s); got != 61000 {
		t.Errorf("load 40: %d ms, want the timeout's 61 s", got)
	}
	if got := QuietGuessMs(Schedule{Load1: 40}); got != 0 {
		t.Errorf("no gate: %d ms", got)
	}
}

// The state survives between calls, and a bad call is refused.
func TestETACommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eta.json")
	if err := Plan(Schedule{Rows: 1, Runs: 1, DurationS: 5, Windows: []WindowFacts{{}}}).Save(path); err != nil {
		t.Fatal(err)
	}
	// (left: what the state holds still to do of KIND, or a run's PerRun)
	for _, c := range []struct {
		args []string
		out  string
		left string // KIND=N: e.Left[KIND] after the call; "run KIND=N": e.PerRun
	}{
		{nil, "", "run window=1"},
		{[]string{"done", "boot", "2000"}, "", "boot=0"},
		{[]string{"add-runs", "1"}, "", "boot=1"},
		{[]string{"add-rows", "2"}, "", "boot=3"},
		{nil, "", "window=4"},
		{[]string{"phases"}, "quiet=0:0\nceilings=0:0\nheadroom=0:0\nboot=1:2000\nwarmup=0:0\nwindow=0:0\nrestart=0:0\nsampler=0:0\nstop=0:0", ""},
	} {
		e, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.args != nil {
			out, changed, err := e.Command(c.args)
			if err != nil || out != c.out {
				t.Errorf("%v: %q %v, want %q", c.args, out, err, c.out)
			}
			if changed {
				if err := e.Save(path); err != nil {
					t.Fatal(err)
				}
			}
		}
		if c.left != "" {
			of, kv := e.Left, c.left
			if k, ok := strings.CutPrefix(kv, "run "); ok {
				of, kv = e.PerRun, k
			}
			k, n, _ := strings.Cut(kv, "=")
			if got := strconv.Itoa(of[k]); got != n {
				t.Errorf("after %v: %s is %s, want %s", c.args, k, got, n)
			}
		}
	}
	e, _ := Load(path)
	for _, bad := range [][]string{{"done", "lunch", "5"}, {"skip", "window", "-1"}, {"left", "x"}, {"nope"}} {
		if _, _, err := e.Command(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
