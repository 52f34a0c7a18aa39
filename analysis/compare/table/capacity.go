package table

import (
	"strings"

	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// capacityRows compares the capacity cases: per stack, the per-run
// capacities (req/s) and the p99 at capacity, with the same U test as the
// case tables. A run with no capacity (refused) has no value to compare.
func capacityRows(c *Comparison) []Row {
	type key struct{ stack, c string }
	index := func(s *summary.Summary) map[key]*summary.CapacityRow {
		m := map[key]*summary.CapacityRow{}
		for i := range s.Capacity {
			for j := range s.Capacity[i].Rows {
				r := &s.Capacity[i].Rows[j]
				m[key{r.Stack, s.Capacity[i].Case}] = r
			}
		}
		return m
	}
	ra, rb := index(c.A), index(c.B)
	var keys []key
	seen := map[key]bool{}
	for _, s := range []*summary.Summary{c.A, c.B} {
		for _, t := range s.Capacity {
			for _, r := range t.Rows {
				if k := (key{r.Stack, t.Case}); !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	cell := func(r *summary.CapacityRow) (string, string) {
		if r.ReqPerSec.N == 0 {
			return "refused", "—"
		}
		s := units.Rate(r.ReqPerSec.Median)
		if len(r.Refused) > 0 {
			s += " (some runs refused)"
		}
		return s, units.Ms(r.P99Ms.Median)
	}
	var out []Row
	for _, k := range keys {
		x, y := ra[k], rb[k]
		row := Row{Stack: k.stack, Case: "capacity: " + k.c, RateA: "—", RateB: "—", P99A: "—", P99B: "—", RateDelta: "—", P99Delta: "—"}
		var notes []string
		if x != nil {
			row.RateA, row.P99A = cell(x)
		} else {
			notes = append(notes, "only in B")
		}
		if y != nil {
			row.RateB, row.P99B = cell(y)
		} else {
			notes = append(notes, "only in A")
		}
		if x != nil && y != nil {
			var few1, few2 string
			row.RateDelta, few1 = Delta(Metric{values(x.PerRun), values(y.PerRun)})
			row.P99Delta, few2 = Delta(Metric{values(x.P99PerRun), values(y.P99PerRun)})
			if few1 != "" {
				c.TooFew = few1
			} else if few2 != "" {
				c.TooFew = few2
			}
		}
		if c.CrossHost {
			notes = append(notes, "cross-host")
		}
		row.Note = strings.Join(notes, ", ")
		out = append(out, row)
	}
	return out
}
