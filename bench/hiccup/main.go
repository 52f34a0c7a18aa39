// hiccup is the lab's hiccup meter (jHiccup's idea): a loop that sleeps
// 1 ms and records every sleep that took more than a threshold longer, so
// the host's own stalls, seen from inside the guest, are on record beside
// the latency timeline (stacklab/formats/hiccuplog owns the format). The
// bench runs one pinned to the app's CPUs and one pinned to the load
// generator's during every measured window and capacity step.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"stacklab/formats/cli"
	"stacklab/formats/cpulist"
	"stacklab/formats/hiccuplog"
)

const usage = `hiccup: did the host stall the CPUs this runs on? (a 20 ms sleep loop)

Usage: hiccup [--out FILE] [--label ROLE] [--cpus LIST] [--threshold 5ms]
              [--interval 20ms] [--for DURATION]
       hiccup show FILE

Sleeps --interval in a loop on one locked OS thread until SIGTERM/SIGINT
(or --for), and counts how much longer than asked each sleep took (its
oversleep). Every oversleep over --threshold is a gap: one JSON line in
--out as it happens (at_unix_ns, gap_us), after a header line; when it
stops it writes an end line (loops, the longest oversleep, a histogram of
all of them, its own CPU time) and prints a verdict and its numbers. Pin
it with taskset; --cpus records which CPUs that was (default: the CPUs it
is allowed to run on). Without --out it only prints.

"hiccup show FILE" prints the verdict of a log it wrote (a log cut off
before its end line is shown, flagged).

Examples:
  taskset -c 0 hiccup --out case.hiccup-app.jsonl --label app --cpus 0 &   # the bench TERMs it after the window
  taskset -c 1 hiccup --label loadgen --cpus 1 --for 20s
  hiccup show case.hiccup-app.jsonl
`

// defaultInterval is the meter's sleep, the bench's and a user's alike:
// 20 ms, not jHiccup's 1 ms. At 10 ms the meter on the app's CPU used a
// median 1.58% of it (18 meters, results/2026-12-01-local-selftest-pause),
// taken from the app; at 20 ms it is about 0.7%, and a stall of 50 ms or
// more (the host's, to the explanations) is still seen whole.
const defaultInterval = 20 * time.Millisecond

type options struct {
	out, label, cpus    string
	threshold, interval time.Duration
	dur                 time.Duration
}

// check reports the first bad option in one line.
func (o options) check() error {
	switch {
	case o.interval < 100*time.Microsecond || o.interval > time.Second:
		return fmt.Errorf("--interval %v: must be from 100µs to 1s", o.interval)
	case o.threshold < time.Microsecond:
		return fmt.Errorf("--threshold %v: must be at least 1µs", o.threshold)
	case o.dur < 0:
		return fmt.Errorf("--for %v: must not be negative", o.dur)
	}
	if o.cpus != "" {
		if _, err := cpulist.Parse(o.cpus); err != nil {
			return fmt.Errorf("--cpus %q: %v", o.cpus, err)
		}
	}
	return nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "show" {
		show(os.Args[2:])
		return
	}
	fs := flag.NewFlagSet("hiccup", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.out, "out", "", "write the log here (JSON lines); without it, only print")
	fs.StringVar(&o.label, "label", "", `the role whose CPUs these are: "app", "loadgen"`)
	fs.StringVar(&o.cpus, "cpus", "", "the CPU list it is pinned to, as given to taskset (default: its affinity)")
	fs.DurationVar(&o.threshold, "threshold", 5*time.Millisecond, "record every oversleep longer than this")
	fs.DurationVar(&o.interval, "interval", defaultInterval, "the sleep of each loop")
	fs.DurationVar(&o.dur, "for", 0, "stop after this long (0: at SIGTERM/SIGINT)")
	cli.Parse(fs, os.Args[1:], usage)
	if err := o.check(); err != nil {
		cli.Usage("hiccup", "%v", err)
	}
	pinned, err := affinity()
	if err != nil {
		cli.Fail("hiccup", "CPU affinity: %v", err)
	}
	if o.cpus == "" {
		o.cpus = pinned
	} else if given, _ := cpulist.Parse(o.cpus); cpulist.Format(given) != pinned {
		fmt.Fprintf(os.Stderr, "hiccup: note: --cpus %s, but it may run on CPUs %s (pin it: taskset -c %s)\n", o.cpus, pinned, o.cpus)
	}
	// One P for the loop and one for the runtime's own work (the signal
	// handler, a rare GC), so the loop never waits behind either.
	runtime.GOMAXPROCS(2)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.dur)
		defer cancel()
	}
	var w *hiccuplog.Writer
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			cli.Fail("hiccup", "--out: %v", err)
		}
		defer f.Close()
		w = hiccuplog.NewWriter(f)
	}
	l, err := meter(ctx, o, w)
	if err != nil {
		cli.Fail("hiccup", "%s: %v", o.out, err)
	}
	fmt.Print(strings.Join(Report(l), "\n") + "\n")
}

// meter runs the loop until ctx ends and returns the log it wrote to w (if
// any). Each oversleep is measured on the monotonic clock from the previous
// wake, so no time between two sleeps (the loop's own work, a line's write)
// goes unmeasured; unix times are the start's wall clock plus monotonic
// offsets, so a clock step during the window does not move them.
func meter(ctx context.Context, o options, w *hiccuplog.Writer) (hiccuplog.Log, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := time.Now()
	wall0 := t0.UnixNano()
	l := hiccuplog.Log{Header: hiccuplog.Header{
		Format: hiccuplog.FormatID, Label: o.label, CPUs: o.cpus, StartUnixNs: wall0,
		IntervalUs: o.interval.Microseconds(), ThresholdUs: o.threshold.Microseconds(),
	}}
	if w != nil {
		if err := w.Header(l.Header); err != nil {
			return l, err
		}
	}
	// Whole microseconds throughout, as the log records them, so the
	// histogram and the gap lines agree on what was over the threshold.
	threshold := o.threshold.Truncate(time.Microsecond)
	var e hiccuplog.End
	prev := t0
	for ctx.Err() == nil {
		time.Sleep(o.interval)
		now := time.Now()
		over := max(0, now.Sub(prev)-o.interval).Truncate(time.Microsecond)
		e.Loops++
		e.Hist[hiccuplog.Bucket(over)]++
		e.MaxGapUs = max(e.MaxGapUs, over.Microseconds())
		if over > threshold {
			g := hiccuplog.Gap{AtUnixNs: wall0 + int64(prev.Sub(t0)+o.interval), GapUs: over.Microseconds()}
			if w != nil {
				if err := w.Gap(g); err != nil {
					return l, err
				}
			}
			l.Gaps = append(l.Gaps, g)
		}
		prev = now
	}
	e.EndUnixNs = wall0 + int64(time.Since(t0))
	e.CPUNs = cpuTime()
	l.End = &e
	if w != nil {
		if err := w.End(e); err != nil {
			return l, err
		}
	}
	return l, nil
}

// cpuTime is this process's CPU time so far (user+system), in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// show prints the verdict of a log file; a truncated one is shown, flagged.
func show(args []string) {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Print(usage)
		os.Exit(0)
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		cli.Usage("hiccup show", "want one log file (see -h)")
	}
	l, err := hiccuplog.Read(args[0])
	if err != nil && !errors.Is(err, hiccuplog.ErrTruncated) {
		cli.Fail("hiccup show", "%v", err)
	}
	fmt.Print(strings.Join(Report(l), "\n") + "\n")
}
