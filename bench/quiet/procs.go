package main

import (
	"sort"
	"strings"

	"github.com/prometheus/procfs"

	"stacklab/formats/quietlog"
)

// proc is one process as seen in one snapshot of /proc.
type proc struct {
	PID, PPID, SID int
	Comm           string
	Cgroups        []string // cgroup paths, one per hierarchy
	CPUSeconds     float64  // utime+stime so far, all threads
	Start          uint64   // start time in ticks: pid + start tells reuse apart
}

type procKey struct {
	pid   int
	start uint64
}

// snapshot maps every process in /proc at one moment.
type snapshot map[procKey]proc

// takeSnapshot reads every process; ones that exit while being read are skipped.
func takeSnapshot(fs procfs.FS) (snapshot, error) {
	all, err := fs.AllProcs()
	if err != nil {
		return nil, err
	}
	snap := make(snapshot, len(all))
	for _, p := range all {
		st, err := p.Stat()
		if err != nil {
			continue
		}
		x := proc{PID: st.PID, PPID: st.PPID, SID: st.Session, Comm: st.Comm, CPUSeconds: st.CPUTime(), Start: st.Starttime}
		if cgs, err := p.Cgroups(); err == nil {
			for _, c := range cgs {
				x.Cgroups = append(x.Cgroups, c.Path)
			}
		}
		snap[procKey{x.PID, x.Start}] = x
	}
	return snap, nil
}

// exclusions says which processes are the lab's own.
type exclusions struct {
	SID  int   // session id of the bench (0: none)
	PIDs []int // pids whose whole subtree is the lab's
	Self int   // this probe's own pid
}

// labReason says why p is the lab's own, or "" when it is not.
func (e exclusions) labReason(p proc, byPID map[int]proc) string {
	if p.PID == e.Self {
		return "this probe"
	}
	if e.SID != 0 && p.SID == e.SID {
		return "bench session"
	}
	for _, c := range p.Cgroups {
		if strings.Contains(c, "/docker/") || (strings.Contains(c, "/docker-") && strings.HasSuffix(c, ".scope")) {
			return "docker container"
		}
	}
	if p.Comm == "dockerd" || p.Comm == "containerd" || strings.HasPrefix(p.Comm, "containerd-shim") {
		return "docker engine"
	}
	// an excluded pid or any descendant of one (bounded walk up the tree)
	cur := p
	for i := 0; i < 64; i++ {
		for _, x := range e.PIDs {
			if cur.PID == x {
				return "excluded pid"
			}
		}
		parent, ok := byPID[cur.PPID]
		if !ok || cur.PPID <= 1 {
			break
		}
		cur = parent
	}
	return ""
}

// usage is one process's CPU over a window.
type usage struct {
	PID      int
	Comm     string
	CPUShare float64 // CPUs used on average over the window (1.0 = one whole CPU)
	Lab      string  // why it is the lab's, "" when it is not
}

// accumulator adds up each process's CPU over a series of snapshots, so a
// process that starts or exits inside the window still counts.
type accumulator struct {
	first, last snapshot
	used        map[procKey]float64
	seen        map[procKey]proc
}

func newAccumulator(first snapshot) *accumulator {
	return &accumulator{first: first, last: first, used: map[procKey]float64{}, seen: map[procKey]proc{}}
}

// add takes the next snapshot: CPU used since the previous one is credited;
// a process new since then is credited all its CPU time (it started inside
// the window).
func (a *accumulator) add(next snapshot) {
	for k, p := range next {
		if prev, ok := a.last[k]; ok {
			a.used[k] += p.CPUSeconds - prev.CPUSeconds
		} else {
			a.used[k] += p.CPUSeconds
		}
		a.seen[k] = p
	}
	a.last = next
}

// result lists every process with CPU used over windowS seconds, busiest
// first, each marked with why it is the lab's.
func (a *accumulator) result(windowS float64, ex exclusions) []usage {
	byPID := map[int]proc{}
	for _, p := range a.seen {
		byPID[p.PID] = p
	}
	var out []usage
	for k, sec := range a.used {
		p := a.seen[k]
		if sec <= 0 || windowS <= 0 {
			continue
		}
		out = append(out, usage{PID: p.PID, Comm: p.Comm, CPUShare: sec / windowS, Lab: ex.labReason(p, byPID)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CPUShare != out[j].CPUShare {
			return out[i].CPUShare > out[j].CPUShare
		}
		return out[i].PID < out[j].PID
	})
	return out
}

// outside keeps the processes that are not the lab's, at most n of them,
// as the gate's files record them.
func outside(all []usage, n int) []quietlog.Process {
	out := []quietlog.Process{}
	for _, u := range all {
		if u.Lab == "" && len(out) < n {
			out = append(out, quietlog.Process{PID: u.PID, Comm: u.Comm, CPUShare: u.CPUShare})
		}
	}
	return out
}
