package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"stacklab/analysis/study"
)

// four plain windows, a to d, as a study of four closed-loop cases has them
func fourWindows() []study.Window {
	var ws []study.Window
	for _, id := range []string{"a", "b", "c", "d"} {
		ws = append(ws, study.Window{ID: id, Case: &study.Case{Name: id}})
	}
	return ws
}

// The schedule's own steps costed: three rows, two runs of four windows,
// quick lengths, the sampler check on a.
func TestETAStart(t *testing.T) {
	w := Walk{Rows: []string{"x", "y", "z"}, Windows: fourWindows(), Check: "a"}
	p := Pace{WarmupS: 1, DurationS: 5, WarmEach: true}
	e, err := Start(w, p, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	// 6 boots × 2.6 s, 24 windows × (a steady warm-up 5.04 s + 6 s),
	// 6 stops × 0.15 s, 2 sampler checks × (1.04 + 3 × 6) s
	if e.FirstS != 319 || len(e.Left) != 2*(3*(1+4+1)+1) {
		t.Errorf("first estimate %d s over %d steps, want 319 s", e.FirstS, len(e.Left))
	}
	// run 1's first row boots in 2 s and its first window takes 5.4 s:
	// the boots left at 2 s, every window at 5.4 s (a closed-loop window
	// not measured yet takes the mean of those that were)
	e.Done("boot", 2000, "")
	e.End(Step{Kind: "boot", Run: 1, Row: "x"})
	e.Done("warmup", 5040, "")
	e.Done("window", 5400, "a")
	e.End(Step{Kind: "window", Run: 1, Row: "x", Window: "a"})
	if got := e.LeftS(); got != 289 { // 5 boots at 2 s, 23 windows at 5.4 s (each with its warm-up)
		t.Errorf("after a boot and a window: %d s", got)
	}
	// a row whose app did not come up: its steps of that run go, not of the next
	before := len(e.Left)
	e.Drop(1, "y")
	if len(e.Left) != before-6 || !containsStep(e.Left, Step{Kind: "boot", Run: 2, Row: "y"}) {
		t.Errorf("drop y in run 1: %d steps left of %d", len(e.Left), before)
	}
	// a container's first window only warms up; a fresh_db window is a
	// restart and a container's first
	ws := fourWindows()
	ws[2].Case.FreshDB = true
	w.Windows, p.WarmEach = ws, false
	e, _ = Start(w, p, 1, false)
	if f := e.Windows; !f["a"].Warm || f["b"].Warm || !f["c"].Warm || !f["c"].FreshDB || f["d"].Warm {
		t.Errorf("warm-ups: %+v", f)
	}
	// a ramp: its guessed steps, each a warm-up and a window
	ws[3].Case.Ramp = &study.Ramp{}
	w.Windows = ws
	e, _ = Start(w, p, 1, false)
	if g := e.Windows["d"].GuessMs; g != guessRampSteps*(1040+5000+guessWindowOverMs+guessRampStepOver) {
		t.Errorf("a ramp with no guess of its steps: %d ms", g)
	}
}

func mustLoad(t *testing.T, path string) *ETA {
	t.Helper()
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The progress line counts the case among those planned (a run walked
// again counts down again), keeps each estimate shown for record timing,
// and an image built between rows is left out of the bench's clock.
func TestETAProgress(t *testing.T) {
	defer func(f func() int64) { nowMs = f }(nowMs)
	clock := int64(10_000)
	nowMs = func() int64 { return clock }
	w := Walk{Rows: []string{"x", "y"}, Windows: fourWindows()}
	e, _ := Start(w, Pace{WarmupS: 1, DurationS: 5, WarmEach: true}, 2, false)
	if got := e.Progress(1, "x", "a", 0); got != "run 1/2 · case 1/16 · x a · about 3m07s left" {
		t.Errorf("first line %q", got)
	}
	e.End(Step{Kind: "boot", Run: 1, Row: "x"})
	e.End(Step{Kind: "window", Run: 1, Row: "x", Window: "a"})
	clock += 12_000
	if got := e.Progress(1, "x", "b", 3); !strings.HasPrefix(got, "run 1/2 · case 2/16 · x b · about ") || !strings.HasSuffix(got, " left, plus 3 image build(s)") {
		t.Errorf("second line %q", got)
	}
	if err := e.AddRows(1, []string{"x"}); err == nil {
		t.Error("add-rows without a study: no error")
	}
	e.BuildDone(60_000)
	clock += 60_000
	tm := e.Timing()
	if !strings.HasPrefix(tm, "--wall-ms\n12000\n--eta-first-s\n187\n") || !strings.Contains(tm, "--phase\nbuild=1:60000\n--eta-at\n0:187\n--eta-at\n12000:") {
		t.Errorf("timing:\n%s", tm)
	}
	e.Paired = true
	if got := e.Progress(2, "y", "c", 0); !strings.HasPrefix(got, "slice 2/2 · case 2/16 · ") {
		t.Errorf("paired %q", got)
	}
}

func containsStep(steps []Step, s Step) bool {
	for _, x := range steps {
		if x == s {
			return true
		}
	}
	return false
}

// paired: every row up once, each row's warm-up slice per case, then the
// slices; no headroom.
func TestETAPaired(t *testing.T) {
	w := Walk{Rows: []string{"x", "y", "z"}, Windows: fourWindows(), Check: "a", Headroom: true}
	e, err := Start(w, Pace{WarmupS: 1, DurationS: 5}, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	// 3 boots × 2 s, 12 warm-ups × 1.1 s, 24 slices × 6 s, 2 sampler
	// checks × 5.4 s, 3 stops × 0.5 s
	if e.FirstS != 175 {
		t.Errorf("paired first estimate %d s, want 175", e.FirstS)
	}
	for _, s := range e.Left {
		if s.Kind == "headroom" {
			t.Errorf("paired: a headroom step")
		}
	}
	// a row out in a paired bench is out of every slice
	e.Drop(1, "y")
	for _, s := range e.Left {
		if s.Row == "y" {
			t.Errorf("paired: %v left after y was dropped", s)
		}
	}
	if _, err := Start(Walk{Rows: []string{"x"}, Windows: fourWindows()}, Pace{}, 2, true); err == nil {
		t.Error("paired with one row: no error")
	}
}

// The quiet gate's guess: its quiet seconds, plus the time the load takes
// to decay under the gate, never past its timeout.
func TestQuietGuess(t *testing.T) {
	p := Pace{QuietGate: true, QuietForS: 5, QuietTimeoutS: 60, QuietLoad: 2, Load1: 1}
	if got := QuietGuessMs(p); got != 6000 {
		t.Errorf("quiet host: %d ms", got)
	}
	p.Load1 = 4 // 60 ln 2 = 41.6 s
	if got := QuietGuessMs(p); got != 47588 {
		t.Errorf("load 4: %d ms", got)
	}
	p.Load1 = 40
	if got := QuietGuessMs(p); got != 61000 {
		t.Errorf("load 40: %d ms, want the timeout's 61 s", got)
	}
	if got := QuietGuessMs(Pace{Load1: 40}); got != 0 {
		t.Errorf("no gate: %d ms", got)
	}
}

// Through the command as the bench calls it: the state survives between
// calls, a run and rows walked again are plan schedule's steps, and a bad
// call is refused.
func TestETACommands(t *testing.T) {
	defer func(f func() int64) { nowMs = f }(nowMs)
	nowMs = func() int64 { return 1000 }
	path := filepath.Join(t.TempDir(), "eta.json")
	code, out, errs := runPlan("eta-start", "../../studies/io.toml", "--state", path, "--rows", "a,b", "--runs", "1",
		"--warmup", "1", "--duration", "5", "--quiet-gate", "1", "--quiet-for", "5", "--quiet-timeout", "60", "--sampler-check", "write")
	if code != 0 || !strings.HasPrefix(out, "1 run(s) of 2 row(s) × 4 window(s), about ") {
		t.Fatalf("eta-start: exit %d, %q %s", code, out, errs)
	}
	first := strconv.FormatInt(mustLoad(t, path).FirstS, 10)
	steps := func() int {
		e, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return len(e.Left)
	}
	// ceilings, headroom, 2 × (boot, 4 windows, stop), the sampler check
	if n := steps(); n != 15 {
		t.Fatalf("%d steps planned, want 15", n)
	}
	for _, c := range []struct {
		args  []string
		out   string
		steps int
	}{
		{[]string{"done", "quiet", "6000"}, "", 15},
		{[]string{"done", "boot", "2000"}, "", 15},
		{[]string{"end", "boot", "1", "a", "-"}, "", 14},
		{[]string{"end", "boot", "1", "a", "-"}, "", 14}, // walked already: nothing more goes
		{[]string{"done", "window", "5400", "write"}, "", 14},
		{[]string{"end", "window", "1", "a", "upstream"}, "", 13},
		{[]string{"drop", "1", "b"}, "", 7},
		{[]string{"add-run", "1"}, "", 22},
		{[]string{"add-rows", "1", "b"}, "", 28},
		{[]string{"timing"}, "--wall-ms\n0\n--eta-first-s\n" + first + "\n--phase\nquiet=1:6000\n--phase\nceilings=0:0\n--phase\nheadroom=0:0\n--phase\nboot=1:2000\n--phase\nwarmup=0:0\n--phase\nwindow=1:5400\n--phase\nrestart=0:0\n--phase\nsampler=0:0\n--phase\nstop=0:0", 28},
	} {
		e, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		got, changed, err := e.Command(c.args)
		if err != nil || got != c.out {
			t.Errorf("%v: %q %v, want %q", c.args, got, err, c.out)
		}
		if changed {
			if err := e.Save(path); err != nil {
				t.Fatal(err)
			}
		}
		if n := steps(); n != c.steps {
			t.Errorf("after %v: %d steps left, want %d", c.args, n, c.steps)
		}
	}
	e, _ := Load(path)
	if e.QuietLeft != 1 {
		t.Errorf("after a run walked again: %d quiet waits left, want its own", e.QuietLeft)
	}
	for _, bad := range [][]string{{"done", "lunch", "5"}, {"done", "window", "-1"}, {"timing", "x"}, {"end", "boot"}, {"drop", "x", "a"},
		{"progress", "1", "a", "write"}, {"build-done", "x"}, {"nope"}} {
		if _, _, err := e.Command(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
