package results

import (
	"testing"

	"stacklab/formats/latencyline"
)

// A slump from the window's first bucket (a window that began on an app
// already slow) is one under the rules of folders before ramp_rules 2, and
// not one after: each folder is read by the rules it ran with.
func TestSlumpsByTheRulesTheStepRanWith(t *testing.T) {
	b := func(tms, answers int64) latencyline.Bucket {
		return latencyline.Bucket{TMs: tms, Sent: 720, Answers: answers}
	}
	lt := latencyline.Timeline{Header: latencyline.Header{BucketMs: 100}, Buckets: []latencyline.Bucket{
		b(0, 71), b(100, 720), b(200, 720), b(300, 40), b(400, 720)}}
	st := Step{Target: Target{Step: 3, Rate: 7200, DurationS: 0.5}}
	if got := st.Slumps(lt); len(got) != 2 || got[0].AtMs != 0 {
		t.Errorf("rules 1: %+v, want the leading slump and the one at 300 ms", got)
	}
	st.Target.RampRules = 2
	if got := st.Slumps(lt); len(got) != 1 || got[0].AtMs != 300 {
		t.Errorf("rules 2: %+v, want the one at 300 ms only", got)
	}
}
