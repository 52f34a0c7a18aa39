package main

import (
	"bytes"
	"fmt"
	"strings"

	"stacklab/analysis/render"
	"stacklab/analysis/units"
)

func rate(v float64) string  { return units.Rate(v) }
func ms(v float64) string    { return units.Ms(v) }
func share(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) }

func sig(v float64) string { return units.Sig(v) }

// change is a cell's change in words: "+12.3% (p=0.008 n=5+5)".
func (c Cell) change() string {
	if c.measuredEmpty {
		return "—"
	}
	if len(c.Base) == 0 || len(c.Now) == 0 {
		side := "the baseline"
		if len(c.Now) == 0 {
			side = "this run"
		}
		return "not measured in " + side
	}
	d := fmt.Sprintf("%+.1f%%", 100*c.Change)
	if c.Points {
		d = fmt.Sprintf("%+.2f pt", c.Change)
	}
	if c.MedBase == c.MedNow {
		d = "0"
	}
	return fmt.Sprintf("%s (p=%.3f n=%d+%d)", d, c.P, len(c.Base), len(c.Now))
}

// spread is the runs' standard deviation in the margin's units: "±4.2%", "±0.30 pt".
func (c Cell) spread() string {
	if c.Points {
		return fmt.Sprintf("±%.2f pt", c.Spread)
	}
	return fmt.Sprintf("±%.1f%%", 100*c.Spread)
}

func (c Cell) med(v float64, vs []float64) string {
	if len(vs) == 0 {
		return "—"
	}
	return c.format(v)
}

// verdictText is a route's verdict as a line ends: with the runs more an
// undecided one needs.
func verdictText(r *Route) string {
	switch r.Verdict {
	case Unknown:
		n, thin := routeMore(r)
		switch {
		case thin:
			return fmt.Sprintf("unknown — the baseline's %d runs spread too much for any number of new runs to decide it: measure a baseline with more", r.NBase)
		case n > 0 && (r.Together || r.NBase == n+r.NNow):
			return fmt.Sprintf("unknown — run %d more (%d a side)", n, n+r.NNow)
		case n > 0:
			return fmt.Sprintf("unknown — run %d more (%d new runs against the baseline's %d)", n, n+r.NNow, r.NBase)
		default:
			return "unknown — a measure is missing on one side"
		}
	case Failed:
		return fmt.Sprintf("failed — a correctness gate failed in run %s (summary.md of the new folder)", joinInts(r.FailedRuns))
	}
	return r.Verdict
}

// detail names the measures behind a route's verdict.
func detail(r *Route) string {
	want := r.Verdict
	if want == Same || want == Failed {
		return ""
	}
	var parts []string
	for _, c := range r.Cells {
		if c.measuredEmpty || c.Verdict != want || (want == Unknown && c.MedBase == c.MedNow && len(c.Base) > 0 && len(c.Now) > 0) {
			continue
		}
		p := fmt.Sprintf("%s %s → %s, %s", c.Measure, c.med(c.MedBase, c.Base), c.med(c.MedNow, c.Now), c.change())
		if want == Unknown && len(c.Base) > 1 {
			p += ", " + c.spread() + " run to run"
		}
		parts = append(parts, p)
	}
	if want == Unknown {
		var better []string
		for _, c := range r.Cells {
			if !c.measuredEmpty && c.Verdict == Improved {
				better = append(better, c.Measure)
			}
		}
		if len(better) > 0 {
			parts = append(parts, "improved: "+strings.Join(better, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// lines is the text output: one line per route, then the count.
func (c *comparison) lines() []byte {
	var b bytes.Buffer
	w := 0
	for _, r := range c.routes {
		w = max(w, len([]rune(r.Name())))
	}
	for _, r := range c.routes {
		name := r.Name() + strings.Repeat(" ", w-len([]rune(r.Name())))
		line := fmt.Sprintf("guard: %s  %s", name, verdictText(r))
		if d := detail(r); d != "" {
			line += ": " + d
		}
		b.WriteString(line + "\n")
	}
	for _, n := range c.notRun {
		fmt.Fprintf(&b, "guard: %s  not measured in this run (a baseline route)\n", n)
	}
	for _, n := range c.capacity {
		if c.users[n] {
			fmt.Fprintf(&b, "guard: %s  a users case: its flows are held above, its capacity is not guarded (just compare reads it)\n", n)
			continue
		}
		fmt.Fprintf(&b, "guard: %s  a capacity case: not guarded (just compare reads it)\n", n)
	}
	fmt.Fprintf(&b, "guard: %s: %s\n", c.against(), c.tally())
	return b.Bytes()
}

// against says what was held to what: two folders, or two rows of one.
func (c *comparison) against() string {
	if c.base == c.now {
		return fmt.Sprintf("rows held to rows of the same bench, %s", folderLine(c.now))
	}
	return fmt.Sprintf("%s against the baseline %s, lab commit %s", folderLine(c.now), folderLine(c.base), shortCommit(c.base.Manifest.LabCommit))
}

// tally counts the routes by verdict: "4 routes: 2 regressed, 2 same".
func (c *comparison) tally() string {
	var parts []string
	for _, v := range []string{Regressed, Failed, Unknown, Improved, Same} {
		if n := c.count[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	n := len(c.routes)
	return fmt.Sprintf("%d %s: %s", n, plural(n, "route", "routes"), strings.Join(parts, ", "))
}

// markdown is the comparison as a CI job posts it: the verdict per route,
// then every measure with the baseline's median, this run's and the change.
func (c *comparison) markdown() []byte {
	var b bytes.Buffer
	verdict := "no route regressed"
	if c.count[Regressed]+c.count[Failed] > 0 {
		verdict = "**regression**"
	}
	fmt.Fprintf(&b, "### guard: %s — %s\n\n", c.now.Manifest.Study, verdict)
	fmt.Fprintf(&b, "- %s; host %s: %s\n", c.against(), c.now.Manifest.Host.Profile, c.now.Manifest.Host.Fingerprint.CPUModel)
	g := c.guard
	fmt.Fprintf(&b, "- a change counts when it is beyond its margin (req/s -%s%%, p95 +%s%%, p99 +%s%%, errors +%s pt, CPU µs/req +%s%%) and the U test finds it (α = 0.05); medians over the runs\n",
		num(g.ReqPerSec), num(g.P95), num(g.P99), num(g.ErrorRate), num(g.CPU))
	fmt.Fprintf(&b, "- %s\n\n", c.tally())
	var rows [][]string
	for _, r := range c.routes {
		first := true
		for _, cell := range r.Cells {
			if cell.measuredEmpty {
				continue
			}
			route, v := "", cell.Verdict
			if first {
				route = r.Name() + " (" + r.Request + ")"
			}
			switch {
			case v == Unknown && cell.BaselineThin && len(cell.Base) > 0:
				v = "unknown — baseline too thin"
			case v == Unknown && cell.More > 0:
				v = fmt.Sprintf("unknown — run %d more", cell.More)
			}
			if v == Regressed {
				v = "**regressed**"
			}
			if first && r.Verdict == Failed {
				v += ", route **failed** a gate"
			}
			first = false
			rows = append(rows, []string{route, cell.Measure, cell.med(cell.MedBase, cell.Base), cell.med(cell.MedNow, cell.Now), cell.change(), v})
		}
	}
	b.Write(render.Table([]string{"route", "measure", "baseline", "now", "change", "verdict"}, []bool{false, false, true, true, false, false}, rows))
	if len(c.notRun) > 0 {
		fmt.Fprintf(&b, "\nNot measured in this run: %s.\n", strings.Join(c.notRun, ", "))
	}
	return b.Bytes()
}

func shortCommit(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func joinInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}
