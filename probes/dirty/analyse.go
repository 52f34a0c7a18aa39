package main

import (
	"fmt"
	"strings"
	"time"

	"stacklab/formats/cli"
	"stacklab/formats/latency"
	"stacklab/formats/timeline"
	"stacklab/probes/walwriter"
)

// Case is one run of the workload: where, under which limit, what happened.
type Case struct {
	Label      string
	LimitBytes uint64 // 0: no limit known
	Dir        string
	V1         bool // cgroup v1: the kernel applies no per-cgroup dirty limit
	Elapsed    time.Duration
	Commits    []walwriter.Commit
	Samples    []timeline.Sample
	Exit       string // how the writer ended, "" when it finished normally
	VM         VM
}

// VM is the host's dirty-page policy (/proc/sys/vm) and memory.
type VM struct {
	DirtyRatio, DirtyBytes int64
	MemTotalBytes          uint64
}

// Share is the cgroup's share of the dirty limit: on cgroup v2 the kernel
// throttles a group's writers when its dirty+writeback pages pass this
// (dirty_ratio of the memory the group may use, or dirty_bytes scaled to the
// group's part of memory). 0 when it cannot be computed.
func Share(limit uint64, vm VM) uint64 {
	if limit == 0 {
		return 0
	}
	if vm.DirtyBytes > 0 {
		if vm.MemTotalBytes == 0 {
			return 0
		}
		return uint64(float64(vm.DirtyBytes) * min(1, float64(limit)/float64(vm.MemTotalBytes)))
	}
	return uint64(float64(limit) * float64(vm.DirtyRatio) / 100)
}

// Stall is a stretch in which no commit completed, and the state around it.
type Stall struct {
	Gap         latency.Gap
	PeakDirtyWB uint64  // the cgroup's dirty+writeback, max over the stall
	AtShare     bool    // that peak reached 90% of the share
	HostAtLimit bool    // host nr_dirty+nr_writeback reached its threshold
	PSIFrom     float64 // io pressure some avg10 at the stall's start
	PSIMax      float64 // and its max during the stall
	PSIKnown    bool
	PSIRose     bool
}

// Result is a case analysed.
type Result struct {
	Case        *Case
	Share       uint64
	PeakDirtyWB uint64
	PeakKnown   bool
	Commits     int
	Failed      int
	PerSec      float64
	Latency     latency.Dist
	Stalls      []Stall
	PSIScope    string
}

func analyse(c *Case, min time.Duration) Result {
	r := Result{Case: c, Share: Share(c.LimitBytes, c.VM)}
	var done, lat []time.Duration
	for _, x := range c.Commits {
		if x.Err != "" {
			r.Failed++
			continue
		}
		done = append(done, x.At())
		lat = append(lat, x.Latency())
	}
	r.Commits = len(done)
	r.Latency = latency.Of(lat)
	if c.Elapsed > 0 {
		r.PerSec = float64(r.Commits) / c.Elapsed.Seconds()
	}
	for _, s := range c.Samples {
		if s.DirtyBytes != nil && s.WritebackBytes != nil {
			r.PeakKnown = true
			r.PeakDirtyWB = max(r.PeakDirtyWB, *s.DirtyBytes+*s.WritebackBytes)
		}
		r.PSIScope = s.PSIScope
	}
	for _, g := range latency.Gaps(done, 0, c.Elapsed, min) {
		st := Stall{Gap: g}
		for _, s := range c.Samples {
			t := time.Duration(s.TMs) * time.Millisecond
			if t < g.From-100*time.Millisecond || t > g.To+100*time.Millisecond {
				continue
			}
			if s.DirtyBytes != nil && s.WritebackBytes != nil {
				st.PeakDirtyWB = max(st.PeakDirtyWB, *s.DirtyBytes+*s.WritebackBytes)
			}
			if s.HostNrDirtyBytes != nil && s.HostNrWritebackBytes != nil && s.HostDirtyThresholdBytes != nil &&
				*s.HostNrDirtyBytes+*s.HostNrWritebackBytes >= *s.HostDirtyThresholdBytes {
				st.HostAtLimit = true
			}
			if s.PSIIOSomeAvg10 != nil {
				if !st.PSIKnown {
					st.PSIFrom, st.PSIKnown = *s.PSIIOSomeAvg10, true
				}
				st.PSIMax = max(st.PSIMax, *s.PSIIOSomeAvg10)
			}
		}
		st.AtShare = r.Share > 0 && float64(st.PeakDirtyWB) >= 0.9*float64(r.Share)
		// avg10 is smoothed over 10 s: a rise of 5 points inside a stall is a lot
		st.PSIRose = st.PSIKnown && st.PSIMax >= st.PSIFrom+5
		r.Stalls = append(r.Stalls, st)
	}
	return r
}

func pctOf(a, b uint64) string {
	if b == 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}

// verdict explains one case in a line.
func verdict(r Result, min time.Duration) string {
	c := r.Case
	if c.Exit != "" && r.Commits == 0 {
		return fmt.Sprintf("dirty-page throttling: NO ANSWER, the writer %s before committing anything", c.Exit)
	}
	peak := "unknown (the cgroup gives no dirty counters)"
	if r.PeakKnown {
		peak = cli.Bytes(r.PeakDirtyWB)
		if r.Share > 0 {
			peak += fmt.Sprintf(", %s of its %s share", pctOf(r.PeakDirtyWB, r.Share), cli.Bytes(r.Share))
		}
	}
	if len(r.Stalls) == 0 {
		why := fmt.Sprintf("the cgroup's dirty+writeback peaked at %s", peak)
		switch {
		case r.PeakKnown && r.Share > 0 && float64(r.PeakDirtyWB) < 0.9*float64(r.Share):
			why += ": it never reached its dirty share, so there was nothing to throttle"
			if c.V1 {
				why += " (and cgroup v1 would not have held it to that share anyway)"
			}
		case r.PeakKnown && r.Share > 0 && c.V1:
			why += ": above its share, yet nothing stalled, because cgroup v1 has no per-cgroup dirty limit (only the host's threshold applies, and the memcg only waits on writeback when it must reclaim)"
		}
		return fmt.Sprintf("dirty-page throttling: NO, no stall > %s in %.1f s (%d commits); %s", latency.Short(min), c.Elapsed.Seconds(), r.Commits, why)
	}
	at, host, psi := 0, 0, 0
	var longest time.Duration
	for _, s := range r.Stalls {
		if s.AtShare {
			at++
		}
		if s.HostAtLimit {
			host++
		}
		if s.PSIRose {
			psi++
		}
		longest = max(longest, s.Gap.Len())
	}
	head := "dirty-page throttling: YES"
	if at == 0 && host == 0 {
		head = "dirty-page throttling: NOT SHOWN"
	}
	parts := []string{fmt.Sprintf("%s, %d stalls > %s (longest %s)", head, len(r.Stalls), latency.Short(min), latency.Short(longest))}
	parts = append(parts, fmt.Sprintf("%d while the cgroup's dirty+writeback sat at its share (peak %s)", at, peak))
	if host > 0 {
		parts = append(parts, fmt.Sprintf("%d while the host was at its dirty threshold", host))
	}
	parts = append(parts, fmt.Sprintf("io pressure (%s) rose in %d", r.PSIScope, psi))
	if c.Exit != "" {
		parts = append(parts, "the writer "+c.Exit)
	}
	return strings.Join(parts, "; ")
}

// compareVerdict sums up the small / large / tmpfs table in a line.
func compareVerdict(rs []Result, min time.Duration) string {
	var parts []string
	for _, r := range rs {
		n := len(r.Stalls)
		at := 0
		for _, s := range r.Stalls {
			if s.AtShare || s.HostAtLimit {
				at++
			}
		}
		state := fmt.Sprintf("%d stalls", n)
		if n > 0 {
			state += fmt.Sprintf(" (%d at the dirty limit)", at)
		}
		if r.Case.Exit != "" {
			state += ", writer " + r.Case.Exit
		}
		parts = append(parts, fmt.Sprintf("%s %s, %.0f commits/s", r.Case.Label, state, r.PerSec))
	}
	stalled := 0
	for _, r := range rs {
		for _, s := range r.Stalls {
			if s.AtShare || s.HostAtLimit {
				stalled++
				break
			}
		}
	}
	head := "dirty-page throttling: NO"
	if stalled > 0 {
		head = "dirty-page throttling: YES"
	}
	return fmt.Sprintf("%s (stall = no commit for > %s): %s", head, latency.Short(min), strings.Join(parts, "; "))
}
