// Package ramp decides a capacity ramp: whether a step passed, which rate
// the next step runs at, when the ramp stops, and what capacity (if any)
// the steps show. It is pure, and both the bench (through `plan ramp`, one
// step at a time) and analysis (over the steps a run kept) use it, so the
// summary can never read a ramp differently from the bench that ran it.
package ramp

import (
	"fmt"
	"math"

	"stacklab/analysis/study"
	"stacklab/formats/k6summary"
	"stacklab/formats/latencyline"
	"stacklab/formats/vegeta"
)

// Step is one measured step: its planned rate and length, vegeta's report
// for each lane of the mix (study.Lane) and whether the generator's CPU
// was saturated. A users ramp's step (study.Ramp.Users) has its user count
// in Rate and k6's summary of its measured span in Users instead.
type Step struct {
	N         int
	Rate      float64 // planned req/s, all lanes; users in a users ramp
	DurationS float64 // planned seconds (measured, in a users ramp)
	Reports   map[string]*vegeta.Report
	Users     *k6summary.Step
	// Saturated: the generator used more than 90% of its CPUs in the step
	// (results.Loadgen); Known is false when that was not measured.
	Saturated, LoadgenKnown bool
	GeneratorShare          float64
	// HostStallMs is the longest stall the hiccup meters saw on the app's
	// or the generator's CPUs during the step (0 when none was measured),
	// HostStallOn which of them ("app" or "loadgen").
	HostStallMs float64
	HostStallOn string
	// HostCPU says how the host's account of the CPUs over the whole step
	// shows it took the app's CPU (StealShare, OtherCPUs); "" when it
	// does not, or was not recorded.
	HostCPU string
	// Slumps are the stretches of the step in which answers came at under
	// half the offered rate (latencyline.Slumps), in time order; nil when
	// the step kept no latency timeline.
	Slumps []latencyline.Slump
	// Restarted: the app was started afresh just before the step (the
	// step before lost requests, or the app did not settle), so the step
	// ran on an app just booted.
	Restarted bool
}

// HostStallMs is the hiccup-meter gap that marks a step as disturbed by the
// host: a 1 ms sleep that overslept this much was not the app's doing.
const HostStallMs = 50

// The host's own account of the CPUs (the cgroup timeline's cpusets) also
// marks a step, or a stretch of one, as the host's: the hypervisor took
// StealShare or more of the app's or the generator's CPUs' time (steal),
// or work other than the app's group used OtherCPUs or more of the app's
// CPUs (another process, the kernel's own threads).
const (
	StealShare = 0.10
	OtherCPUs  = 0.20
)

// MaxHostRedos bounds how many disturbed steps one ramp measures again.
const MaxHostRedos = 2

// Rules is the version of the ramp's reading of a step that the bench
// records in each step's target (`record step`), so a folder is read by
// the rules it ran with: 1 (none recorded), every slump counts; 2, from
// 2026-12-02's last runs, a slump from the window's first bucket does not
// (results.Step.Slumps).
const Rules = 2

// LoneSlumpMs bounds a stall that may be measured again (the study's
// ramp.stall_redos): a step failed on its p99 whose slumps, all together,
// lasted at most this long failed on one moment in which the app all but
// stopped, not on a rate it could not keep. An app past its capacity
// answers under the rate for the whole step instead.
const LoneSlumpMs = 1000

// MinJudged is the fewest requests a lane other than the first (the
// requests that wait on the upstream) must have in a step for its p99 to
// pass or fail the step; its errors always count.
const MinJudged = 100

// Kind is a step's outcome.
type Kind string

const (
	Pass Kind = "pass"
	// Latency: p99 above the target.
	Latency Kind = "p99"
	// Errors: an answer the case does not accept, or no answer.
	Errors Kind = "errors"
	// Generator: the generator could not hold the rate or was saturated;
	// the step says nothing about the stack, and the ramp looks below it.
	Generator Kind = "generator"
)

// Verdict is a step's outcome in words.
type Verdict struct {
	Kind   Kind
	Reason string
}

// Judge decides one step of capacity case c. The generator is judged
// first: a step it could not drive is not the stack's pass or fail,
// whatever its p99. Each lane is held to the target plus its upstream wait.
func Judge(c *study.Case, s Step) Verdict {
	r := c.Ramp
	if r.Users {
		return judgeUsers(c, s)
	}
	lanes := c.Lanes()
	for _, l := range lanes {
		rep := s.Reports[l.Name]
		if rep == nil {
			return Verdict{Generator, fmt.Sprintf("lane %s has no report", l.Name)}
		}
		// One request of slack: a lane of 2.5 req/s sends 12 or 13 in 5 s.
		planned := l.Rate(s.Rate) * s.DurationS
		if float64(rep.Requests)+1 < r.Hold*planned {
			return Verdict{Generator, fmt.Sprintf("the generator sent %d of %.0f planned requests%s (%.0f%%): it could not hold %s req/s",
				rep.Requests, planned, laneWords(l, lanes), 100*float64(rep.Requests)/planned, fmtRate(s.Rate))}
		}
	}
	if s.Saturated {
		return Verdict{Generator, fmt.Sprintf("the generator used %.0f%% of its CPUs: saturated, so latency may be its own", 100*s.GeneratorShare)}
	}
	for _, l := range lanes {
		rep := s.Reports[l.Name]
		if bad := rep.BadWith(c.Good); len(bad) > 0 {
			first := bad[0]
			what := fmt.Sprintf("status %d", first.Code)
			if first.Code == 0 {
				what = "no answer"
				if len(rep.Errors) > 0 {
					what += " (" + rep.Errors[0] + ")"
				}
			}
			return Verdict{Errors, fmt.Sprintf("%d of %d requests%s failed, first kind: %s", rep.Bad(c.Good), rep.Requests, laneWords(l, lanes), what)}
		}
	}
	for i, l := range lanes {
		rep := s.Reports[l.Name]
		// A side lane's p99 of a few dozen requests is its slowest one or
		// two: it counts once the lane has MinJudged requests in the step.
		if i > 0 && rep.Requests < MinJudged {
			continue
		}
		if p99 := rep.P99Ms(); p99 > l.TargetMs(r) {
			return Verdict{Latency, fmt.Sprintf("p99 %.1f ms > %g ms%s", p99, l.TargetMs(r), laneWords(l, lanes))}
		}
	}
	return Verdict{Pass, fmt.Sprintf("p99 %.1f ms ≤ %g ms", s.Reports[lanes[0].Name].P99Ms(), r.P99Ms)}
}

// judgeUsers decides a users step as Judge does a rate's: the generator
// first (it did not hold the users, sent nothing, or was saturated), then
// any failed request or check, then the p99 of the measured span.
func judgeUsers(c *study.Case, s Step) Verdict {
	u := s.Users
	switch {
	case u == nil:
		return Verdict{Generator, "the step has no k6 summary"}
	case u.VUsMax > 0 && float64(u.VUsMax) < s.Rate:
		return Verdict{Generator, fmt.Sprintf("k6 ran %d of %s users", u.VUsMax, fmtRate(s.Rate))}
	case u.Requests == 0:
		return Verdict{Generator, fmt.Sprintf("k6 sent no request in the measured %g s", s.DurationS)}
	case s.Saturated:
		return Verdict{Generator, fmt.Sprintf("the generator used %.0f%% of its CPUs: saturated, so latency may be its own", 100*s.GeneratorShare)}
	case u.Failed > 0 || u.ChecksFailed > 0:
		first := ""
		if len(u.FailedChecks) > 0 {
			first = fmt.Sprintf(", most failed: %q", u.FailedChecks[0].Name)
		}
		return Verdict{Errors, fmt.Sprintf("%d of %d requests failed, %d of %d checks%s", u.Failed, u.Requests, u.ChecksFailed, u.Checks, first)}
	case u.P99Ms > c.Ramp.P99Ms:
		return Verdict{Latency, fmt.Sprintf("p99 %.1f ms > %g ms", u.P99Ms, c.Ramp.P99Ms)}
	}
	return Verdict{Pass, fmt.Sprintf("p99 %.1f ms ≤ %g ms", u.P99Ms, c.Ramp.P99Ms)}
}

// laneWords names a lane in a verdict when the mix has more than one.
func laneWords(l study.Lane, lanes []study.Lane) string {
	if len(lanes) == 1 {
		return ""
	}
	if l.DelayMs == 0 {
		return " (requests without an upstream wait)"
	}
	return fmt.Sprintf(" (requests that wait %d ms on the upstream)", l.DelayMs)
}

// P99Ms is the step's p99 in the lane without an upstream wait: the
// latency the target is about.
func (s Step) P99Ms(c *study.Case) float64 {
	if s.Users != nil {
		return s.Users.P99Ms
	}
	if rep := s.Reports[c.Lanes()[0].Name]; rep != nil {
		return rep.P99Ms()
	}
	return 0
}

// MeanMs is the mean latency over every request of the step, all lanes.
func (s Step) MeanMs() float64 {
	if s.Users != nil {
		return s.Users.MeanMs
	}
	var n int64
	var total float64
	for _, rep := range s.Reports {
		n += rep.Requests
		total += float64(rep.Latencies.Mean) * float64(rep.Requests)
	}
	if n == 0 {
		return 0
	}
	return total / float64(n) / 1e6
}

// Sent is how many requests the step sent, all lanes.
func (s Step) Sent() int64 {
	if s.Users != nil {
		return s.Users.Requests
	}
	var n int64
	for _, rep := range s.Reports {
		n += rep.Requests
	}
	return n
}

// State is what the steps so far say: the highest rate that passed, the
// lowest that failed (the stack's fault), and the lowest rate the
// generator could not drive.
type State struct {
	Pass, Fail float64 // 0 and +Inf when none
	PassStep   int     // index into the steps of the passing step at Pass; -1 none
	FailStep   int     // index of the failing step at Fail; -1 none
	// GenCap is the lowest rate of a step judged the generator's (+Inf
	// when none), Generator that step's index (-1 when none).
	GenCap    float64
	Generator int
	Verdicts  []Verdict
}

// Read judges every step. A rate measured twice counts by its later
// step (the ramp re-measures a cold first step, Decide).
func Read(c *study.Case, steps []Step) State {
	st := State{Fail: math.Inf(1), PassStep: -1, FailStep: -1, GenCap: math.Inf(1), Generator: -1}
	last := map[float64]int{}
	for i, s := range steps {
		st.Verdicts = append(st.Verdicts, Judge(c, s))
		last[s.Rate] = i
	}
	for i, s := range steps {
		if last[s.Rate] != i {
			continue
		}
		switch st.Verdicts[i].Kind {
		case Pass:
			if s.Rate >= st.Pass {
				st.Pass, st.PassStep = s.Rate, i
			}
		case Generator:
			if s.Rate < st.GenCap {
				st.GenCap, st.Generator = s.Rate, i
			}
		default:
			if s.Rate < st.Fail {
				st.Fail, st.FailStep = s.Rate, i
			}
		}
	}
	return st
}

// upper is the lower end of what bounds the search from above: the
// stack's lowest fail or the generator's lowest cap.
func (st State) upper() float64 { return math.Min(st.Fail, st.GenCap) }

// capped says the generator, not the stack, bounds the search.
func (st State) capped() bool { return st.GenCap <= st.Fail && !math.IsInf(st.GenCap, 1) }

func (st State) genWords(steps []Step) string {
	return fmt.Sprintf("step %d: %s", steps[st.Generator].N, st.Verdicts[st.Generator].Reason)
}

// Next is the ramp's next move: a rate to measure, or a stop and why.
// Why says what a step that is not the search's own next rate is for (a
// redo of a disturbed step, the confirmation of the capacity, a cold first
// step measured again); Cooldown asks the bench to let the app settle
// before it (the last step was not a pass); Restart, when set, asks for a
// fresh app instead, and says why. Trim asks the bench to delete the rows
// the app wrote since the seed before the step's warm-up and again before
// its window (Trims).
type Next struct {
	Stop     bool
	Rate     float64
	Reason   string
	Why      string
	Cooldown bool
	Restart  string
	Trim     bool
}

// Trims says whether each step of c starts on the seeded rows: true when
// its mix, or a users case's flows, writes (a method other than GET).
// /bench/read counts the whole bench_events table, so the cost of a read
// grows with every row written before it: measured here, 16 µs a read at the seed's 1,000 rows and
// 1.9 ms at 30,000, and a ramp's later steps, after its overloaded ones,
// ran at up to 1.8× the CPU per request of the same rate earlier. Without
// the trim a step's result depends on the path of rates before it.
func Trims(c *study.Case) bool {
	for _, f := range c.Flows {
		for _, st := range f.Steps {
			if st.Method != "GET" {
				return true
			}
		}
	}
	for _, m := range c.Mix {
		if m.Method != "GET" {
			return true
		}
	}
	return false
}

// Decide picks the next step from the steps so far: geometric growth from
// the start until a step fails, then bisection between the highest pass
// and the lowest fail until they are within the study's resolution, then
// one more step at the highest pass to confirm it. A step the generator
// could not drive bounds the bisection as a fail does, so the ramp still
// looks below it for a rate at which the stack fails. A failed step during
// which the host stalled is measured again (at most MaxHostRedos a ramp),
// and so, when the study allows it (ramp.stall_redos), is one that failed
// on its p99 through one stall (LoneSlump).
func Decide(c *study.Case, steps []Step) Next {
	r := c.Ramp
	if len(steps) == 0 {
		return Next{Rate: math.Round(r.Start), Trim: Trims(c)}
	}
	st := Read(c, steps)
	last := steps[len(steps)-1]
	n := decide(c, steps, st, last)
	n.Trim = !n.Stop && Trims(c)
	n.Cooldown = !n.Stop && st.Verdicts[len(steps)-1].Kind != Pass
	// A step that lost requests leaves an app holding their backlog (an
	// upstream pool full of timed-out calls, a queue of dead sockets):
	// seen here, every step after one ran at twice the CPU per request
	// though the cooldown found the app idle. The next step gets a fresh
	// app, warmed up again.
	if n.Cooldown && st.Verdicts[len(steps)-1].Kind == Errors {
		what := "lost requests"
		if last.Users != nil && last.Users.ChecksOnly() {
			what = "failed checks"
		}
		n.Restart = fmt.Sprintf("step %d %s (%s)", last.N, what, st.Verdicts[len(steps)-1].Reason)
	}
	return n
}

func decide(c *study.Case, steps []Step, st State, last Step) Next {
	r := c.Ramp
	up := st.upper()
	if len(steps) < r.MaxSteps && st.Verdicts[len(steps)-1].Kind != Pass && last.disturbed() &&
		remeasured(steps, last.Rate) == 1 && hostRedos(steps) < MaxHostRedos {
		if last.HostStallMs >= HostStallMs {
			return Next{Rate: last.Rate, Why: fmt.Sprintf("step %d again: the host stalled %.0f ms on the %s CPUs during it", last.N, last.HostStallMs, last.HostStallOn)}
		}
		return Next{Rate: last.Rate, Why: fmt.Sprintf("step %d again: %s", last.N, last.HostCPU)}
	}
	if len(steps) < r.MaxSteps && st.Verdicts[len(steps)-1].Kind == Latency && !last.disturbed() && stallRedos(steps) < r.StallRedos &&
		remeasured(steps, last.Rate) == 1 {
		if sl, ok := last.LoneSlump(); ok {
			return Next{Rate: last.Rate, Why: fmt.Sprintf("step %d again: it failed on one stall (answers all but stopped for %d ms at +%.1f s: %d answered, %d sent)",
				last.N, sl.Ms, float64(sl.AtMs)/1e3, sl.Answers, sl.Sent)}
		}
	}
	switch {
	case len(steps) >= r.MaxSteps:
		return Next{Stop: true, Reason: fmt.Sprintf("%d steps, the study's max_steps", len(steps))}
	case math.IsInf(up, 1):
		if last.Rate >= r.MaxRate {
			return Next{Stop: true, Reason: fmt.Sprintf("passed at %s %s without a failing step", maxWord(r), amount(r, r.MaxRate))}
		}
		return Next{Rate: math.Min(math.Round(st.Pass*r.Growth), r.MaxRate)}
	case st.Pass == 0:
		// Even the first step failed: walk down until one passes.
		down := math.Floor(up / r.Growth)
		if down < 1 {
			return Next{Stop: true, Reason: "failed at " + amount(r, 1)}
		}
		return Next{Rate: down}
	}
	if up-st.Pass <= math.Max(1, r.Resolution*st.Pass) {
		// The first step runs on an app just booted (lazy loading, JIT,
		// each worker's first requests): a fail there, with passes below
		// it since, is measured once more before it bounds the capacity.
		if !st.capped() && st.FailStep == 0 && remeasured(steps, st.Fail) == 1 {
			return Next{Rate: st.Fail, Why: "the first step again: it ran on an app just booted"}
		}
		// So does the first step on a restarted app.
		if !st.capped() && st.FailStep > 0 && steps[st.FailStep].Restarted && remeasured(steps, st.Fail) == 1 {
			return Next{Rate: st.Fail, Why: fmt.Sprintf("step %d again: it ran on an app just restarted", steps[st.FailStep].N)}
		}
		// A capacity is confirmed by one more step at its rate (after the
		// failing steps above it, so on an app that has been overloaded):
		// if that fails, the search goes on below it.
		if !st.capped() && remeasured(steps, st.Pass) == 1 {
			return Next{Rate: st.Pass, Why: fmt.Sprintf("confirming %s, the highest %s that passed", amount(r, st.Pass), loadWord(r))}
		}
		if st.capped() {
			return Next{Stop: true, Reason: fmt.Sprintf("the generator's limit: %s passed, and it could not drive %s (%s)", amount(r, st.Pass), fmtRate(st.GenCap), st.genWords(steps))}
		}
		return Next{Stop: true, Reason: fmt.Sprintf("converged: %s passed, %s failed", amount(r, st.Pass), fmtRate(st.Fail))}
	}
	return Next{Rate: math.Round((st.Pass + up) / 2)}
}

// Unconverged tells whether a ramp stopped at the study's max_steps with
// its search still open, and what it would have measured next without
// that bound: its capacity is then a floor, not where pass meets fail.
func Unconverged(c *study.Case, steps []Step) (Next, bool) {
	if c.Ramp == nil || len(steps) < c.Ramp.MaxSteps {
		return Next{}, false
	}
	unbounded, r := *c, *c.Ramp
	r.MaxSteps = math.MaxInt
	unbounded.Ramp = &r
	next := Decide(&unbounded, steps)
	return next, !next.Stop
}

// disturbed: the hiccup meters saw the host stall during the step, or the
// host's account of the CPUs shows it took the app's CPU.
func (s Step) disturbed() bool { return s.HostStallMs >= HostStallMs || s.HostCPU != "" }

// LoneSlump is the step's one stall, when its slumps lasted LoneSlumpMs
// or less in all: the longest of them.
func (s Step) LoneSlump() (latencyline.Slump, bool) {
	var total int64
	for _, sl := range s.Slumps {
		total += sl.Ms
	}
	most, found := latencyline.Longest(s.Slumps)
	return most, found && total <= LoneSlumpMs
}

// stallRedos counts the steps measured again because the one before at
// the same rate failed on one stall.
func stallRedos(steps []Step) int {
	n := 0
	for i := 1; i < len(steps); i++ {
		if _, lone := steps[i-1].LoneSlump(); lone && steps[i].Rate == steps[i-1].Rate && !steps[i-1].disturbed() {
			n++
		}
	}
	return n
}

// hostRedos counts the steps measured again because the host disturbed
// the one before at the same rate.
func hostRedos(steps []Step) int {
	n := 0
	for i := 1; i < len(steps); i++ {
		if steps[i].Rate == steps[i-1].Rate && steps[i-1].disturbed() {
			n++
		}
	}
	return n
}

// remeasured counts the steps measured at rate.
func remeasured(steps []Step, rate float64) int {
	n := 0
	for _, s := range steps {
		if s.Rate == rate {
			n++
		}
	}
	return n
}

// Capacity is what a ramp shows: the highest rate that met the target, or
// why none can be reported.
type Capacity struct {
	// Rate is the capacity in req/s; 0 when Refused.
	Rate float64
	// Step indexes the step measured at Rate (-1 when refused).
	Step int
	// Refused says why no capacity is reported: the generator capped the
	// ramp, no step failed, or none passed.
	Refused string
	State   State
}

// Of reads a finished ramp. A capacity is reported only when a step the
// generator drove failed above it, below any rate the generator could not
// drive: a ramp the generator bounded, or one that never failed, shows a
// floor, not a capacity.
func Of(c *study.Case, steps []Step) Capacity {
	st := Read(c, steps)
	cp := Capacity{Step: -1, State: st}
	r := c.Ramp
	switch {
	case len(steps) == 0:
		cp.Refused = "no step measured"
	case st.capped() && st.Pass > 0:
		cp.Refused = fmt.Sprintf("generator-capped at %s (%s); %s passed: a floor, not a capacity", amount(r, st.GenCap), st.genWords(steps), amount(r, st.Pass))
	case st.capped():
		cp.Refused = fmt.Sprintf("generator-capped at %s (%s)", amount(r, st.GenCap), st.genWords(steps))
	case math.IsInf(st.Fail, 1):
		cp.Refused = fmt.Sprintf("no step failed up to %s: a floor, not a capacity", amount(r, st.Pass))
	case st.Pass == 0:
		cp.Refused = fmt.Sprintf("every step failed, down to %s", amount(r, st.Fail))
	default:
		cp.Rate, cp.Step = st.Pass, st.PassStep
	}
	return cp
}

// Expected is a guess of a ramp's steps before any is measured, for the
// bench's first time estimate: doubling from the start to the geometric
// mean of start and max_rate (where a capacity is as likely above as
// below, knowing nothing else), one failing step, then the bisection to
// the resolution; at most max_steps.
func Expected(r *study.Ramp) int {
	mid := math.Sqrt(r.Start * r.MaxRate)
	grow := int(math.Ceil(math.Log(mid/r.Start)/math.Log(r.Growth))) + 1
	bisect := int(math.Ceil(math.Log2(1 / r.Resolution)))
	return min(grow+1+bisect+1, r.MaxSteps) // +1: the confirmation
}

func fmtRate(r float64) string { return fmt.Sprintf("%.0f", r) }

// amount is a step's load in words: "700 req/s", or "120 users".
func amount(r *study.Ramp, x float64) string { return fmtRate(x) + " " + r.Unit() }

// loadWord and maxWord name what a ramp steps and the study key that
// caps it.
func loadWord(r *study.Ramp) string {
	if r.Users {
		return "user count"
	}
	return "rate"
}

func maxWord(r *study.Ramp) string {
	if r.Users {
		return "max_users"
	}
	return "max_rate"
}
