package ramp

import (
	"strings"
	"testing"

	"stacklab/analysis/study"
	"stacklab/formats/k6summary"
)

func usersCase(t *testing.T, ramp string) *study.Case {
	t.Helper()
	s, err := study.Parse("users.toml", []byte(`
[[flow]]
name = "browse"
weight = 1
[[flow.step]]
path = "/page"

[[case]]
name = "users"
users = true
[case.ramp]
`+ramp), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.Case("users")
}

// usim is a stack whose p99 stays under the target up to capacity users,
// behind a k6 that holds at most genMax users; stallAt is a step number
// during which the host stalls the app (its p99 fails on that alone).
type usim struct {
	capacity, genMax float64
	stallAt          int
	errorsAbove      float64
}

func (m usim) step(n int, users float64) Step {
	u := &k6summary.Step{Requests: int64(users * 10), VUsMax: int(min(users, m.genMax)), P50Ms: 5, P99Ms: 20, MeanMs: 7}
	s := Step{N: n, Rate: users, DurationS: 30, Users: u, LoadgenKnown: true, GeneratorShare: users / 1e5}
	if users > m.capacity || n == m.stallAt {
		u.P99Ms = 400
	}
	if n == m.stallAt {
		s.HostStallMs, s.HostStallOn = 180, "app"
	}
	if m.errorsAbove > 0 && users > m.errorsAbove {
		u.Failed, u.Checks, u.ChecksFailed = 3, u.Requests, 3
		u.FailedChecks = []k6summary.Check{{Name: "browse: GET /page: status 2xx", Passes: u.Requests - 3, Fails: 3}}
	}
	return s
}

func (m usim) run(t *testing.T, c *study.Case) ([]Step, Next) {
	var steps []Step
	for range 50 {
		next := Decide(c, steps)
		if next.Stop {
			return steps, next
		}
		steps = append(steps, m.step(len(steps)+1, next.Rate))
	}
	t.Fatal("the users ramp did not stop within 50 steps")
	return nil, Next{}
}

func TestUsersRampFindsCapacity(t *testing.T) {
	c := usersCase(t, "")
	if !c.Ramp.Users || c.Ramp.Start != study.DefaultUsersStart || c.Ramp.MaxRate != study.DefaultMaxUsers || len(c.Flows) != 1 {
		t.Fatalf("users case %+v", c.Ramp)
	}
	steps, stop := usim{capacity: 700, genMax: 1e6}.run(t, c)
	if got, want := rates(steps), "10 20 40 80 160 320 640 1280 960 800 720 680 680"; got != want {
		t.Errorf("users %s, want %s (doubling, bisection, 680 confirmed)", got, want)
	}
	if stop.Reason != "converged: 680 users passed, 720 failed" {
		t.Errorf("stop %q", stop.Reason)
	}
	cp := Of(c, steps)
	if cp.Refused != "" || cp.Rate != 680 || cp.Step != len(steps)-1 {
		t.Errorf("capacity %+v, want 680 users", cp)
	}
	if v := Judge(c, steps[7]); v.Kind != Latency || v.Reason != "p99 400.0 ms > 100 ms" {
		t.Errorf("1280 users: %+v", v)
	}
	if steps[0].P99Ms(c) != 20 || steps[0].Sent() != 100 || steps[0].MeanMs() != 7 {
		t.Errorf("a users step's figures: p99 %v, sent %d, mean %v", steps[0].P99Ms(c), steps[0].Sent(), steps[0].MeanMs())
	}
	if Trims(c) {
		t.Error("flows that only GET trim nothing")
	}
}

// A ramp cut off by max_steps says what it would have measured next.
func TestUsersRampCutOff(t *testing.T) {
	c := usersCase(t, "max_steps = 5\n")
	steps, stop := usim{capacity: 700, genMax: 1e6}.run(t, c)
	if len(steps) != 5 || stop.Reason != "5 steps, the study's max_steps" {
		t.Fatalf("%d steps, stop %q", len(steps), stop.Reason)
	}
	next, open := Unconverged(c, steps)
	if !open || next.Rate != 320 {
		t.Errorf("unconverged %v, next %+v: want 320 users next", open, next)
	}
	if cp := Of(c, steps); cp.Refused != "no step failed up to 160 users: a floor, not a capacity" {
		t.Errorf("capacity %+v", cp)
	}
}

// A step failed while the host stalled is measured again at the same
// user count before it counts.
func TestUsersStallRedo(t *testing.T) {
	c := usersCase(t, "")
	steps, _ := usim{capacity: 700, genMax: 1e6, stallAt: 4}.run(t, c)
	if got := rates(steps); !strings.HasPrefix(got, "10 20 40 80 80 160") {
		t.Errorf("users %s: the stalled step 4 (80 users) must be measured again", got)
	}
	if cp := Of(c, steps); cp.Rate != 680 {
		t.Errorf("capacity %+v, want 680 users", cp)
	}
}

// Failed requests or checks fail a step and ask for a fresh app; a k6 that
// could not run the users bounds the search as the generator's, and with
// no fail below it no capacity is reported.
func TestUsersErrorsAndGenerator(t *testing.T) {
	c := usersCase(t, "")
	steps, _ := usim{capacity: 1e6, genMax: 1e6, errorsAbove: 300}.run(t, c)
	v := Judge(c, steps[5])
	if v.Kind != Errors || v.Reason != `3 of 3200 requests failed, 3 of 3200 checks, most failed: "browse: GET /page: status 2xx"` {
		t.Errorf("320 users: %+v", v)
	}
	if next := Decide(c, steps[:6]); !strings.HasPrefix(next.Restart, "step 6 lost requests") {
		t.Errorf("after errors: %+v", next)
	}
	// A step whose requests all had answers, failed by its checks alone,
	// still asks for a fresh app, and says it was the checks.
	only := usim{capacity: 1e6, genMax: 1e6}.step(6, 320)
	only.Users.Checks, only.Users.ChecksFailed = 3200, 2
	only.Users.FailedChecks = []k6summary.Check{{Name: "order: account page: has data-status", Passes: 3198, Fails: 2}}
	if next := Decide(c, append(steps[:5:5], only)); !strings.HasPrefix(next.Restart, "step 6 failed checks (0 of 3200 requests failed, 2 of 3200 checks") {
		t.Errorf("after failed checks alone: %+v", next)
	}
	steps, stop := usim{capacity: 1e6, genMax: 500}.run(t, c)
	if !strings.HasPrefix(stop.Reason, "the generator's limit: ") || !strings.Contains(stop.Reason, "k6 ran 500 of") {
		t.Errorf("stop %q", stop.Reason)
	}
	if cp := Of(c, steps); cp.Rate != 0 || !strings.HasPrefix(cp.Refused, "generator-capped at ") || !strings.HasSuffix(cp.Refused, "users passed: a floor, not a capacity") {
		t.Errorf("capacity %+v", cp)
	}
	st := Step{N: 1, Rate: 10, DurationS: 30, Users: &k6summary.Step{VUsMax: 10}}
	if v := Judge(c, st); v.Kind != Generator || v.Reason != "k6 sent no request in the measured 30 s" {
		t.Errorf("no request: %+v", v)
	}
}
