package main

import (
	"fmt"
	"math"
	"slices"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/analysis/study"
)

// usersWindows are the users cases of f's study that its run measured.
func usersWindows(f *results.Folder) []study.Window {
	var out []study.Window
	for _, w := range f.Study.Windows(f.Manifest.Parameters.Connections) {
		if slices.Contains(f.Manifest.Parameters.Cases, w.ID) && w.Case.Ramp != nil && w.Case.Ramp.Users {
			out = append(out, w)
		}
	}
	return out
}

// passedUsers is every user count a row's ramp passed, run by run (a run
// without the window left out).
func passedUsers(f *results.Folder, stack string, c *study.Case) [][]float64 {
	var out [][]float64
	for _, r := range f.Runs {
		win := r.Window(stack, c.Name)
		if win == nil || win.Failed != "" {
			continue
		}
		var passed []float64
		for _, st := range results.RampSteps(win.Steps) {
			if ramp.Judge(c, st).Kind == ramp.Pass {
				passed = append(passed, st.Rate)
			}
		}
		out = append(out, passed)
	}
	return out
}

// commonUsers is the most users every run of both rows passed: the load
// at which their flows are held to each other (users who think send what
// their count says, so the same count is the same load); 0 when there is
// none.
func commonUsers(runs [][]float64) float64 {
	if len(runs) == 0 {
		return 0
	}
	best := 0.0
	for _, u := range runs[0] {
		every := true
		for _, other := range runs[1:] {
			every = every && slices.Contains(other, u)
		}
		if every {
			best = math.Max(best, u)
		}
	}
	return best
}

// flowValues reads one flow's per-run values of each measure at the step
// of users users (the last such step that passed, when a ramp measured the
// count twice): its req/s, p95 (when k6 summarized it), p99 and error
// share; the app's CPU is the step's, not a flow's, and is left out.
func flowValues(f *results.Folder, stack string, c *study.Case, flow string, users float64) perRun {
	var out perRun
	for _, r := range f.Runs {
		win := r.Window(stack, c.Name)
		if win == nil || win.Failed != "" {
			continue
		}
		var at *ramp.Step
		for _, st := range results.RampSteps(win.Steps) {
			if st.Rate == users && ramp.Judge(c, st).Kind == ramp.Pass {
				at = &st
			}
		}
		if at == nil || at.Users == nil || at.Users.Flows[flow] == nil || at.DurationS <= 0 {
			continue
		}
		fl := at.Users.Flows[flow]
		out[0] = append(out[0], float64(fl.Requests)/at.DurationS)
		if fl.Requests == 0 {
			continue
		}
		if fl.P95Ms > 0 {
			out[1] = append(out[1], fl.P95Ms)
		}
		out[2] = append(out[2], fl.P99Ms)
		out[3] = append(out[3], float64(fl.Failed)/float64(fl.Requests))
	}
	return out
}

// usersRoutes holds each flow of a users case as a route, at the most users
// every run of the row and its baseline row passed.
func (c *comparison) usersRoutes(stack, baseStack string, bw, w study.Window, failed []int, within bool) []*Route {
	users := commonUsers(append(passedUsers(c.base, baseStack, bw.Case), passedUsers(c.now, stack, w.Case)...))
	var out []*Route
	for _, fl := range w.Case.Flows {
		r := &Route{Stack: stack, BaseStack: baseStack, Window: w.ID + ":" + fl.Name, FailedRuns: failed, Together: within}
		r.Request = "flow " + fl.Name
		if len(fl.Steps) == 1 {
			r.Request = request(study.Window{Case: &study.Case{Method: fl.Steps[0].Method, Path: fl.Steps[0].Path}})
		}
		if users > 0 {
			r.Request += fmt.Sprintf(" at %s users, the most every run passed", rate(users))
		} else {
			r.Request += ", at no user count every run passed"
		}
		var bv, nv perRun
		if users > 0 {
			bv, nv = flowValues(c.base, baseStack, bw.Case, fl.Name, users), flowValues(c.now, stack, w.Case, fl.Name, users)
		}
		r.NBase, r.NNow = len(bv[0]), len(nv[0])
		for i, m := range measures {
			cell := compareCell(m, c.guard, bv[i], nv[i], within)
			// With no load both sides passed, a flow's measures are not
			// held: unknown, not empty (the CPU, never a flow's, stays out).
			if users == 0 && m.Name != cpuMeasure {
				cell.measuredEmpty, cell.Verdict = false, Unknown
			}
			r.Cells = append(r.Cells, cell)
		}
		r.Verdict = routeVerdict(r)
		out = append(out, r)
	}
	return out
}
