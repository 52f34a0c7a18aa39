package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"stacklab/formats/cli"
	"stacklab/formats/latency"
	"stacklab/probes/walwriter"
)

// Stall is a commit slower than the threshold and what coincided with it.
type Stall struct {
	Commit     walwriter.Commit
	Checkpoint bool     // a checkpoint (automatic or forced) overlapped it
	Coincided  []string // in words
}

func us(d int64) time.Duration { return time.Duration(d) * time.Microsecond }

// findStalls lists the commits slower than min with what overlapped them.
func findStalls(r *Run, min time.Duration) []Stall {
	var out []Stall
	for _, c := range r.Commits {
		if c.Latency() <= min {
			continue
		}
		from, to := c.At()-c.Latency(), c.At()
		s := Stall{Commit: c}
		if c.Backfilled > 0 {
			s.Checkpoint = true
			s.Coincided = append(s.Coincided, fmt.Sprintf("an automatic checkpoint ran during it (%d frames copied)", c.Backfilled))
		}
		for _, k := range r.Checkpoints {
			kf, kt := us(k.StartUs), us(k.StartUs+k.LatencyUs)
			if kf < to && kt > from {
				s.Checkpoint = true
				s.Coincided = append(s.Coincided, fmt.Sprintf("forced %s checkpoint at %.2fs took %s (%d frames)", k.Mode, kf.Seconds(), latency.Short(us(k.LatencyUs)), k.Done))
			}
		}
		var wal int64
		var dirty, wb uint64
		var psi float64
		seenHost := false
		for _, h := range r.Samples {
			t := us(h.TUs)
			if t < from-100*time.Millisecond || t > to+100*time.Millisecond {
				continue
			}
			wal = max(wal, h.WALBytes)
			if h.Dirty != nil && h.Writeback != nil {
				seenHost = true
				dirty, wb = max(dirty, *h.Dirty), max(wb, *h.Writeback)
			}
			if h.PSIIOSome != nil {
				psi = max(psi, *h.PSIIOSome)
			}
		}
		s.Coincided = append(s.Coincided, "WAL "+cli.Bytes(uint64(wal)))
		if seenHost {
			s.Coincided = append(s.Coincided, fmt.Sprintf("host dirty %s, writeback %s, io pressure some avg10 %.1f%%", cli.Bytes(dirty), cli.Bytes(wb), psi))
		}
		out = append(out, s)
	}
	return out
}

func latencies(cs []walwriter.Commit) []time.Duration {
	out := make([]time.Duration, 0, len(cs))
	for _, c := range cs {
		if c.Err == "" {
			out = append(out, c.Latency())
		}
	}
	return out
}

func failed(cs []walwriter.Commit) int {
	n := 0
	for _, c := range cs {
		if c.Err != "" {
			n++
		}
	}
	return n
}

// runVerdict is the first line for one run.
func runVerdict(r *Run, o options, stalls []Stall) string {
	d := latency.Of(latencies(r.Commits))
	if len(stalls) == 0 {
		return fmt.Sprintf("walstall: no stalls: all %d commits under %s over %.1f s (synchronous=%s, %d writers; %s)", d.N, latency.Short(o.stall), r.Elapsed.Seconds(), r.Mode, o.writers, d)
	}
	ck := 0
	for _, s := range stalls {
		if s.Checkpoint {
			ck++
		}
	}
	return fmt.Sprintf("walstall: %d commits stalled > %s of %d over %.1f s (max %s); %d of %d coincided with a checkpoint", len(stalls), latency.Short(o.stall), d.N, r.Elapsed.Seconds(), latency.Short(d.Max), ck, len(stalls))
}

func printRun(r *Run, o options) {
	w := os.Stdout
	stalls := findStalls(r, o.stall)
	fmt.Fprintln(w, runVerdict(r, o, stalls))
	d := latency.Of(latencies(r.Commits))
	fmt.Fprintf(w, "\ncommits: %d in %.1f s = %.0f/s, %d failed; latency %s\n", d.N, r.Elapsed.Seconds(), float64(d.N)/r.Elapsed.Seconds(), failed(r.Commits), d)
	var walMax int64
	for _, h := range r.Samples {
		walMax = max(walMax, h.WALBytes)
	}
	fmt.Fprintf(w, "WAL file: peak %s (sampled every 20 ms)\n", cli.Bytes(uint64(walMax)))
	var auto []time.Duration
	for _, c := range r.Commits {
		if c.Backfilled > 0 {
			auto = append(auto, c.Latency())
		}
	}
	if len(auto) > 0 {
		fmt.Fprintf(w, "commits during which an automatic checkpoint ran: %d (one checkpoint can overlap several commits); those commits: %s\n", len(auto), latency.Of(auto))
	} else {
		fmt.Fprintln(w, "automatic checkpoints: none seen")
	}
	if len(r.Checkpoints) > 0 {
		var ks []time.Duration
		for _, k := range r.Checkpoints {
			ks = append(ks, us(k.LatencyUs))
		}
		fmt.Fprintf(w, "forced %s checkpoints: %d, took %s\n", r.Checkpoints[0].Mode, len(r.Checkpoints), latency.Of(ks))
	}
	printStalls(w, stalls, 20)
}

func printStalls(w io.Writer, stalls []Stall, n int) {
	if len(stalls) == 0 {
		return
	}
	shown := slowest(stalls, n)
	fmt.Fprintf(w, "\nstalls: the %d slowest of %d, in time order (t = when the commit completed):\n", len(shown), len(stalls))
	for _, s := range shown {
		fmt.Fprintf(w, "  %7.2fs  writer %d  %7s  %s\n", s.Commit.At().Seconds(), s.Commit.Writer, latency.Short(s.Commit.Latency()), strings.Join(s.Coincided, "; "))
	}
}

// comparisonVerdict compares the p50 commit cost of each mode.
func comparisonVerdict(runs []*Run) string {
	var parts []string
	var p50s []time.Duration
	for _, r := range runs {
		d := latency.Of(latencies(r.Commits))
		p50s = append(p50s, d.P50)
		parts = append(parts, fmt.Sprintf("%s at synchronous=%s", latency.Short(d.P50), r.Mode))
	}
	line := "walstall: a commit costs " + strings.Join(parts, ", ") + " (p50) on this disk"
	if len(runs) == 2 && p50s[0] > 0 && p50s[1] > 0 {
		hi, lo := max(p50s[0], p50s[1]), min(p50s[0], p50s[1])
		line += fmt.Sprintf(": %.1f× apart", float64(hi)/float64(lo))
	}
	return line
}

func printComparison(runs []*Run, o options) {
	w := os.Stdout
	fmt.Fprintln(w, comparisonVerdict(runs))
	fmt.Fprintf(w, "\n%d writer(s), %d-byte rows, %v per mode, fresh database in %s\n\n", o.writers, o.rowBytes, o.duration, o.dir)
	fmt.Fprintf(w, "  %-11s %8s %10s %9s %9s %9s %s\n", "synchronous", "commits", "commits/s", "p50", "p99", "max", "stalls>"+latency.Short(o.stall))
	for _, r := range runs {
		d := latency.Of(latencies(r.Commits))
		fmt.Fprintf(w, "  %-11s %8d %10.0f %9s %9s %9s %d\n", r.Mode, d.N, float64(d.N)/r.Elapsed.Seconds(), latency.Short(d.P50), latency.Short(d.P99), latency.Short(d.Max), len(findStalls(r, o.stall)))
	}
}

// slowest keeps the n slowest stalls, in time order.
func slowest(stalls []Stall, n int) []Stall {
	if len(stalls) <= n {
		return stalls
	}
	idx := make([]int, len(stalls))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return stalls[idx[a]].Commit.LatencyUs > stalls[idx[b]].Commit.LatencyUs })
	idx = idx[:n]
	sort.Ints(idx)
	out := make([]Stall, 0, n)
	for _, i := range idx {
		out = append(out, stalls[i])
	}
	return out
}
