// Package render lays a summary out: Markdown (summary.md), JSON
// (summary.json) and a self-contained HTML page with SVG charts
// (report.html). Both text forms come from one list of blocks built here,
// so the page and the Markdown never disagree.
package render

import (
	"fmt"
	"slices"
	"stacklab/formats/steady"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
	"stacklab/analysis/units"
	"stacklab/formats/latencyline"
)

type blockKind int

const (
	heading blockKind = iota
	para
	list
	table
	chart
)

// block is one piece of the document.
type block struct {
	kind   blockKind
	level  int      // heading
	text   string   // heading, para
	items  []string // list
	header []string // table
	right  []bool   // table: right-aligned columns
	rows   [][]string
	chart  *chartSpec
}

// samplerBlocks states what the cgroup sampler cost in req/s, measured in
// the same run and container with and without it.
func samplerBlocks(s *summary.Summary) []block {
	if len(s.SamplerCost) == 0 {
		return samplerCPUBlocks(s, true)
	}
	if all := allInstruments(s.SamplerCost); all {
		items, med := pairItems(s.SamplerCost, "the instruments")
		return append([]block{h(2, "the sampler's cost"),
			p("The same case measured again without any instrument (no cgroup sampler, no latency timeline: oha kept no per-request store, and no hiccup meters), right before the measured slice in even slices and right after it in odd ones, in the same container: median change %+.1f%% in req/s over %d pairs, what the three cost together (the sampler, oha's store and the generator's meter share the load generator's CPUs; the app's meter shares the app's).", 100*med, len(items)),
			{kind: list, items: items}}, samplerCPUBlocks(s, false)...)
	}
	items, med := pairItems(s.SamplerCost, "the sampler")
	return append([]block{h(2, "the sampler's cost"),
		p("The same case measured again without the cgroup sampler, right after, in the same container: median change %+.1f%% in req/s (the sampler runs on the load generator's CPUs).%s", 100*med, recheckWords(s.SamplerCost)),
		{kind: list, items: items}}, samplerCPUBlocks(s, false)...)
}

// allInstruments: every pair is the paired profile's, every instrument
// on against none (SamplerPair.AllInstruments).
func allInstruments(pairs []summary.SamplerPair) bool {
	for _, sp := range pairs {
		if !sp.AllInstruments {
			return false
		}
	}
	return len(pairs) > 0
}

// pairItems lists a watcher's with/without pairs, one line each, and the
// median change.
func pairItems(pairs []summary.SamplerPair, what string) ([]string, float64) {
	var items []string
	var changes []float64
	for _, sp := range pairs {
		changes = append(changes, sp.Change())
		items = append(items, fmt.Sprintf("run %d, %s %s: %s req/s with %s, %s without (%+.1f%%)",
			sp.Run, sp.Stack, sp.Case, units.Rate(sp.With), what, units.Rate(sp.Without), 100*sp.Change()))
	}
	return items, stat.Of(changes).Median
}

// recheckWords says how "with" was taken when the run rechecked it.
func recheckWords(pairs []summary.SamplerPair) string {
	for _, sp := range pairs {
		if sp.Rechecked {
			return " \"With\" is the mean of the measured window and the same case measured once more with everything on after the windows without: the windows after a measured one run on a warmer app, and this way the order cannot pass for a cost."
		}
	}
	return ""
}

func h(level int, text string) block { return block{kind: heading, level: level, text: text} }
func p(format string, a ...any) block {
	return block{kind: para, text: fmt.Sprintf(format, a...)}
}

// blocks builds the document of s.
func blocks(s *summary.Summary) []block {
	var out []block
	title := fmt.Sprintf("stacklab: %s study, %s profile", s.Study, s.Profile)
	if s.Label != "" {
		title += ", " + s.Label
	}
	out = append(out, h(1, title))
	out = append(out, notQuietBlocks(s)...)
	out = append(out, sharedHostBlocks(s.SharedHost)...)
	out = append(out, header(s))
	if !s.Complete {
		out = append(out, p("**Incomplete run**: %s. The tables hold what was measured.", s.IncompleteReason))
	}
	out = append(out, capacityBlocks(s)...)
	for _, sec := range s.Sections {
		out = append(out, h(2, sec.Study))
		out = append(out, section(s, sec)...)
	}
	out = append(out, headroomBlocks(s)...)
	out = append(out, selfTestBlocks(s)...)
	out = append(out, withinBlocks(s)...)
	out = append(out, spreadBlocks(s)...)
	out = append(out, canaryBlocks(s)...)
	out = append(out, h(2, "resources"), resourceTable(s))
	out = append(out, memoryNote(s)...)
	out = append(out, chartBlock(memoryChart(s)))
	out = append(out, samplerBlocks(s)...)
	out = append(out, timelineCostBlocks(s)...)
	out = append(out, hiccupCostBlocks(s)...)
	out = append(out, explanationBlocks(s)...)
	out = append(out, h(2, "annotations"))
	if len(s.Annotations) == 0 {
		out = append(out, p("None: in no window did the slowest 0.1%% of requests coincide with CPU throttling, dirty+writeback near the limit, or memory/IO pressure in the cgroup timeline."))
	} else {
		var items []string
		for _, a := range s.Annotations {
			items = append(items, a.Sentence)
		}
		out = append(out, block{kind: list, items: items})
	}
	out = append(out, h(2, "correctness"))
	if len(s.Failures) == 0 {
		out = append(out, p("Every window passed: only good answers (2xx, or the statuses a case names), no connection errors, and every write case's row count equals its good answers; a case that reports its errors shows them in its table instead. Requests cut by a window's deadline are counted apart and allowed."))
	} else {
		out = append(out, p("**FAILED**: %d gate(s). Cells from these windows are marked ✗; their req/s counts 2xx answers only.", len(s.Failures)))
		var items []string
		for _, f := range s.Failures {
			items = append(items, f.String())
		}
		out = append(out, block{kind: list, items: items})
	}
	return out
}

func header(s *summary.Summary) block {
	fp := s.Host
	pm := s.Parameters
	var tools []string
	for _, t := range s.Tools {
		tools = append(tools, t.Name+" "+t.Value)
	}
	runs := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		runs[i] = fmt.Sprint(r)
	}
	discarded := "none"
	if len(s.Discarded) > 0 {
		discarded = strings.Join(s.Discarded, "; ")
	}
	if len(s.NotQuiet) > 0 {
		// "none" alone would read as every kept run having passed the gate
		discarded += "; kept although the host was not quiet: " + notQuietRuns(s)
	}
	study := s.Study
	if s.StudyHash != "" {
		study += " (" + s.StudyHash[:min(len(s.StudyHash), 19)] + "…, its text is in manifest.json)"
	}
	items := []string{
		"folder: " + s.Folder,
		"study: " + study,
		fmt.Sprintf("host: %s (%s, %d cores, %s, kernel %s, cgroup %s, dirty_ratio %d)",
			s.HostProfile, fp.CPUModel, fp.Cores, units.Bytes(float64(fp.MemoryBytes)), fp.Kernel, fp.CgroupMode, fp.VM.DirtyRatio),
		fmt.Sprintf("profile: %s (%d runs, warm-up %g s%s, %s)", s.Profile, pm.Runs, pm.WarmupS, warmupScope(pm.Warmup()), loadWords(s)),
		"lab commit: " + s.LabCommit,
		"dates: " + s.StartedAt + " – " + s.EndedAt,
		"tools: " + strings.Join(tools, ", "),
		"runs kept: " + strings.Join(runs, ", ") + "; discarded (quiet-host gate): " + discarded,
		"baseline: " + s.Options.Baseline + " (ratios are taken within each run, then the median over runs)",
		"cells: median (min–max) over runs; req/s counts 2xx answers only; p50 and p99 are medians of oha's per-window percentiles",
	}
	if usersOnly(s) {
		items[len(items)-1] = "cells: median (min–max) over runs; req/s counts the requests k6 sent in a step's measured span (a step passes only when none failed); p50 and p99 are k6's over those requests"
	}
	if s.ProfileTable != nil {
		pt := *s.ProfileTable
		if usersOnly(s) {
			pt.LeadInS = 0 // a rate step's; a users step's lead-in is its case's, above
		}
		items[3] += "; " + pt.Words()
	}
	if len(s.Engines) > 0 {
		items = append(items[:4], append([]string{"engines: " + manifest.EnginesLine(s.Engines)}, items[4:]...)...)
	}
	if s.Verify != "" {
		items = append(items, s.Verify)
	}
	items = append(items, modeItem(s)...)
	return block{kind: list, items: items}
}

// sharedHostBlocks is the line under the title of a run whose host was
// declared shared (manifest.SharedHost).
func sharedHostBlocks(what string) []block {
	if what == "" {
		return nil
	}
	return []block{p("**Host shared**: %s. Its figures may be slower or noisier than on a host running the bench alone; compare them within this run.", what)}
}

// notQuietBlocks is the line under the title of a summary with a kept run
// that was not measured on a quiet host, whatever the profile.
func notQuietBlocks(s *summary.Summary) []block {
	if len(s.NotQuiet) == 0 {
		return nil
	}
	var runs []string
	for _, nq := range s.NotQuiet {
		runs = append(runs, fmt.Sprintf("run %d: %s", nq.Run, strings.Join(nq.Why, ", ")))
	}
	return []block{p("**Host not quiet**: %s; figures may be slow.", strings.Join(runs, "; "))}
}

func notQuietRuns(s *summary.Summary) string {
	var runs []string
	for _, nq := range s.NotQuiet {
		runs = append(runs, fmt.Sprint(nq.Run))
	}
	return plural(len(runs), "run ", "runs ") + strings.Join(runs, ", ")
}

// usersOnly: every case of the run is a users ramp (no windows, no
// connections: each simulated user is its own).
func usersOnly(s *summary.Summary) bool {
	if len(s.Sections) > 0 || len(s.Capacity) == 0 {
		return false
	}
	for _, ct := range s.Capacity {
		if ct.Unit != "users" {
			return false
		}
	}
	return true
}

// loadWords is the header's account of what a run's load was: windows of
// so many connections, or, when every case is a users ramp, its steps.
func loadWords(s *summary.Summary) string {
	pm := s.Parameters
	if !usersOnly(s) {
		return fmt.Sprintf("window %g s, %d connections", pm.DurationS, pm.Connections)
	}
	ct := s.Capacity[0]
	steps := fmt.Sprintf("users steps of a %g s lead-in, %g s measured and a tail", ct.LeadInS, ct.StepS)
	for _, o := range s.Capacity[1:] {
		if o.LeadInS != ct.LeadInS || o.StepS != ct.StepS {
			steps = "users steps as each case's ramp sets them (a lead-in, a measured span, a tail)"
		}
	}
	return steps + ", each user its own connection"
}

// warmupScope says what one warm-up preceded (the manifest's extra
// "warmup"; folders written before it warmed every window up and say
// nothing).
func warmupScope(scope, maxS string) string {
	switch scope {
	case "steady":
		return fmt.Sprintf(" or more before every window, until the app is steady (1 s slices until the last two are within %.0f%% of each other, at most %s s)", 100*steady.Tolerance, maxS)
	case "window":
		return " before every window"
	case "container":
		return " before each container's first window"
	case "case":
		return " per row and case"
	}
	return ""
}

func section(s *summary.Summary, sec summary.Section) []block {
	var out, pairs []block
	wireSaid := false
	read := map[string]bool{} // cases another is read against
	for _, ct := range sec.Cases {
		if ct.Alone != "" {
			read[ct.Alone] = true
		}
	}
	for i := range sec.Cases {
		ct := &sec.Cases[i]
		if ct.Alone != "" {
			pairs = append(pairs, pairThrottled(s, pairBlocks(s, find(sec, ct.Alone), ct), find(sec, ct.Alone), ct)...)
			continue
		}
		if read[ct.Case] {
			continue
		}
		out = append(out, h(3, ct.Case))
		out = append(out, caseTable(s, ct))
		if len(ct.Ceilings) > 0 {
			out = append(out, p("The first row%s a ceiling, not a stack: oha straight against the mock upstream, with the case's connections; a stack near it is limited by the upstream or the generator, not by itself.", plural(len(ct.Ceilings), " is", "s are")))
		}
		if hasLittle(ct) {
			out = append(out, p("Little's law: min(connections, the stack's request slots) ÷ the upstream delay, the most a stack can answer when every request waits on the upstream; slots come from each stack's REQUEST_SLOTS (or the variant's), none meaning no limit below the connections."))
		}
		if !wireSaid && hasWire(ct) {
			wireSaid = true
			out = append(out, p("bytes/answer: what one answer put on the wire, its head (status line and headers) and chunk framing as verify captured one answer of the route (raw/run-N/<stack>/answers.json; verify.txt lists each stack's header names), plus the body bytes per answer oha counted. Stacks that send more headers do more work per request."))
		}
		if ct.ErrorsReported {
			out = append(out, p("Errors are part of this case's result (errors = \"report\"): the error rate is errors ÷ answers over all runs, and errors fail no gate."))
		}
		out = append(out, notes(ct)...)
		out = append(out, chartBlock(rateChart(s, ct, true)), chartBlock(p99Chart(s, ct)))
	}
	return append(out, pairs...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func hasWire(ct *summary.CaseTable) bool {
	for _, r := range ct.Rows {
		if r.BytesPerAnswer != nil {
			return true
		}
	}
	return false
}

func hasLittle(ct *summary.CaseTable) bool {
	for _, r := range ct.Rows {
		if r.LittlesLaw != nil {
			return true
		}
	}
	return false
}

func find(sec summary.Section, name string) *summary.CaseTable {
	for i := range sec.Cases {
		if sec.Cases[i].Case == name {
			return &sec.Cases[i]
		}
	}
	return nil
}

func caseTable(s *summary.Summary, ct *summary.CaseTable) block {
	write, little, wire, gap, jobs := false, hasLittle(ct), false, false, false
	for _, r := range ct.Rows {
		if len(r.RowsCheck) > 0 {
			write = true
		}
		if len(r.JobPace) > 0 {
			jobs = true
		}
		if r.BytesPerAnswer != nil {
			wire = true
		}
		if r.AnswerGapMs != nil {
			gap = true
		}
	}
	t := block{kind: table}
	col := func(name string, right bool) {
		t.header = append(t.header, name)
		t.right = append(t.right, right)
	}
	col("stack", false)
	if ct.Swept {
		col("setting", false)
	}
	good := "2xx"
	if len(ct.GoodStatus) > 0 {
		var st []string
		for _, c := range ct.GoodStatus {
			st = append(st, fmt.Sprint(c))
		}
		good = strings.Join(st, ", ")
	}
	col("req/s ("+good+")", true)
	if little {
		col("Little's law", true)
	}
	col("vs "+s.Options.Baseline, true)
	col("p50 ms", true)
	col("p99 ms", true)
	if gap {
		col("answer gap ms", true)
	}
	col("CPU µs/req", true)
	if wire {
		col("bytes/answer", true)
	}
	col("errors", true)
	if ct.ErrorsReported {
		col("error rate", true)
	}
	col("cut at deadline", true)
	if s.CPUMode == "quota" {
		col("throttled %", true)
	}
	col("generator", false)
	if write {
		col("rows = 2xx", false)
	}
	if jobs {
		col("job pace", false)
	}
	rows := append(append([]summary.Row{}, ct.Ceilings...), ct.Rows...)
	for i, r := range rows {
		isCeiling := i < len(ct.Ceilings)
		row := []string{r.Stack}
		if ct.Swept {
			row = append(row, r.Setting)
		}
		row = append(row, cellRate(r.ReqPerSec, r))
		if little {
			row = append(row, cellLittle(r))
		}
		ratio := cellRatio(r.Ratio)
		errs := cellErrors(r)
		if isCeiling {
			ratio = "—"
		}
		row = append(row, ratio, cellMs(r.P50Ms), cellMs(r.P99Ms))
		if gap {
			row = append(row, cellGap(r))
		}
		row = append(row, cellCPU(r))
		if wire {
			row = append(row, cellBytes(r.BytesPerAnswer))
		}
		row = append(row, errs)
		if ct.ErrorsReported {
			row = append(row, cellErrorRate(r))
		}
		row = append(row, units.Group(r.Cut))
		if s.CPUMode == "quota" {
			row = append(row, cellThrottled(r.Throttled))
		}
		row = append(row, cellGenerator(r.Generator))
		if write {
			row = append(row, cellRows(r.RowsCheck))
		}
		if jobs {
			row = append(row, cellJobs(r.JobPace))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// cellBytes is a row's bytes per answer: head and framing from verify's
// capture, body from oha.
func cellBytes(r *stat.Range) string {
	if r == nil {
		return "—"
	}
	return units.Group(int64(r.Median + 0.5))
}

func cellLittle(r summary.Row) string {
	if r.LittlesLaw == nil {
		return "—"
	}
	return units.Rate(*r.LittlesLaw)
}

func cellErrorRate(r summary.Row) string {
	if r.ErrorRate == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f%%", 100**r.ErrorRate)
}

// pairBlocks sets a case beside the one it is read against (under, alone):
// the same request with and without the companion load.
func pairBlocks(s *summary.Summary, alone, under *summary.CaseTable) []block {
	out := []block{h(3, alone.Case+" alone and "+under.Case)}
	t := block{kind: table,
		header: []string{"stack", alone.Case + " req/s", under.Case + " req/s", "change", alone.Case + " p99 ms", under.Case + " p99 ms", "companion achieved req/s", "CPU µs/req", "errors", "generator"},
		right:  []bool{false, true, true, true, true, true, true, true, true, false}}
	for _, stack := range s.Parameters.Stacks {
		a, u := findRow(alone, stack), findRow(under, stack)
		row := []string{stack, "—", "—", "—", "—", "—", "—", "", "", ""}
		var errs, cpus []string
		var gens []string
		if a != nil {
			row[1], row[4] = cellRate(a.ReqPerSec, *a), cellMs(a.P99Ms)
			errs = append(errs, cellErrors(*a))
			gens = append(gens, cellGenerator(a.Generator))
			cpus = append(cpus, cellCPU(*a))
		}
		if u != nil {
			row[2], row[5] = cellRate(u.ReqPerSec, *u), cellMs(u.P99Ms)
			if u.VsAlone != nil {
				row[3] = fmt.Sprintf("%+.0f%%", 100*(u.VsAlone.Median-1))
			}
			if u.Writers != nil {
				row[6] = rangeRate(*u.Writers)
			}
			errs = append(errs, cellErrors(*u))
			gens = append(gens, cellGenerator(u.Generator))
			cpus = append(cpus, cellCPU(*u))
		}
		row[7], row[8], row[9] = strings.Join(cpus, " / "), strings.Join(errs, " / "), strings.Join(gens, " / ")
		t.rows = append(t.rows, row)
	}
	out = append(out, t, p("CPU µs/req, errors and generator: %s / %s. The companion load runs during %s only, capped as the study says; \"companion achieved\" counts its 2xx answers per second.", alone.Case, under.Case, under.Case))
	for _, ct := range []*summary.CaseTable{alone, under} {
		out = append(out, notes(ct)...)
		out = append(out, chartBlock(rateChart(s, ct, false)), chartBlock(p99Chart(s, ct)))
	}
	return out
}

func findRow(ct *summary.CaseTable, stack string) *summary.Row {
	if ct == nil {
		return nil
	}
	for i := range ct.Rows {
		if ct.Rows[i].Stack == stack {
			return &ct.Rows[i]
		}
	}
	return nil
}

// notes explains marks that the table's cells carry.
func notes(ct *summary.CaseTable) []block {
	var sat, warm, fall []string
	for _, r := range ct.Rows {
		if len(r.Generator.SaturatedRuns) > 0 {
			sat = append(sat, rowLabel(r))
		}
		if len(r.Falling) > 0 {
			var runs []string
			for _, n := range r.Falling {
				runs = append(runs, fmt.Sprint(n))
			}
			fall = append(fall, rowLabel(r)+" run "+strings.Join(runs, ","))
		}
		if len(r.Warming) > 0 {
			var runs []string
			for _, n := range r.Warming {
				runs = append(runs, fmt.Sprint(n))
			}
			warm = append(warm, rowLabel(r)+" run "+strings.Join(runs, ","))
		}
	}
	var out []block
	if len(sat) > 0 {
		out = append(out, p("SATURATED (%s, %s): the load generator used more than 90%% of its CPUs in that window, so the number is the generator's limit, a floor of what the stack can do, not the stack's limit.", ct.Case, strings.Join(sat, ", ")))
	}
	if len(warm) > 0 {
		out = append(out, p("↗ not steady (%s, %s): the app was still warming up: its answers per 100 ms rose through the window, or its warm-up never got steady, or its JIT compiled %d or more methods a second at its top tier during the window. The figure is a floor of the app's warm speed.", ct.Case, strings.Join(warm, "; "), summary.JITTopTierPerS))
	}
	if len(fall) > 0 {
		out = append(out, p("↘ not steady (%s, %s): its answers per 100 ms fell by %.0f%% or more from the window's first third to its last: the figure mixes two speeds (the explanations say why, where a tail or a gap let them).", ct.Case, strings.Join(fall, "; "), 100*(1-latencyline.FallingRatio)))
	}
	return out
}

// explanationBlocks names a cause for every outlier tail, answer gap of
// GapMs or more and failed capacity step, for runs that kept timelines.
func explanationBlocks(s *summary.Summary) []block {
	if !s.Explained && len(s.Explanations) == 0 {
		return nil
	}
	out := []block{h(2, "explanations")}
	if len(s.Explanations) == 0 {
		return append(out, p("None needed: no window had an outlier tail (p99.9 ≥ 10 × p50 and ≥ 10 ms) or an answer gap of %d ms or more, and no capacity step failed.", summary.GapMs))
	}
	counts := map[string]int{}
	var items []string
	for _, e := range s.Explanations {
		counts[e.Cause]++
		items = append(items, "**"+e.Cause+"**: "+e.Sentence)
	}
	var tally []string
	for _, c := range []string{summary.CauseHost, summary.CauseGenerator, summary.CauseWarming, summary.CauseAppStall, summary.CauseSaturated, summary.CauseOverload, summary.CauseFirstAnswers, summary.CauseServer, summary.CauseUpstream, summary.CauseUnexplained} {
		if counts[c] > 0 {
			tally = append(tally, fmt.Sprintf("%s %d", c, counts[c]))
		}
	}
	out = append(out, p("Every outlier tail (p99.9 ≥ 10 × p50 and ≥ 10 ms), answer gap of %d ms or more (the longest time with requests in flight and no answer: a pause a closed loop's p99 hides) and failed capacity step, with its cause from the latency timeline, the hiccup meters on the app's and the generator's CPUs, and the cgroup timeline, lined up on one clock: %s.", summary.GapMs, strings.Join(tally, ", ")),
		block{kind: list, items: items})
	return out
}

// timelineCostBlocks: what keeping every answer's timing and running the
// hiccup meters cost in req/s, measured as pairs within the run.
func timelineCostBlocks(s *summary.Summary) []block {
	var meters []string
	for _, hc := range s.HiccupCPU {
		meters = append(meters, fmt.Sprintf("on the %s CPUs a median %.2f%% (%.2f–%.2f%%) of one CPU over %d meters", roleName(hc.Role), 100*hc.Share.Median, 100*hc.Share.Min, 100*hc.Share.Max, hc.Meters))
	}
	var direct []block
	if len(meters) > 0 {
		direct = []block{p("Measured directly: the hiccup meters' own CPU time (each log's `cpu_ns`, sleeping %s between looks) was %s.", s.HiccupCPU[0].Interval, strings.Join(meters, "; "))}
	}
	if len(s.TimelineCost) == 0 {
		if len(direct) == 0 {
			return nil
		}
		return append([]block{h(2, "the latency timeline's and hiccup meters' cost")}, direct...)
	}
	items, med := pairItems(s.TimelineCost, "the latency timeline and hiccup meters")
	if paired(s) {
		return append([]block{h(2, "the latency timeline's and hiccup meters' cost"),
			p("The same case measured again with the cgroup sampler but without oha storing every answer and without the hiccup meters, right before the measured slice in even slices and right after it in odd ones, in the same container: median change %+.1f%% in req/s over %d pairs, what the latency timeline costs (oha's store and the generator's meter share the load generator's CPUs; the app's meter shares the app's).", 100*med, len(items)),
			{kind: list, items: items}}, direct...)
	}
	return append([]block{h(2, "the latency timeline's and hiccup meters' cost"),
		p("The same case measured again with the cgroup sampler but without oha storing every answer and without the hiccup meters, right after, in the same container: median change %+.1f%% in req/s.%s", 100*med, recheckWords(s.TimelineCost)),
		{kind: list, items: items}}, direct...)
}

// hiccupCostBlocks: the hiccup meters alone, with and without, in the
// paired profile's slices (paired_check = "hiccup").
func hiccupCostBlocks(s *summary.Summary) []block {
	if len(s.HiccupCost) == 0 {
		return nil
	}
	items, med := pairItems(s.HiccupCost, "the hiccup meters")
	return []block{h(2, "the hiccup meters' cost"),
		p("The same case measured again with the cgroup sampler and oha's store of every answer but without the hiccup meters, right before the measured slice in even slices and right after it in odd ones, in the same container: median change %+.1f%% in req/s over %d pairs, what the two meters cost (one sleeps on the app's CPUs, one on the load generator's).", 100*med, len(items)),
		{kind: list, items: items}}
}

// paired: the run was the paired profile's (its slices are the runs).
func paired(s *summary.Summary) bool {
	return s.Profile == "paired" || s.ProfileTable != nil && s.ProfileTable.Paired
}

func roleName(role string) string {
	if role == "loadgen" {
		return "load generator's"
	}
	return "app's"
}

func resourceTable(s *summary.Summary) block {
	if t, ok := splitResourceTable(s); ok {
		return t
	}
	t := block{kind: table,
		header: []string{"stack", "boot ms", "memory idle", "memory after load", "image size"},
		right:  []bool{false, true, true, true, true}}
	for _, r := range s.Resources {
		row := []string{r.Stack, "—", "—", "—", "—"}
		if r.BootMs != nil {
			row[1] = rangeWith(*r.BootMs, func(v float64) string { return units.Group(int64(v + 0.5)) })
			row[2] = rangeWith(*r.MemIdleBytes, units.Bytes)
			row[3] = rangeWith(*r.MemAfterBytes, units.Bytes)
		}
		if r.ImageSizeBytes > 0 {
			row[4] = units.Bytes(float64(r.ImageSizeBytes))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

func rangeWith(r stat.Range, f func(float64) string) string {
	if r.N == 0 {
		return "—"
	}
	lo, hi := f(r.Min), f(r.Max)
	if r.N == 1 || lo == hi {
		return f(r.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", f(r.Median), lo, hi)
}

func rangeRate(r stat.Range) string { return rangeWith(r, units.Rate) }

func cellRate(r stat.Range, row summary.Row) string {
	s := rangeRate(r)
	if len(row.Warming) > 0 {
		s += " ↗"
	} else if len(row.Falling) > 0 {
		s += " ↘"
	}
	if len(row.Failed) > 0 {
		s += " ✗"
	}
	return s
}

// cellGap is a row's longest answer gap: median (min–max) over runs, in
// bold from GapMs on, where a pause hides behind a closed loop's p99.
func cellGap(r summary.Row) string {
	if r.AnswerGapMs == nil {
		return "—"
	}
	c := rangeWith(*r.AnswerGapMs, func(v float64) string { return units.Group(int64(v + 0.5)) })
	if r.AnswerGapMs.Max >= summary.GapMs {
		c = "**" + c + "**"
	}
	return c
}

func cellRatio(r *stat.Range) string {
	if r == nil {
		return "—"
	}
	if r.N == 1 || fmt.Sprintf("%.2f", r.Min) == fmt.Sprintf("%.2f", r.Max) {
		return units.Ratio(r.Median)
	}
	return fmt.Sprintf("%s (%.2f–%.2f)", units.Ratio(r.Median), r.Min, r.Max)
}

func cellMs(r stat.Range) string { return rangeWith(r, units.Ms) }

func cellErrors(r summary.Row) string {
	if len(r.Failed) == 0 {
		return units.Group(r.Errors)
	}
	runs := make([]string, len(r.Failed))
	for i, n := range r.Failed {
		runs[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("%s ✗ run %s", units.Group(r.Errors), strings.Join(runs, ","))
}

func cellGenerator(g summary.GeneratorUse) string {
	if !g.Known {
		return "not measured"
	}
	if len(g.SaturatedRuns) > 0 {
		runs := make([]string, len(g.SaturatedRuns))
		for i, n := range g.SaturatedRuns {
			runs[i] = fmt.Sprint(n)
		}
		return "SATURATED run " + strings.Join(runs, ",")
	}
	return "ok, ≤" + units.Percent(g.MaxShare)
}

// cellJobs is the worker's pace as the twin report counts it: the audit
// rows written from the window's start to AfterS after its end (the median
// of the runs, their range with more than one), and the most jobs any run
// left queued then.
func cellJobs(jp []summary.JobPace) string {
	if len(jp) == 0 {
		return "—"
	}
	var done []int64
	var backlog int64
	for _, j := range jp {
		done = append(done, j.Done)
		backlog = max(backlog, j.Backlog)
	}
	slices.Sort(done)
	cell := units.Group(done[len(done)/2])
	if len(done) > 1 {
		cell += fmt.Sprintf(" (%s–%s)", units.Group(done[0]), units.Group(done[len(done)-1]))
	}
	return fmt.Sprintf("%s written, %s left %g s after", cell, units.Group(backlog), jp[0].AfterS)
}

func cellRows(rc []summary.RowsCheck) string {
	if len(rc) == 0 {
		return "—"
	}
	var bad []string
	var extra int64
	for _, c := range rc {
		if !c.OK() {
			bad = append(bad, fmt.Sprintf("run %d: %s rows ≠ %s", c.Run, units.Group(c.Rows), units.Group(c.Good)))
		}
		extra += c.Rows - c.Good
	}
	if len(bad) == 0 {
		if extra > 0 {
			// Writes cut at the deadline may have been committed anyway.
			return fmt.Sprintf("yes, %d/%d runs (+%s cut at deadline)", len(rc), len(rc), units.Group(extra))
		}
		return fmt.Sprintf("yes, %d/%d runs", len(rc), len(rc))
	}
	return "✗ " + strings.Join(bad, "; ")
}
