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
	if len(cells) == 0 {
		return ""
	}
	line := fmt.Sprintf("%s, run %d: %s (req/s of 2xx, CPU per request; S: oha saturated)", stack, run, strings.Join(cells, " · "))
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
