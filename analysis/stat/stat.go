// Package stat holds the lab's summary statistics: pure functions over the
// per-run values of one cell. Significance tests are x/perf's benchmath,
// used by analysis/compare.
package stat

import (
	"math"
	"sort"
)

// Range is a cell's median with the smallest and largest run.
type Range struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// Of summarizes values (one per run); the zero Range when there are none.
// values is not modified.
func Of(values []float64) Range {
	if len(values) == 0 {
		return Range{}
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	return Range{Median: median(s), Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// median of sorted s: the middle value, or the mean of the two middle ones.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Median of values, 0 when there are none.
func Median(values []float64) float64 { return Of(values).Median }

// Ratios divides each a[i] by b[i], skipping pairs where either is missing
// (NaN marks a missing run) or b[i] is 0: ratios are taken within a run.
func Ratios(a, b []float64) []float64 {
	var out []float64
	for i := range a {
		if i >= len(b) || a[i] != a[i] || b[i] != b[i] || b[i] == 0 {
			continue
		}
		out = append(out, a[i]/b[i])
	}
	return out
}

// Spread is how far a cell moved over its runs: (max−min) ÷ median, 0 with
// fewer than two runs or a median of 0.
func (r Range) Spread() float64 {
	if r.N < 2 || r.Median == 0 {
		return 0
	}
	return (r.Max - r.Min) / r.Median
}

// RelativeIQR is the interquartile range of values ÷ their median (the
// quartiles interpolated between the sorted values), 0 with fewer than two
// values or a median of 0.
func RelativeIQR(values []float64) float64 {
	if len(values) < 2 {
		return 0
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	m := median(s)
	if m == 0 {
		return 0
	}
	return (quantile(s, 0.75) - quantile(s, 0.25)) / math.Abs(m)
}

// quantile of sorted s at q (0–1), linear between the two nearest values.
func quantile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}
