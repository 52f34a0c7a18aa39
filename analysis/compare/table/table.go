// Package table computes and lays out the comparison of two summaries, in
// the manner of benchstat: medians, the change between them, and "~" when
// the Mann-Whitney U test (x/perf benchmath) finds no significant
// difference at α = 0.05.
package table

import (
	"bytes"
	"fmt"
	"strings"

	"stacklab/analysis/render"
	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// Alpha is the significance level of the U test.
const Alpha = stat.Alpha

// Comparison is the whole comparison of A and B.
type Comparison struct {
	A, B      *summary.Summary
	CrossHost bool
	Rows      []Row
	// TooFew is set when some cell had too few runs for the U test to
	// ever reach Alpha.
	TooFew string
	Failed bool
}

// Row is one stack and window (a case, or one setting of a case that sweeps).
type Row struct {
	Stack, Case  string
	RateA, RateB string
	RateDelta    string
	P99A, P99B   string
	P99Delta     string
	Note         string
}

// Metric is one measured quantity's per-run values on both sides.
type Metric struct {
	A, B []float64
}

// Delta tests A against B and formats the change of the medians: "+2.50%
// (p=0.008 n=5)", "~ (p=0.310 n=5)", or "~ (n=1: too few runs)".
func Delta(m Metric) (delta string, tooFew string) {
	t, ok := stat.UTest(m.A, m.B)
	if !ok {
		return "—", ""
	}
	return t.Delta, t.TooFew
}

// Compare pairs the cells of a and b.
func Compare(a, b *summary.Summary, crossHost bool) *Comparison {
	c := &Comparison{A: a, B: b, CrossHost: crossHost, Failed: len(a.Failures)+len(b.Failures) > 0}
	ra, rb := index(a), index(b)
	for _, k := range keys(a, b) {
		x, y := ra[k], rb[k]
		row := Row{Stack: k.stack, Case: k.c, RateA: "—", RateB: "—", P99A: "—", P99B: "—", RateDelta: "—", P99Delta: "—"}
		var notes []string
		if x != nil {
			row.RateA, row.P99A = cell(x.ReqPerSec.Median, x.ReqPerSec.N, units.Rate, x), cell(x.P99Ms.Median, x.P99Ms.N, units.Ms, x)
		} else {
			notes = append(notes, "only in B")
		}
		if y != nil {
			row.RateB, row.P99B = cell(y.ReqPerSec.Median, y.ReqPerSec.N, units.Rate, y), cell(y.P99Ms.Median, y.P99Ms.N, units.Ms, y)
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
		if crossHost {
			notes = append(notes, "cross-host")
		}
		row.Note = strings.Join(notes, ", ")
		c.Rows = append(c.Rows, row)
	}
	c.Rows = append(c.Rows, capacityRows(c)...)
	return c
}

func cell(v float64, n int, f func(float64) string, r *summary.Row) string {
	if n == 0 {
		return "—"
	}
	s := f(v)
	if len(r.Failed) > 0 {
		s += " ✗"
	}
	return s
}

func values(p []*float64) []float64 {
	var out []float64
	for _, v := range p {
		if v != nil {
			out = append(out, *v)
		}
	}
	return out
}

type key struct{ stack, c string }

func index(s *summary.Summary) map[key]*summary.Row {
	m := map[key]*summary.Row{}
	for i := range s.Sections {
		for j := range s.Sections[i].Cases {
			ct := &s.Sections[i].Cases[j]
			for k := range ct.Rows {
				m[key{ct.Rows[k].Stack, windowOf(ct, ct.Rows[k])}] = &ct.Rows[k]
			}
		}
	}
	return m
}

// keys lists the cells of a then those only in b, in table order: by
// case, then stack.
func keys(a, b *summary.Summary) []key {
	var out []key
	seen := map[key]bool{}
	for _, s := range []*summary.Summary{a, b} {
		for _, sec := range s.Sections {
			for _, ct := range sec.Cases {
				for _, r := range ct.Rows {
					k := key{r.Stack, windowOf(&ct, r)}
					if !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
				}
			}
		}
	}
	return out
}

// windowOf names a row's window: its case, or the setting's window of a
// case that sweeps.
func windowOf(ct *summary.CaseTable, r summary.Row) string {
	if r.Window != "" {
		return r.Window
	}
	return ct.Case
}

// HostLine names a summary's host in one phrase.
func HostLine(s *summary.Summary) string {
	return fmt.Sprintf("%s: %s, %d cores, kernel %s", s.HostProfile, s.Host.CPUModel, s.Host.Cores, s.Host.Kernel)
}

// Markdown lays the comparison out as aligned text.
func Markdown(c *Comparison) []byte {
	var b bytes.Buffer
	b.WriteString("# compare: " + c.A.Folder + " vs " + c.B.Folder + "\n\n")
	for _, side := range []struct {
		name string
		s    *summary.Summary
	}{{"A", c.A}, {"B", c.B}} {
		s := side.s
		fmt.Fprintf(&b, "- %s: %s (%s study, %s profile, %d runs, lab commit %s; host %s)\n",
			side.name, s.Folder, s.Study, s.Profile, len(s.Runs), s.LabCommit, HostLine(s))
	}
	fmt.Fprintf(&b, "- test: Mann-Whitney U, α = %g; Δ is the change of the median from A to B; \"~\" means no significant difference\n", Alpha)
	if c.CrossHost {
		b.WriteString("- **cross-host**: A and B come from different hosts; a difference may be the host's, not the stack's\n")
	}
	b.WriteString("\n")
	header := []string{"stack", "case", "req/s A", "req/s B", "Δ req/s", "p99 ms A", "p99 ms B", "Δ p99", "note"}
	// A capacity row's req/s is its capacity, its p99 the p99 at capacity.
	right := []bool{false, false, true, true, false, true, true, false, false}
	rows := [][]string{}
	for _, r := range c.Rows {
		rows = append(rows, []string{r.Stack, r.Case, r.RateA, r.RateB, r.RateDelta, r.P99A, r.P99B, r.P99Delta, r.Note})
	}
	b.Write(render.Table(header, right, rows))
	if c.TooFew != "" {
		fmt.Fprintf(&b, "\nToo few runs to tell (benchmath: %s). \"~\" there means \"cannot tell\", not \"the same\".\n", c.TooFew)
	}
	if c.Failed {
		b.WriteString("\n✗: a window of that cell failed a correctness gate; see the folder's summary.md.\n")
	}
	return b.Bytes()
}
