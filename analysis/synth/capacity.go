package synth

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/formats/k6summary"
	"stacklab/formats/timeline"
	"stacklab/formats/vegeta"
)

// Capacity is a capacity-study spec in quota mode: three runs of two
// stacks whose p99 stays under the target up to their capacity (req/s in
// Rate), behind a generator that holds any rate.
func Capacity() Spec {
	return Spec{Study: "capacity", Stacks: []string{"go-nethttp", "python-fastapi"}, Runs: 3,
		Rate: map[string]float64{"go-nethttp": 3000, "python-fastapi": 700}, Quota: true, Timelines: true, Host: LocalHost()}
}

// CapacityCapped is Capacity with a generator that cannot send more than
// 1,500 req/s: go-nethttp's ramp hits it before the stack fails.
func CapacityCapped() Spec {
	sp := Capacity()
	sp.GeneratorMax = 1500
	return sp
}

// Users is a users-study spec: three runs of two stacks whose p99 stays
// under the target up to their capacity in users (Rate), behind a k6 that
// runs any number of users (GeneratorMax: the most it runs).
func Users() Spec {
	return Spec{Study: "users", Stacks: []string{"go-nethttp", "python-fastapi"}, Runs: 3,
		Rate: map[string]float64{"go-nethttp": 3000, "python-fastapi": 700}, Timelines: true, Host: LocalHost()}
}

// writeUsersRamp runs a users ramp as the bench does and writes each
// step's files: the target, k6's summary of the step and its CPU.
func writeUsersRamp(dir string, c *study.Case, capacity float64, sp Spec, run int) error {
	genMax := sp.GeneratorMax
	if genMax == 0 {
		genMax = math.Inf(1)
	}
	capacity *= 1 + 0.03*float64((run*5)%3-1)
	secs := c.Ramp.StepS
	var steps []ramp.Step
	for n := 1; ; n++ {
		next := ramp.Decide(c, steps)
		if next.Stop {
			return nil
		}
		base := filepath.Join(dir, fmt.Sprintf("step-%02d", n))
		if err := writeJSON(base+".target.json", results.Target{Step: n, Rate: next.Rate, DurationS: secs}); err != nil {
			return err
		}
		load := next.Rate / capacity
		p99 := 4 / math.Max(0.02, 1-load*0.9)
		if load > 1 {
			p99 = 300 * load
		}
		// a user sends about one request every 3 s of thinking
		reqs := int64(next.Rate * secs / 3)
		vus := math.Min(next.Rate, genMax)
		var flows []string
		for _, fl := range c.Flows {
			flows = append(flows, fl.Name)
		}
		if err := writeJSON(base+".k6.json", K6Summary(reqs, p99, int(vus), secs, flows...)); err != nil {
			return err
		}
		u, err := k6summary.Read(base + ".k6.json")
		if err != nil {
			return err
		}
		share := math.Min(0.95, next.Rate/20000)
		lg := results.Loadgen{CPUs: "1", CPUSeconds: share * secs, WindowS: secs}
		if err := writeJSON(base+".loadgen.json", lg); err != nil {
			return err
		}
		steps = append(steps, ramp.Step{N: n, Rate: next.Rate, DurationS: secs, Users: u, LoadgenKnown: true, GeneratorShare: share})
		if sp.Timelines {
			if err := writeQuotaTimeline(base+".cgroup.jsonl", int(secs), math.Min(1, load), 0, sp.Quota); err != nil {
				return err
			}
		}
	}
}

// K6Summary is the shape of k6's end-of-test data object for a users step
// whose measured span sent reqs requests, all answered and checked well,
// with a p99 of p99 ms; the requests are shared out among the flows named,
// each summarized apart as the script declares it.
func K6Summary(reqs int64, p99 float64, vus int, secs float64, flows ...string) map[string]any {
	m := func(typ string, values map[string]any) map[string]any {
		return map[string]any{"type": typ, "contains": "default", "values": values}
	}
	trend := func(reqs int64) map[string]any {
		return map[string]any{"type": "trend", "contains": "time", "values": map[string]any{
			"avg": p99 / 3, "min": p99 / 20, "med": p99 / 4, "max": p99 * 1.4, "p(90)": p99 / 2, "p(95)": p99 * 0.7, "p(99)": p99, "count": reqs}}
	}
	out := map[string]any{
		"root_group": map[string]any{"name": "", "path": "", "id": "d41d8cd98f00b204e9800998ecf8427e", "groups": []any{}, "checks": []any{}},
		"options":    map[string]any{"summaryTrendStats": k6summary.TrendStats, "summaryTimeUnit": "", "noColor": true},
		"state":      map[string]any{"isStdOutTTY": false, "isStdErrTTY": false, "testRunDurationMs": (secs + 16) * 1000},
		"metrics": map[string]any{
			k6summary.Measured(k6summary.Reqs):     m("counter", map[string]any{"count": reqs, "rate": float64(reqs) / (secs + 16)}),
			k6summary.Measured(k6summary.Failed):   m("rate", map[string]any{"rate": 0, "passes": 0, "fails": reqs}),
			k6summary.Measured(k6summary.Checks):   m("rate", map[string]any{"rate": 1, "passes": 2 * reqs, "fails": 0}),
			k6summary.Measured(k6summary.Duration): trend(reqs),
			"vus_max":                              m("gauge", map[string]any{"value": vus, "min": vus, "max": vus}),
			"iterations":                           m("counter", map[string]any{"count": reqs / 2, "rate": float64(reqs) / 2 / (secs + 16)}),
			k6summary.Reqs:                         m("counter", map[string]any{"count": int64(float64(reqs) * (secs + 16) / secs), "rate": float64(reqs) / secs}),
		},
	}
	metrics := out["metrics"].(map[string]any)
	for i, fl := range flows {
		n := reqs / int64(len(flows))
		if i == 0 {
			n += reqs % int64(len(flows))
		}
		metrics[k6summary.MeasuredFlow(k6summary.Reqs, fl)] = m("counter", map[string]any{"count": n, "rate": float64(n) / (secs + 16)})
		metrics[k6summary.MeasuredFlow(k6summary.Failed, fl)] = m("rate", map[string]any{"rate": 0, "passes": 0, "fails": n})
		metrics[k6summary.MeasuredFlow(k6summary.Duration, fl)] = trend(n)
	}
	return out
}

// writeRamp runs a ramp as the bench does, through package ramp, and
// writes each step's files (results/capacity.go) into dir.
func writeRamp(dir string, c *study.Case, capacity float64, sp Spec, run int) error {
	if c.Ramp.Users {
		return writeUsersRamp(dir, c, capacity, sp, run)
	}
	genMax := sp.GeneratorMax
	if genMax == 0 {
		genMax = math.Inf(1)
	}
	capacity *= 1 + 0.03*float64((run*5)%3-1) // ±3%, fixed per run
	var steps []ramp.Step
	for n := 1; ; n++ {
		next := ramp.Decide(c, steps)
		if next.Stop {
			return nil
		}
		const secs = 15
		base := filepath.Join(dir, fmt.Sprintf("step-%02d", n))
		if err := writeJSON(base+".target.json", results.Target{Step: n, Rate: next.Rate, DurationS: secs}); err != nil {
			return err
		}
		load := next.Rate / capacity // the stack's utilisation
		st := ramp.Step{N: n, Rate: next.Rate, DurationS: secs, Reports: map[string]*vegeta.Report{}}
		share := math.Min(0.95, next.Rate/genMax*0.8)
		for _, l := range c.Lanes() {
			sent := int64(math.Min(l.Rate(next.Rate), l.Rate(genMax)) * secs)
			// Queueing: latency grows as 1/(1−load), past the target above capacity.
			p99 := 4e6/math.Max(0.02, 1-load*0.9) + float64(l.DelayMs)*1e6
			if load > 1 {
				p99 = 300e6 * load
			}
			rep := &vegeta.Report{Latencies: vegeta.Latencies{Total: int64(p99/3) * sent, Mean: int64(p99 / 3), P50: int64(p99 / 4), P90: int64(p99 / 2),
				P95: int64(p99 / 1.5), P99: int64(p99), Max: int64(p99 * 1.4), Min: int64(p99 / 20)},
				BytesIn: vegeta.Bytes{Total: sent * 900, Mean: 900}, Earliest: "2026-11-29T20:00:00Z", Latest: "2026-11-29T20:00:15Z", End: "2026-11-29T20:00:15.01Z",
				DurationNs: secs * 1e9, WaitNs: int64(p99 / 2), Requests: sent, Rate: float64(sent) / secs, Throughput: float64(sent) / secs, Success: 1,
				StatusCodes: map[string]int64{"200": sent}, Errors: []string{}}
			st.Reports[l.Name] = rep
			if err := writeJSON(laneFile(base, l.Name, ".json"), rep); err != nil {
				return err
			}
			lg := results.Loadgen{CPUs: "1", CPUSeconds: share * secs * l.Share, WindowS: secs, Saturated: false}
			if err := writeJSON(laneFile(base, l.Name, ".loadgen.json"), lg); err != nil {
				return err
			}
		}
		st.LoadgenKnown, st.GeneratorShare = true, share
		steps = append(steps, st)
		if sp.Timelines {
			throttled := 0.0
			if sp.Quota && load > 0.8 {
				throttled = math.Min(0.6, (load-0.8)*1.5)
			}
			if err := writeQuotaTimeline(base+".cgroup.jsonl", secs, math.Min(1, load), throttled, sp.Quota); err != nil {
				return err
			}
		}
	}
}

func laneFile(base, lane, ext string) string {
	if lane == "main" {
		return base + ext
	}
	return base + "." + lane + ext
}

// writeQuotaTimeline writes a cgroup timeline of a CPU-bound step: cpu
// CPUs used, and with a quota, throttled in that share of the periods.
func writeQuotaTimeline(path string, seconds int, cpu, throttled float64, quota bool) error {
	var buf bytes.Buffer
	w := timeline.NewWriter(&buf)
	var usage, periods, th uint64
	acc := 0.0
	for i := 0; i <= seconds*10; i++ {
		s := timeline.Sample{TMs: int64(i * 100), CPUUsageNs: timeline.U64(usage), CPUPeriods: timeline.U64(periods),
			CPUThrottledPeriods: timeline.U64(th), CPUThrottledNs: timeline.U64(th * 10_000_000),
			MemUsageBytes: timeline.U64(64 << 20), MemLimitBytes: timeline.U64(4 << 30), PSIScope: timeline.PSIHost}
		if err := w.Write(s); err != nil {
			return err
		}
		usage += uint64(cpu * 100_000_000)
		if quota {
			periods++
			if acc += throttled; acc >= 1 {
				th++
				acc--
			}
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
