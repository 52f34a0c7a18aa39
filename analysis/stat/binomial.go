package stat

import "math"

// BinomialUpper is the exact one-sided upper confidence bound (Clopper and
// Pearson) on a rate seen k times in n tries, at confidence 1 − alpha: the
// largest true rate under which k or fewer would still be seen with
// probability alpha. A rate read off few tries (0 of 6) is no estimate of
// zero; this says how large it could still be. 1 when n is 0.
func BinomialUpper(k, n int, alpha float64) float64 {
	if n <= 0 || k >= n {
		return 1
	}
	if k == 0 {
		return 1 - math.Pow(alpha, 1/float64(n))
	}
	lo, hi := float64(k)/float64(n), 1.0
	for range 100 {
		mid := (lo + hi) / 2
		if binomialCDF(k, n, mid) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// binomialCDF is P(X ≤ k) for X ~ Binomial(n, p).
func binomialCDF(k, n int, p float64) float64 {
	sum := 0.0
	for i := 0; i <= k; i++ {
		lg, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(i + 1))
		l2, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lg - l1 - l2 + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return sum
}
