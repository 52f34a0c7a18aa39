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

// splitResourceTable is the resources table when the runs split RSS from
// page cache: those columns instead of the cgroup's usage, which counts
// the database file's pages read through the cache as the app's memory.
// False for a folder without the split, whose table stays as it was.
func splitResourceTable(s *summary.Summary) (block, bool) {
	any := false
	for _, r := range s.Resources {
		any = any || r.Memory != nil
	}
	if !any {
		return block{}, false
	}
	t := block{kind: table,
		header: []string{"stack", "boot ms", "RSS idle", "RSS after all cases", "page cache idle", "page cache after all cases", "image size"},
		right:  []bool{false, true, true, true, true, true, true}}
	for _, r := range s.Resources {
		row := []string{r.Stack, "—", "—", "—", "—", "—", "—"}
		if r.BootMs != nil {
			row[1] = rangeWith(*r.BootMs, func(v float64) string { return units.Group(int64(v + 0.5)) })
		}
		if m := r.Memory; m != nil {
			row[2], row[3] = rangeWith(m.IdleAnonBytes, units.Bytes), rangeWith(m.AfterAnonBytes, units.Bytes)
			row[4], row[5] = rangeWith(m.IdleFileBytes, units.Bytes), rangeWith(m.AfterFileBytes, units.Bytes)
		}
		if r.ImageSizeBytes > 0 {
			row[6] = units.Bytes(float64(r.ImageSizeBytes))
		}
		t.rows = append(t.rows, row)
	}
	return t, true
}

// memoryNote says what the split columns hold, under their table.
func memoryNote(s *summary.Summary) []block {
	if _, ok := splitResourceTable(s); !ok {
		return nil
	}
	return []block{p("RSS is the app cgroup's anonymous memory (cgroup v1 memory.stat total_rss, v2 anon); page cache is its file pages (total_cache, file), mostly the SQLite database read through the cache, which a memory limit reclaims first. Idle: after boot and the checks. After all cases: the largest over the row's containers, each read when its last case ended (a fresh_db case starts a new container).")}
}

// samplerCPUBlocks states the sampler's own CPU use, when the windows
// recorded it; heading says whether the section's heading is still to come.
func samplerCPUBlocks(s *summary.Summary, heading bool) []block {
	sc := s.SamplerCPU
	if sc == nil {
		return nil
	}
	var out []block
	if heading {
		out = append(out, h(2, "the sampler's cost"))
	}
	return append(out, p("Measured directly: the sampler's own CPU time was a median %.2f%% (%.2f–%.2f%%) of the load generator's CPUs over the %d windows it watched (`<case>.sampler.json`), the share of oha's CPU it can take away.",
		100*sc.Share.Median, 100*sc.Share.Min, 100*sc.Share.Max, sc.Windows))
}
