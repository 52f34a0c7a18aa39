package render

import (
	"fmt"
	"slices"
	"strings"

	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// RowLine is one stack's figures in one run, on one line, as the bench
// prints them when that stack's windows are done: each case's req/s (2xx)
// and CPU µs per request, in the study's case order. A window that failed
// its gates is marked ✗, one where the load generator saturated S. The
// numbers are the ones the tables will show for that run; a run whose host
// was not quiet (so far) ends with "· host not quiet". Empty when the run
// measured nothing for the stack.
func RowLine(s *summary.Summary, stack string, run int) string {
	i := slices.Index(s.Runs, run)
	if i < 0 {
		return ""
	}
	var cells []string
	for _, sec := range s.Sections {
		for _, ct := range sec.Cases {
			for _, r := range ct.Rows {
				if r.Stack != stack {
					continue
				}
				name := ct.Case
				if r.Setting != "" {
					name += " " + r.Setting
				}
				cells = append(cells, name+" "+rowCell(r, i, run))
			}
		}
	}
	legend := "req/s of 2xx, CPU per request; S: oha saturated"
	if caps := capacityCells(s, stack, i, run); len(caps) > 0 {
		if len(cells) == 0 {
			legend = "the highest rate that met the target, and what bounded it"
		}
		cells = append(cells, caps...)
	}
	if len(cells) == 0 {
		return ""
	}
	line := fmt.Sprintf("%s, run %d: %s (%s)", stack, run, strings.Join(cells, " · "), legend)
	for _, nq := range s.NotQuiet {
		if nq.Run == run {
			line += " · host not quiet"
		}
	}
	return line
}

func rowCell(r summary.Row, i, run int) string {
	if slices.Contains(r.Failed, run) {
		return "✗"
	}
	rate, ok := r.RunValue(summary.MetricRate, i)
	if !ok {
		return "—"
	}
	out := units.Rate(rate)
	if slices.Contains(r.Generator.SaturatedRuns, run) {
		out += " S"
	}
	if cpu, ok := r.RunValue(summary.MetricCPU, i); ok {
		out += " (" + units.Rate(cpu) + " µs)"
	}
	return out
}

// capacityCells is a stack's capacity in run (index i of the runs) for
// each capacity case, with its deciding fail's cause: "capacity 3,400
// req/s (step 15: app saturated)".
func capacityCells(s *summary.Summary, stack string, i, run int) []string {
	var out []string
	for _, ct := range s.Capacity {
		for _, r := range ct.Rows {
			if r.Stack != stack || i >= len(r.PerRun) {
				continue
			}
			cell := "refused"
			if slices.Contains(r.Failed, run) {
				cell = "✗"
			} else if v := r.PerRun[i]; v != nil {
				cell = units.Rate(*v) + " " + unitOf(&ct)
			}
			for _, d := range r.Deciding {
				if d.Run == run {
					cell += fmt.Sprintf(" (step %d: %s)", d.Step, d.Cause)
				}
			}
			out = append(out, ct.Case+" "+cell)
		}
	}
	return out
}
