package render

import (
	"testing"

	"stacklab/analysis/ramp"
	"stacklab/analysis/summary"
)

// The steps that made two runs disagree are those that failed at a rate
// the other run passed; a fail above every other run's passes is not one.
func TestDisturbedNamesFailsAtRatesAnotherRunPassed(t *testing.T) {
	st := func(run, step int, rate float64, v ramp.Kind, cause string) summary.CapacityStep {
		return summary.CapacityStep{Run: run, Step: step, Rate: rate, Verdict: v, Cause: cause}
	}
	steps := []summary.CapacityStep{
		st(1, 1, 1600, ramp.Pass, ""), st(1, 2, 3200, ramp.Pass, ""), st(1, 3, 6400, ramp.Latency, "app saturated"),
		st(2, 1, 1600, ramp.Pass, ""), st(2, 2, 3200, ramp.Latency, "host"), st(2, 3, 2400, ramp.Errors, "unexplained"),
	}
	want := "failed at rates another run passed: run 2 step 2 at 3,200 (host), step 3 at 2,400 (unexplained)"
	if got := disturbed(&summary.CapacityTable{}, steps); got != want {
		t.Errorf("disturbed:\n got %q\nwant %q", got, want)
	}
	steps[4].Cause, steps[5].Cause = "", ""
	if got := disturbed(&summary.CapacityTable{}, steps); got != "" {
		t.Errorf("no causes kept (an old folder): %q, want nothing", got)
	}
}
