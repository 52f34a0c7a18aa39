// quiet answers: is this host quiet enough to measure, and who is using the
// CPU? The bench uses `quiet wait` before a run and `quiet watch` during one.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"stacklab/analysis/hostprofile"
	"stacklab/formats/cli"
	"stacklab/formats/quietlog"
)

const help = `quiet: is this host quiet enough to measure, and who is using the CPU?

Usage:
  quiet [--load L] [--share S] [--seconds 3]
      one look: load average, the busiest processes over a few seconds, a verdict
  quiet wait [--load L] --for 60s [--timeout 10m] [--out FILE] [--at TEXT]
      wait until the 1-minute load average has stayed under --load for --for;
      exit 0 when quiet, 1 on timeout (with the busiest processes as evidence);
      --out adds this wait (TEXT: what it came before) to FILE, a run's waits
  quiet watch [--share S] --out FILE [--gate FILE] [--exclude-sid SID] [--exclude-pid PID ...]
      sample every process's CPU until SIGINT/SIGTERM, then write the window's
      evidence as JSON to FILE; "quiet" is false when a wait in the --gate
      file (read when the watch stops) did not hold, or any process outside
      the lab used more than --share of one CPU over the window; "why" says
      which
  quiet verdict FILE
      read a watch's (or a wait's --out) FILE back: print its verdict line,
      exit 0 when the run was quiet, 1 when not (the bench asks this; bash
      reads no JSON)

L and S default to the host profile's defaults of QUIET_LOAD and
QUIET_CPU_SHARE (analysis/hostprofile); the bench passes its profile's.

The lab's own processes are excluded: the --exclude-sid session, each
--exclude-pid and its descendants, anything in a Docker container's cgroup
(/docker/… or docker-….scope), dockerd, containerd and containerd-shim*.

Examples:
  quiet
  quiet wait --for 60s --timeout 10m
  quiet watch --out run-1.quiet.json --exclude-sid $(ps -o sid= $$) &
  kill -TERM %1     # ends the window and writes run-1.quiet.json
`

func main() {
	args := os.Args[1:]
	mode := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		mode, args = args[0], args[1:]
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		cli.Fail("quiet", "/proc: %v", err)
	}
	switch mode {
	case "":
		oneShot(fs, args)
	case "wait":
		wait(fs, args)
	case "verdict":
		verdict(args)
	case "watch":
		watch(fs, args)
	default:
		cli.Usage("quiet", "unknown subcommand %q: want wait, watch or none (see -h)", mode)
	}
}

func positive(prog, name string, v float64) {
	if v <= 0 {
		cli.Usage(prog, "--%s %g: must be positive", name, v)
	}
}

func oneShot(fs procfs.FS, args []string) {
	f := flag.NewFlagSet("quiet", flag.ContinueOnError)
	load := f.Float64("load", hostprofile.DefaultNumber("QUIET_LOAD"), "1-minute load average threshold")
	share := f.Float64("share", hostprofile.DefaultNumber("QUIET_CPU_SHARE"), "CPU share of one process that makes the host busy")
	secs := f.Float64("seconds", 3, "how long to watch the processes")
	cli.Parse(f, args, help)
	positive("quiet", "load", *load)
	positive("quiet", "share", *share)
	positive("quiet", "seconds", *secs)
	ex := exclusions{Self: os.Getpid()}
	start := time.Now()
	first, err := takeSnapshot(fs)
	if err != nil {
		cli.Fail("quiet", "/proc: %v", err)
	}
	acc := newAccumulator(first)
	deadline := start.Add(time.Duration(*secs * float64(time.Second)))
	for time.Now().Before(deadline) {
		time.Sleep(min(time.Second, time.Until(deadline)))
		if next, err := takeSnapshot(fs); err == nil {
			acc.add(next)
		}
	}
	la, err := fs.LoadAvg()
	if err != nil {
		cli.Fail("quiet", "/proc/loadavg: %v", err)
	}
	window := time.Since(start).Seconds()
	all := acc.result(window, ex)
	busy := outside(all, 5)
	fmt.Println(oneShotVerdict(la.Load1, *load, busy, *share))
	fmt.Printf("load average: %.2f %.2f %.2f\n", la.Load1, la.Load5, la.Load15)
	fmt.Printf("busiest processes over %.1f s (CPUs used):\n", window)
	printTable(os.Stdout, all, 8)
}

func oneShotVerdict(load1, maxLoad float64, busy []quietlog.Process, share float64) string {
	var why []string
	if load1 >= maxLoad {
		why = append(why, fmt.Sprintf("load1 %.2f ≥ %.1f", load1, maxLoad))
	}
	for _, u := range busy {
		if u.CPUShare > share {
			why = append(why, fmt.Sprintf("%s (pid %d) used %.2f CPU > %.2f", u.Comm, u.PID, u.CPUShare, share))
		}
	}
	if len(why) == 0 {
		return fmt.Sprintf("quiet: YES, load1 %.2f < %.1f and no process outside the lab used more than %.2f CPU", load1, maxLoad, share)
	}
	return "quiet: NO, " + strings.Join(why, "; ")
}

func printTable(w *os.File, all []usage, n int) {
	fmt.Fprintf(w, "  %8s  %-16s %6s  %s\n", "PID", "COMM", "CPU", "LAB")
	for i, u := range all {
		if i == n {
			break
		}
		lab := u.Lab
		if lab == "" {
			lab = "-"
		}
		fmt.Fprintf(w, "  %8d  %-16s %6.2f  %s\n", u.PID, u.Comm, u.CPUShare, lab)
	}
}

// waitState follows the load average until it has stayed low long enough.
type waitState struct {
	max        float64
	need       time.Duration
	quietSince time.Time // zero while load is at or over max
	longest    time.Duration
}

// observe records load1 at now and reports whether the host is quiet.
func (w *waitState) observe(now time.Time, load1 float64) bool {
	if load1 >= w.max {
		w.quietSince = time.Time{}
		return false
	}
	if w.quietSince.IsZero() {
		w.quietSince = now
	}
	if d := now.Sub(w.quietSince); d > w.longest {
		w.longest = d
	}
	return now.Sub(w.quietSince) >= w.need
}

func wait(fs procfs.FS, args []string) {
	f := flag.NewFlagSet("quiet wait", flag.ContinueOnError)
	load := f.Float64("load", hostprofile.DefaultNumber("QUIET_LOAD"), "1-minute load average threshold")
	need := f.Duration("for", 60*time.Second, "how long the load must stay under the threshold")
	timeout := f.Duration("timeout", 10*time.Minute, "give up after this long (exit 1)")
	every := f.Duration("poll", time.Second, "how often to read the load average")
	out := f.String("out", "", "add this wait to FILE, the run's waits (created if missing)")
	at := f.String("at", "before the run", "what this wait comes before, for the evidence")
	cli.Parse(f, args, help)
	positive("quiet wait", "load", *load)
	positive("quiet wait", "timeout", timeout.Seconds())
	positive("quiet wait", "poll", every.Seconds())
	if *need < 0 {
		cli.Usage("quiet wait", "--for %v: must not be negative", *need)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	st := &waitState{max: *load, need: *need}
	lastProgress := start
	var load1 float64
	for {
		la, err := fs.LoadAvg()
		if err != nil {
			cli.Fail("quiet wait", "/proc/loadavg: %v", err)
		}
		load1 = la.Load1
		now := time.Now()
		if st.observe(now, load1) {
			fmt.Fprintf(os.Stderr, "quiet: YES, load1 stayed under %.1f for %v (now %.2f), after waiting %v\n", *load, *need, load1, now.Sub(start).Round(time.Second))
			record(*out, quietlog.Wait{At: *at, Quiet: true, Load: *load, ForS: durS(*need), TimeoutS: durS(*timeout),
				WaitedS: durS(now.Sub(start)), Load1: load1, LongestQuietS: durS(st.longest)})
			return
		}
		if now.Sub(start) >= *timeout || ctx.Err() != nil {
			break
		}
		if now.Sub(lastProgress) >= 10*time.Second {
			lastProgress = now
			fmt.Fprintf(os.Stderr, "quiet wait: %s, %v of %v timeout used\n", progress(st, now, load1), now.Sub(start).Round(time.Second), *timeout)
		}
		select {
		case <-ctx.Done():
		case <-time.After(*every):
		}
	}
	waited := time.Since(start).Round(time.Second)
	// the evidence: who kept the host busy
	acc := sample(fs, 3*time.Second)
	busy := outside(acc.result(3, exclusions{Self: os.Getpid()}), 3)
	var who []string
	for _, u := range busy {
		who = append(who, fmt.Sprintf("%s (pid %d) %.2f CPU", u.Comm, u.PID, u.CPUShare))
	}
	reason := "timed out"
	if ctx.Err() != nil {
		reason = "interrupted"
	}
	fmt.Fprintf(os.Stderr, "quiet: NO, %s after %v: load1 %.2f, never under %.1f for %v (longest quiet stretch %v); busiest: %s\n",
		reason, waited, load1, *load, *need, st.longest.Round(time.Second), strings.Join(who, ", "))
	record(*out, quietlog.Wait{At: *at, Load: *load, ForS: durS(*need), TimeoutS: durS(*timeout), WaitedS: durS(waited),
		Load1: load1, LongestQuietS: durS(st.longest), Interrupted: ctx.Err() != nil, Busiest: busy})
	os.Exit(1)
}

// record adds w to the run's gate file, when the bench asked for one.
func record(path string, w quietlog.Wait) {
	if path == "" {
		return
	}
	for i := range w.Busiest {
		w.Busiest[i].CPUShare = round(w.Busiest[i].CPUShare, 3)
	}
	if err := quietlog.AppendWait(path, w); err != nil {
		cli.Fail("quiet wait", "--out: %v", err)
	}
}

func progress(st *waitState, now time.Time, load1 float64) string {
	if st.quietSince.IsZero() {
		return fmt.Sprintf("load1 %.2f ≥ %.1f, waiting for it to fall", load1, st.max)
	}
	return fmt.Sprintf("load1 %.2f < %.1f for %v of %v", load1, st.max, now.Sub(st.quietSince).Round(time.Second), st.need)
}

func sample(fs procfs.FS, d time.Duration) *accumulator {
	first, _ := takeSnapshot(fs)
	acc := newAccumulator(first)
	time.Sleep(d)
	if next, err := takeSnapshot(fs); err == nil {
		acc.add(next)
	}
	return acc
}

// pidList is a repeatable --exclude-pid flag (also takes a comma list).
type pidList []int

func (p *pidList) String() string { return fmt.Sprint([]int(*p)) }
func (p *pidList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a process id", part)
		}
		*p = append(*p, n)
	}
	return nil
}

func watch(fs procfs.FS, args []string) {
	// catch SIGTERM before anything else: the bench may stop a short window early
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := flag.NewFlagSet("quiet watch", flag.ContinueOnError)
	share := f.Float64("share", hostprofile.DefaultNumber("QUIET_CPU_SHARE"), "a process outside the lab using more than this share of one CPU makes the window not quiet")
	out := f.String("out", "", "JSON file to write when stopped")
	gate := f.String("gate", "", "the run's waits (quiet wait --out), read when stopped")
	sid := f.Int("exclude-sid", 0, "session id whose processes are the lab's own")
	var pids pidList
	f.Var(&pids, "exclude-pid", "pid whose process tree is the lab's own (repeatable, or a comma list)")
	every := f.Duration("interval", time.Second, "time between process snapshots")
	cli.Parse(f, args, help)
	positive("quiet watch", "share", *share)
	positive("quiet watch", "interval", every.Seconds())
	if *out == "" {
		cli.Usage("quiet watch", "--out FILE is required")
	}
	if *sid < 0 {
		cli.Usage("quiet watch", "--exclude-sid %d: must be a session id", *sid)
	}
	// fail on an unwritable --out now, not at the end of the window
	fh, err := os.Create(*out)
	if err != nil {
		cli.Fail("quiet watch", "--out: %v", err)
	}
	start := time.Now()
	first, err := takeSnapshot(fs)
	if err != nil {
		cli.Fail("quiet watch", "/proc: %v", err)
	}
	acc := newAccumulator(first)
	var loads []float64
	if la, err := fs.LoadAvg(); err == nil {
		loads = append(loads, la.Load1)
	}
	tick := time.NewTicker(*every)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
		}
		if next, err := takeSnapshot(fs); err == nil {
			acc.add(next)
		}
		if la, err := fs.LoadAvg(); err == nil && !done {
			loads = append(loads, la.Load1)
		}
	}
	window := time.Since(start).Seconds()
	rep := buildReport(acc.result(window, exclusions{SID: *sid, PIDs: pids, Self: os.Getpid()}), *share, window, loads)
	if *gate != "" {
		g, err := quietlog.ReadGate(*gate)
		rep.Waits = g.Waits
		rep.Judge(err)
	}
	enc := json.NewEncoder(fh)
	if err := enc.Encode(rep); err != nil {
		cli.Fail("quiet watch", "%s: %v", *out, err)
	}
	if err := fh.Close(); err != nil {
		cli.Fail("quiet watch", "%s: %v", *out, err)
	}
	fmt.Fprintln(os.Stderr, rep.Verdict())
}

func verdict(args []string) {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		cli.Usage("quiet verdict", "want one FILE written by quiet watch")
	}
	rep, err := quietlog.Read(args[0])
	if err != nil {
		cli.Usage("quiet verdict", "%v", err)
	}
	fmt.Println(rep.Verdict())
	if !rep.Quiet {
		os.Exit(1)
	}
}

func buildReport(all []usage, share, window float64, loads []float64) quietlog.Report {
	rep := quietlog.Report{Quiet: true, Share: &share, WindowS: round(window, 3), Load1: loads, Busiest: outside(all, 5)}
	if rep.Load1 == nil {
		rep.Load1 = []float64{}
	}
	for i := range rep.Busiest {
		rep.Busiest[i].CPUShare = round(rep.Busiest[i].CPUShare, 3)
	}
	rep.Judge(nil)
	return rep
}

func durS(d time.Duration) float64 { return round(d.Seconds(), 1) }

func round(v float64, digits int) float64 {
	s := strconv.FormatFloat(v, 'f', digits, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}
