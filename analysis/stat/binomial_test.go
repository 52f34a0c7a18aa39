package stat

import (
	"math"
	"testing"
)

// The bounds a reader can check by hand or in any statistics table.
func TestBinomialUpper(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want float64
	}{
		{0, 6, 0.3930},  // 1 − 0.05^(1/6)
		{0, 12, 0.2209}, // 1 − 0.05^(1/12)
		{1, 10, 0.3942}, // Clopper–Pearson, one-sided 95%
		{3, 20, 0.3437}, // P(X ≤ 3 | 20, p) = 0.05
		{6, 6, 1},
		{0, 0, 1},
	} {
		if got := BinomialUpper(c.k, c.n, 0.05); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("BinomialUpper(%d, %d) = %.4f, want %.4f", c.k, c.n, got, c.want)
		}
	}
}
