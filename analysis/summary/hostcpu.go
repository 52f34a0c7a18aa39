package summary

import (
	"fmt"
	"strings"

	"stacklab/probes/timeline"
)

// Thresholds of the rules that read the host's own account of the CPUs
// (the cgroup timeline's cpusets, from 2026-12-02).
const (
	// StealShare: the hypervisor took this share of a CPU set's time over
	// the slow stretch: the host, not the app, was short of CPU.
	StealShare = 0.10
	// OtherCPUs: work other than the app's own group used this many of the
	// app's CPUs over the slow stretch (other processes; the kernel's
	// interrupt work is said apart).
	OtherCPUs = 0.20
	// GeneratorBusyShare: the generator's CPUs were this busy over the
	// slow stretch (vegeta or oha, the mock upstream and the instruments
	// share them): what the client measured may be its own waiting.
	GeneratorBusyShare = 0.90
)

// setUse is one CPU set's use over ts (first to last sample): the shares
// of its time busy, in interrupts and stolen, and how many CPUs each is.
type setUse struct {
	busy, irq, steal float64 // shares of the set's time
	cpus             float64 // the set's size in CPUs
	busyCPUs         float64 // busy time as CPUs
}

func cpuSetUse(ts []timeline.Sample, name string) (setUse, bool) {
	if len(ts) < 2 {
		return setUse{}, false
	}
	a, okA := ts[0].CPUSets[name]
	b, okB := ts[len(ts)-1].CPUSets[name]
	ms := ts[len(ts)-1].TMs - ts[0].TMs
	if !okA || !okB || b.TotalMs <= a.TotalMs || ms <= 0 {
		return setUse{}, false
	}
	total := float64(b.TotalMs - a.TotalMs)
	u := setUse{
		busy:  float64(b.BusyMs-a.BusyMs) / total,
		irq:   float64(b.IrqMs-a.IrqMs) / total,
		steal: float64(b.StealMs-a.StealMs) / total,
		cpus:  total / float64(ms),
	}
	u.busyCPUs = u.busy * u.cpus
	return u, true
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
	for _, set := range []string{"app", "loadgen"} {
		if u, ok := cpuSetUse(in, set); ok && u.steal >= StealShare {
			return CauseHost, fmt.Sprintf("the hypervisor took %.0f%% of the %s CPUs' time (steal) meanwhile: the host, not the app, was short of CPU", 100*u.steal, roleWords(set))
		}
	}
	if u, ok := cpuSetUse(in, "app"); ok {
		if own, ok := cpuUse(in); ok && u.busyCPUs-own >= OtherCPUs {
			s := fmt.Sprintf("other work used %.2f of the app's %s CPU meanwhile (the CPUs were %.0f%% busy, the app's group %.2f CPU", u.busyCPUs-own, fmtCPUs(u.cpus), 100*u.busy, own)
			if u.irq > 0 {
				s += fmt.Sprintf(", the kernel's interrupts %.0f%% more", 100*u.irq)
			}
			s += ")"
			if rd, ok := runDelayShare(in); ok && rd > 0 {
				s += fmt.Sprintf("; its threads waited %s a second for a CPU", msWords(1e3*rd))
			}
			return CauseHost, s + ": the host, not the app, had its CPU"
		}
	}
	if u, ok := cpuSetUse(in, "loadgen"); ok && u.busy+u.irq >= GeneratorBusyShare {
		return CauseGenerator, fmt.Sprintf("the generator's CPUs were %.0f%% busy meanwhile (the load generator, the mock upstream and the instruments share them): the client may have measured its own waiting", 100*(u.busy+u.irq))
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
