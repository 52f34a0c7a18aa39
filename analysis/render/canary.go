package render

import (
	"fmt"
	"strings"

	"stacklab/analysis/summary"
	"stacklab/formats/speed"
)

// canaryBlocks says how often the CPU-speed canary fired and whether the
// windows it flagged were the outliers.
func canaryBlocks(s *summary.Summary) []block {
	c := s.Canary
	if c == nil {
		return nil
	}
	var spreads []string
	for _, sp := range c.Spread {
		spreads = append(spreads, fmt.Sprintf("%s CPUs %s", sp.Set, pct(sp.Spread)))
	}
	out := []block{h(2, "CPU-speed canary"),
		p("Before and after every window, a fixed amount of CPU work (probes/speed: best of 5 tries) was timed on the app's CPUs and on the load generator's: %d readings around %d windows; spread (max − min) ÷ median over the run: %s. A window is flagged when a reading was more than %.0f%% off the median of its run's readings on the same CPUs: the vCPU ran at another speed then, which the load average does not show.",
			c.Readings, c.Windows, strings.Join(spreads, ", "), 100*c.Threshold)}
	if c.Contended > 0 {
		out = append(out, p("%d readings on the app's CPUs were left out: the app itself used more than %.0f%% of the CPU while they ran (still busy after its window: a JIT compiling, a collector), so they timed the app, not the vCPU.",
			c.Contended, 100*speed.Contended))
	}
	if len(c.Flagged) == 0 {
		out = append(out, p("No window was flagged."))
	} else {
		var rows [][]string
		for _, fl := range c.Flagged {
			rate := "—"
			if fl.RateOff != nil {
				rate = fmt.Sprintf("%+.1f%%", 100**fl.RateOff)
			}
			rows = append(rows, []string{fmt.Sprint(fl.Run), fl.Stack, fl.Case, fl.Reading, fmt.Sprintf("%+.1f%%", 100*fl.Off), rate})
		}
		out = append(out, p("%d of %d windows flagged (positive: the CPU was slower):", len(c.Flagged), c.Windows),
			block{kind: table, header: []string{"run", "stack", "case", "reading", "off the run's median", "window's req/s off its row's median"},
				right: []bool{true, false, false, false, true, true}, rows: rows})
	}
	if c.Other+c.FlaggedKnown > 0 {
		out = append(out, p("Outliers (a window's req/s more than %.0f%% off its row's median over runs): %d of the %d flagged windows, %d of the %d others.",
			100*summary.OutlierThreshold, c.OutliersFlagged, c.FlaggedKnown, c.OutliersOther, c.Other))
	}
	return out
}
