package summary

import (
	"fmt"
	"math"
	"strings"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/formats/timeline"
)

// The host's account of the CPUs (the cgroup timeline's cpusets, from
// 2026-12-02) is read with package ramp's thresholds: ramp.StealShare of a
// set's time stolen by the hypervisor, ramp.OtherCPUs of the app's CPUs
// used by other work, and results.SaturatedShare: the generator's CPUs
// were this busy over the slow stretch (vegeta or oha, the mock upstream
// and the instruments share them), so what the client measured may be its
// own waiting.

func cpuSetUse(ts []timeline.Sample, name string) (timeline.SetUse, bool) {
	if len(ts) < 2 {
		return timeline.SetUse{}, false
	}
	return timeline.CPUSetUse(ts[0], ts[len(ts)-1], name)
}

// runDelayShare is the group's run-queue wait over ts per second of wall
// time (0.3: its threads waited 300 ms a second, in all); false when not
// recorded, or when threads exited and the sum fell.
func runDelayShare(ts []timeline.Sample) (float64, bool) {
	if len(ts) < 2 || ts[0].RunDelayNs == nil || ts[len(ts)-1].RunDelayNs == nil {
		return 0, false
	}
	a, b := *ts[0].RunDelayNs, *ts[len(ts)-1].RunDelayNs
	ms := ts[len(ts)-1].TMs - ts[0].TMs
	if b < a || ms <= 0 {
		return 0, false
	}
	return float64(b-a) / (float64(ms) * 1e6), true
}

// hostCPUWords names a host-side cause over the slow stretch's samples
// from the CPU sets' account, first that holds: the hypervisor's steal on
// either set, other work on the app's CPUs, the generator's CPUs full.
// cause is "" when none holds.
func hostCPUWords(in []timeline.Sample) (cause, words string) {
	if len(in) >= 2 {
		switch kind, set, v := timeline.HostTook(in[0], in[len(in)-1], ramp.StealShare, ramp.OtherCPUs); kind {
		case "steal":
			return CauseHost, fmt.Sprintf("the hypervisor took %.0f%% of the %s CPUs' time (steal) meanwhile: the host, not the app, was short of CPU", 100*v, roleWords(set))
		case "other":
			u, _ := cpuSetUse(in, "app")
			own, _ := cpuUse(in)
			// u.CPUs is measured (the set's time over the wall time, 1.08
			// with the samples' jitter); the sentence names the set's size
			s := fmt.Sprintf("other work used %.2f of the app's %s CPU meanwhile (the CPUs were %.0f%% busy, the app's group %.2f CPU", v, fmtCPUs(math.Max(1, math.Round(u.CPUs))), 100*u.Busy, own)
			if u.Irq > 0 {
				s += fmt.Sprintf(", the kernel's interrupts %.0f%% more", 100*u.Irq)
			}
			s += ")"
			if rd, ok := runDelayShare(in); ok && rd > 0 {
				s += fmt.Sprintf("; its threads waited %s a second for a CPU", msWords(1e3*rd))
			}
			return CauseHost, s + ": the host, not the app, had its CPU"
		}
	}
	if u, ok := cpuSetUse(in, "loadgen"); ok && u.Busy+u.Irq >= results.SaturatedShare {
		return CauseGenerator, fmt.Sprintf("the generator's CPUs were %.0f%% busy meanwhile (the load generator, the mock upstream and the instruments share them): the client may have measured its own waiting", 100*(u.Busy+u.Irq))
	}
	return "", ""
}

// runDelayWords says how long the app's threads waited for a CPU over the
// stretch, when that was recorded; "" otherwise.
func runDelayWords(in []timeline.Sample) string {
	rd, ok := runDelayShare(in)
	if !ok {
		return ""
	}
	return fmt.Sprintf("its threads waited %s a second on a run queue", strings.TrimSpace(msWords(1e3*rd)))
}
