package render

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/ramp"
	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// capacityBlocks lays out each capacity case: the capacity table, why a
// capacity was refused, every step as the ramp judged it, and the chart of
// p99 against the offered rate.
func capacityBlocks(s *summary.Summary) []block {
	var out []block
	for i := range s.Capacity {
		ct := &s.Capacity[i]
		out = append(out, h(2, "capacity: "+ct.Case), capacityTable(s, ct))
		lanes := ""
		for _, l := range ct.Lanes {
			lanes += fmt.Sprintf(" The %.0f%% of the mix that waits on the upstream (lane %s) ran as its own generator and is held to p99 ≤ %g ms (the target plus the wait); the p99 column is the rest's.", 100*l.Share, l.Name, l.TargetMs)
		}
		if ct.Unit == "users" {
			out = append(out, p("Capacity in users: the most simulated users (the study's flows, each user thinking between its steps as its flow says) whose step met p99 ≤ %g ms with no failed request or check while k6 ran them all; req/s is what they sent at that step. Each step ran its users %s before the %s it was read from, and a tail after it (a request's timeout) so every request sent in the span had its answer; only requests sent in the span count. Ramp: geometric steps, then bisection between the last pass and the first fail, then the capacity measured once more; a step k6 could not run (fewer users than asked, no request, or over 90%% of its CPUs) bounds the bisection as a fail does, and a run whose search it bounded reports no capacity.%s%s", ct.P99Ms, units.Seconds(ct.LeadInS), units.Seconds(ct.StepS), trimWords(ct), redoWords(ct)))
			if k := ct.K6; k != nil {
				users := ""
				if k.MaxUsers > 0 {
					users = fmt.Sprintf(", about %s users at the pace these users kept at their capacities", units.Group(int64(k.MaxUsers)))
				}
				out = append(out, p("k6's headroom on this host: %s µs of its CPU per request over %d steps (whole steps: lead-in, span and tail), so its %s would hold about %s req/s%s.",
					units.Group(int64(k.CPUUsPerReq+0.5)), k.Steps, plural(k.CPUs, "CPU", fmt.Sprintf("%d CPUs", k.CPUs)), units.Rate(k.MaxReqPerSec), users))
			}
		} else {
			out = append(out, p("Capacity: the highest offered rate (req/s, open loop) whose step met p99 ≤ %g ms with no error while the generator held the rate; users = req/s × (%g s think time + the mean response time at that step). Ramp: geometric steps, then bisection between the last pass and the first fail (a failed first step, measured on an app just booted, is measured once more after a pass below it); a step the generator could not drive (it sent too few requests, or used over 90%% of its CPUs) bounds the bisection as a fail does, and a run whose search the generator bounded before a step it drove failed reports no capacity, because the stack was not shown to be the limit. Errors in a step fail that step (they end the ramp's climb) and no gate: correctness below speaks of the case tables.%s%s%s", ct.P99Ms, ct.ThinkS, lanes, trimWords(ct), redoWords(ct)))
		}
		if refused := runNotes(ct, func(r summary.CapacityRow) []summary.RunNote { return r.Refused }); len(refused) > 0 {
			out = append(out, p("**No capacity reported** for these runs:"), block{kind: list, items: refused})
		}
		if open := runNotes(ct, func(r summary.CapacityRow) []summary.RunNote { return r.Unconverged }); len(open) > 0 {
			out = append(out, p("**Not converged** (marked ⋯ in the table: the capacity is the highest rate that passed when the steps ran out, a floor):"), block{kind: list, items: open})
		}
		out = append(out, decidingBlocks(ct)...)
		out = append(out, quotaNote(s, ct)...)
		out = append(out, h(3, "steps"), stepsTable(s, ct),
			chartBlock(capacityChart(ct)))
	}
	return out
}

// runNotes lists the notes of picks over the rows, "STACK, run N: note".
func runNotes(ct *summary.CapacityTable, pick func(summary.CapacityRow) []summary.RunNote) []string {
	var out []string
	for _, r := range ct.Rows {
		for _, n := range pick(r) {
			out = append(out, fmt.Sprintf("%s, run %d: %s", r.Stack, n.Run, n.Note))
		}
	}
	return out
}

// trimWords says, when every step started on the seeded rows, that and why.
func trimWords(ct *summary.CapacityTable) string {
	if !ct.Trimmed {
		return ""
	}
	return " Every step started on the seeded rows: before its warm-up and again before its window the bench deleted the rows earlier steps had written, because /bench/read counts the whole table and its cost grows with every row (docs/capacity.md); raw step-NN.trim says how many."
}

// redoWords says what the ramp measured again and how each step's window
// began, when the folder's study and profile did either.
func redoWords(ct *summary.CapacityTable) string {
	s := ""
	if ct.LeadInS > 0 && ct.Unit == "" {
		s += fmt.Sprintf(" Each step's attack ran %s at its rate before its window, and nothing of that lead-in was measured: no window began with a fresh generator on an app left idle since its warm-up.", units.Seconds(ct.LeadInS))
	}
	if ct.StallRedos > 0 {
		s += fmt.Sprintf(" A step that failed on its p99 through one stall (answers under half the offered rate for %s or less in all, the host quiet) was measured once more before it bounded the search, at most %d a ramp; the later step counts.", strconv.FormatFloat(ramp.LoneSlumpMs/1e3, 'g', -1, 64)+" s", ct.StallRedos)
	}
	return s
}

func capacityTable(s *summary.Summary, ct *summary.CapacityTable) block {
	t := block{kind: table,
		header: []string{"stack", "capacity req/s", fmt.Sprintf("users at %g s think", ct.ThinkS), "p99 ms at capacity", "app CPUs at capacity", "throttled % at capacity", "generator"},
		right:  []bool{false, true, true, true, true, true, false}}
	users := ct.Unit == "users"
	if users {
		t.header[1], t.header[2] = "capacity users", "req/s at capacity"
	}
	for _, r := range ct.Rows {
		capCell := "refused"
		if r.ReqPerSec.N > 0 {
			capCell = rangeWith(r.ReqPerSec, units.Rate)
		}
		if users && r.Users.N > 0 {
			capCell = rangeWith(r.Users, func(v float64) string { return amountOf(ct, v) })
		}
		if n := len(r.Refused); n > 0 && r.ReqPerSec.N > 0 {
			capCell += fmt.Sprintf(" (%d of %d runs refused)", n, len(r.PerRun))
		}
		if len(r.Failed) > 0 {
			capCell += " ✗"
		}
		if len(r.Unconverged) > 0 {
			capCell += " ⋯"
		}
		thr := "—"
		if r.Throttled.N > 0 {
			thr = rangeWith(r.Throttled, pct1)
		} else if s.CPUMode != "quota" {
			thr = "— (cpuset mode)"
		}
		second := rangeWith(r.Users, func(v float64) string { return units.Group(int64(v + 0.5)) })
		if users {
			second = rangeWith(r.ReqPerSec, units.Rate)
		}
		t.rows = append(t.rows, []string{r.Stack, capCell, second,
			rangeWith(r.P99Ms, units.Ms), rangeWith(r.AppCPU, cpus), thr, generatorFlag(ct, r)})
	}
	if !hasDeciding(ct) {
		return t
	}
	t.header = append(t.header, "deciding fail's cause")
	t.right = append(t.right, false)
	for i, r := range ct.Rows {
		var causes []string
		for _, d := range r.Deciding {
			causes = append(causes, fmt.Sprintf("run %d: %s (step %d)", d.Run, d.Cause, d.Step))
		}
		cell := "—"
		if len(causes) > 0 {
			cell = strings.Join(causes, "; ")
		}
		t.rows[i] = append(t.rows[i], cell)
	}
	return t
}

func hasDeciding(ct *summary.CapacityTable) bool {
	for _, r := range ct.Rows {
		if len(r.Deciding) > 0 {
			return true
		}
	}
	return false
}

// RepeatTolerance is how far apart (max ÷ min − 1) a row's capacities
// may be for the runs to count as agreeing.
const RepeatTolerance = 0.15

// disturbed lists, run by run, the steps that failed at a rate another
// run passed (at it or above), each with its cause: what made the runs
// disagree. "" when no step's cause is known (folders before causes were
// kept per step).
func disturbed(ct *summary.CapacityTable, steps []summary.CapacityStep) string {
	passed := map[int]float64{} // run → its highest passing rate
	for _, s := range steps {
		if s.Verdict == ramp.Pass && s.Rate > passed[s.Run] {
			passed[s.Run] = s.Rate
		}
	}
	var runs []string
	for i := 0; i < len(steps); {
		run := steps[i].Run
		var these []string
		for ; i < len(steps) && steps[i].Run == run; i++ {
			s := steps[i]
			if s.Verdict == ramp.Pass || s.Cause == "" {
				continue
			}
			for other, best := range passed {
				if other != run && best >= s.Rate {
					these = append(these, fmt.Sprintf("step %d at %s (%s)", s.Step, amountOf(ct, s.Rate), s.Cause))
					break
				}
			}
		}
		if len(these) > 0 {
			runs = append(runs, fmt.Sprintf("run %d %s", run, strings.Join(these, ", ")))
		}
	}
	if len(runs) == 0 {
		return ""
	}
	return "failed at rates another run passed: " + strings.Join(runs, "; ")
}

// decidingBlocks says, run by run, what bounded each row's capacity, and
// whether the runs agree.
func decidingBlocks(ct *summary.CapacityTable) []block {
	var items, repeat []string
	for _, r := range ct.Rows {
		for _, d := range r.Deciding {
			items = append(items, d.Sentence)
		}
		if r.ReqPerSec.N < 2 || len(r.Deciding) == 0 {
			continue
		}
		cp, unit := r.ReqPerSec, "req/s"
		if ct.Unit == "users" {
			cp, unit = r.Users, "users"
		}
		spread := cp.Max/cp.Min - 1
		var causes []string
		for _, d := range r.Deciding {
			causes = append(causes, fmt.Sprintf("run %d %s at step %d", d.Run, d.Cause, d.Step))
		}
		if spread <= RepeatTolerance {
			repeat = append(repeat, fmt.Sprintf("%s: the runs agree (%s to %s %s, %.0f%% apart)", r.Stack, amountOf(ct, cp.Min), amountOf(ct, cp.Max), unit, 100*spread))
		} else {
			line := fmt.Sprintf("%s: the runs **disagree** (%s to %s %s, %.0f%% apart); what bounded each: %s", r.Stack, amountOf(ct, cp.Min), amountOf(ct, cp.Max), unit, 100*spread, strings.Join(causes, "; "))
			if d := disturbed(ct, r.Steps); d != "" {
				line += "; " + d
			}
			for _, n := range r.Unconverged {
				line += fmt.Sprintf("; run %d did not converge (%s)", n.Run, n.Note)
			}
			repeat = append(repeat, line)
		}
	}
	if len(items) == 0 {
		return nil
	}
	checks := ""
	for _, r := range ct.Rows {
		for _, d := range r.Deciding {
			if d.Cause == summary.CauseChecks {
				checks = "; failed checks: every request answered with a status its step allows, but answers failed the flow's checks"
			}
		}
	}
	out := []block{p("The failed step that bounded each run's capacity, and its cause (host: the hiccup meters saw the host stall; app stall: answers stopped, or all but stopped (under half the offered rate), with the host quiet, or slowed while the cgroup's dirty pages were written back; app saturated: the app at its CPU limit over the step, or while its slow answers waited; generator: the generator could not drive the step; after overload: the app spent 1.3× or more CPU per request than at the nearest rate that passed before the run's first failed step%s; unexplained: none of these):", checks),
		{kind: list, items: items}}
	if len(repeat) > 0 {
		out = append(out, p("Run to run (agreeing: within %.0f%%):", 100*RepeatTolerance), block{kind: list, items: repeat})
	}
	return out
}

func pct1(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// amountOf writes a step's load in its table's unit (units.Amount).
func amountOf(ct *summary.CapacityTable, v float64) string {
	return units.Amount(v, ct.Unit == "users")
}

// unitOf is what a capacity table's steps count: "req/s", or "users".
func unitOf(ct *summary.CapacityTable) string {
	if ct.Unit == "users" {
		return "users"
	}
	return "req/s"
}

// generatorFlag says whether the generator capped any step of the row.
func generatorFlag(ct *summary.CapacityTable, r summary.CapacityRow) string {
	var capped []string
	for _, st := range r.Steps {
		if st.Verdict == ramp.Generator {
			capped = append(capped, fmt.Sprintf("run %d at %s %s", st.Run, amountOf(ct, st.Rate), unitOf(ct)))
		}
	}
	if len(capped) > 0 {
		return "CAPPED " + strings.Join(capped, ", ")
	}
	if len(r.Steps) == 0 {
		return "not measured"
	}
	return "ok, ≤" + units.Percent(r.GeneratorMax)
}

func stepsTable(s *summary.Summary, ct *summary.CapacityTable) block {
	t := block{kind: table,
		header: []string{"stack", "run", "step", "offered req/s", "sent", "p99 ms", "mean ms", "app CPUs", "generator CPU", "verdict"},
		right:  []bool{false, true, true, true, true, true, true, true, true, false}}
	if ct.Unit == "users" {
		t.header[3] = "users"
	}
	quota := s.CPUMode == "quota"
	if quota {
		t.header = append(t.header[:8], append([]string{"throttled %"}, t.header[8:]...)...)
		t.right = append(t.right[:8], append([]bool{true}, t.right[8:]...)...)
	}
	gap := false
	for _, r := range ct.Rows {
		for _, st := range r.Steps {
			gap = gap || st.AnswerGapMs != nil
		}
	}
	if gap {
		t.header = append(t.header[:6], append([]string{"answer gap ms"}, t.header[6:]...)...)
		t.right = append(t.right[:6], append([]bool{true}, t.right[6:]...)...)
	}
	for _, r := range ct.Rows {
		for _, st := range r.Steps {
			gen := "not measured"
			if st.Generator >= 0 {
				gen = units.Percent(st.Generator)
			}
			verdict := string(st.Verdict) + ": " + st.Reason
			switch {
			case st.Verdict == ramp.Generator:
				verdict = "GENERATOR: " + st.Reason
			case st.AtCapacity:
				verdict += " (capacity)"
			}
			if st.Why != "" {
				verdict += "; " + st.Why
			}
			if st.Before != "" {
				verdict += "; before it: " + st.Before
			}
			cells := []string{r.Stack, fmt.Sprint(st.Run), fmt.Sprint(st.Step), amountOf(ct, st.Rate),
				units.Group(st.Sent), units.Ms(st.P99Ms)}
			if gap {
				cells = append(cells, optional(st.AnswerGapMs, func(v float64) string { return units.Group(int64(v + 0.5)) }))
			}
			cells = append(cells, units.Ms(st.MeanMs), optional(st.AppCPUs, cpus))
			if quota {
				cells = append(cells, optional(st.Throttled, pct1))
			}
			t.rows = append(t.rows, append(cells, gen, verdict))
		}
	}
	return t
}

// lineSpec is a chart of lines over a shared x axis: p99 against the
// offered rate, one line per stack (its steps in order of rate), on log
// scales, with the target as a horizontal line.
type lineSpec struct {
	lines  []line
	target float64
	xLabel string
	yLabel string
}

type line struct {
	label  string
	points []point
}

type point struct {
	x, y  float64
	cls   string // pass, fail, generator
	title string
}

// capacityChart draws, per stack, the steps of its median run (the run
// whose capacity is the median, or its first) as a line, so each stack
// has one line and the ramp's shape stays readable.
func capacityChart(ct *summary.CapacityTable) *chartSpec {
	ls := &lineSpec{target: ct.P99Ms, xLabel: "offered req/s", yLabel: "p99 ms"}
	x := "the offered rate (req/s, log)"
	if ct.Unit == "users" {
		ls.xLabel, x = "users", "the users (log)"
	}
	for _, r := range ct.Rows {
		run := medianRun(r)
		l := line{label: r.Stack}
		for _, st := range r.Steps {
			if st.Run != run {
				continue
			}
			cls := "pass"
			switch st.Verdict {
			case ramp.Generator:
				cls = "generator"
			case ramp.Latency, ramp.Errors:
				cls = "fail"
			}
			l.points = append(l.points, point{st.Rate, math.Max(st.P99Ms, 0.01), cls,
				fmt.Sprintf("%s run %d step %d: %s %s, p99 %s ms, %s", r.Stack, st.Run, st.Step, amountOf(ct, st.Rate), unitOf(ct), units.Ms(st.P99Ms), st.Verdict)})
		}
		sort.SliceStable(l.points, func(i, j int) bool { return l.points[i].x < l.points[j].x })
		ls.lines = append(ls.lines, l)
	}
	return &chartSpec{id: "capacity-" + ct.Case, line: ls,
		title: fmt.Sprintf("%s: p99 (ms, log) against %s, one line per stack (its median run); the dashed line is the %g ms target; hollow points failed, crossed ones the generator could not drive", ct.Case, x, ct.P99Ms)}
}

func medianRun(r summary.CapacityRow) int {
	type rc struct {
		run int
		v   float64
	}
	var have []rc
	for _, st := range r.Steps {
		if st.AtCapacity {
			have = append(have, rc{st.Run, st.Rate})
		}
	}
	if len(have) == 0 {
		if len(r.Steps) > 0 {
			return r.Steps[0].Run
		}
		return 0
	}
	sort.SliceStable(have, func(i, j int) bool { return have[i].v < have[j].v })
	return have[(len(have)-1)/2].run
}

// Geometry of a line chart.
const (
	lineW, lineH           = 720, 360
	lineLeft, lineRight    = 64, 150
	lineTop, lineBottomPad = 26, 40
)

var lineColours = []string{"#3b6ea8", "#d08a2e", "#2e8b57", "#b3261e", "#6a4c93", "#1b7f8c", "#8c6d1b", "#c2185b", "#455a64"}

func svgLine(b *bytes.Buffer, c *chartSpec) {
	ls := c.line
	xs, ys := []float64{}, []float64{ls.target}
	drawn := 0
	for _, l := range ls.lines {
		for _, pt := range l.points {
			xs, ys = append(xs, pt.x), append(ys, pt.y)
			drawn++
		}
	}
	x0, x1 := logBounds(xs)
	y0, y1 := logBounds(ys)
	pw, ph := float64(lineW-lineLeft-lineRight), float64(lineH-lineTop-lineBottomPad)
	X := func(v float64) float64 { return lineLeft + pw*(math.Log10(v)-x0)/(x1-x0) }
	Y := func(v float64) float64 { return lineTop + ph*(1-(math.Log10(v)-y0)/(y1-y0)) }
	fmt.Fprintf(b, "<figure>\n<svg class=\"chart\" id=\"%s\" data-bars=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
		html.EscapeString(c.id), drawn, lineW, lineH, lineW, lineH, html.EscapeString(c.title))
	bottom := lineTop + ph
	fmt.Fprintf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\"/>\n",
		lineLeft, bottom, lineLeft+pw, bottom, lineLeft, lineTop, lineLeft, bottom)
	for e := math.Ceil(x0); e <= x1; e++ {
		v := math.Pow(10, e)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", X(v), bottom+16, units.Rate(v))
	}
	for e := math.Ceil(y0); e <= y1; e++ {
		v := math.Pow(10, e)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", lineLeft-6, Y(v)+4, units.Ms(v))
	}
	fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", lineLeft+pw/2, lineH-6, html.EscapeString(ls.xLabel))
	fmt.Fprintf(b, "<text x=\"12\" y=\"%d\">%s</text>\n", lineTop-12, html.EscapeString(ls.yLabel))
	fmt.Fprintf(b, "<line class=\"target\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b3261e\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\">target %s ms</text>\n",
		lineLeft, Y(ls.target), lineLeft+pw, Y(ls.target), lineLeft+pw+6, Y(ls.target)+4, units.Ms(ls.target))
	for i, l := range ls.lines {
		col := lineColours[i%len(lineColours)]
		var pts []string
		for _, pt := range l.points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", X(pt.x), Y(pt.y)))
		}
		if len(pts) > 1 {
			fmt.Fprintf(b, "<polyline class=\"series\" points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", strings.Join(pts, " "), col)
		}
		for _, pt := range l.points {
			fill := col
			if pt.cls != "pass" {
				fill = "#ffffff"
			}
			fmt.Fprintf(b, "<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"><title>%s</title></circle>\n",
				pt.cls, X(pt.x), Y(pt.y), fill, col, html.EscapeString(pt.title))
			if pt.cls == "generator" {
				fmt.Fprintf(b, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", X(pt.x)-4, Y(pt.y)-4, col)
			}
		}
		ly := lineTop + 14 + 18*i
		fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">%s</text>\n",
			lineLeft+pw+24, ly+12, col, lineLeft+pw+40, ly+23, html.EscapeString(l.label))
	}
	fmt.Fprintf(b, "</svg>\n<figcaption>%s</figcaption>\n</figure>\n", html.EscapeString(c.title))
}

// logBounds are the decades (log10) around the values, at least one apart.
func logBounds(vs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 {
			lo, hi = math.Min(lo, math.Log10(v)), math.Max(hi, math.Log10(v))
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// modeItem is the header's lines for the run mode (native) and the CPU
// mode (quota).
func modeItem(s *summary.Summary) []string {
	var out []string
	if s.Parameters.RunMode() == manifest.RunNative {
		out = append(out, "run mode: native (every stack a host process in a cgroup the lab made, bench/native; never in one table with a Docker run)")
	}
	if s.CPUMode != "quota" {
		return out
	}
	return append(out, fmt.Sprintf("CPU mode: quota (the app limited to %s CPUs per 100 ms period by a CFS quota; throttled %% = throttled periods ÷ periods over the window, from the cgroup samples)", s.CPUQuota))
}

// cellThrottled is a case row's throttled % (quota mode).
func cellThrottled(r *stat.Range) string {
	if r == nil || r.N == 0 {
		return "—"
	}
	return rangeWith(*r, pct1)
}

// pairThrottled adds quota mode's throttled % column to the table of a
// case read against another (the first table of its blocks): alone /
// under, per stack.
func pairThrottled(s *summary.Summary, bl []block, alone, under *summary.CaseTable) []block {
	if s.CPUMode != "quota" {
		return bl
	}
	for i := range bl {
		if bl[i].kind != table {
			continue
		}
		t := &bl[i]
		t.header = append(t.header, "throttled %")
		t.right = append(t.right, true)
		for j, stack := range s.Parameters.Stacks {
			cell := func(ct *summary.CaseTable) string {
				if r := findRow(ct, stack); r != nil {
					return cellThrottled(r.Throttled)
				}
				return "—"
			}
			t.rows[j] = append(t.rows[j], cell(alone)+" / "+cell(under))
		}
		break
	}
	return bl
}

func cpus(v float64) string { return fmt.Sprintf("%.2f", v) }

func optional(v *float64, f func(float64) string) string {
	if v == nil {
		return "—"
	}
	return f(*v)
}

// quotaNote says, in quota mode, when no stack was throttled at its
// capacity step, and what the samples show instead: the CPU each used.
func quotaNote(s *summary.Summary, ct *summary.CapacityTable) []block {
	if s.CPUMode != "quota" {
		return nil
	}
	var used []string
	for _, r := range ct.Rows {
		if r.Throttled.N == 0 {
			continue
		}
		if r.Throttled.Max > 0 {
			return nil
		}
		used = append(used, fmt.Sprintf("%s %s", r.Stack, rangeWith(r.AppCPU, cpus)))
	}
	if len(used) == 0 {
		return nil
	}
	return []block{p("No stack was throttled at its capacity step (0 throttled periods in every run). The samples say why: at capacity the apps used %s CPUs against a quota of %s, so the quota never bit and the limit was elsewhere (the app CPUs column of the steps shows each step's use).", strings.Join(used, ", "), s.CPUQuota)}
}
