package latencyline

import (
	"slices"
	"time"
)

// What makes answer gaps periodic: a stall on a timer (a GC, a cron, a
// checkpoint; the self-test row blocks every request for 300 ms every 2 s)
// rather than a one-off.
const (
	PeriodicMinGaps  = 3    // fewer cannot show a period
	PeriodicInterval = 0.20 // every interval between gap starts within ±20% of their median
	PeriodicLength   = 0.30 // every gap's length within ±30% of their median
)

// Periodic says whether the listed gaps (those of GapMin or more) recur at
// a regular period, and if so the median period, the median gap and how
// many gaps. One irregular gap among them is enough to say no: the summary
// then reports the gaps as they are.
func (t Timeline) Periodic() (period, length time.Duration, n int, ok bool) {
	g := t.Header.Gaps
	if len(g) < PeriodicMinGaps {
		return 0, 0, len(g), false
	}
	var intervals, lengths []int64
	for i, x := range g {
		lengths = append(lengths, x.Ms)
		if i > 0 {
			intervals = append(intervals, x.AtMs-g[i-1].AtMs)
		}
	}
	mi, ml := median(intervals), median(lengths)
	if mi <= 0 || !within(intervals, mi, PeriodicInterval) || !within(lengths, ml, PeriodicLength) {
		return 0, 0, len(g), false
	}
	return msDur(mi), msDur(ml), len(g), true
}

func median(v []int64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return float64(s[m])
	}
	return float64(s[m-1]+s[m]) / 2
}

func within(v []int64, mid, frac float64) bool {
	for _, x := range v {
		if float64(x) < mid*(1-frac) || float64(x) > mid*(1+frac) {
			return false
		}
	}
	return true
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// What a trend in throughput is: the last third of the window's answers
// per bucket against its first third.
const (
	// 20%: on these VMs a steady app's thirds of a 5 s window differ by
	// up to ~12% (go-nethttp, quick profile), a JIT's by far more.
	WarmingRatio    = 1.20 // last third 20% or more above the first: still warming up
	FallingRatio    = 0.80 // 20% or more below: falling behind
	TrendMinBuckets = 3    // whole buckets (the first and last are partial, and left out)
)

// TrendResult compares the throughput of a window's first and last third.
type TrendResult struct {
	// OK is false when the window has fewer than TrendMinBuckets whole
	// buckets: too short to tell, and none of the rest is set.
	OK bool
	// Mean answers per bucket in the first and in the last third of the
	// whole buckets.
	First, Last float64
	// Ratio is Last / First; 0 when the first third had no answer (then
	// Warming is set if the last had any).
	Ratio            float64
	Warming, Falling bool
}

// Trend says whether throughput was still rising (Warming) or falling
// through the window. The first and last bucket are left out: the
// generator started and stopped inside them.
func (t Timeline) Trend() TrendResult {
	if len(t.Buckets) < TrendMinBuckets+2 {
		return TrendResult{}
	}
	whole := t.Buckets[1 : len(t.Buckets)-1]
	third := len(whole) / 3
	mean := func(bs []Bucket) float64 {
		var n int64
		for _, b := range bs {
			n += b.Answers
		}
		return float64(n) / float64(len(bs))
	}
	r := TrendResult{OK: true, First: mean(whole[:third]), Last: mean(whole[len(whole)-third:])}
	switch {
	case r.First == 0:
		r.Warming = r.Last > 0
	default:
		r.Ratio = r.Last / r.First
		r.Warming = r.Ratio >= WarmingRatio
		r.Falling = r.Ratio <= FallingRatio
	}
	return r
}

// FirstAnswers says the longest answer gap is the wait for the window's
// first answers (it begins at the window's start) and no longer than
// twice the median latency p50: requests that wait 100 ms on an upstream
// cannot be answered sooner, so that gap is no stall.
func (h Header) FirstAnswers(p50 time.Duration) bool {
	return h.AnswerGapAtMs == 0 && time.Duration(h.AnswerGapMs)*time.Millisecond <= 2*p50
}

// Abs is the unix time, in ns, of an offset in ms on t's clock: the one
// clock the cgroup timeline and the hiccup record can be put on too.
func (t Timeline) Abs(offsetMs int64) int64 { return t.Header.StartUnixNs + offsetMs*1e6 }

// Span is when g began and ended, in unix ns.
func (t Timeline) Span(g Gap) (fromUnixNs, toUnixNs int64) {
	return t.Abs(g.AtMs), t.Abs(g.AtMs + g.Ms)
}

// GapsDuring lists the gaps that overlap [fromUnixNs, toUnixNs): those a
// stall seen elsewhere (a hiccup, a throttled cgroup period) could explain.
func (t Timeline) GapsDuring(fromUnixNs, toUnixNs int64) []Gap {
	var out []Gap
	for _, g := range t.Header.Gaps {
		a, b := t.Span(g)
		if Overlap(a, b, fromUnixNs, toUnixNs) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Overlap is how long [aFrom, aTo) and [bFrom, bTo), in ns on one clock,
// have in common; 0 when nothing.
func Overlap(aFrom, aTo, bFrom, bTo int64) time.Duration {
	return time.Duration(max(0, min(aTo, bTo)-max(aFrom, bFrom)))
}

// What a slump is: a stretch of an open-loop step in which answers came
// at under SlumpShare of the offered rate. The app all but stopped, though
// a few answers still trickled out, so the longest answer gap stays short
// (one capacity step here: 51 answers in 100 ms at 7,200 req/s, its
// longest gap 38 ms, then 245 ms answers as the backlog drained).
const (
	SlumpShare = 0.5
	// SlumpMinExpected: a bucket expected to hold fewer answers than this
	// cannot show a slump (a few answers more or less are the send
	// schedule's own jitter).
	SlumpMinExpected = 10
)

// Slump is one stretch of whole buckets whose answers fell under
// SlumpShare of the offered rate: when it began, how long it lasted, and
// how many answers came in it against how many were sent.
type Slump struct {
	AtMs, Ms      int64
	Answers, Sent int64
}

// Longest is the longest of slumps (the first of equals), false when
// there is none.
func Longest(slumps []Slump) (Slump, bool) {
	var best Slump
	for _, sl := range slumps {
		if sl.Ms > best.Ms {
			best = sl
		}
	}
	return best, best.Ms > 0
}

// Slumps lists, in time order, the stretches of an open-loop step offered
// rate req/s for durationMs in which answers fell under SlumpShare of the
// rate. Buckets that end after the planned duration are left out: the
// generator stopped sending there, so answers fall anyway. None when a
// bucket is expected to hold fewer than SlumpMinExpected answers.
func (t Timeline) Slumps(rate float64, durationMs int64) []Slump {
	bms := t.Header.BucketMs
	expected := rate * float64(bms) / 1e3
	if bms <= 0 || expected < SlumpMinExpected {
		return nil
	}
	var out []Slump
	var cur *Slump
	for _, b := range t.Buckets {
		if b.TMs+bms > durationMs {
			break
		}
		if float64(b.Answers) >= SlumpShare*expected {
			cur = nil
			continue
		}
		if cur == nil || cur.AtMs+cur.Ms != b.TMs {
			out = append(out, Slump{AtMs: b.TMs})
			cur = &out[len(out)-1]
		}
		cur.Ms += bms
		cur.Answers += b.Answers
		cur.Sent += b.Sent
	}
	return out
}
