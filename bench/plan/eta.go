package main

// The bench's schedule and its time left, decided here and nowhere else:
// how many phases of each kind a run goes through (the quiet-host wait,
// the ceiling windows, the generator's headroom, each row's boot and checks, its warm-ups and
// windows, the restarts of fresh_db windows, the sampler check, the
// stop), which windows get a warm-up of their own, and what the phases
// still to do should take: the mean of those of their kind measured so
// far, a guess until one was. The bench (scripts/lib/bench-eta.sh) runs
// each phase, times it and tells plan eta; the state lives in a JSON file
// of the bench's scratch folder between calls. Plain integer arithmetic,
// as the bench's bash had it, so the estimates it printed are unchanged.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"stacklab/formats/rawfile"
)

// Kinds are the phases of a bench, in the order the ETA sums them and
// record timing keeps them.
var Kinds = []string{"quiet", "ceilings", "headroom", "boot", "warmup", "window", "restart", "sampler", "stop"}

// What a phase takes, the guesses until one of its kind is measured in
// the bench itself: a boot with its checks, a restart, a window's time
// beyond its length (the canary's readings are in it), a warm-up's beyond
// its length, and a steady warm-up's length, all as the bench's own timing
// record (the manifest's timing.phases) showed them on this project's
// machines; a ramp's step warms up for the warm-up exactly, and a ramp is
// plan's guess of its steps, each a warm-up and a window plus about a
// second around it.
const (
	guessBootMs        = 2600
	guessRestartMs     = 1450
	guessStopMs        = 150
	guessWindowOverMs  = 300  // a window's time beyond its length
	guessWarmupOverMs  = 40   // a warm-up's beyond its length
	guessSteadyS       = 5    // a steady-state warm-up's mean length
	guessCeilingOverMs = 100  // a ceiling window's beyond its length
	guessHeadroomMs    = 4000 // the headroom's beyond its warm-up and window: the stub started and stopped, then the network path check (an echo started, 2 s of stream, stopped)
	guessRampStepOver  = 500  // a ramp step's beyond its warm-up and window
	guessRampSteps     = 10   // a ramp's steps when plan gave no guess
	// The paired profile: every row up at once, each boot and restart
	// with its warm-up in it, 2 s slices alternating.
	pairedBootMs      = 2000
	pairedRestartMs   = 1500
	pairedWindowOver  = 400
	pairedStopMs      = 500
	pairedCeilingOver = 500
	pairedSamplerOver = 400
)

// Schedule is what the ETA counts: the bench's rows and runs, the
// profile's lengths, and each window's facts from the study.
type Schedule struct {
	Paired        bool
	Rows, Runs    int
	WarmupS       int
	DurationS     int
	WarmEach      bool // every window warms up (else a container's first only)
	QuietGate     bool
	QuietForS     int
	QuietTimeoutS int
	QuietLoad     float64 // the gate's load average
	Load1         float64 // the host's 1-minute load now
	SamplerCheck  bool    // a window measured again without the sampler, once a run
	Headroom      bool    // the generator's headroom, once a run (headroom.go)
	Windows       []WindowFacts
}

// WindowFacts are the facts of one window the schedule needs.
type WindowFacts struct {
	FreshDB, Ceiling, Ramp bool
	RampSteps              int
	// UsersStepMs is a users ramp's step: its lead-in, measured span and
	// tail (0 for a rate ramp, whose step is a warm-up and a window).
	UsersStepMs int64
}

// WarmBefore says whether a window gets a warm-up of its own: every
// window when the profile warms each, else only a container's first
// (first); a ramp warms up at each of its steps instead.
func WarmBefore(w WindowFacts, first, warmEach bool) bool {
	return !w.Ramp && (warmEach || first)
}

// ETA is the bench's account of its phases: those of each kind a run has
// (PerRun), those still to do (Left), those measured (N, SumMs) and the
// guesses (GuessMs).
type ETA struct {
	PerRun        map[string]int   `json:"per_run"`
	Left          map[string]int   `json:"left"`
	N             map[string]int   `json:"n"`
	SumMs         map[string]int64 `json:"sum_ms"`
	GuessMs       map[string]int64 `json:"guess_ms"`
	WarmupsPerRow int              `json:"warmups_per_row"`
	FreshPerRow   int              `json:"fresh_per_row"`
	WindowsPerRow int              `json:"windows_per_row"`
	FirstS        int64            `json:"first_s"`
}

func newETA() *ETA {
	return &ETA{PerRun: map[string]int{}, Left: map[string]int{}, N: map[string]int{}, SumMs: map[string]int64{}, GuessMs: map[string]int64{}}
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
func QuietGuessMs(s Schedule) int64 {
	if !s.QuietGate {
		return 0
	}
	sec := float64(s.QuietForS + 1)
	if s.Load1 >= s.QuietLoad && s.QuietLoad > 0 {
		sec += 60 * math.Log(s.Load1/s.QuietLoad)
	}
	if sec > float64(s.QuietTimeoutS+1) {
		sec = float64(s.QuietTimeoutS + 1)
	}
	return int64(sec * 1000)
}

// Plan counts the schedule's phases and sets the guesses.
func Plan(s Schedule) *ETA {
	if s.Paired {
		return planPaired(s)
	}
	e := newETA()
	ceilings, fresh, warmups := 0, 0, 0
	for i, w := range s.Windows {
		ceilings += b2i(w.Ceiling)
		fresh += b2i(w.FreshDB)
		if WarmBefore(w, i == 0 || w.FreshDB, s.WarmEach) {
			warmups++
		}
	}
	rows, nw := s.Rows, len(s.Windows)
	e.WarmupsPerRow, e.FreshPerRow, e.WindowsPerRow = warmups, fresh, nw
	e.PerRun = map[string]int{"quiet": b2i(s.QuietGate), "ceilings": b2i(ceilings > 0), "headroom": b2i(s.Headroom), "boot": rows, "warmup": rows * warmups,
		"window": rows * nw, "restart": rows * fresh, "sampler": b2i(s.SamplerCheck), "stop": rows}
	warm := int64(s.WarmupS*1000 + guessWarmupOverMs)
	steady := int64(max(s.WarmupS, guessSteadyS)*1000 + guessWarmupOverMs)
	win := int64(s.DurationS*1000 + guessWindowOverMs)
	var all int64
	for _, w := range s.Windows {
		if w.Ramp {
			steps := w.RampSteps
			if steps == 0 {
				steps = guessRampSteps
			}
			step := warm + win
			if w.UsersStepMs > 0 {
				step = w.UsersStepMs
			}
			all += int64(steps) * (step + guessRampStepOver)
		} else {
			all += win
		}
	}
	window := int64(0)
	if nw > 0 {
		window = all / int64(nw)
	}
	e.GuessMs = map[string]int64{"quiet": QuietGuessMs(s), "ceilings": int64(ceilings) * int64(s.DurationS*1000+guessCeilingOverMs),
		"headroom": int64((s.WarmupS+s.DurationS)*1000 + guessHeadroomMs),
		"boot":     guessBootMs, "warmup": steady, "window": window, "restart": guessRestartMs, "sampler": warm + 3*win, "stop": guessStopMs}
	e.AddRuns(s.Runs)
	return e
}

// planPaired: one quiet wait, each row booted once and restarted for each
// later fresh_db case (its warm-up counted in), RUNS slices of every row
// in every case plus each row's warm-up slice per case, one stop each.
// No headroom: its rows are up at once, so there is no moment before a
// run's first row for the mock to stand where an app stands.
func planPaired(s Schedule) *ETA {
	e := newETA()
	rows, nw := s.Rows, len(s.Windows)
	later, ceilings := 0, 0
	for _, w := range s.Windows {
		later += b2i(w.FreshDB)
		ceilings = max(ceilings, b2i(w.Ceiling))
	}
	if nw > 0 && s.Windows[0].FreshDB {
		later--
	}
	e.WindowsPerRow = nw
	e.PerRun = map[string]int{"window": rows * nw}
	e.GuessMs = map[string]int64{"quiet": int64(s.QuietForS+1) * 1000, "boot": int64(pairedBootMs + s.WarmupS*1000),
		"restart": int64(pairedRestartMs + s.WarmupS*1000), "window": int64(s.DurationS*1000 + pairedWindowOver), "stop": pairedStopMs,
		"ceilings": int64(s.DurationS*1000 + pairedCeilingOver), "sampler": int64(s.DurationS*1000 + pairedSamplerOver)}
	e.AddRuns(s.Runs)
	e.Left["window"] += rows * nw
	if s.SamplerCheck {
		e.Left["sampler"] = s.Runs
	}
	e.Left["ceilings"], e.Left["quiet"], e.Left["boot"], e.Left["restart"], e.Left["stop"] = ceilings, b2i(s.QuietGate), rows, rows*later, rows
	return e
}

// AddRuns: n more runs' phases to do (the plan, or a run measured again).
func (e *ETA) AddRuns(n int) {
	for _, k := range Kinds {
		e.Left[k] += n * e.PerRun[k]
	}
}

// AddRows: n rows' phases more to do (rows measured again at a run's end):
// each a boot and a stop, its windows, warm-ups and restarts.
func (e *ETA) AddRows(n int) {
	e.Left["boot"] += n
	e.Left["stop"] += n
	e.Left["window"] += n * e.WindowsPerRow
	e.Left["warmup"] += n * e.WarmupsPerRow
	e.Left["restart"] += n * e.FreshPerRow
}

// Done: a phase of kind took ms.
func (e *ETA) Done(kind string, ms int64) {
	e.SumMs[kind] += ms
	e.N[kind]++
	e.Skip(kind, 1)
}

// Skip: n phases of kind will not happen (a row that failed).
func (e *ETA) Skip(kind string, n int) {
	e.Left[kind] -= n
	if e.Left[kind] < 0 {
		e.Left[kind] = 0
	}
}

// RowDone: a row is over after windows windows, restarts restarts and
// warmups warm-ups; those of its plan it did not get to will not happen.
func (e *ETA) RowDone(windows, restarts, warmups int) {
	if windows < e.WindowsPerRow {
		e.Skip("window", e.WindowsPerRow-windows)
	}
	if restarts < e.FreshPerRow {
		e.Skip("restart", e.FreshPerRow-restarts)
	}
	if warmups < e.WarmupsPerRow {
		e.Skip("warmup", e.WarmupsPerRow-warmups)
	}
}

// LeftS is the seconds the phases still to do should take.
func (e *ETA) LeftS() int64 {
	var ms int64
	for _, k := range Kinds {
		mean := e.GuessMs[k]
		if e.N[k] > 0 {
			mean = e.SumMs[k] / int64(e.N[k])
		}
		ms += int64(e.Left[k]) * mean
	}
	return ms / 1000
}

// Fmt is seconds as the bench prints them: 3m05s.
func Fmt(s int64) string { return fmt.Sprintf("%dm%02ds", s/60, s%60) }

func isKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

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
	want := map[string]int{"left": 0, "first": 0, "phases": 0, "done": 2, "skip": 2, "add-runs": 1, "add-rows": 1, "row-done": 3}
	if len(args) == 0 {
		return "", false, fmt.Errorf("want a subcommand (left, first, phases, done, skip, add-runs, add-rows, row-done)")
	}
	n, ok := want[args[0]]
	if !ok {
		return "", false, fmt.Errorf("unknown subcommand %q (left, first, phases, done, skip, add-runs, add-rows, row-done)", args[0])
	}
	if len(args)-1 != n {
		return "", false, fmt.Errorf("%s takes %d arguments", args[0], n)
	}
	var nums []int64
	for i, a := range args[1:] {
		if (args[0] == "done" || args[0] == "skip") && i == 0 {
			if !isKind(a) {
				return "", false, fmt.Errorf("%q is not a phase (%s)", a, strings.Join(Kinds, ", "))
			}
			continue
		}
		v, err := num(a)
		if err != nil {
			return "", false, err
		}
		nums = append(nums, v)
	}
	switch args[0] {
	case "left":
		return strconv.FormatInt(e.LeftS(), 10), false, nil
	case "first":
		return strconv.FormatInt(e.FirstS, 10), false, nil
	case "phases":
		var b strings.Builder
		for _, k := range Kinds {
			fmt.Fprintf(&b, "%s=%d:%d\n", k, e.N[k], e.SumMs[k])
		}
		return strings.TrimSuffix(b.String(), "\n"), false, nil
	case "done":
		e.Done(args[1], nums[0])
	case "skip":
		e.Skip(args[1], int(nums[0]))
	case "add-runs":
		e.AddRuns(int(nums[0]))
	case "add-rows":
		e.AddRows(int(nums[0]))
	case "row-done":
		e.RowDone(int(nums[0]), int(nums[1]), int(nums[2]))
	}
	return "", true, nil
}
