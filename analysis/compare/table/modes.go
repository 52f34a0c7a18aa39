package table

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"stacklab/analysis/render"
	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
)

// ModeRatio is what the other run mode gives one stack (B against A, the
// same stack and case): the median over its cases of B's req/s ÷ A's and
// of B's CPU µs per request ÷ A's, with the lowest and highest case.
// A case counts when both sides measured it and neither was at the
// generator's limit in any run (that number is oha's, not the stack's)
// nor bounded by the mock upstream (a case with ceilings: its rate is the
// mock's sleep, whatever the mode).
type ModeRatio struct {
	Stack                string
	Cases                int
	Rate, RateLo, RateHi float64
	// CPUCases counts the cases whose CPU per request both sides have.
	CPUCases          int
	CPU, CPULo, CPUHi float64
	// Left are the cases left out, each with why.
	Left []string
}

// ModeRatios are each stack's ModeRatio, by stack.
func ModeRatios(a, b *summary.Summary) []ModeRatio {
	type pair struct{ rate, cpu []float64 }
	by := map[string]*pair{}
	left := map[string][]string{}
	ra, rb := index(a), index(b)
	ceil := map[string]bool{}
	for _, s := range []*summary.Summary{a, b} {
		for _, sec := range s.Sections {
			for _, ct := range sec.Cases {
				if len(ct.Ceilings) == 0 {
					continue
				}
				for _, r := range ct.Rows {
					ceil[windowOf(&ct, r)] = true
				}
			}
		}
	}
	for _, k := range keys(a, b) {
		x, y := ra[k], rb[k]
		if by[k.stack] == nil {
			by[k.stack] = &pair{}
		}
		switch {
		case x == nil || y == nil || x.ReqPerSec.N == 0 || y.ReqPerSec.N == 0 || x.ReqPerSec.Median <= 0:
			left[k.stack] = append(left[k.stack], k.c+" (not measured on both sides)")
			continue
		case len(x.Generator.SaturatedRuns) > 0 || len(y.Generator.SaturatedRuns) > 0:
			left[k.stack] = append(left[k.stack], k.c+" (at the generator's limit)")
			continue
		case ceil[k.c]:
			left[k.stack] = append(left[k.stack], k.c+" (the mock upstream's ceiling)")
			continue
		}
		p := by[k.stack]
		p.rate = append(p.rate, y.ReqPerSec.Median/x.ReqPerSec.Median)
		if x.CPUPerReq != nil && y.CPUPerReq != nil && x.CPUPerReq.Median > 0 {
			p.cpu = append(p.cpu, y.CPUPerReq.Median/x.CPUPerReq.Median)
		}
	}
	var out []ModeRatio
	for stack, p := range by {
		m := ModeRatio{Stack: stack, Cases: len(p.rate), CPUCases: len(p.cpu), Left: left[stack]}
		if len(p.rate) > 0 {
			r := stat.Of(p.rate)
			m.Rate, m.RateLo, m.RateHi = r.Median, r.Min, r.Max
		}
		if len(p.cpu) > 0 {
			r := stat.Of(p.cpu)
			m.CPU, m.CPULo, m.CPUHi = r.Median, r.Min, r.Max
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stack < out[j].Stack })
	return out
}

// ModesMarkdown lays ModeRatios out under its own heading.
func ModesMarkdown(a, b *summary.Summary) []byte {
	var buf bytes.Buffer
	buf.WriteString("\n## What the mode gives each stack\n\n")
	buf.WriteString("B ÷ A for the same stack and case: the median over the stack's cases, then the lowest and highest case. " +
		"A case counts when both sides measured it, neither ran at the generator's limit in any run, and the mock upstream did not bound it. " +
		"Above 1 in req/s, or below 1 in CPU per request, is B's gain.\n\n")
	header := []string{"stack", "cases", "req/s B÷A", "lowest–highest", "CPU µs/req B÷A", "lowest–highest", "left out"}
	right := []bool{false, true, true, false, true, false, false}
	var rows [][]string
	x := func(v float64) string { return fmt.Sprintf("%.2f×", v) }
	for _, m := range ModeRatios(a, b) {
		row := []string{m.Stack, fmt.Sprint(m.Cases), "—", "—", "—", "—", strings.Join(m.Left, "; ")}
		if m.Cases > 0 {
			row[2], row[3] = x(m.Rate), x(m.RateLo)+"–"+x(m.RateHi)
		}
		if m.CPUCases > 0 {
			row[4], row[5] = x(m.CPU), x(m.CPULo)+"–"+x(m.CPUHi)
		}
		rows = append(rows, row)
	}
	buf.Write(render.Table(header, right, rows))
	return buf.Bytes()
}
