package summary

import (
	"fmt"
	"math"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
	"stacklab/analysis/study"
	"stacklab/analysis/units"
	"stacklab/formats/cpulist"
	"stacklab/formats/timeline"
)

// CapacityTable is one capacity case: per stack, the highest rate that met
// the p99 target in each run, or why none is reported. Package ramp reads
// the steps, exactly as the bench did when it chose them.
type CapacityTable struct {
	Case   string  `json:"case"`
	P99Ms  float64 `json:"p99_target_ms"`
	ThinkS float64 `json:"think_s"`
	// Lanes names the parts of the mix with their own target (the
	// requests that wait on the upstream), beyond the first.
	Lanes []CapacityLane `json:"lanes,omitempty"`
	Rows  []CapacityRow  `json:"rows"`
	// Trimmed: the steps started on the seeded rows (the bench deleted
	// what earlier steps wrote; ramp.Trims), in every step of every row.
	Trimmed bool `json:"steps_start_on_seed_rows,omitempty"`
	// StallRedos is the study's ramp.stall_redos: how many failed steps a
	// ramp measured again because they failed on one stall.
	StallRedos int `json:"stall_redos,omitempty"`
	// LeadInS: every step's attack ran this long at its rate before its
	// window (0 when a step had none).
	LeadInS float64 `json:"lead_in_s,omitempty"`
	// Unit is "users" for a ramp of simulated users (study.Ramp.Users):
	// its capacity is a user count, each step's load its users, Users the
	// capacity and ReqPerSec what the users sent at it; "" for a rate.
	Unit string `json:"unit,omitempty"`
	// StepS is a users step's measured span (its lead-in before it is
	// LeadInS); 0 for a rate ramp.
	StepS float64 `json:"step_s,omitempty"`
	// K6 is the users' generator's own cost and what it bounds (users
	// ramps only; nil when no step recorded k6's CPU).
	K6 *K6Headroom `json:"k6_headroom,omitempty"`
}

// K6Headroom is k6's headroom on this host, from every measured step of
// the table: its CPU time per request over whole steps (lead-in, span and
// tail), the requests a second its CPUs would hold at that cost, and the
// users that makes at the users' own pace (users per req/s at their rows'
// capacities; 0 when no row has one).
type K6Headroom struct {
	CPUs         int     `json:"cpus"`
	CPUUsPerReq  float64 `json:"cpu_us_per_request"`
	MaxReqPerSec float64 `json:"max_req_per_sec"`
	MaxUsers     float64 `json:"max_users"`
	Steps        int     `json:"steps"`
}

// CapacityLane is a lane of the mix that has its own p99 target.
type CapacityLane struct {
	Name     string  `json:"name"`
	Share    float64 `json:"share"`
	TargetMs float64 `json:"p99_target_ms"`
}

// CapacityRow is one stack. The ranges are over the runs that reported a
// capacity; a run whose ramp the generator capped reports none.
type CapacityRow struct {
	Stack string `json:"stack"`
	// trimmed: every measured step of the row started on the seeded rows
	// (CapacityTable.Trimmed), and there was one
	trimmed bool
	// ReqPerSec is the capacity; PerRun holds each run's (null: refused),
	// in the table's unit (users, in a users ramp, whose ReqPerSec is what
	// the users sent at their capacity).
	ReqPerSec stat.Range `json:"capacity_req_per_sec"`
	PerRun    []*float64 `json:"capacity_per_run"`
	// Users is req/s × (think time + mean response time at capacity); in a
	// users ramp, the capacity itself.
	Users     stat.Range `json:"users"`
	P99Ms     stat.Range `json:"p99_ms_at_capacity"`
	P99PerRun []*float64 `json:"p99_ms_at_capacity_per_run"`
	// AppCPU is the app's CPU use at capacity, in CPUs (cgroup samples).
	AppCPU stat.Range `json:"app_cpus_at_capacity"`
	// Throttled is throttled periods ÷ periods at capacity (quota mode;
	// N = 0 when the cgroup counted no periods).
	Throttled stat.Range `json:"throttled_share_at_capacity"`
	// GeneratorMax is the generator's highest CPU share over every step.
	GeneratorMax float64 `json:"generator_max_cpu_share"`
	// Refused lists, per run that reported no capacity, why.
	Refused []RunNote `json:"refused,omitempty"`
	// Unconverged lists, per run whose ramp stopped at the study's
	// max_steps with its search still open, what it would have measured
	// next: that run's capacity is a floor, not where pass meets fail.
	Unconverged []RunNote `json:"unconverged,omitempty"`
	// Deciding is, per run, the cause of the failed step that bounded its
	// capacity (explain.go), for runs that kept latency timelines.
	Deciding []Deciding     `json:"deciding_fail,omitempty"`
	Steps    []CapacityStep `json:"steps"`
	Failed   []int          `json:"failed_runs,omitempty"`
}

// Deciding is the failed step that bounded one run's capacity, and why.
type Deciding struct {
	Run      int    `json:"run"`
	Step     int    `json:"step"`
	Cause    string `json:"cause"`
	Sentence string `json:"sentence"`
}

// RunNote is one run's sentence about a row.
type RunNote struct {
	Run  int    `json:"run"`
	Note string `json:"note"`
}

// CapacityStep is one measured step, as the ramp judged it.
type CapacityStep struct {
	Run     int       `json:"run"`
	Step    int       `json:"step"`
	Rate    float64   `json:"rate"`
	Sent    int64     `json:"sent"`
	P99Ms   float64   `json:"p99_ms"`
	MeanMs  float64   `json:"mean_ms"`
	Verdict ramp.Kind `json:"verdict"`
	Reason  string    `json:"reason"`
	// Generator is the generator's CPU share (all lanes), -1 unmeasured.
	Generator float64 `json:"generator_cpu_share"`
	// AtCapacity marks the step the run's capacity was measured at.
	AtCapacity bool `json:"at_capacity,omitempty"`
	// AppCPUs and Throttled are the step's cgroup samples: the app's CPU
	// use and (quota mode) throttled periods ÷ periods; nil unknown.
	AppCPUs   *float64 `json:"app_cpus,omitempty"`
	Throttled *float64 `json:"throttled_share,omitempty"`
	// Why says what a step that re-measures a rate was for (package
	// ramp: a confirmation, a redo after a host stall, a cold first
	// step); Before, the cooldown or restart that preceded the step.
	Why    string `json:"why,omitempty"`
	Before string `json:"before,omitempty"`
	// AnswerGapMs is the step's longest stretch with requests in flight
	// and no answer (its latency timeline); nil without one.
	AnswerGapMs *float64 `json:"answer_gap_ms,omitempty"`
	// Cause is a failed step's explanation's cause ("" for a pass, or a
	// step without a latency timeline or hiccup record).
	Cause string `json:"cause,omitempty"`
}

// OverloadFactor: a step after the run's first failed one whose app CPU
// per request is this many times that of the nearest rate that passed
// before the failure ran on an app the overload left slower.
const OverloadFactor = 1.3

// overloadWords says, for the last of a run's steps so far (with their
// verdicts), whether it ran on an app the run's first failed step left
// slower, "" when not or when it cannot be told.
func overloadWords(steps []CapacityStep, verdicts []ramp.Verdict) string {
	n := len(steps) - 1
	fail := -1
	for i, v := range verdicts[:n] {
		if v.Kind != ramp.Pass {
			fail = i
			break
		}
	}
	cur := steps[n]
	if fail < 0 || cur.AppCPUs == nil || cur.Rate <= 0 {
		return ""
	}
	var ref *CapacityStep
	for i := 0; i < fail; i++ {
		st := &steps[i]
		if verdicts[i].Kind == ramp.Pass && st.AppCPUs != nil && (ref == nil || math.Abs(st.Rate-cur.Rate) < math.Abs(ref.Rate-cur.Rate)) {
			ref = st
		}
	}
	if ref == nil || *ref.AppCPUs <= 0 {
		return ""
	}
	now, then := *cur.AppCPUs/cur.Rate, *ref.AppCPUs/ref.Rate
	if now < OverloadFactor*then {
		return ""
	}
	return fmt.Sprintf("the app spent %s of CPU per request, %.1f× the %s it spent at %s req/s (step %d) before the first failed step (%d): the overload left it slower, though the cooldown found it idle and answering",
		units.Seconds(now), now/then, units.Seconds(then), units.Rate(ref.Rate), ref.Step, steps[fail].Step)
}

// capacityTables builds a table per capacity case of the study.
func (s *Summary) capacityTables(f *results.Folder) ([]CapacityTable, error) {
	var out []CapacityTable
	for _, c := range f.Study.Cases() {
		if c.Ramp == nil || !contains(f.Manifest.Parameters.Cases, c.Name) {
			continue
		}
		t := CapacityTable{Case: c.Name, P99Ms: c.Ramp.P99Ms, ThinkS: c.Ramp.ThinkS, StallRedos: c.Ramp.StallRedos}
		if c.Ramp.Users {
			t.Unit, t.StepS, t.LeadInS = "users", c.Ramp.StepS, c.Ramp.LeadS
		}
		if lanes := c.Lanes(); len(lanes) > 1 {
			for _, l := range lanes[1:] {
				t.Lanes = append(t.Lanes, CapacityLane{l.Name, l.Share, l.TargetMs(c.Ramp)})
			}
		}
		t.Trimmed = true
		lead, leads := math.Inf(1), 0
		for _, stack := range f.Manifest.Parameters.Stacks {
			row, err := s.capacityRow(f, c, stack)
			if err != nil {
				return nil, err
			}
			t.Rows = append(t.Rows, row)
			t.Trimmed = t.Trimmed && row.trimmed
			for _, r := range f.Runs {
				if win := r.Window(stack, c.Name); win != nil {
					for _, st := range win.Steps {
						lead, leads = math.Min(lead, st.Target.LeadInS), leads+1
					}
				}
			}
		}
		if leads > 0 && lead > 0 && !c.Ramp.Users {
			t.LeadInS = lead
		}
		if c.Ramp.Users {
			t.K6 = k6Headroom(f, c.Name, t.Rows)
		}
		out = append(out, t)
	}
	return out, nil
}

func (s *Summary) capacityRow(f *results.Folder, c *study.Case, stack string) (CapacityRow, error) {
	row := CapacityRow{Stack: stack, Steps: []CapacityStep{}}
	trims, untrimmed := 0, false
	var caps, users, p99, cpu, thr []float64
	for _, r := range f.Runs {
		win := r.Window(stack, c.Name)
		row.PerRun, row.P99PerRun = append(row.PerRun, nil), append(row.P99PerRun, nil)
		if win == nil || win.Failed != "" {
			cause := "not measured (no window in raw/)"
			if win != nil {
				cause = "not measured: " + win.Failed
			}
			s.Failures = append(s.Failures, Failure{r.N, stack, c.Name, cause})
			row.Failed = append(row.Failed, r.N)
			continue
		}
		steps := results.RampSteps(win.Steps)
		cp := ramp.Of(c, steps)
		for i, st := range steps {
			cs := CapacityStep{Run: r.N, Step: st.N, Rate: st.Rate, Sent: st.Sent(), P99Ms: st.P99Ms(c), MeanMs: st.MeanMs(),
				Verdict: cp.State.Verdicts[i].Kind, Reason: cp.State.Verdicts[i].Reason, Generator: -1, AtCapacity: i == cp.Step}
			if st.LoadgenKnown {
				cs.Generator = st.GeneratorShare
				row.GeneratorMax = math.Max(row.GeneratorMax, st.GeneratorShare)
			}
			ts, err := win.Steps[i].Samples()
			if err != nil {
				return row, err
			}
			if v, ok := cpuUse(ts); ok {
				cs.AppCPUs = ptr(v)
			}
			if v, ok := throttled(ts); ok {
				cs.Throttled = ptr(v)
			}
			cs.Why = ramp.Decide(c, steps[:i]).Why
			if ws := &win.Steps[i]; ws.LatencyPath != "" {
				if ws.LatencyErr != nil {
					return row, ws.LatencyErr
				}
				lt := ws.Latency
				cs.AnswerGapMs = ptr(float64(lt.Header.AnswerGapMs))
			}
			if ws := &win.Steps[i]; ws.Restarted != "" {
				cs.Before = ws.Restarted
			} else if ws.Settle != nil {
				cs.Before = fmt.Sprintf("settled in %s", units.Seconds(float64(ws.Settle.WaitedMs)/1e3))
				if !ws.Settle.Settled {
					cs.Before = fmt.Sprintf("not settled after %s", units.Seconds(float64(ws.Settle.WaitedMs)/1e3))
				}
			}
			row.Steps = append(row.Steps, cs)
			ws := &win.Steps[i]
			if ws.Trimmed == "" {
				untrimmed = true
			} else {
				trims++
			}
			if ws.LatencyPath != "" {
				s.Explained = true
			}
			if v := cp.State.Verdicts[i]; v.Kind != ramp.Pass && (ws.LatencyPath != "" || len(ws.Hiccups) > 0) {
				overload := ""
				if !c.Ramp.Users {
					// CPU per request from the step's rate: an open loop's only
					overload = overloadWords(row.Steps[len(row.Steps)-i-1:], cp.State.Verdicts[:i+1])
				}
				e, err := explainStep(f, r.N, stack, c.Name, ws, v, overload)
				if err != nil {
					return row, err
				}
				s.Explanations = append(s.Explanations, e)
				row.Steps[len(row.Steps)-1].Cause = e.Cause
				if i == cp.State.FailStep || (cp.State.FailStep < 0 && i == cp.State.Generator) {
					row.Deciding = append(row.Deciding, Deciding{r.N, st.N, e.Cause, e.Sentence})
				}
			}
		}
		if n := len(win.Steps); n > len(steps) {
			row.Refused = append(row.Refused, RunNote{r.N, fmt.Sprintf("step %d not measured: %s", win.Steps[len(steps)].Target.Step, win.Steps[len(steps)].Failed)})
			continue
		}
		if cp.Refused != "" {
			row.Refused = append(row.Refused, RunNote{r.N, cp.Refused})
			continue
		}
		if w := unconverged(c, steps); w != "" {
			row.Unconverged = append(row.Unconverged, RunNote{r.N, w})
		}
		at := steps[cp.Step]
		row.PerRun[len(row.PerRun)-1] = ptr(cp.Rate)
		if c.Ramp.Users {
			// the capacity is the user count; its req/s what they sent
			users, caps = append(users, cp.Rate), append(caps, float64(at.Sent())/at.DurationS)
		} else {
			caps = append(caps, cp.Rate)
			users = append(users, cp.Rate*(c.Ramp.ThinkS+at.MeanMs()/1000))
		}
		p99 = append(p99, at.P99Ms(c))
		row.P99PerRun[len(row.P99PerRun)-1] = ptr(at.P99Ms(c))
		if at := row.Steps[len(row.Steps)-len(steps)+cp.Step]; at.AppCPUs != nil {
			cpu = append(cpu, *at.AppCPUs)
			if at.Throttled != nil {
				thr = append(thr, *at.Throttled)
			}
		}
	}
	row.ReqPerSec, row.Users, row.P99Ms, row.AppCPU, row.Throttled = stat.Of(caps), stat.Of(users), stat.Of(p99), stat.Of(cpu), stat.Of(thr)
	row.trimmed = trims > 0 && !untrimmed
	return row, nil
}

// k6Headroom sums k6's CPU time and requests over every measured users
// step of case in f.
func k6Headroom(f *results.Folder, name string, rows []CapacityRow) *K6Headroom {
	h := &K6Headroom{}
	var cpuS float64
	var reqs int64
	for _, r := range f.Runs {
		for _, stack := range f.Manifest.Parameters.Stacks {
			win := r.Window(stack, name)
			if win == nil {
				continue
			}
			for _, st := range win.Steps {
				if st.Users == nil || st.Loadgen == nil || st.Users.AllRequests == 0 {
					continue
				}
				cpuS, reqs, h.Steps = cpuS+st.Loadgen.CPUSeconds, reqs+st.Users.AllRequests, h.Steps+1
				h.CPUs = cpulist.Count(st.Loadgen.CPUs)
			}
		}
	}
	if h.Steps == 0 || cpuS <= 0 || h.CPUs == 0 {
		return nil
	}
	h.CPUUsPerReq = cpuS / float64(reqs) * 1e6
	h.MaxReqPerSec = float64(h.CPUs) * 1e6 / h.CPUUsPerReq
	// users per req/s at capacity: how many users one request a second is
	var pace []float64
	for _, row := range rows {
		if row.Users.N > 0 && row.ReqPerSec.Median > 0 {
			pace = append(pace, row.Users.Median/row.ReqPerSec.Median)
		}
	}
	if p := stat.Of(pace); p.N > 0 {
		h.MaxUsers = h.MaxReqPerSec * p.Median
	}
	return h
}

// unconverged says why a run's ramp ended before its search did (ramp.
// Unconverged), "" when it converged or stopped for another reason.
func unconverged(c *study.Case, steps []ramp.Step) string {
	next, open := ramp.Unconverged(c, steps)
	if !open {
		return ""
	}
	return fmt.Sprintf("its %d steps (the study's max_steps) ran out with the search still open: it would have measured %s %s next", len(steps), units.Rate(next.Rate), c.Ramp.Unit())
}

// cpuUse is the cgroup's CPU use over a timeline, in CPUs.
func cpuUse(ts []timeline.Sample) (float64, bool) {
	if len(ts) < 2 {
		return 0, false
	}
	first, last := ts[0], ts[len(ts)-1]
	ms := last.TMs - first.TMs
	d := delta(first.CPUUsageNs, last.CPUUsageNs)
	if ms <= 0 || first.CPUUsageNs == nil || last.CPUUsageNs == nil {
		return 0, false
	}
	return float64(d) / (float64(ms) * 1e6), true
}

// throttled is throttled periods ÷ periods over a timeline; false when
// the cgroup counted no periods (no quota: cpuset mode).
func throttled(ts []timeline.Sample) (float64, bool) {
	if len(ts) < 2 {
		return 0, false
	}
	first, last := ts[0], ts[len(ts)-1]
	p := delta(first.CPUPeriods, last.CPUPeriods)
	if p == 0 {
		return 0, false
	}
	return float64(delta(first.CPUThrottledPeriods, last.CPUThrottledPeriods)) / float64(p), true
}

// CPUMode is the app's CPU mode of a run: "quota" or "cpuset".
func CPUMode(f *results.Folder) string {
	if m := f.Manifest.Parameters.AppCPUMode(); m != "" {
		return m
	}
	if m := f.Manifest.Host.Settings["APP_CPU_MODE"]; m != "" {
		return m
	}
	return "cpuset"
}

// throttledOver is a case window's throttled % over the runs in quota
// mode (the column every table gets then), nil in cpuset mode. A timeline
// it cannot read fails Compute (through capacity).
func (s *Summary) throttledOver(f *results.Folder, stack, id string) *stat.Range {
	if s.CPUMode != "quota" {
		return nil
	}
	var thr []float64
	for _, r := range f.Runs {
		w := r.Window(stack, id)
		if w == nil || w.Result == nil {
			continue
		}
		ts, err := w.Samples()
		if err != nil {
			if s.readErr == nil {
				s.readErr = err
			}
			continue
		}
		if v, ok := throttled(ts); ok {
			thr = append(thr, v)
		}
	}
	rg := stat.Of(thr)
	return &rg
}

// quotaOf is the run's CPU mode for the summary: "quota" and its CPUs, or
// nothing in cpuset mode (so a cpuset run's summary.json is as before).
func quotaOf(f *results.Folder) (string, string) {
	if CPUMode(f) != "quota" {
		return "", ""
	}
	return "quota", f.Manifest.Parameters.AppCPUQuota()
}

// capacity fills the capacity tables, last in Compute, and reports a
// timeline that quota mode's column could not read.
func (s *Summary) capacity(f *results.Folder) error {
	var err error
	if s.Capacity, err = s.capacityTables(f); err != nil {
		return err
	}
	if s.readErr != nil {
		return s.readErr
	}
	s.sortFailures()
	return nil
}
