package study

import "fmt"

// Guard is a study's margins for analysis/guard (docs/guard.md): how far
// each measure of a route may move from the baseline before a change,
// found significant by the U test, counts. Rates and times are percent of
// the baseline's median; ErrorRate is percentage points.
type Guard struct {
	ReqPerSec float64 // a drop of good answers per second
	P95, P99  float64 // a rise of the latency percentiles
	ErrorRate float64 // a rise of errors ÷ answers, in points
	CPU       float64 // a rise of CPU µs per good answer
}

// DefaultGuard is the margins a study without [guard] gets: p95 20% and
// errors one point as the continuous-benchmarking report sets them; the
// p99 as the p95 (it is read from the same windows); req/s and CPU 10%,
// just above how far go-nethttp[a] spread over 20 paired slices on this
// project's host (interquartile range ÷ median 7.8–8.7%,
// results/2026-12-01-local-selftest-paired).
var DefaultGuard = Guard{ReqPerSec: 10, P95: 20, P99: 20, ErrorRate: 1, CPU: 10}

type guardShape struct {
	ReqPerSec *float64 `toml:"req_per_sec"`
	P95       *float64 `toml:"p95"`
	P99       *float64 `toml:"p99"`
	ErrorRate *float64 `toml:"error_rate"`
	CPU       *float64 `toml:"cpu"`
}

// checkGuard reads [guard]: each margin a number above 0 (percent, or
// points for error_rate, below 100); an absent key keeps its default.
func (s *Study) checkGuard(path string, g *guardShape) error {
	s.Guard = DefaultGuard
	if g == nil {
		return nil
	}
	for _, m := range []struct {
		key string
		v   *float64
		to  *float64
	}{
		{"guard.req_per_sec", g.ReqPerSec, &s.Guard.ReqPerSec},
		{"guard.p95", g.P95, &s.Guard.P95},
		{"guard.p99", g.P99, &s.Guard.P99},
		{"guard.error_rate", g.ErrorRate, &s.Guard.ErrorRate},
		{"guard.cpu", g.CPU, &s.Guard.CPU},
	} {
		if m.v == nil {
			continue
		}
		if *m.v <= 0 || *m.v >= 100 {
			return &Error{Path: path, Key: m.key, Msg: fmt.Sprintf("want a margin above 0 and below 100 (percent; points for error_rate), got %s", formatNum(*m.v))}
		}
		*m.to = *m.v
	}
	return nil
}
