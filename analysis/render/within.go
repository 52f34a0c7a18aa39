package render

import (
	"fmt"

	"stacklab/analysis/summary"
)

// withinBlocks reads a paired run's per-slice ratios (summary/within.go).
func withinBlocks(s *summary.Summary) []block {
	if s.Within == nil {
		return nil
	}
	w := s.Within
	return []block{h(2, "paired slices"),
		p("Every row was up at once; each got %g s of load per slice, the rows of a slice one after the other in a shuffled order, %d slices per case. Each cell is the row's figure ÷ %s's in the same slice: the median ratio with the smallest and largest. The spreads are interquartile range ÷ median over the slices, of the ratio and of each row's own figure: a ratio that spreads less than the rows do is one whose noise the rows shared (a slower vCPU for a while), which pairing cancels.",
			s.Parameters.DurationS, w.Runs, w.Baseline),
		withinTable(w)}
}

// WithinMarkdown is `compare --within`'s table for any folder: its rows
// against the baseline run by run (a paired folder's runs are slices).
func WithinMarkdown(s *summary.Summary, w *summary.Within) []byte {
	kind := "run"
	if s.Profile == "paired" {
		kind = "slice"
	}
	head := fmt.Sprintf("%s (%s profile, %d %ss): each row ÷ %s in the same %s; spreads are interquartile range ÷ median over the %ss.\n\n",
		s.Folder, s.Profile, w.Runs, kind, w.Baseline, kind, kind)
	return append([]byte(head), markdownOf([]block{withinTable(w)})...)
}

func withinTable(w *summary.Within) block {
	var rows [][]string
	for _, c := range w.Cells {
		rows = append(rows, []string{c.Case, c.Row, metricWords[c.Metric],
			fmt.Sprintf("%.3f (%.3f–%.3f)", c.Ratio.Median, c.Ratio.Min, c.Ratio.Max), fmt.Sprint(c.Ratio.N),
			pct(c.RatioIQR), pct(c.RowIQR), pct(c.BaseIQR)})
	}
	return block{kind: table,
		header: []string{"case", "row", "metric", "ratio to " + w.Baseline, "n", "ratio's spread", "row's spread", w.Baseline + "'s spread"},
		right:  []bool{false, false, false, true, true, true, true, true}, rows: rows}
}
