package ramp

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"stacklab/analysis/study"
	_ "stacklab/formats/golden" // knows -update
	"stacklab/formats/latencyline"
	"stacklab/formats/vegeta"
)

func capacityCase(t *testing.T) *study.Case {
	t.Helper()
	s, err := study.Parse("study.toml", []byte(`
[[case]]
name = "capacity"
[case.ramp]
start = 50
[[case.mix]]
name = "page"
path = "/page"
weight = 95
[[case.mix]]
name = "upstream"
path = "/bench/upstream"
upstream_delay_ms = 100
weight = 5
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.Case("capacity")
}

// sim is a stack that meets the target up to capacity req/s, behind a
// generator that cannot send more than genMax req/s (or whose CPU is
// saturated from saturateAt req/s on).
type sim struct {
	capacity, genMax, saturateAt float64
	errorsAbove                  float64
	// coldFirst fails the ramp's first step, as an app just booted can.
	coldFirst bool
}

func (m sim) step(c *study.Case, n int, rate float64) Step {
	const secs = 5
	s := Step{N: n, Rate: rate, DurationS: secs, Reports: map[string]*vegeta.Report{}, LoadgenKnown: true, GeneratorShare: rate / 100000}
	if m.saturateAt > 0 && rate >= m.saturateAt {
		s.Saturated, s.GeneratorShare = true, 0.97
	}
	for _, l := range c.Lanes() {
		sent := math.Min(l.Rate(rate), l.Rate(m.genMax)) * secs
		p99 := 10e6 + float64(l.DelayMs)*1e6
		if rate > m.capacity || (m.coldFirst && n == 1) {
			p99 = 400e6
		}
		codes := map[string]int64{"200": int64(sent)}
		if m.errorsAbove > 0 && rate > m.errorsAbove {
			codes = map[string]int64{"200": int64(sent) - 3, "503": 3}
		}
		s.Reports[l.Name] = &vegeta.Report{Requests: int64(sent), StatusCodes: codes,
			Latencies: vegeta.Latencies{P99: int64(p99), Mean: int64(p99 / 2), Max: int64(p99)}}
	}
	return s
}

// run drives the ramp as the bench does: ask, measure, ask again.
func (m sim) run(t *testing.T, c *study.Case) ([]Step, Next) {
	var steps []Step
	for range 50 {
		next := Decide(c, steps)
		if next.Stop {
			return steps, next
		}
		steps = append(steps, m.step(c, len(steps)+1, next.Rate))
	}
	t.Fatal("the ramp did not stop within 50 steps")
	return nil, Next{}
}

func rates(steps []Step) string {
	var out []string
	for _, s := range steps {
		out = append(out, fmt.Sprint(s.Rate))
	}
	return strings.Join(out, " ")
}

func TestRampFindsCapacity(t *testing.T) {
	c := capacityCase(t)
	steps, stop := sim{capacity: 700, genMax: 1e6}.run(t, c)
	if got, want := rates(steps), "50 100 200 400 800 600 700 750 700"; got != want {
		t.Errorf("rates %s, want %s (doubling, then bisection, then 700 confirmed)", got, want)
	}
	if !strings.HasPrefix(stop.Reason, "converged: 700 req/s passed, 750 failed") {
		t.Errorf("stop %q", stop.Reason)
	}
	cp := Of(c, steps)
	if cp.Refused != "" || cp.Rate != 700 || steps[cp.Step].Rate != 700 || cp.Step != len(steps)-1 {
		t.Errorf("capacity %+v, want 700 req/s", cp)
	}
	// The upstream lane waits 100 ms by construction and is held to 200 ms:
	// it must not fail a step by itself.
	if v := cp.State.Verdicts[0]; v.Kind != Pass {
		t.Errorf("first step %+v", v)
	}
	if v := cp.State.Verdicts[4]; v.Kind != Latency || !strings.Contains(v.Reason, "without an upstream wait") {
		t.Errorf("800 req/s: %+v", v)
	}
}

// A step the generator cannot drive bounds the search like a fail: the
// ramp bisects below it, and when the stack never failed below the
// generator's limit no capacity is reported: the stack was never shown
// to fail.
func TestGeneratorCappedIsRefused(t *testing.T) {
	c := capacityCase(t)
	steps, stop := sim{capacity: 10000, genMax: 500}.run(t, c)
	if got := rates(steps); got != "50 100 200 400 800 600 500 550" {
		t.Errorf("rates %s: the ramp must bisect below the steps the generator could not hold", got)
	}
	if !strings.HasPrefix(stop.Reason, "the generator's limit: 500 req/s passed, and it could not drive 550") {
		t.Errorf("stop %q", stop.Reason)
	}
	cp := Of(c, steps)
	if cp.Rate != 0 || !strings.HasPrefix(cp.Refused, "generator-capped at 550 req/s") || !strings.HasSuffix(cp.Refused, "500 req/s passed: a floor, not a capacity") {
		t.Errorf("capacity %+v, want refused", cp)
	}
	// The same when the generator's CPU is saturated though it sent enough.
	steps, _ = sim{capacity: 1e6, genMax: 1e6, saturateAt: 400}.run(t, c)
	if cp := Of(c, steps); cp.Rate != 0 || !strings.Contains(cp.Refused, "saturated") {
		t.Errorf("saturated: %+v, want refused", cp)
	}
	// A stack that fails at a rate the generator holds, below the rate it
	// could not hold, has a capacity: the generator's step bounded the
	// search, the stack's fail ended it.
	steps, stop = sim{capacity: 5000, genMax: 6000}.run(t, c)
	if got := rates(steps); got != "50 100 200 400 800 1600 3200 6400 4800 5600 5200 4800" {
		t.Errorf("rates %s", got)
	}
	if cp := Of(c, steps); cp.Rate != 4800 || cp.Refused != "" {
		t.Errorf("capacity %+v (stop %q), want 4800 req/s", cp, stop.Reason)
	}
	// Saturated from 400 req/s on, with the stack failing above 300: the
	// stack's fail at a rate the generator drove is its capacity.
	steps, _ = sim{capacity: 300, genMax: 1e6, saturateAt: 400}.run(t, c)
	if cp := Of(c, steps); cp.Rate != 300 {
		t.Errorf("saturated above the stack's limit: %+v, want 300 req/s", cp)
	}
}

// A first step that failed cold is measured again once the ramp has
// passed below it; when it passes then, the climb goes on from there.
func TestColdFirstStepIsMeasuredAgain(t *testing.T) {
	c := capacityCase(t)
	steps, _ := sim{capacity: 700, genMax: 1e6, coldFirst: true}.run(t, c)
	n50 := 0
	for _, s := range steps {
		if s.Rate == 50 {
			n50++
		}
	}
	if cp := Of(c, steps); cp.Rate != 700 || n50 != 2 {
		t.Errorf("rates %s: capacity %v, want 700 with 50 req/s measured twice", rates(steps), cp.Rate)
	}
	// A stack that fails its first step twice has no pass above it.
	steps, _ = sim{capacity: 30, genMax: 1e6, coldFirst: true}.run(t, c)
	if cp := Of(c, steps); cp.Rate == 0 || cp.Rate >= 50 {
		t.Errorf("rates %s: capacity %+v, want one below 50 req/s", rates(steps), cp)
	}
}

func TestErrorsFailAStep(t *testing.T) {
	c := capacityCase(t)
	steps, _ := sim{capacity: 10000, genMax: 1e6, errorsAbove: 300}.run(t, c)
	cp := Of(c, steps)
	if cp.Rate < 270 || cp.Rate > 300 {
		t.Errorf("capacity %v (rates %s), want just under the 300 req/s where errors start", cp.Rate, rates(steps))
	}
	if v := cp.State.Verdicts[3]; v.Kind != Errors || !strings.Contains(v.Reason, "status 503") {
		t.Errorf("400 req/s: %+v", v)
	}
}

func TestFirstStepFails(t *testing.T) {
	c := capacityCase(t)
	steps, _ := sim{capacity: 20, genMax: 1e6}.run(t, c)
	if got := rates(steps); !strings.HasPrefix(got, "50 25 12 ") {
		t.Errorf("rates %s: after a failing first step the ramp walks down", got)
	}
	if cp := Of(c, steps); cp.Rate < 18 || cp.Rate > 20 {
		t.Errorf("capacity %+v", cp)
	}
	steps, _ = sim{capacity: 1e9, genMax: 1e9}.run(t, c)
	if cp := Of(c, steps); cp.Rate != 0 || !strings.Contains(cp.Refused, "no step failed") {
		t.Errorf("never failed: %+v", cp)
	}
}

// The upstream lane's p99 counts only once it has enough requests to have
// one; the main lane's always counts.
func TestSmallLaneNotJudgedOnP99(t *testing.T) {
	c := capacityCase(t)
	s := sim{capacity: 1e6, genMax: 1e6}.step(c, 1, 100) // 25 upstream requests in 5 s
	s.Reports["wait100"].Latencies.P99, s.Reports["wait100"].Latencies.Max = 900e6, 900e6
	if v := Judge(c, s); v.Kind != Pass {
		t.Errorf("25 requests' p99 failed the step: %+v", v)
	}
	s = sim{capacity: 1e6, genMax: 1e6}.step(c, 1, 1000) // 250 upstream requests
	s.Reports["wait100"].Latencies.P99, s.Reports["wait100"].Latencies.Max = 900e6, 900e6
	if v := Judge(c, s); v.Kind != Latency || !strings.Contains(v.Reason, "wait 100 ms on the upstream") {
		t.Errorf("250 requests at p99 900 ms passed: %+v", v)
	}
}

// A capacity is confirmed by one more step at its rate; when the
// confirmation fails (the app was still slowed by the overload above it),
// the search goes on below, and the capacity is a rate that passed twice
// or passed its own confirmation.
func TestCapacityIsConfirmed(t *testing.T) {
	c := capacityCase(t)
	var steps []Step
	sm := sim{capacity: 700, genMax: 1e6}
	for range 30 {
		next := Decide(c, steps)
		if next.Stop {
			break
		}
		if len(steps) == 8 && (next.Rate != 700 || !strings.HasPrefix(next.Why, "confirming 700 req/s")) {
			t.Fatalf("step 9 %+v, want the confirmation of 700", next)
		}
		// The first confirmation fails: the stack is slower after 750.
		s := sm.step(c, len(steps)+1, next.Rate)
		if len(steps) == 8 {
			s = sim{capacity: 650, genMax: 1e6}.step(c, len(steps)+1, next.Rate)
		}
		steps = append(steps, s)
	}
	if got := rates(steps); got != "50 100 200 400 800 600 700 750 700 650 650" {
		t.Errorf("rates %s, want the search to go on below a failed confirmation", got)
	}
	if cp := Of(c, steps); cp.Rate != 650 {
		t.Errorf("capacity %+v, want 650 (700 failed its confirmation)", cp)
	}
}

// A failed step during which the host stalled is measured again (bounded),
// and every step after a fail asks for a cooldown first.
func TestHostStalledStepIsRedone(t *testing.T) {
	c := capacityCase(t)
	sm := sim{capacity: 700, genMax: 1e6}
	var steps []Step
	redos := 0
	for range 40 {
		next := Decide(c, steps)
		if next.Stop {
			break
		}
		if len(steps) > 0 {
			prevPass := Judge(c, steps[len(steps)-1]).Kind == Pass
			if next.Cooldown == prevPass {
				t.Errorf("step %d: cooldown %v after a step that passed=%v", len(steps)+1, next.Cooldown, prevPass)
			}
		}
		if strings.Contains(next.Why, "host stalled") {
			redos++
		}
		s := sm.step(c, len(steps)+1, next.Rate)
		// The host stalls in every step at 400 req/s and above: each
		// looks failed the first time.
		if next.Rate >= 400 && !strings.Contains(next.Why, "host stalled") {
			s.HostStallMs, s.HostStallOn = 180, "app"
			s = sim{capacity: 100, genMax: 1e6}.step(c, len(steps)+1, next.Rate)
			s.HostStallMs, s.HostStallOn = 180, "app"
		}
		steps = append(steps, s)
	}
	if redos != MaxHostRedos {
		t.Errorf("%d redos (rates %s), want at most and here exactly %d", redos, rates(steps), MaxHostRedos)
	}
	if !strings.HasPrefix(rates(steps), "50 100 200 400 400 800 800") {
		t.Errorf("rates %s: want 400 and 800 measured again after their host stalls", rates(steps))
	}
}

// A step that lost requests asks for a fresh app, not a cooldown; a fail
// on the restarted app is measured once more before it bounds the
// capacity.
func TestErrorsAskForARestart(t *testing.T) {
	c := capacityCase(t)
	sm := sim{capacity: 10000, genMax: 1e6, errorsAbove: 300}
	var steps []Step
	restarts, again := 0, 0
	for range 40 {
		next := Decide(c, steps)
		if next.Stop {
			break
		}
		if len(steps) > 0 {
			lost := Judge(c, steps[len(steps)-1]).Kind == Errors
			if (next.Restart != "") != lost {
				t.Errorf("step %d: restart %q after a step that lost requests=%v", len(steps)+1, next.Restart, lost)
			}
			if lost && !strings.Contains(next.Restart, fmt.Sprintf("step %d lost requests", steps[len(steps)-1].N)) {
				t.Errorf("restart %q does not name the step", next.Restart)
			}
		}
		if next.Restart != "" {
			restarts++
		}
		if strings.Contains(next.Why, "just restarted") {
			again++
		}
		s := sm.step(c, len(steps)+1, next.Rate)
		s.Restarted = next.Restart != ""
		// the first step after each restart fails as a cold app can
		if s.Restarted && !strings.Contains(next.Why, "just restarted") {
			s = sim{capacity: 1, genMax: 1e6}.step(c, len(steps)+1, next.Rate)
			s.Restarted = true
		}
		steps = append(steps, s)
	}
	if restarts == 0 || again == 0 {
		t.Errorf("rates %s: %d restarts, %d fails measured again after a restart; want both", rates(steps), restarts, again)
	}
	if cp := Of(c, steps); cp.Rate < 200 || cp.Rate > 300 {
		t.Errorf("capacity %v (rates %s): a cold fail after a restart bounded it", cp.Rate, rates(steps))
	}
}

// A failed step during which the host's account of the CPUs shows other
// work on the app's CPU is measured again, as after a hiccup.
func TestHostCPUDisturbedStepIsRedone(t *testing.T) {
	c := capacityCase(t)
	sm := sim{capacity: 300, genMax: 1e6}
	steps := []Step{sm.step(c, 1, 50), sm.step(c, 2, 100), sm.step(c, 3, 200), sm.step(c, 4, 400)}
	steps[3].HostCPU = "other work used 0.31 of the app's CPUs during it"
	next := Decide(c, steps)
	if next.Rate != 400 || !strings.Contains(next.Why, "step 4 again: other work used 0.31") {
		t.Errorf("after a fail the host disturbed: %+v, want 400 again", next)
	}
	steps = append(steps, sm.step(c, 5, 400))
	if next := Decide(c, steps); next.Rate == 400 {
		t.Errorf("a rate measured again once is not measured a third time: %+v", next)
	}
}

// Only a mix that writes trims: a read-only ramp leaves the rows alone.
func TestTrimsOnlyWhenTheMixWrites(t *testing.T) {
	c := &study.Case{Ramp: &study.Ramp{}, Mix: []study.MixEntry{{Name: "page", Method: "GET"}}}
	if Trims(c) {
		t.Error("a GET-only mix trims")
	}
	c.Mix = append(c.Mix, study.MixEntry{Name: "write", Method: "POST"})
	if !Trims(c) {
		t.Error("a mix with a POST does not trim")
	}
}

// With the study's stall_redos, a step that failed on its p99 through one
// stall (a slump of 200 ms) is measured once more, at most stall_redos a
// ramp; a step whose answers were under the rate for longer (an app past
// its capacity) is not, nor is one without the study's consent.
func TestStallFailIsRedone(t *testing.T) {
	c := capacityCase(t)
	sm := sim{capacity: 3000, genMax: 1e6}
	stall := func(s Step) Step {
		s = sim{capacity: 1, genMax: 1e6}.step(c, s.N, s.Rate) // p99 over the target
		s.Slumps = []latencyline.Slump{{AtMs: 300, Ms: 200, Answers: 51, Sent: 1400}}
		return s
	}
	steps := []Step{sm.step(c, 1, 50), sm.step(c, 2, 100), sm.step(c, 3, 200), stall(sm.step(c, 4, 400))}
	if next := Decide(c, steps); next.Rate == 400 {
		t.Errorf("without stall_redos: %+v, want no redo", next)
	}
	c.Ramp.StallRedos = 2
	next := Decide(c, steps)
	if next.Rate != 400 || !strings.Contains(next.Why, "step 4 again: it failed on one stall (answers all but stopped for 200 ms at +0.3 s: 51 answered, 1400 sent)") {
		t.Errorf("after a one-stall fail: %+v, want 400 again", next)
	}
	if !next.Cooldown {
		t.Errorf("the redo of a failed step comes after a cooldown: %+v", next)
	}
	// the redo passes: the later step counts, and the climb goes on
	steps = append(steps, sm.step(c, 5, 400))
	if next := Decide(c, steps); next.Rate != 800 {
		t.Errorf("after the redo passed: %+v, want 800", next)
	}
	// a second and a third stall: only the second is measured again
	steps = append(steps, stall(sm.step(c, 6, 800)))
	if next := Decide(c, steps); next.Rate != 800 {
		t.Errorf("the second stall: %+v, want 800 again", next)
	}
	steps = append(steps, sm.step(c, 7, 800), stall(sm.step(c, 8, 1600)))
	if next := Decide(c, steps); next.Rate == 1600 {
		t.Errorf("a third stall with stall_redos 2: %+v, want no redo", next)
	}
	// answers under the rate for 1.5 s in all: not one stall
	long := stall(sm.step(c, 4, 400))
	long.Slumps = append(long.Slumps, latencyline.Slump{AtMs: 5000, Ms: 1300})
	if next := Decide(c, append(steps[:3:3], long)); next.Rate == 400 {
		t.Errorf("slumps of 1.5 s: %+v, want no redo", next)
	}
}

// A ramp cut off by max_steps before its bisection closed says so, and
// what it would have measured next; one that converged within them does
// not, nor one that has steps left.
func TestUnconverged(t *testing.T) {
	c := capacityCase(t)
	c.Ramp.MaxSteps = 6
	m := sim{capacity: 3000, genMax: 1e9}
	steps, stop := m.run(t, c)
	next, open := Unconverged(c, steps)
	if len(steps) != 6 || !strings.Contains(stop.Reason, "max_steps") || !open || next.Rate <= 0 {
		t.Fatalf("cut at 6 steps: %d steps, stop %q, open %v, next %+v", len(steps), stop.Reason, open, next)
	}
	if _, open := Unconverged(c, steps[:5]); open {
		t.Error("a ramp with steps left: open, want not cut off")
	}
	c.Ramp.MaxSteps = 40
	steps, stop = m.run(t, c)
	if _, open := Unconverged(c, steps); open || !strings.HasPrefix(stop.Reason, "converged") {
		t.Errorf("converged in %d steps (%q): open %v", len(steps), stop.Reason, open)
	}
}
