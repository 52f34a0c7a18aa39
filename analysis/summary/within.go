package summary

import (
	"math"
	"sort"

	"stacklab/analysis/stat"
)

// Within-run ratios: each row of a case against the baseline row, run by
// run. In a paired folder (profile paired, scripts/lib/bench-paired.sh) a
// "run" is a slice: every row got a few seconds of load, one after the
// other in a shuffled order, all of them up at once, so a slow period of
// the vCPU lands on the rows of the slices it spans. If such periods are
// what moves a figure, a ratio taken slice by slice spreads less than
// either row's own figure does; `compare --within` reads any folder this
// way, so a sequential run's ratios can be set beside a paired run's.

// Within is every row's per-run ratio to the baseline row, case by case.
type Within struct {
	Baseline string `json:"baseline"`
	// Runs is how many runs (slices) the folder has.
	Runs  int          `json:"runs"`
	Cells []WithinCell `json:"cells"`
}

// WithinCell is one row of one case, in one metric.
type WithinCell struct {
	Case   string `json:"case"`
	Row    string `json:"row"`
	Metric string `json:"metric"`
	// Ratio is the row's value ÷ the baseline's in the same run, over the
	// runs where both were measured.
	Ratio stat.Range `json:"ratio"`
	// RatioIQR, RowIQR and BaseIQR are relative spreads (interquartile
	// range ÷ median) of the ratio, of the row's own values and of the
	// baseline's, over the same runs: robust to one odd run, which the
	// (max − min) ÷ median of a 20-slice column is not.
	RatioIQR float64 `json:"ratio_iqr"`
	RowIQR   float64 `json:"row_iqr"`
	BaseIQR  float64 `json:"baseline_iqr"`
}

// WithinMetrics are the metrics a within-run ratio is taken of.
var WithinMetrics = []string{MetricRate, MetricCPU}

// WithinRun computes the within-run ratios of s against baseline (the
// summary's own baseline when empty). Rows measured in fewer than 3 of the
// same runs as the baseline are left out: their spread says nothing.
func WithinRun(s *Summary, baseline string) *Within {
	if baseline == "" {
		baseline = s.Options.Baseline
	}
	rows, cases := caseRows(s.Sections)
	out := &Within{Baseline: baseline}
	var names []string
	seen := map[string]bool{}
	for k := range rows {
		if !seen[k.stack] && k.stack != baseline {
			seen[k.stack] = true
			names = append(names, k.stack)
		}
	}
	sort.Strings(names)
	for _, c := range cases {
		base := rows[rowKey{baseline, c}]
		if base == nil {
			continue
		}
		if n := len(base.PerRun); n > out.Runs {
			out.Runs = n
		}
		for _, name := range names {
			r := rows[rowKey{name, c}]
			if r == nil {
				continue
			}
			for _, m := range WithinMetrics {
				a, b := base.values(m), r.values(m)
				var ratios, av, bv []float64
				for i := range b {
					if i >= len(a) || math.IsNaN(a[i]) || math.IsNaN(b[i]) || a[i] == 0 {
						continue
					}
					ratios, av, bv = append(ratios, b[i]/a[i]), append(av, a[i]), append(bv, b[i])
				}
				if len(ratios) < 3 {
					continue
				}
				out.Cells = append(out.Cells, WithinCell{Case: c, Row: name, Metric: m, Ratio: stat.Of(ratios),
					RatioIQR: stat.RelativeIQR(ratios), RowIQR: stat.RelativeIQR(bv), BaseIQR: stat.RelativeIQR(av)})
			}
		}
	}
	if len(out.Cells) == 0 {
		return nil
	}
	return out
}

// values is a row's figure in one metric run by run (NaN where a run was
// not measured).
func (r *Row) values(metric string) []float64 {
	switch metric {
	case MetricCPU:
		return r.cpuAt
	case MetricP99:
		return values(r.P99PerRun)
	}
	return values(r.PerRun)
}

// measured drops the runs that were not measured (NaN).
func measured(vs []float64) []float64 {
	var out []float64
	for _, v := range vs {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// RunValue is the row's figure in metric (MetricRate, MetricCPU,
// MetricP99) at run index i of Summary.Runs; false when that run has none.
func (r *Row) RunValue(metric string, i int) (float64, bool) {
	vs := r.values(metric)
	if i < 0 || i >= len(vs) || math.IsNaN(vs[i]) {
		return 0, false
	}
	return vs[i], true
}
