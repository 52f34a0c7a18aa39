package render

import (
	"fmt"
	"strings"

	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
)

var metricWords = map[string]string{
	summary.MetricRate: "req/s",
	summary.MetricP99:  "p99",
	summary.MetricCPU:  "CPU µs/req",
}

// falsePositiveBound is what k false alarms in n comparisons say about the
// false-positive rate: a few comparisons bound it only loosely, and 0 of 6
// is no rate of 0%, so the sentence gives the exact one-sided 95% upper
// bound beside the count.
func falsePositiveBound(k, n int) string {
	if n == 0 {
		return ": none to count, so nothing is known of the false-positive rate."
	}
	return fmt.Sprintf(". %d in %d bounds the false-positive rate only this far: with 95%% confidence it is at most %.0f%% (the exact one-sided bound).",
		k, n, 100*stat.BinomialUpper(k, n, 0.05))
}

// selfTestBlocks reads the A/A self-test: the false-positive rate of A
// against its twin, each pair's cells, and the smallest planted slowdown
// each metric saw.
func selfTestBlocks(s *summary.Summary) []block {
	st := s.SelfTest
	if st == nil {
		return nil
	}
	out := []block{h(2, "self-test")}
	out = append(out, p("%s and %s are the same image under two names: the U test (α = 0.05, the test `just compare` uses) flagged %d of their %d comparisons (cases × req/s, p99 and CPU time per request)%s Each planted row is %s with a fixed amount of extra CPU work per request; its CPU µs/req column measures how large the slowdown was.",
		st.A, st.Twin, st.FalsePositives, st.Comparisons, falsePositiveBound(st.FalsePositives, st.Comparisons), st.A))
	if st.TooFew != "" {
		out = append(out, p("**Too few runs**: %s. With fewer than 5 runs a side the test cannot reach its level, so nothing here can be flagged; run the full profile.", st.TooFew))
	}
	var rows [][]string
	for _, pr := range st.Pairs {
		role := "twin (A/A)"
		if pr.Planted {
			role = "planted"
		}
		seen := map[string]bool{}
		for _, c := range pr.Cells {
			if seen[c.Case] {
				continue
			}
			seen[c.Case] = true
			row := []string{pr.Row, role, c.Case}
			for _, m := range summary.SelfTestMetrics {
				cell := "—"
				if x := pr.Cell(c.Case, m); x != nil {
					cell = x.Delta
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
	}
	out = append(out, block{kind: table,
		header: []string{"row against " + st.A, "role", "case", "req/s", "p99", "CPU µs/req"},
		right:  []bool{false, false, false, true, true, true}, rows: rows})
	var items []string
	for _, sm := range st.Smallest {
		if sm.Row == "" {
			items = append(items, fmt.Sprintf("%s, %s: no planted slowdown flagged", sm.Case, metricWords[sm.Metric]))
			continue
		}
		items = append(items, fmt.Sprintf("%s, %s: %s (CPU time per request %+.1f%% against %s)", sm.Case, metricWords[sm.Metric], sm.Row, 100*sm.CPUChange, st.A))
	}
	out = append(out, p("The smallest planted slowdown each metric flagged, in the slower direction:"), block{kind: list, items: items})
	return append(out, pauseBlocks(st.Pause)...)
}

// pauseBlocks: did the lab name the planted pause, its length and period?
func pauseBlocks(pz *summary.SelfTestPause) []block {
	if pz == nil {
		return nil
	}
	var found []string
	for _, f := range pz.Found {
		found = append(found, fmt.Sprintf("%.0f ms every %.2f s (%d times)", f.LengthMs, f.PeriodMs/1000, f.Count))
	}
	words := "none"
	if len(found) > 0 {
		words = strings.Join(found, "; ")
	}
	if pz.Windows == 0 {
		return []block{p("Planted pause: %s stops answering for %.0f ms every %.2f s; its windows kept no latency timeline, so the pause could not be looked for.", pz.Row, pz.PlantedMs, pz.EveryMs/1000)}
	}
	verdict := "**named**"
	if pz.Named < pz.Windows {
		verdict = "**NOT named in every window**"
	}
	return []block{p("Planted pause: %s stops answering for %.0f ms every %.2f s. The explanations found, window by window: %s. %s within %.0f%% of both in %d of its %d windows.",
		pz.Row, pz.PlantedMs, pz.EveryMs/1000, words, verdict, 100*summary.PauseTolerance, pz.Named, pz.Windows)}
}
