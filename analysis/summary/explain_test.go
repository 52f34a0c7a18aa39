package summary

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/formats/golden"
	"stacklab/formats/hiccuplog"
	"stacklab/formats/latencyline"
	"stacklab/formats/pauses"
	"stacklab/formats/timeline"
)

// t0 is the synthetic windows' clock zero (unix ns).
const t0 = int64(1_796_160_000_000_000_000)

// closedLoop is 32 connections answering every `every` for secs seconds,
// each request taking lat, except that nothing is answered during each
// stall (from, length): the requests in flight then end when it does.
// rate scales the answers over time (1 steady; >1 at the end: warming).
func closedLoop(secs float64, lat time.Duration, warm float64, stalls ...[2]time.Duration) []latencyline.Request {
	var out []latencyline.Request
	end := time.Duration(secs * float64(time.Second))
	for c := 0; c < 32; c++ {
		at := time.Duration(c) * lat / 32
		for at < end {
			l := lat
			if warm > 1 {
				// slower early on: latency falls from warm× to 1×
				l = time.Duration(float64(lat) * (warm - (warm-1)*float64(at)/float64(end)))
			}
			done := at + l
			for _, s := range stalls {
				if done > s[0] && at < s[0]+s[1] {
					done = s[0] + s[1] + l
				}
			}
			out = append(out, latencyline.Request{StartNs: int64(at), EndNs: int64(done), Status: 200})
			at = done
		}
	}
	return out
}

func hiccups(label string, gaps ...[2]time.Duration) hiccuplog.Log {
	l := hiccuplog.Log{Header: hiccuplog.Header{Format: hiccuplog.FormatID, Label: label, CPUs: "0", StartUnixNs: t0, IntervalUs: 10000, ThresholdUs: 5000}}
	for _, g := range gaps {
		l.Gaps = append(l.Gaps, hiccuplog.Gap{AtUnixNs: t0 + int64(g[0]), GapUs: g[1].Microseconds()})
	}
	return l
}

// cgroup is 100 ms samples over secs seconds of an app using cpu CPUs,
// with dirty+writeback at dirty bytes from `from` on (0: none).
func cgroup(secs, cpu float64, dirtyFrom time.Duration, dirty uint64) []timeline.Sample {
	var out []timeline.Sample
	limit := uint64(4 << 30)
	thr := uint64(200 << 20)
	for ms := int64(0); ms <= int64(secs*1000); ms += 100 {
		d := uint64(0)
		if dirtyFrom > 0 && time.Duration(ms)*time.Millisecond >= dirtyFrom {
			d = dirty
		}
		out = append(out, timeline.Sample{TMs: ms, UnixMs: (t0 + ms*1e6) / 1e6,
			CPUUsageNs: timeline.U64(uint64(float64(ms) * 1e6 * cpu)), MemLimitBytes: &limit,
			DirtyBytes: timeline.U64(d), WritebackBytes: timeline.U64(0), HostDirtyThresholdBytes: &thr,
			PgMajFault: timeline.U64(0), PSIScope: timeline.PSINone})
	}
	return out
}

func ev(reqs []latencyline.Request, logs []hiccuplog.Log, ts []timeline.Sample) evidence {
	lt := latencyline.Build(t0, latencyline.SourceOha, reqs, latencyline.DefaultBucket)
	return evidence{lt: &lt, hiccups: logs, samples: ts, cpuLimit: 1}
}

// Each rule of the explanations on a synthetic window: the cause it must
// name, and the sentence (golden), so a change of wording is seen.
func TestExplainRules(t *testing.T) {
	stall := [2]time.Duration{4 * time.Second, 300 * time.Millisecond}
	cases := []struct {
		name, want string
		ev         evidence
	}{
		{"host hiccup", CauseHost, ev(closedLoop(10, time.Millisecond, 1, stall),
			[]hiccuplog.Log{hiccups("app"), hiccups("loadgen", [2]time.Duration{4*time.Second + 20*time.Millisecond, 260 * time.Millisecond})},
			cgroup(10, 0.99, 0, 0))},
		{"app stall with dirty pages", CauseAppStall, ev(closedLoop(10, time.Millisecond, 1, stall),
			[]hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.4, 3900*time.Millisecond, 190<<20))},
		{"periodic pause", CauseAppStall, ev(closedLoop(10, time.Millisecond, 1,
			[2]time.Duration{2 * time.Second, 300 * time.Millisecond}, [2]time.Duration{4 * time.Second, 300 * time.Millisecond},
			[2]time.Duration{6 * time.Second, 300 * time.Millisecond}, [2]time.Duration{8 * time.Second, 300 * time.Millisecond}),
			[]hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.05, 0, 0))},
		{"warming trend", CauseWarming, ev(closedLoop(10, time.Millisecond, 2.5),
			[]hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.99, 0, 0))},
		{"saturated app", CauseSaturated, ev(closedLoop(10, time.Millisecond, 1),
			[]hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.99, 0, 0))},
		{"nothing to say", CauseUnexplained, ev(closedLoop(10, time.Millisecond, 1),
			[]hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.5, 0, 0))},
	}
	gc := ev(closedLoop(10, time.Millisecond, 1, stall), []hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.99, 0, 0))
	gc.pauses = []pauses.Pause{{AtUnixNs: t0 + int64(4*time.Second), Ms: 296.1, What: "GC(7) Pause Full (Ergonomics)"},
		{AtUnixNs: t0 + int64(time.Second), Ms: 4.2, What: "GC(6) Pause Young (Allocation Failure)"}}
	cases = append(cases, struct {
		name, want string
		ev         evidence
	}{"the JVM's collector", CauseAppStall, gc})
	gen := ev(closedLoop(10, time.Millisecond, 1), nil, cgroup(10, 0.6, 0, 0))
	gen.genSat, gen.genShare = true, 0.97
	cases = append(cases, struct {
		name, want string
		ev         evidence
	}{"generator at its limit", CauseGenerator, gen})

	// A short stall (no answer gap) in a window whose mean CPU is below
	// the limit: at the limit in that stretch, or a write-back there.
	short := [2]time.Duration{4 * time.Second, 60 * time.Millisecond}
	busy := cgroup(10, 0.6, 0, 0)
	for i := range busy {
		if ms := busy[i].TMs; ms > 3700 {
			extra := float64(min(ms, 4300)-3700) * 0.4 * 1e6
			*busy[i].CPUUsageNs += uint64(extra)
		}
	}
	flushed := cgroup(10, 0.6, 100*time.Millisecond, 3<<20)
	for i := range flushed {
		if flushed[i].TMs >= 4000 {
			*flushed[i].DirtyBytes = 100 << 10
		}
	}
	quota := cgroup(10, 0.6, 0, 0)
	for i := range quota {
		ms := uint64(quota[i].TMs)
		th := uint64(0)
		if ms > 3700 {
			th = (min(ms, 4300) - 3700) / 100 * 3 / 10 // 30% of the periods from 3.7 s to 4.3 s
		}
		quota[i].CPUPeriods, quota[i].CPUThrottledPeriods = timeline.U64(ms/100), timeline.U64(th)
	}
	for _, c := range []struct {
		name, want string
		ts         []timeline.Sample
	}{{"at the limit while the slow answers waited", CauseSaturated, busy}, {"dirty pages written back", CauseAppStall, flushed},
		{"throttled by the quota while the slow answers waited", CauseSaturated, quota}} {
		cases = append(cases, struct {
			name, want string
			ev         evidence
		}{c.name, c.want, ev(closedLoop(10, time.Millisecond, 1, short), []hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, c.ts)})
	}

	// The host's account of the CPUs (cpusets): a slow stretch while the
	// hypervisor took the app's CPU, while other work had it, while the
	// generator's CPU was full; with the app at half its CPU throughout.
	for _, c := range []struct {
		name, want                  string
		appBusy, steal, genBusy, rd float64
	}{
		{"the hypervisor's steal", CauseHost, 0.55, 0.25, 0.5, 0.1},
		{"other work on the app's CPUs", CauseHost, 0.9, 0, 0.5, 0.3},
		{"the generator's CPUs full", CauseGenerator, 0.5, 0, 0.97, 0.01},
		{"run-queue wait below the limit", CauseUnexplained, 0.5, 0, 0.5, 0.05},
	} {
		ts := withSets(cgroup(10, 0.5, 0, 0), c.appBusy, c.steal, c.genBusy, c.rd)
		cases = append(cases, struct {
			name, want string
			ev         evidence
		}{c.name, c.want, ev(closedLoop(10, time.Millisecond, 1, short), []hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, ts)})
	}

	// An open loop's app that all but stopped for 200 ms.
	slump := ev(slumped(nil), []hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.5, 0, 0))
	slump.openLoop, slump.slumps = true, slump.lt.Slumps(2000, 10000)
	cases = append(cases, struct {
		name, want string
		ev         evidence
	}{"answers all but stopped (open loop)", CauseAppStall, slump})

	var out bytes.Buffer
	for _, tc := range cases {
		sp, where := stallSpan(tc.ev.lt)
		cause, s := explain(tc.ev, sp, where)
		if cause != tc.want {
			t.Errorf("%s: cause %q, want %q (%s)", tc.name, cause, tc.want, s)
		}
		fmt.Fprintf(&out, "%s: %s: %s\n", tc.name, cause, s)
		if tc.name == "periodic pause" {
			period, length, n, ok := tc.ev.lt.Periodic()
			if !ok || !near(period, 2*time.Second) || !near(length, 300*time.Millisecond) {
				t.Errorf("periodic pause: found %v every %v (%d, %v), want 300ms every 2s within 20%%", length, period, n, ok)
			}
			fmt.Fprintf(&out, "  periodic: %v every %v, %d times\n", length, period, n)
		}
	}
	golden.Check(t, "testdata/golden/explain.txt", out.Bytes())
}

// slumped is an open loop's 10 s at 2,000 req/s whose app all but
// stopped for 200 ms from +4 s: one answer in ten on time, the rest when
// it resumed, so no answer gap of 100 ms; slow gives some requests (by
// index) a latency of their own.
func slumped(slow map[int]time.Duration) []latencyline.Request {
	var out []latencyline.Request
	for i := range 20000 {
		at := time.Duration(i) * time.Second / 2000
		done := at + time.Millisecond
		if at >= 4*time.Second && at < 4200*time.Millisecond && i%10 != 0 {
			done = 4200*time.Millisecond + time.Duration(i%10)*time.Millisecond
		}
		if d, ok := slow[i]; ok {
			done = at + d
		}
		out = append(out, latencyline.Request{StartNs: int64(at), EndNs: int64(done), Status: 200})
	}
	return out
}

// withSets adds the host's account of a one-CPU app set and a one-CPU
// generator set to ts: each busy (and the app's stolen) at the shares
// given, and a run-queue wait of rd a second.
func withSets(ts []timeline.Sample, appBusy, steal, genBusy, rd float64) []timeline.Sample {
	for i := range ts {
		ms := float64(ts[i].TMs) + 1e6 // counters since boot
		ts[i].CPUSets = map[string]timeline.CPUTime{
			"app":     {BusyMs: uint64(ms * appBusy), StealMs: uint64(ms * steal), TotalMs: uint64(ms)},
			"loadgen": {BusyMs: uint64(ms * genBusy), TotalMs: uint64(ms)},
		}
		ts[i].RunDelayNs = timeline.U64(uint64(ms * 1e6 * rd))
	}
	return ts
}

func near(got, want time.Duration) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return float64(d) <= PauseTolerance*float64(want)
}

// A capacity step the generator could not drive is the generator's, and
// one the host stalled in is the host's, before anything the app did.
func TestExplainStepRules(t *testing.T) {
	st := &results.Step{Target: results.Target{Step: 5, Rate: 3200, DurationS: 15},
		Hiccups: []hiccuplog.Log{hiccups("app", [2]time.Duration{time.Second, 180 * time.Millisecond})}}
	f := &results.Folder{}
	e, err := explainStep(f, 1, "go-nethttp", "capacity", st, ramp.Verdict{Kind: ramp.Latency, Reason: "p99 310 ms > 100 ms"}, "")
	if err != nil || e.Cause != CauseHost {
		t.Errorf("host-stalled step: %+v, %v", e, err)
	}
	st.Hiccups = nil
	e, _ = explainStep(f, 1, "go-nethttp", "capacity", st, ramp.Verdict{Kind: ramp.Generator, Reason: "the generator sent 40% of planned"}, "")
	if e.Cause != CauseGenerator {
		t.Errorf("generator step: %+v", e)
	}
}

// A step whose slowest answer came where nothing else happened (an
// upstream wait's answer, late in the step) but whose answers all but
// stopped earlier is the app's stall, read at that slump: the stall the
// ramp measures such a step again for.
func TestExplainStepReadsTheSlumpWhenTheSlowestSaysNothing(t *testing.T) {
	// +9 s: one answer of 400 ms, the slowest
	e := ev(slumped(map[int]time.Duration{18000: 400 * time.Millisecond}), []hiccuplog.Log{hiccups("app"), hiccups("loadgen")}, cgroup(10, 0.5, 0, 0))
	e.openLoop, e.slumps = true, e.lt.Slumps(2000, 10000)
	sp, where := stallSpan(e.lt)
	if c, s := explain(e, sp, where); c != CauseUnexplained {
		t.Fatalf("the slowest answer's stretch: %q (%s), want it to name nothing", c, s)
	}
	c, s, ok := slumpCause(e, where)
	if !ok || c != CauseAppStall || !strings.Contains(s, "answers all but stopped for 200 ms from +4.00 s") {
		t.Errorf("read at the slump: %q, %v (%s), want app stall at +4.00 s", c, ok, s)
	}
	e.slumps = nil
	if _, _, ok := slumpCause(e, where); ok {
		t.Error("a step without slumps: named, want nothing")
	}
}

// A JIT still compiling at its top tier makes a window not steady, by the
// rate (a 15 s window with 60 compilations is warm, a 5 s one is not).
func TestWarmupWordsJIT(t *testing.T) {
	w := &results.Window{JIT: &pauses.JIT{Compiled: 70, TopTier: 60, NotEntrant: 55}}
	if s := warmupWords(w, 15); s != "" {
		t.Errorf("4 a second: %q, want steady", s)
	}
	if s, want := warmupWords(w, 5), " (its JIT compiled 70 methods in the window's 5.00 s, 60 of them at its top tier: 12 a second)"; s != want {
		t.Errorf("12 a second: %q, want %q", s, want)
	}
	if s := warmupWords(&results.Window{}, 5); s != "" {
		t.Errorf("no JIT log: %q", s)
	}
}
