// Package latency summarises latencies the probes measure: percentiles of a
// sample and the gaps in a series of completions.
package latency

import (
	"fmt"
	"sort"
	"time"
)

// Dist is a distribution's summary. Percentiles are nearest-rank.
type Dist struct {
	N             int
	P50, P99, Max time.Duration
	Mean          time.Duration
}

// Of summarises ds (which it sorts in place).
func Of(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Dist{N: len(ds), P50: rank(ds, 0.50), P99: rank(ds, 0.99), Max: ds[len(ds)-1], Mean: sum / time.Duration(len(ds))}
}

func rank(sorted []time.Duration, p float64) time.Duration {
	i := int(p*float64(len(sorted))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	return sorted[i]
}

// String renders "p50 1.2ms  p99 3.4ms  max 2.1s".
func (d Dist) String() string {
	if d.N == 0 {
		return "no samples"
	}
	return fmt.Sprintf("p50 %s  p99 %s  max %s", Short(d.P50), Short(d.P99), Short(d.Max))
}

// Short renders a duration with three significant figures: 96µs, 2.02ms, 1.35s.
func Short(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	case d < time.Second:
		return trim(float64(d)/1e6) + "ms"
	default:
		return trim(float64(d)/1e9) + "s"
	}
}

func trim(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// Gap is a stretch of time in which nothing completed.
type Gap struct {
	From, To time.Duration // offsets from the start of the run
}

// Len is the gap's length.
func (g Gap) Len() time.Duration { return g.To - g.From }

// Gaps finds the stretches longer than min between consecutive completion
// times (offsets, any order), including from start to the first and from
// the last to end.
func Gaps(done []time.Duration, start, end, min time.Duration) []Gap {
	ts := append([]time.Duration{start}, done...)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	ts = append(ts, end)
	var out []Gap
	for i := 1; i < len(ts); i++ {
		if ts[i]-ts[i-1] > min {
			out = append(out, Gap{ts[i-1], ts[i]})
		}
	}
	return out
}
