package summary

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
	"stacklab/analysis/study"
	"stacklab/analysis/units"
	"stacklab/formats/cpulist"
	"stacklab/formats/hiccuplog"
	"stacklab/formats/latencyline"
	"stacklab/formats/oha"
	"stacklab/formats/pauses"
	"stacklab/formats/timeline"
	"stacklab/formats/uplog"
)

// Causes an explanation names, in the order the rules try them: a stall
// the host's own hiccup meter saw first, then the generator, then what
// the host's account of the CPUs shows (the hypervisor's steal, other
// work on the app's CPUs, the generator's CPUs full), a still
// warming app, an app that stopped answering, an app at its CPU limit
// (over the step, or while its slow answers waited), a write-back of the
// cgroup's dirty pages as they waited.
const (
	CauseHost        = "host"
	CauseGenerator   = "generator"
	CauseWarming     = "warming"
	CauseAppStall    = "app stall"
	CauseSaturated   = "app saturated"
	CauseUnexplained = "unexplained"
	// CauseOverload: a capacity step on an app an earlier, overloaded step
	// left slower (its CPU per request up), idle or not.
	CauseOverload = "after overload"
	// CauseFirstAnswers: the gap is the window's first requests' own
	// latency (an upstream wait), not a stall.
	CauseFirstAnswers = "first answers"
	// CauseUpstream: the lab's mock upstream was late itself (its own
	// record, formats/uplog) by as much as the slow requests that waited on
	// it, with nothing else named: the lab's side, not the app's.
	CauseUpstream = "upstream late"
	// CauseChecks: a users step whose every request was answered with a
	// status its flow allows, but whose answers failed the flow's checks
	// (a body without what the step looks for, a value not captured): the
	// app's answers, not its speed.
	CauseChecks = "failed checks"
)

// Thresholds of the explanations.
const (
	// GapMs: an answer gap this long is explained whatever the tail.
	GapMs = 100
	// An app that used results.SaturatedShare of the CPUs it may use is
	// saturated (a closed loop's app at 92% of its CPU is the bottleneck,
	// the rest lost to the kernel and the instruments beside it): the one
	// share at which a CPU set counts as full, the generator's too.
	// throttledSaturated: the quota throttled the app in this share of
	// the periods of a slow stretch: it was at its limit there.
	throttledSaturated = 0.05
	// slopMs widens a stall's span when lining it up with a hiccup: the
	// two clocks are read by different processes.
	slopMs = 50
)

// Explanation is the cause of one outlier tail, answer gap or failed
// capacity step, from the aligned latency timeline, hiccup records and
// cgroup timeline. Step is 0 for a closed-loop window.
type Explanation struct {
	Run      int    `json:"run"`
	Stack    string `json:"stack"`
	Case     string `json:"case"`
	Step     int    `json:"step,omitempty"`
	Cause    string `json:"cause"`
	Sentence string `json:"sentence"`
	// Periodic is set when the window's answer gaps recur at a period.
	Periodic *Periodic `json:"periodic,omitempty"`
}

// Periodic is a pause that recurs: its median length and period.
type Periodic struct {
	LengthMs float64 `json:"length_ms"`
	PeriodMs float64 `json:"period_ms"`
	Count    int     `json:"count"`
}

// Explained is what the explanations read of one window or step.
type evidence struct {
	lt       *latencyline.Timeline
	hiccups  []hiccuplog.Log
	samples  []timeline.Sample
	cpuLimit float64 // CPUs the app may use; 0 unknown
	genShare float64
	genSat   bool
	warmup   string // "" steady or unknown; else why the warm-up is suspect
	// openLoop: a capacity step, whose answers follow the offered rate,
	// so a rising count of them says nothing of warming.
	openLoop bool
	// pauses are the runtime's own (a JVM's GC), nil when it keeps none.
	pauses []pauses.Pause
	// slumps: a capacity step's stretches of answers under half its rate
	// (latencyline.Slumps); nil for a window.
	slumps []latencyline.Slump
	// dirtyRatio, dirtyBytes: the host's dirty-page limits (manifest), for
	// reading dirty+writeback against the limit that throttles writers.
	dirtyRatio, dirtyBytes int64
}

// unit is what the evidence is of: a capacity step or a window.
func (ev evidence) unit() string {
	if ev.openLoop {
		return "step"
	}
	return "window"
}

// runtimeMs: a runtime pause this long within a stall names it.
const runtimeMs = 20

// span is a stretch of the window to explain, in unix ns.
type span struct{ from, to int64 }

// stallSpan is where a window's worst moment was: its longest answer gap
// when that is ≥ GapMs, else the bucket with the slowest answer, reaching
// back by that answer's latency.
func stallSpan(lt *latencyline.Timeline) (span, string) {
	h := lt.Header
	if h.AnswerGapMs >= GapMs {
		return span{lt.Abs(h.AnswerGapAtMs), lt.Abs(h.AnswerGapAtMs + h.AnswerGapMs)},
			fmt.Sprintf("no answer for %s from +%s", msWords(float64(h.AnswerGapMs)), secWords(h.AnswerGapAtMs))
	}
	var worst *latencyline.Bucket
	for i := range lt.Buckets {
		b := &lt.Buckets[i]
		if b.MaxUs != nil && (worst == nil || *b.MaxUs > *worst.MaxUs) {
			worst = b
		}
	}
	if worst == nil {
		return span{lt.Abs(0), lt.Abs(int64(len(lt.Buckets)) * h.BucketMs)}, "the whole window"
	}
	end := lt.Abs(worst.TMs + h.BucketMs)
	return span{end - *worst.MaxUs*1000 - h.BucketMs*1e6, end},
		fmt.Sprintf("the slowest answer (%s) ended near +%s", msWords(float64(*worst.MaxUs)/1e3), secWords(worst.TMs))
}

// explain names the cause of what happened in sp, first rule that holds.
func explain(ev evidence, sp span, what string) (string, string) {
	if g, role, ok := hostStall(ev.hiccups, sp); ok {
		return CauseHost, fmt.Sprintf("%s; the hiccup meter on the %s CPUs overslept %s at the same time: the host stalled, not the app",
			what, roleWords(role), units.Seconds(g.Duration().Seconds()))
	}
	if ev.genSat {
		return CauseGenerator, fmt.Sprintf("%s; the load generator used %.0f%% of its CPUs: it may have been the limit", what, 100*ev.genShare)
	}
	if cause, words := hostCPUWords(within(ev.samples, sp)); cause != "" {
		return cause, what + "; " + words
	}
	cg := cgroupWords(ev.samples, sp, ev.dirtyRatio, ev.dirtyBytes)
	if rt := runtimeWords(ev.pauses, sp); rt != "" {
		return CauseAppStall, fmt.Sprintf("%s; the runtime itself paused then: %s (the host's hiccup meters saw no stall)", what, rt)
	}
	warming := ""
	if ev.lt != nil && !ev.openLoop {
		if tr := ev.lt.Trend(); tr.OK && tr.Warming {
			warming = fmt.Sprintf("answers per %d ms rose %.0f%% from the window's first third to its last", ev.lt.Header.BucketMs, 100*(tr.Ratio-1))
		}
	}
	// An answer gap is the app's stall whatever else was going on: a
	// still-warming app (a JIT compiling) is said beside it.
	if ev.lt != nil && ev.lt.Header.AnswerGapMs >= GapMs {
		s := fmt.Sprintf("%s while the host's hiccup meters saw no stall: the app stopped answering", what)
		if use, ok := cpuUse(within(ev.samples, sp)); ok {
			s += fmt.Sprintf(", its cgroup using %.2f CPU meanwhile", use)
			if ev.cpuLimit > 0 && use < 0.5*ev.cpuLimit {
				s += " (blocked, or kept off its CPU by another process)"
			}
		}
		if warming != "" {
			s += " (meanwhile " + warming + ")"
		}
		if len(cg) > 0 {
			return CauseAppStall, s + "; its cgroup showed " + strings.Join(cg, "; ")
		}
		return CauseAppStall, s + "; nothing in its cgroup timeline at that time says why"
	}
	if warming != "" {
		return CauseWarming, fmt.Sprintf("%s; %s: the app was still warming up%s", what, warming, ev.warmup)
	}
	if ev.warmup != "" {
		return CauseWarming, what + ev.warmup
	}
	// A step's mean can sit below the limit while the stretch with the
	// slow answers was at it: the queue built there.
	if use, ok := cpuUse(within(ev.samples, sp)); ok && ev.cpuLimit > 0 && use >= results.SaturatedShare*ev.cpuLimit {
		if mean, ok := cpuUse(ev.samples); ok && mean < results.SaturatedShare*ev.cpuLimit {
			s := fmt.Sprintf("%s; the app used %.2f of its %s CPU while those answers waited (%.2f over the whole %s): at its limit then", what, use, fmtCPUs(ev.cpuLimit), mean, ev.unit())
			if len(cg) > 0 {
				s += "; its cgroup also showed " + strings.Join(cg, "; ")
			}
			return CauseSaturated, s
		}
	}
	if use, ok := cpuUse(ev.samples); ok && ev.cpuLimit > 0 && use >= results.SaturatedShare*ev.cpuLimit {
		s := fmt.Sprintf("%s; the app used %.2f of its %s CPU", what, use, fmtCPUs(ev.cpuLimit))
		if th, ok := throttled(ev.samples); ok && th > 0 {
			s += fmt.Sprintf(" and was throttled in %.0f%% of periods", 100*th)
		}
		return CauseSaturated, s + ": at its limit"
	}
	// Throttled while the slow answers waited: the quota cut the app off
	// for the rest of a period, its mean below the limit (the bursts were
	// at it).
	if th, ok := throttled(within(ev.samples, sp)); ok && th >= throttledSaturated {
		s := fmt.Sprintf("%s; the app's CPU quota throttled it in %.0f%% of periods while those answers waited", what, 100*th)
		if use, ok := cpuUse(ev.samples); ok && ev.cpuLimit > 0 {
			s += fmt.Sprintf(" (it used %.2f of its %s CPU over the %s)", use, fmtCPUs(ev.cpuLimit), ev.unit())
		}
		return CauseSaturated, s + ": at its limit in bursts"
	}
	cpu := ""
	if use, ok := cpuUse(ev.samples); ok && ev.cpuLimit > 0 {
		cpu = fmt.Sprintf("; the app used %.2f of its %s CPU, below its limit", use, fmtCPUs(ev.cpuLimit))
		if rd := runDelayWords(within(ev.samples, sp)); rd != "" {
			cpu += " (" + rd + " while those answers waited)"
		}
	}
	if fl := flushWords(within(ev.samples, sp)); fl != "" {
		return CauseAppStall, fmt.Sprintf("%s%s, and the host's hiccup meters saw no stall; %s as those answers waited", what, cpu, fl)
	}
	// An open loop's app that all but stopped answering, below its CPU
	// limit and with the host quiet, stalled: a few answers trickling out
	// keep its answer gap short, not its requests waiting.
	if sl, ok := slumpIn(ev, sp); ok {
		s := fmt.Sprintf("%s%s, and the host's hiccup meters saw no stall; answers all but stopped for %s from +%s (%d answered, %d sent): the app stalled",
			what, cpu, msWords(float64(sl.Ms)), secWords(sl.AtMs), sl.Answers, sl.Sent)
		if len(cg) > 0 {
			return CauseAppStall, s + "; its cgroup showed " + strings.Join(cg, "; ")
		}
		return CauseAppStall, s + "; nothing in its cgroup timeline at that time says why"
	}
	if len(cg) > 0 {
		return CauseUnexplained, what + cpu + "; its cgroup showed " + strings.Join(cg, "; ") + ", but neither a host stall, the generator, a warming trend nor a CPU limit"
	}
	return CauseUnexplained, what + cpu + ": no host stall, no saturated generator or app, no warming trend, nothing in the cgroup timeline"
}

// slumpIn is the longest of the step's slumps that overlaps sp (widened
// by slopMs).
func slumpIn(ev evidence, sp span) (latencyline.Slump, bool) {
	var best latencyline.Slump
	found := false
	for _, sl := range ev.slumps {
		from, to := ev.lt.Abs(sl.AtMs), ev.lt.Abs(sl.AtMs+sl.Ms)
		if latencyline.Overlap(from, to, sp.from-slopMs*1e6, sp.to+slopMs*1e6) > 0 && (!found || sl.Ms > best.Ms) {
			best, found = sl, true
		}
	}
	return best, found
}

// runtimeWords names the runtime's pauses of runtimeMs or more that
// overlap sp, longest first, at most three; "" when none.
func runtimeWords(ps []pauses.Pause, sp span) string {
	var in []pauses.Pause
	for _, p := range pauses.During(ps, sp.from-slopMs*1e6, sp.to+slopMs*1e6) {
		if p.Ms >= runtimeMs {
			in = append(in, p)
		}
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].Ms > in[j].Ms })
	var words []string
	for i, p := range in {
		if i == 3 {
			words = append(words, fmt.Sprintf("%d more", len(in)-3))
			break
		}
		words = append(words, fmt.Sprintf("%s %s", p.What, units.Seconds(p.Ms/1e3)))
	}
	return strings.Join(words, ", ")
}

// firstAnswers: the window's longest answer gap is its first answers'
// own wait (latencyline.FirstAnswers), by oha's median latency.
func firstAnswers(h latencyline.Header, res *oha.Result) bool {
	p50, ok := res.Percentile("p50")
	return ok && h.FirstAnswers(time.Duration(p50*float64(time.Second)))
}

// hostStall is the longest hiccup ≥ ramp.HostStallMs that overlaps sp.
func hostStall(logs []hiccuplog.Log, sp span) (hiccuplog.Gap, string, bool) {
	var best hiccuplog.Gap
	role, found := "", false
	for _, l := range logs {
		for _, g := range l.GapsBetween(sp.from-slopMs*1e6, sp.to+slopMs*1e6, ramp.HostStallMs*time.Millisecond) {
			if !found || g.GapUs > best.GapUs {
				best, role, found = g, l.Header.Label, true
			}
		}
	}
	return best, role, found
}

// within is the samples of ts on the wall clock within sp (a sample
// either side kept, so a span shorter than the interval has two); all of
// ts when its samples carry no wall clock, none when fewer than two fit.
func within(ts []timeline.Sample, sp span) []timeline.Sample {
	if len(ts) < 2 || ts[0].UnixMs == 0 {
		return nil
	}
	lo, hi := -1, -1
	for i, s := range ts {
		at := s.UnixMs * 1e6
		if at <= sp.from {
			lo = i
		}
		if at >= sp.to && hi < 0 {
			hi = i
		}
	}
	if lo < 0 {
		lo = 0
	}
	if hi < 0 {
		hi = len(ts) - 1
	}
	if hi-lo < 1 {
		return nil
	}
	return ts[lo : hi+1]
}

// cgroupWords is what the cgroup timeline shows past the thresholds during
// sp (the samples within it, as within gives them), or over the whole
// window when the samples carry no wall clock.
func cgroupWords(ts []timeline.Sample, sp span, dirtyRatio, dirtyBytes int64) []string {
	in := ts
	if len(ts) > 0 && ts[0].UnixMs > 0 {
		in = within(ts, sp)
	}
	if len(in) < 2 {
		return nil
	}
	out := Signals(in, dirtyRatio, dirtyBytes)
	if d := delta(in[0].PgMajFault, in[len(in)-1].PgMajFault); d >= 100 {
		out = append(out, fmt.Sprintf("%d major page faults", d))
	}
	return out
}

// flushBytes: the cgroup's dirty pages falling by this much, to half or
// less, between two samples is a write-back (the kernel's flusher, or an
// fsync) in that stretch; a writer that waits on it holds what it holds
// (SQLite's write lock, a pooled connection) meanwhile.
const flushBytes = 1 << 20

// flushWords names the largest such fall within ts, "" when none.
func flushWords(ts []timeline.Sample) string {
	var from, to uint64
	for i := 1; i < len(ts); i++ {
		a, b := ts[i-1].DirtyBytes, ts[i].DirtyBytes
		if a == nil || b == nil || *b > *a/2 || *a-*b < flushBytes {
			continue
		}
		if *a-*b > from-to {
			from, to = *a, *b
		}
	}
	if from == 0 {
		return ""
	}
	return fmt.Sprintf("the cgroup's dirty pages fell from %s to %s (written back)", units.Bytes(float64(from)), units.Bytes(float64(to)))
}

func roleWords(role string) string {
	if role == "loadgen" {
		return "load generator's"
	}
	return "app's"
}

func fmtCPUs(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

func msWords(ms float64) string { return units.Seconds(ms / 1e3) }

func secWords(ms int64) string { return strconv.FormatFloat(float64(ms)/1e3, 'f', 2, 64) + " s" }

// appCPULimit is how many CPUs the app may use: the quota in quota mode,
// else the CPUs of its set; 0 when the manifest does not say.
func appCPULimit(f *results.Folder) float64 {
	if f.Manifest == nil {
		return 0
	}
	if _, q := quotaOf(f); q != "" {
		if v, err := strconv.ParseFloat(q, 64); err == nil {
			return v
		}
	}
	return float64(cpulist.Count(f.Manifest.Host.Settings["APP_CPUS"]))
}

// JITTopTierPerS: a JIT that compiled this many methods a second at its
// top tier during a window was still making the app's hot code fast (and
// its compiler threads took CPU from the requests): the window measured
// an app short of its warm speed. A rate, so that a 5 s window and a
// 15 s one are held to the same bar.
const JITTopTierPerS = 5

// warmupWords says why a window's warm-up is suspect, "" when it is not;
// secs is the window's length.
func warmupWords(w *results.Window, secs float64) string {
	if w.Warmup != nil && !w.Warmup.Steady {
		return fmt.Sprintf(" (its warm-up was not steady after %s)", units.Seconds(w.Warmup.Seconds))
	}
	if j := w.JIT; j != nil && secs > 0 && float64(j.TopTier)/secs >= JITTopTierPerS {
		return fmt.Sprintf(" (its JIT compiled %d methods in the window's %s, %d of them at its top tier: %.0f a second)", j.Compiled, units.Seconds(secs), j.TopTier, float64(j.TopTier)/secs)
	}
	return ""
}

// windowEvidence reads what one window kept; nil when it has no latency
// timeline (windows measured before the lab kept one).
func windowEvidence(f *results.Folder, w *results.Window) (*evidence, error) {
	if w.LatencyPath == "" {
		return nil, nil
	}
	if w.LatencyErr != nil {
		return nil, w.LatencyErr
	}
	lt := w.Latency
	ts, err := w.Samples()
	if err != nil {
		return nil, err
	}
	vm := f.Manifest.Host.Fingerprint.VM
	ev := &evidence{lt: lt, hiccups: w.Hiccups, samples: ts, cpuLimit: appCPULimit(f), warmup: warmupWords(w, float64(int64(len(lt.Buckets))*lt.Header.BucketMs)/1e3), pauses: w.Pauses,
		dirtyRatio: vm.DirtyRatio, dirtyBytes: vm.DirtyBytes}
	if w.Loadgen != nil {
		ev.genShare, ev.genSat = w.Loadgen.Share(), w.Loadgen.Saturated
	}
	return ev, nil
}

// Window findings kept per row, for the tables: the longest answer gap
// over a row's runs and whether any run was still warming.
type windowFinding struct {
	run              int
	gapMs            float64
	warming, falling bool
}

// explainWindows explains every window with an outlier tail or an answer
// gap ≥ GapMs, and notes each window's gap and trend for its row.
func explainWindows(f *results.Folder) ([]Explanation, map[string][]windowFinding, error) {
	var out []Explanation
	found := map[string][]windowFinding{}
	for ri := range f.Runs {
		for si := range f.Runs[ri].Stacks {
			for wi := range f.Runs[ri].Stacks[si].Windows {
				w := &f.Runs[ri].Stacks[si].Windows[wi]
				if w.Result == nil {
					continue
				}
				ev, err := windowEvidence(f, w)
				if err != nil {
					return nil, nil, err
				}
				if ev == nil {
					continue
				}
				tr := ev.lt.Trend()
				key := w.Stack + "\x00" + w.Case
				found[key] = append(found[key], windowFinding{w.Run, float64(ev.lt.Header.AnswerGapMs), (tr.OK && tr.Warming) || ev.warmup != "", tr.OK && tr.Falling})
				tail := outlier(w.Result)
				if !tail && ev.lt.Header.AnswerGapMs < GapMs {
					continue
				}
				if h := ev.lt.Header; !tail && firstAnswers(h, w.Result) {
					p50, _ := w.Result.Percentile("p50")
					out = append(out, Explanation{Run: w.Run, Stack: w.Stack, Case: w.Case, Cause: CauseFirstAnswers,
						Sentence: fmt.Sprintf("run %d, %s, %s: no answer for the window's first %s, no more than twice its median latency (p50 %s): the first requests' own time, not a stall.",
							w.Run, w.Stack, w.Case, msWords(float64(h.AnswerGapMs)), units.Seconds(p50))})
					continue
				}
				sp, where := stallSpan(ev.lt)
				what := where
				if tail {
					p50, _ := w.Result.Percentile("p50")
					p999, _ := w.Result.Percentile("p99.9")
					what = fmt.Sprintf("slowest 0.1%% took %s (p50 %s); %s", units.Seconds(p999), units.Seconds(p50), where)
				}
				cause, s := explain(*ev, sp, what)
				// A row on the lab's Postgres: the server's own view of
				// the stretch, and its waits as the cause when they held
				// most of its backends and nothing of the host's did.
				if w.PGPath != "" {
					if w.PGErr != nil {
						return nil, nil, w.PGErr
					}
					if words, held := serverWords(w.PG, sp); words != "" {
						s += "; " + words
						if held && (cause == CauseUnexplained || cause == CauseAppStall) {
							cause = CauseServer
						}
					}
				}
				if w.Upstream != nil {
					words, late := upstreamSpanWords(w.Upstream, sp)
					s += "; " + words
					if late && cause == CauseUnexplained {
						cause = CauseUpstream
					}
				}
				e := Explanation{Run: w.Run, Stack: w.Stack, Case: w.Case, Cause: cause}
				if period, length, n, ok := ev.lt.Periodic(); ok {
					e.Periodic = &Periodic{LengthMs: float64(length.Microseconds()) / 1e3, PeriodMs: float64(period.Microseconds()) / 1e3, Count: n}
					s += fmt.Sprintf("; periodic: answers stopped for ~%s every %s, %d times", units.Seconds(length.Seconds()), units.Seconds(period.Seconds()), n)
				}
				e.Sentence = fmt.Sprintf("run %d, %s, %s: %s.", w.Run, w.Stack, w.Case, s)
				out = append(out, e)
			}
		}
	}
	return out, found, nil
}

// explainStep names the cause of a failed capacity step.
func explainStep(f *results.Folder, run int, stack, c string, st *results.Step, v ramp.Verdict, overload string) (Explanation, error) {
	e := Explanation{Run: run, Stack: stack, Case: c, Step: st.Target.Step}
	ts, err := st.Samples()
	if err != nil {
		return e, err
	}
	ev := evidence{hiccups: st.Hiccups, samples: ts, cpuLimit: appCPULimit(f), openLoop: st.Users == nil, pauses: st.Pauses}
	if f.Manifest != nil {
		ev.dirtyRatio, ev.dirtyBytes = f.Manifest.Host.Fingerprint.VM.DirtyRatio, f.Manifest.Host.Fingerprint.VM.DirtyBytes
	}
	if st.Loadgen != nil {
		ev.genShare, ev.genSat = st.Loadgen.Share(), st.Loadgen.Saturated
	}
	unit := "req/s"
	if st.Users != nil {
		unit = "users"
	}
	what := fmt.Sprintf("failed at %s %s (%s)", units.Amount(st.Target.Rate, st.Users != nil), unit, v.Reason)
	var sp span
	if st.LatencyPath != "" {
		if st.LatencyErr != nil {
			return e, st.LatencyErr
		}
		lt := st.Latency
		ev.lt = lt
		ev.slumps = st.Slumps(*lt)
		var where string
		sp, where = stallSpan(lt)
		what += "; " + where
	} else {
		sp = span{math.MinInt64 / 2, math.MaxInt64 / 2}
	}
	switch {
	case v.Kind == ramp.Generator:
		e.Cause, e.Sentence = CauseGenerator, what+": the generator could not drive the step"
	case v.Kind == ramp.Errors && st.Users != nil && st.Users.ChecksOnly():
		e.Cause, e.Sentence = CauseChecks, what+": every request had an answer with a status its step allows, but answers failed the flow's checks"
	default:
		e.Cause, e.Sentence = explain(ev, sp, what)
		if overload != "" && e.Cause != CauseHost && e.Cause != CauseGenerator {
			e.Cause, e.Sentence = CauseOverload, what+"; "+overload
		}
	}
	lane := ""
	if e.Cause == CauseUnexplained && v.Kind == ramp.Latency && f.Study != nil {
		words, late := upstreamLaneWords(f.Study.Case(c), st, stepUpstream(st, ev.lt))
		if late {
			e.Cause, e.Sentence = CauseUpstream, e.Sentence+words
		} else {
			lane = words
		}
	}
	// The slowest answer may be another lane's (an upstream wait's), or
	// the window's end draining a queue, while the stall that failed the
	// step (the one the ramp redoes a step for) came earlier: when the
	// slowest answer's stretch names nothing, the step's longest slump is
	// read.
	if e.Cause == CauseUnexplained {
		if c, s, ok := slumpCause(ev, what); ok {
			e.Cause, e.Sentence = c, s
		}
	}
	e.Sentence += lane
	if st.Restarted != "" {
		e.Sentence += " (the app was " + st.Restarted + ")"
	}
	e.Sentence = fmt.Sprintf("run %d, %s, %s step %d: %s.", run, stack, c, st.Target.Step, e.Sentence)
	return e, nil
}

// upstreamLaneWords narrows an unexplained step that failed on a side
// lane's p99 (the requests that wait on the upstream) while the lane
// without a wait kept the target: the delay was on the way to the mock upstream and
// back, or in the few answers such a p99 rests on. "" otherwise.
func upstreamLaneWords(c *study.Case, st *results.Step, up *uplog.Counts) (string, bool) {
	if c == nil || c.Ramp == nil {
		return "", false
	}
	lanes := c.Lanes()
	if len(lanes) < 2 {
		return "", false
	}
	main := st.Report(lanes[0].Name)
	if main == nil || main.P99Ms() > lanes[0].TargetMs(c.Ramp) {
		return "", false
	}
	for _, l := range lanes[1:] {
		rep := st.Report(l.Name)
		if rep == nil || rep.Requests < ramp.MinJudged || rep.P99Ms() <= l.TargetMs(c.Ramp) {
			continue
		}
		slowest := int(math.Ceil(0.01 * float64(rep.Requests)))
		own, late := upstreamOwnWords(up, rep.P99Ms()-float64(l.DelayMs))
		return fmt.Sprintf(" (only the requests that wait %d ms on the upstream missed: the others' p99 was %s and their slowest answer %s; that lane's p99 rests on its %d slowest of %s answers%s)",
			l.DelayMs, msWords(main.P99Ms()), msWords(float64(main.Latencies.Max)/1e6), slowest, units.Group(rep.Requests), own), late
	}
	return "", false
}

// stepUpstream is the mock upstream's own record over a step's window:
// its record covers the lead-in too, the window is where the latency
// timeline's answers ended (the whole record without one); nil when the
// step has no record.
func stepUpstream(st *results.Step, lt *latencyline.Timeline) *uplog.Counts {
	if st.Upstream == nil {
		return nil
	}
	c := st.Upstream.Header.Counts
	if lt != nil && len(lt.Buckets) > 0 {
		c = st.Upstream.In(lt.Abs(0), lt.Abs(int64(len(lt.Buckets))*lt.Header.BucketMs))
	}
	return &c
}

// upstreamOwnWords says whether the mock upstream's own record over the
// step (formats/uplog) has it late by as much as the lane's p99 was over its wait
// (extraMs), or names it on time: then the time was spent outside it (in
// the app's client, or before the upstream read the request), and
// whether it was late itself. "" for a step without the record.
func upstreamOwnWords(c *uplog.Counts, extraMs float64) (string, bool) {
	if c == nil || c.Answers == 0 {
		return "", false
	}
	late := float64(c.MaxLate().Microseconds()) / 1e3
	if late >= extraMs/2 {
		return fmt.Sprintf("; the mock upstream's own record has %s of its %s answers 50 ms or more late, the latest %s: it was late itself",
			units.Group(c.Late50ms), units.Group(c.Answers), msWords(late)), true
	}
	return fmt.Sprintf("; the mock upstream was on time: the latest of its %s answers came %s after the wait asked (%s of them 5 ms or more), against the lane's p99 %s over its wait, so that time was spent outside it (in the app's client, or before the upstream read the request)",
		units.Group(c.Answers), msWords(late), units.Group(c.Late5ms), msWords(extraMs)), false
}

// upstreamSpanWords is the mock upstream's own record over a window's
// slow stretch (its answers that ended in it or in the bucket after: an
// answer it held late ends when the stretch does), and whether it was
// late itself then.
func upstreamSpanWords(u *uplog.File, sp span) (string, bool) {
	c := u.In(sp.from, sp.to+u.Header.BucketMs*1e6)
	late := msWords(float64(c.MaxLate().Microseconds()) / 1e3)
	switch {
	case c.Answers == 0:
		return "the mock upstream answered nothing then", false
	case c.Late50ms > 0:
		return fmt.Sprintf("the mock upstream was late itself: %s of its %s answers then 50 ms or more late, the latest %s", units.Group(c.Late50ms), units.Group(c.Answers), late), true
	}
	return fmt.Sprintf("the mock upstream was on time then: the latest of its %s answers %s after the wait asked", units.Group(c.Answers), late), false
}

// SelfTestPause is the planted pause's reading: what the study planted and
// what the latency timelines found, run by run.
type SelfTestPause struct {
	Row       string     `json:"row"`
	PlantedMs float64    `json:"planted_ms"`
	EveryMs   float64    `json:"planted_every_ms"`
	Found     []Periodic `json:"found"`
	// Windows counts the pause row's windows with a latency timeline; Named
	// those whose explanation found the pause within PauseTolerance of
	// both its length and its period.
	Windows int `json:"windows"`
	Named   int `json:"named"`
}

// PauseTolerance is how close the found pause must be to the planted one.
const PauseTolerance = 0.2

// selfTestPause reads the pause row's explanations against its variant's
// SELFTEST_PAUSE_MS and SELFTEST_PAUSE_EVERY_MS.
func selfTestPause(f *results.Folder, st *SelfTest, ex []Explanation, found map[string][]windowFinding) {
	if st == nil || f.Study.SelfTest == nil || f.Study.SelfTest.Pause == "" {
		return
	}
	row := f.Study.SelfTest.Pause
	p := &SelfTestPause{Row: row}
	if v := f.Study.Variant(row); v != nil {
		p.PlantedMs, _ = strconv.ParseFloat(v.Env["SELFTEST_PAUSE_MS"], 64)
		p.EveryMs, _ = strconv.ParseFloat(v.Env["SELFTEST_PAUSE_EVERY_MS"], 64)
	}
	for key, fs := range found {
		if strings.HasPrefix(key, row+"\x00") {
			p.Windows += len(fs)
		}
	}
	near := func(got, want float64) bool { return want > 0 && math.Abs(got-want) <= PauseTolerance*want }
	for _, e := range ex {
		if e.Stack != row || e.Periodic == nil {
			continue
		}
		p.Found = append(p.Found, *e.Periodic)
		if near(e.Periodic.LengthMs, p.PlantedMs) && near(e.Periodic.PeriodMs, p.EveryMs) {
			p.Named++
		}
	}
	st.Pause = p
}

// HiccupCPU is the hiccup meters' own CPU time, per role ("app" first):
// each meter's cpu_ns over its span, the share of one CPU it took.
type HiccupCPU struct {
	Role     string     `json:"role"`
	Meters   int        `json:"meters"`
	Share    stat.Range `json:"share"`
	Interval string     `json:"interval"`
}

// hiccupCPU reads every window's and step's hiccup end lines.
func hiccupCPU(f *results.Folder) []HiccupCPU {
	by := map[string][]float64{}
	interval := map[string]string{}
	add := func(logs []hiccuplog.Log) {
		for _, l := range logs {
			if l.End == nil || l.End.EndUnixNs <= l.Header.StartUnixNs {
				continue
			}
			by[l.Header.Label] = append(by[l.Header.Label], float64(l.End.CPUNs)/float64(l.End.EndUnixNs-l.Header.StartUnixNs))
			interval[l.Header.Label] = l.Header.Interval().String()
		}
	}
	for _, r := range f.Runs {
		for _, sr := range r.Stacks {
			for _, w := range sr.Windows {
				add(w.Hiccups)
				for _, st := range w.Steps {
					add(st.Hiccups)
				}
			}
		}
	}
	var out []HiccupCPU
	for _, role := range []string{"app", "loadgen"} {
		if v := by[role]; len(v) > 0 {
			out = append(out, HiccupCPU{Role: role, Meters: len(v), Share: stat.Of(v), Interval: interval[role]})
		}
	}
	return out
}

// slumpCause explains a step by its longest slump, when the rules name
// a cause there; what ends with where the slowest answer was.
func slumpCause(ev evidence, what string) (string, string, bool) {
	sl, ok := latencyline.Longest(ev.slumps)
	if !ok || ev.lt == nil {
		return "", "", false
	}
	sp := span{ev.lt.Abs(sl.AtMs), ev.lt.Abs(sl.AtMs + sl.Ms)}
	c, s := explain(ev, sp, what+", with nothing there to say why, so the step's longest slump is read")
	return c, s, c != CauseUnexplained
}
