package stat

import (
	"fmt"

	"golang.org/x/perf/benchmath"
)

// Alpha is the significance level of the lab's comparisons.
const Alpha = 0.05

// Test is the Mann-Whitney U test of two samples (x/perf benchmath, as
// benchstat uses it): the medians, whether they differ at Alpha, and the
// change formatted as benchstat does ("+2.50% (p=0.008 n=5)", "~ (p=0.310
// n=5)").
type Test struct {
	MedianA, MedianB float64
	P                float64
	Significant      bool
	// Delta is the change in words; TooFew is benchmath's warning when the
	// samples are too small for the test ever to reach Alpha.
	Delta, TooFew string
}

// UTest tests a against b; ok is false when either is empty.
func UTest(a, b []float64) (Test, bool) {
	if len(a) == 0 || len(b) == 0 {
		return Test{}, false
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = Alpha
	sa := benchmath.NewSample(append([]float64(nil), a...), &th)
	sb := benchmath.NewSample(append([]float64(nil), b...), &th)
	cmp := benchmath.AssumeNothing.Compare(sa, sb)
	t := Test{
		MedianA: benchmath.AssumeNothing.Summary(sa, 0.95).Center,
		MedianB: benchmath.AssumeNothing.Summary(sb, 0.95).Center,
		P:       cmp.P,
	}
	d := cmp.FormatDelta(t.MedianA, t.MedianB)
	t.Significant = d != "~"
	for _, w := range cmp.Warnings {
		t.TooFew = w.Error()
	}
	n := fmt.Sprintf("n=%d", cmp.N1)
	if cmp.N1 != cmp.N2 {
		n = fmt.Sprintf("n=%d+%d", cmp.N1, cmp.N2)
	}
	if t.TooFew != "" {
		t.Delta = fmt.Sprintf("%s (%s: too few runs)", d, n)
	} else {
		t.Delta = fmt.Sprintf("%s (%s)", d, cmp.String())
	}
	return t, true
}
