package stat

import (
	_ "stacklab/analysis/golden" // knows -update, as every test package of analysis/ must

	"math"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Range
	}{
		{nil, Range{}},
		{[]float64{3}, Range{3, 3, 3, 1}},
		{[]float64{5, 1, 3}, Range{3, 1, 5, 3}},
		{[]float64{4, 1, 3, 2}, Range{2.5, 1, 4, 4}},
	} {
		in := append([]float64(nil), tc.in...)
		if got := Of(tc.in); got != tc.want {
			t.Errorf("Of(%v) = %+v, want %+v", in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("Of reordered its input")
			}
		}
	}
}

func TestRatiosWithinRun(t *testing.T) {
	nan := math.NaN()
	got := Ratios([]float64{10, 20, nan, 40}, []float64{5, 0, 7, 20})
	want := []float64{2, 2}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Ratios = %v, want %v (a zero or missing run is skipped)", got, want)
	}
}

func TestSpread(t *testing.T) {
	if got := Of([]float64{90, 100, 120}).Spread(); got != 0.3 {
		t.Errorf("spread of 90, 100, 120 = %v, want 0.3", got)
	}
	if got := Of([]float64{100}).Spread(); got != 0 {
		t.Errorf("one run has no spread, got %v", got)
	}
}
