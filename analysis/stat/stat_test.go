package stat

import (
	_ "stacklab/formats/golden" // knows -update

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

func TestRelativeIQR(t *testing.T) {
	// quartiles of 1..5 are 2 and 4, the median 3
	if got := RelativeIQR([]float64{5, 1, 4, 2, 3}); math.Abs(got-2.0/3) > 1e-12 {
		t.Errorf("relative IQR of 1..5 = %v, want 2/3", got)
	}
	// one wild value moves (max − min) ÷ median, not the IQR much
	calm := []float64{100, 101, 99, 100, 102, 98, 100, 101}
	wild := append(append([]float64(nil), calm...), 300)
	if r := RelativeIQR(wild); r > 0.05 {
		t.Errorf("one odd value: relative IQR %v, want under 5%%", r)
	}
	if RelativeIQR([]float64{7}) != 0 || RelativeIQR([]float64{0, 0, 0}) != 0 {
		t.Errorf("one value or a zero median: want 0")
	}
}
