package render

import (
	"fmt"

	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// How far to trust a number: the CPU-time-per-request cells and the
// run-to-run spread of each row, kept here apart from the case tables.

// cellCPU is a row's CPU time per good answer, in µs.
func cellCPU(r summary.Row) string {
	if r.CPUPerReq == nil {
		return "—"
	}
	return rangeWith(*r.CPUPerReq, units.Rate)
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// spreadBlocks sets each row's run-to-run spread in req/s beside its
// spread in CPU time per request; nothing with a single run.
func spreadBlocks(s *summary.Summary) []block {
	if len(s.Spread) == 0 {
		return nil
	}
	t := block{kind: table, header: []string{"stack", "case", "req/s spread", "CPU µs/req spread"}, right: []bool{false, false, true, true}}
	var rps, cpu []float64
	for _, sr := range s.Spread {
		name := sr.Case
		if sr.Window != "" {
			name = sr.Window
		}
		c := "—"
		if sr.CPUPerReq != nil {
			c = pct(*sr.CPUPerReq)
			cpu = append(cpu, *sr.CPUPerReq)
		}
		rps = append(rps, sr.ReqPerSec)
		t.rows = append(t.rows, []string{sr.Stack, name, pct(sr.ReqPerSec), c})
	}
	text := fmt.Sprintf("Spread is (max−min) ÷ median over the %d runs. req/s: median %s (%s–%s) over %d rows", len(s.Runs),
		pct(stat.Median(rps)), pct(stat.Of(rps).Min), pct(stat.Of(rps).Max), len(rps))
	if len(cpu) > 0 {
		text += fmt.Sprintf("; CPU time per request: median %s (%s–%s) over %d rows", pct(stat.Median(cpu)), pct(stat.Of(cpu).Min), pct(stat.Of(cpu).Max), len(cpu))
	}
	text += ". CPU time per request is the app cgroup's CPU time over the window ÷ its good answers: it stays put when the load generator is the limit, and it moves when the vCPU itself slows down."
	return []block{h(2, "run-to-run spread"), p("%s", text), t}
}
