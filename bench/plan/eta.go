package main

// The bench's time left, decided here and nowhere else. What is left is
// plan schedule's own steps (schedule.go), not a second description of a
// run: each step still to walk, costed as the phases it goes through (a
// sequential window's restart for a fresh_db case and its warm-up as
// plan window says, then the window itself), each phase at the mean of
// those of its kind measured so far, a guess until one was; beside the
// steps, the quiet-host waits still to come (one before each run, or one
// before a paired bench's first slice). The bench (scripts/lib/bench-eta.sh)
// times each phase and tells plan eta, ends each step it walked and drops
// the steps of a row that is out; the state lives in a JSON file of the
// bench's scratch folder between calls. Plain integer arithmetic.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/ramp"
	"stacklab/analysis/study"
	"stacklab/bench/k6script"
	"stacklab/formats/rawfile"
)

// Kinds are the phases of a bench, in the order record timing keeps them.
var Kinds = []string{"quiet", "ceilings", "headroom", "boot", "warmup", "window", "restart", "sampler", "stop"}

// What a phase takes, the guesses until one of its kind is measured in
// the bench itself: a boot with its checks, a restart, a window's time
// beyond its length (the canary's readings, the instruments' start and
// stop, the timeline's compaction: 1.06 s over a quick 5 s window and
// 1.02 s over a paired 2 s slice in results/2026-12-06-local-*-eta-*), a
// warm-up's beyond its length, and a steady warm-up's length, all as the
// bench's own timing record (the manifest's timing.phases) showed them on
// this project's machines; a ramp's step warms up for the warm-up exactly, and a ramp is
// plan's guess of its steps, each a warm-up and a window plus about a
// second around it.
const (
	guessBootMs        = 2600
	guessRestartMs     = 1450
	guessStopMs        = 150
	guessWindowOverMs  = 1000 // a window's time beyond its length
	guessWarmupOverMs  = 40   // a warm-up's beyond its length
	guessSteadyS       = 5    // a steady-state warm-up's mean length
	guessCeilingOverMs = 100  // a ceiling window's beyond its length
	guessHeadroomMs    = 4000 // the headroom's beyond its warm-up and window: the stub started and stopped, then the network path check (an echo started, 2 s of stream, stopped)
	guessRampStepOver  = 500  // a ramp step's beyond its warm-up and window
	guessRampSteps     = 10   // a ramp's steps when plan gave no guess
	// The paired profile: every row up at once, 2 s slices alternating,
	// each row's warm-up a slice of the warm-up's length.
	pairedBootMs      = 2000
	pairedRestartMs   = 1500
	pairedWindowOver  = 1000
	pairedWarmupOver  = 100 // a warm-up slice's beyond its length (0.09 and 0.10 s in the same folders)
	pairedStopMs      = 500
	pairedCeilingOver = 500
	pairedSamplerOver = 400
)

// Pace is what the profile and the host say of a bench's lengths.
type Pace struct {
	WarmupS       int
	DurationS     int
	WarmEach      bool // every window warms up (else a container's first only)
	QuietGate     bool
	QuietForS     int
	QuietTimeoutS int
	QuietLoad     float64 // the gate's load average
	Load1         float64 // the host's 1-minute load now
}

// WindowFacts are the facts of one window the ETA costs it by.
type WindowFacts struct {
	FreshDB, Ceiling, Ramp bool
	RampSteps              int
	// UsersStepMs is a users ramp's step: its lead-in, measured span and
	// tail (0 for a rate ramp, whose step is a warm-up and a window).
	UsersStepMs int64
	// Warm: a sequential bench warms the app up before this window (WarmBefore)
	Warm bool `json:",omitempty"`
	// GuessMs is the window's own time until one of its id is measured.
	GuessMs int64 `json:",omitempty"`
}

// factsOf is the facts of a study's window.
func factsOf(w study.Window) WindowFacts {
	f := WindowFacts{FreshDB: w.Case.FreshDB, Ceiling: w.Case.Ceiling, Ramp: w.Case.Ramp != nil}
	if f.Ramp {
		f.RampSteps = ramp.Expected(w.Case.Ramp)
	}
	if r := w.Case.Ramp; r != nil && r.Users {
		f.UsersStepMs = int64((r.LeadS + r.StepS + k6script.TailS(r.TimeoutS)) * 1000)
	}
	return f
}

// WarmBefore says whether a window gets a warm-up of its own: every
// window when the profile warms each, else only a container's first
// (first); a ramp warms up at each of its steps instead.
func WarmBefore(w WindowFacts, first, warmEach bool) bool {
	return !w.Ramp && (warmEach || first)
}

// ETA is the bench's account: the steps still to walk (Left) and the
// quiet waits still to come, what the phases of each kind took so far (N,
// SumMs; a window's by its id too: a ramp is not a closed-loop window) and
// the guesses. What the schedule was made from is kept, so that a run or
// rows measured again are added as plan schedule walks them.
type ETA struct {
	Study       string                 `json:"study"`
	Connections int                    `json:"connections"`
	Rows        []string               `json:"rows"`
	Late        []string               `json:"late,omitempty"`
	Check       string                 `json:"sampler_check,omitempty"`
	Paired      bool                   `json:"paired,omitempty"`
	QuietGate   bool                   `json:"quiet_gate,omitempty"`
	Windows     map[string]WindowFacts `json:"windows"`
	Left        []Step                 `json:"left"`
	QuietLeft   int                    `json:"quiet_left"`
	N           map[string]int         `json:"n"`
	SumMs       map[string]int64       `json:"sum_ms"`
	WinN        map[string]int         `json:"window_n"`
	WinSumMs    map[string]int64       `json:"window_sum_ms"`
	GuessMs     map[string]int64       `json:"guess_ms"`
	FirstS      int64                  `json:"first_s"`
	// The bench's clock: when the estimate started (Unix ms, moved later
	// by each image built between rows: not the bench's time), the runs,
	// the windows planned (the progress line's total), the builds, and
	// each estimate shown ("MS:LEFT_S", MS after the start), which record
	// timing scores at the end.
	T0Ms    int64    `json:"t0_ms"`
	Runs    int      `json:"runs"`
	Planned int      `json:"planned_windows"`
	BuildN  int      `json:"build_n,omitempty"`
	BuildMs int64    `json:"build_ms,omitempty"`
	Marks   []string `json:"marks,omitempty"`
}

// nowMs is the clock the ETA reads (a test sets its own).
var nowMs = func() int64 { return time.Now().UnixMilli() }

func newETA() *ETA {
	return &ETA{Windows: map[string]WindowFacts{}, N: map[string]int{}, SumMs: map[string]int64{},
		WinN: map[string]int{}, WinSumMs: map[string]int64{}, GuessMs: map[string]int64{}}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// QuietGuessMs is how long the quiet-host gate should wait, from the load
// average now: the 1-minute load decays by e^(-t/60) on an idle host, so
// from L above the gate G it takes 60·ln(L/G) s to get under it, then the
// gate's quiet seconds under it; never more than the gate's timeout.
func QuietGuessMs(p Pace) int64 {
	if !p.QuietGate {
		return 0
	}
	sec := float64(p.QuietForS + 1)
	if p.Load1 >= p.QuietLoad && p.QuietLoad > 0 {
		sec += 60 * math.Log(p.Load1/p.QuietLoad)
	}
	if sec > float64(p.QuietTimeoutS+1) {
		sec = float64(p.QuietTimeoutS + 1)
	}
	return int64(sec * 1000)
}

// Start is the ETA of a bench of runs runs (slices, paired) of w's
// schedule at pace p: every step plan schedule gives, costed.
func Start(w Walk, p Pace, runs int, paired bool) (*ETA, error) {
	e := newETA()
	e.Rows, e.Check, e.Paired, e.QuietGate = w.Rows, w.Check, paired, p.QuietGate
	for r := range w.Late {
		e.Late = append(e.Late, r)
	}
	slices.Sort(e.Late)
	e.guess(w.Windows, p)
	if paired {
		steps, err := w.PairedSteps(runs)
		if err != nil {
			return nil, err
		}
		e.Left, e.QuietLeft = steps, b2i(p.QuietGate)
	} else {
		for n := 1; n <= runs; n++ {
			e.Left = append(e.Left, w.RunSteps(n, nil)...)
		}
		e.QuietLeft = runs * b2i(p.QuietGate)
	}
	e.FirstS, e.T0Ms, e.Runs, e.Planned = e.LeftS(), nowMs(), runs, e.windowsLeft()
	return e, nil
}

// windowsLeft is how many measured windows are still to walk.
func (e *ETA) windowsLeft() int {
	n := 0
	for _, s := range e.Left {
		n += b2i(s.Kind == "window")
	}
	return n
}

// Progress is the line the bench prints before a window: the run (a
// slice, paired) and the case among those planned (a run or rows walked
// again count down again), the time left, the image builds still to
// come; the estimate is kept for record timing.
func (e *ETA) Progress(run int, row, window string, builds int) string {
	left := e.LeftS()
	e.Marks = append(e.Marks, fmt.Sprintf("%d:%d", nowMs()-e.T0Ms, left))
	unit := "run"
	if e.Paired {
		unit = "slice"
	}
	line := fmt.Sprintf("%s %d/%d · case %d/%d · %s %s · about %s left", unit, run, e.Runs, e.Planned-e.windowsLeft()+1, e.Planned, row, window, Fmt(left))
	if builds > 0 {
		line += fmt.Sprintf(", plus %d image build(s)", builds)
	}
	return line
}

// BuildDone: an image built between rows took ms; its time is not the
// bench's (the ETA never counted it), so the bench's clock skips it and
// record timing keeps it apart, as the phase "build".
func (e *ETA) BuildDone(ms int64) {
	e.BuildN++
	e.BuildMs += ms
	e.T0Ms += ms
}

// Timing is record timing's arguments, one a line: the wall time since
// the start (builds left out), the first estimate, each phase's count and
// time, the builds', and every estimate shown.
func (e *ETA) Timing() string {
	args := []string{"--wall-ms", strconv.FormatInt(nowMs()-e.T0Ms, 10), "--eta-first-s", strconv.FormatInt(e.FirstS, 10)}
	for _, k := range Kinds {
		args = append(args, "--phase", fmt.Sprintf("%s=%d:%d", k, e.N[k], e.SumMs[k]))
	}
	if e.BuildN > 0 {
		args = append(args, "--phase", fmt.Sprintf("build=%d:%d", e.BuildN, e.BuildMs))
	}
	for _, m := range e.Marks {
		args = append(args, "--eta-at", m)
	}
	return strings.Join(args, "\n")
}

// guess sets each window's facts and every phase's guess.
func (e *ETA) guess(ws []study.Window, p Pace) {
	warm := int64(p.WarmupS*1000 + guessWarmupOverMs)
	win := int64(p.DurationS*1000 + guessWindowOverMs)
	ceilings := 0
	for i, w := range ws {
		f := factsOf(w)
		ceilings += b2i(f.Ceiling)
		f.Warm = WarmBefore(f, i == 0 || f.FreshDB, p.WarmEach)
		f.GuessMs = win
		if e.Paired {
			f.GuessMs = int64(p.DurationS*1000 + pairedWindowOver)
		}
		if f.Ramp {
			steps, step := int64(f.RampSteps), warm+win
			if steps == 0 {
				steps = guessRampSteps
			}
			if f.UsersStepMs > 0 {
				step = f.UsersStepMs
			}
			f.GuessMs = steps * (step + guessRampStepOver)
		}
		e.Windows[w.ID] = f
	}
	if e.Paired {
		e.GuessMs = map[string]int64{"quiet": int64(p.QuietForS+1) * 1000, "boot": pairedBootMs, "restart": pairedRestartMs,
			"warmup": int64(p.WarmupS*1000 + pairedWarmupOver), "stop": pairedStopMs,
			"ceilings": int64(ceilings) * int64(p.DurationS*1000+pairedCeilingOver), "sampler": int64(p.DurationS*1000 + pairedSamplerOver)}
		return
	}
	e.GuessMs = map[string]int64{"quiet": QuietGuessMs(p), "ceilings": int64(ceilings) * int64(p.DurationS*1000+guessCeilingOverMs),
		"headroom": int64((p.WarmupS+p.DurationS)*1000 + guessHeadroomMs), "boot": guessBootMs,
		"warmup": int64(max(p.WarmupS, guessSteadyS)*1000 + guessWarmupOverMs), "restart": guessRestartMs,
		"sampler": warm + 3*win, "stop": guessStopMs}
}

// mean is what a phase of kind should take: the mean of those measured,
// else the guess.
func (e *ETA) mean(kind string) int64 {
	if e.N[kind] > 0 {
		return e.SumMs[kind] / int64(e.N[kind])
	}
	return e.GuessMs[kind]
}

// stepMs is what a step should take, its phases summed.
func (e *ETA) stepMs(s Step) int64 {
	if s.Kind != "window" {
		return e.mean(s.Kind)
	}
	f := e.Windows[s.Window]
	ms := e.windowMs(s.Window, f)
	if !e.Paired {
		ms += int64(b2i(f.FreshDB))*e.mean("restart") + int64(b2i(f.Warm))*e.mean("warmup")
	}
	return ms
}

// windowMs is what a window of id should take: the mean of those of its
// id measured so far, else (a closed-loop window) of every closed-loop
// window measured so far, else its guess. A ramp is only ever its own.
func (e *ETA) windowMs(id string, f WindowFacts) int64 {
	if n := e.WinN[id]; n > 0 {
		return e.WinSumMs[id] / int64(n)
	}
	if f.Ramp {
		return f.GuessMs
	}
	var sum int64
	n := 0
	for w, k := range e.WinN {
		if !e.Windows[w].Ramp {
			sum, n = sum+e.WinSumMs[w], n+k
		}
	}
	if n == 0 {
		return f.GuessMs
	}
	return sum / int64(n)
}

// LeftS is the seconds the steps still to walk and the quiet waits still
// to come should take.
func (e *ETA) LeftS() int64 {
	ms := int64(e.QuietLeft) * e.mean("quiet")
	for _, s := range e.Left {
		ms += e.stepMs(s)
	}
	return ms / 1000
}

// Done: a phase of kind took ms (a window's: of window id).
func (e *ETA) Done(kind string, ms int64, id string) {
	e.SumMs[kind] += ms
	e.N[kind]++
	if kind == "window" && id != "" {
		e.WinSumMs[id] += ms
		e.WinN[id]++
	}
	if kind == "quiet" && e.QuietLeft > 0 {
		e.QuietLeft--
	}
}

// End: the bench walked step s (the first of Left that is s goes).
func (e *ETA) End(s Step) {
	if i := slices.Index(e.Left, s); i >= 0 {
		e.Left = slices.Delete(e.Left, i, i+1)
	}
}

// Drop: row is out (its app did not come up) in run: its steps of that
// run, or of every slice in a paired bench, will not be walked.
func (e *ETA) Drop(run int, row string) {
	e.Left = slices.DeleteFunc(e.Left, func(s Step) bool { return s.Row == row && (e.Paired || s.Run == run) })
}

// walk is the schedule's maker again, from what the state kept.
func (e *ETA) walk() (Walk, error) {
	s, err := study.Load(e.Study)
	if err != nil {
		return Walk{}, err
	}
	ws := s.Windows(e.Connections)
	w := Walk{Rows: e.Rows, Windows: ws, Late: map[string]bool{}, Check: e.Check, Headroom: Headroom(ws)}
	for _, r := range e.Late {
		w.Late[r] = true
	}
	return w, nil
}

// AddRun: run n is walked again (it was not quiet), its wait before it too.
func (e *ETA) AddRun(n int) error {
	w, err := e.walk()
	if err != nil {
		return err
	}
	e.Left = append(e.Left, w.RunSteps(n, nil)...)
	e.QuietLeft += b2i(e.QuietGate)
	return nil
}

// AddRows: rows of run n are measured again at its end, as plan schedule
// --only walks them.
func (e *ETA) AddRows(n int, rows []string) error {
	w, err := e.walk()
	if err != nil {
		return err
	}
	e.Left = append(e.Left, w.RunSteps(n, rows)...)
	return nil
}

// Fmt is seconds as the bench prints them: 3m05s.
func Fmt(s int64) string { return fmt.Sprintf("%dm%02ds", s/60, s%60) }

// Load reads the state file.
func Load(path string) (*ETA, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	e := newETA()
	if err := json.Unmarshal(b, e); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return e, nil
}

// Save writes the state file whole (a temporary file renamed over it).
func (e *ETA) Save(path string) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return rawfile.Write(path, b)
}

// etaUsage is plan eta's subcommands.
const etaUsage = "timing, done KIND MS [WINDOW], end STEP, drop RUN ROW, add-run N, add-rows N ROWS, progress RUN ROW WINDOW BUILDS, build-done MS"

// Command runs one of plan eta's subcommands on the state e; it says
// whether e changed.
func (e *ETA) Command(args []string) (out string, changed bool, err error) {
	num := func(s string) (int64, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a whole number", s)
		}
		return n, nil
	}
	if len(args) == 0 {
		return "", false, fmt.Errorf("want a subcommand (%s)", etaUsage)
	}
	want := map[string][2]int{"timing": {0, 0}, "done": {2, 3}, "end": {4, 4}, "drop": {2, 2},
		"add-run": {1, 1}, "add-rows": {2, 2}, "progress": {4, 4}, "build-done": {1, 1}}
	n, ok := want[args[0]]
	if !ok {
		return "", false, fmt.Errorf("unknown subcommand %q (%s)", args[0], etaUsage)
	}
	if len(args)-1 < n[0] || len(args)-1 > n[1] {
		return "", false, fmt.Errorf("%s: wrong number of arguments (%s)", args[0], etaUsage)
	}
	switch args[0] {
	case "timing":
		return e.Timing(), false, nil
	case "progress":
		run, err := num(args[1])
		if err != nil {
			return "", false, err
		}
		builds, err := num(args[4])
		if err != nil {
			return "", false, err
		}
		return e.Progress(int(run), args[2], args[3], int(builds)), true, nil
	case "build-done":
		ms, err := num(args[1])
		if err != nil {
			return "", false, err
		}
		e.BuildDone(ms)
	case "phases":
		var b strings.Builder
		for _, k := range Kinds {
			fmt.Fprintf(&b, "%s=%d:%d\n", k, e.N[k], e.SumMs[k])
		}
		return strings.TrimSuffix(b.String(), "\n"), false, nil
	case "done":
		if !slices.Contains(Kinds, args[1]) {
			return "", false, fmt.Errorf("%q is not a phase (%s)", args[1], strings.Join(Kinds, ", "))
		}
		ms, err := num(args[2])
		if err != nil {
			return "", false, err
		}
		e.Done(args[1], ms, strings.Join(args[3:], ""))
	case "end":
		run, err := num(args[2])
		if err != nil {
			return "", false, err
		}
		e.End(stepOf(args[1], int(run), args[3], args[4]))
	case "drop":
		run, err := num(args[1])
		if err != nil {
			return "", false, err
		}
		e.Drop(int(run), args[2])
	case "add-run":
		run, err := num(args[1])
		if err != nil {
			return "", false, err
		}
		return "", true, e.AddRun(int(run))
	case "add-rows":
		run, err := num(args[1])
		if err != nil {
			return "", false, err
		}
		return "", true, e.AddRows(int(run), list(args[2]))
	}
	return "", true, nil
}
