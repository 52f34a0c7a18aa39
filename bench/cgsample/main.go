// cgsample records what one cgroup did during a window: CPU use and
// throttling, memory, page cache, dirty and writeback pages, major faults,
// pressure (PSI) and the host's dirty-page state, as a timeline of JSON lines
// (stacklab/formats/timeline). The bench runs it beside every measured window.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"stacklab/formats/cgroupstat"
	"stacklab/formats/cli"
	"stacklab/formats/timeline"
)

const usage = `cgsample: record a cgroup's CPU, memory, dirty pages and pressure as a timeline.

Usage: cgsample (--container ID | --cgroup PATH | --pid PID) --out FILE
                [--interval 100ms] [--duration D] [--cpuset NAME=CPUS]...
       cgsample memory (--container ID | --cgroup PATH | --pid PID) --out FILE

Samples every --interval until --duration elapses or SIGINT/SIGTERM arrives,
writing one JSON line per sample to --out (format: docs/results.md,
"<case>.cgroup.jsonl"). Each line is written whole as it is taken, so a kill
loses at most one line. At the end one summary line goes to stderr.

Counters the host cannot give are null, never 0: per-cgroup PSI exists only
on cgroup v2; on v1 the host's /proc/pressure is recorded with
psi_scope "host" (or "none" when the kernel has no PSI).

With --pid (or --container), each sample also has run_delay_ns: how long
the group's threads waited on a run queue. Each --cpuset NAME=CPUS adds the
host's own account of those CPUs (busy, irq, steal, total ms, /proc/stat)
under "cpusets": what ran there besides the group, and what the hypervisor
took.

"cgsample memory" reads the group's memory once and appends one JSON line
to --out: usage_bytes, anon_bytes (RSS: v1 memory.stat total_rss, v2 anon)
and file_bytes (page cache: total_cache, file). The bench takes one after
boot and one when each container's last case ended (bench/record
resources reads them).

The sampler keeps the nine files a sample needs open and re-reads them
each tick (README.md: what it costs). --pid is the cheapest way to name a
container: --container asks the docker CLI, whose 11–14 ms of CPU are as
much as ~35 samples.

Examples:
  cgsample --container stacklab-go-nethttp --duration 15s --out page.cgroup.jsonl
  cgsample --cgroup /docker/3f2a…(full id) --interval 50ms --out w.jsonl   # until Ctrl-C
  cgsample --pid 4242 --duration 5s --out /tmp/t.jsonl
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == "memory" {
		memory(os.Args[2:])
		return
	}
	fs := flag.NewFlagSet("cgsample", flag.ContinueOnError)
	var t cgroupstat.Target
	fs.StringVar(&t.Container, "container", "", "Docker container id or name to sample")
	fs.StringVar(&t.Path, "cgroup", "", "cgroup path relative to the hierarchy root, e.g. /docker/<full id>")
	fs.IntVar(&t.PID, "pid", 0, "sample the cgroup of this process")
	interval := fs.Duration("interval", 100*time.Millisecond, "time between samples")
	duration := fs.Duration("duration", 0, "stop after this long (0: until SIGINT/SIGTERM)")
	out := fs.String("out", "", "timeline file to write (JSON lines)")
	sets := cpuSets{}
	fs.Var(sets, "cpuset", "NAME=CPUS: also record the host's busy, interrupt and steal time of these CPUs (repeatable)")
	cli.Parse(fs, os.Args[1:], usage)
	switch {
	case *out == "":
		cli.Usage("cgsample", "--out FILE is required")
	case *interval < time.Millisecond:
		cli.Usage("cgsample", "--interval %v: must be at least 1ms", *interval)
	case *duration < 0:
		cli.Usage("cgsample", "--duration %v: must not be negative", *duration)
	case t.PID < 0:
		cli.Usage("cgsample", "--pid %d: must be a process id", t.PID)
	}
	if n := count(t.Container != "", t.Path != "", t.PID != 0); n != 1 {
		cli.Usage("cgsample", "name exactly one of --container, --cgroup, --pid (got %d)", n)
	}

	s, err := cgroupstat.Open(t)
	if err != nil {
		cli.Fail("cgsample", "%v", err)
	}
	defer s.Close()
	host := hostReader{procRoot: "/proc", sets: sets}
	if len(sets) > 0 {
		stat, err := procStat("/proc")
		if err != nil {
			cli.Fail("cgsample", "--cpuset: %v", err)
		}
		if _, err := setTimes(sets, stat); err != nil {
			cli.Usage("cgsample", "%v", err)
		}
	}
	if t.PID != 0 {
		// no thread list (another kernel, a group gone): the samples go
		// without run_delay_ns
		host.threads, _ = threadsFile("/proc", "/sys/fs/cgroup", t.PID)
	}
	f, err := os.Create(*out)
	if err != nil {
		cli.Fail("cgsample", "--out: %v", err)
	}
	defer f.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	samples, note, err := run(ctx, s, host, *interval, timeline.NewWriter(f))
	if err != nil {
		cli.Fail("cgsample", "%s: %v", *out, err)
	}
	fmt.Fprintln(os.Stderr, SummaryLine(s.Desc, timeline.Summarize(samples))+note)
}

func count(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// run samples until ctx ends. A group that disappears (the container
// stopped) ends the timeline early with a note rather than failing it.
func run(ctx context.Context, s *cgroupstat.Sampler, host hostReader, every time.Duration, w *timeline.Writer) ([]timeline.Sample, string, error) {
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var all []timeline.Sample
	for {
		x, err := s.Sample()
		if err != nil {
			if len(all) == 0 {
				return nil, "", err
			}
			return all, fmt.Sprintf(" (stopped early: %v)", err), nil
		}
		if err := host.add(&x); err != nil {
			return all, "", err
		}
		x.TMs = time.Since(start).Milliseconds()
		x.UnixMs = time.Now().UnixMilli()
		if err := w.Write(x); err != nil {
			return all, "", err
		}
		all = append(all, x)
		select {
		case <-ctx.Done():
			return all, "", nil
		case <-tick.C:
		}
	}
}

// SummaryLine is the verdict-style line printed at the end.
func SummaryLine(desc string, s timeline.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cgsample: %d samples over %.1f s of %s:", s.Samples, s.DurationS, desc)
	if s.CPUCores != nil {
		fmt.Fprintf(&b, " cpu %.2f cores", *s.CPUCores)
	} else {
		b.WriteString(" cpu n/a")
	}
	if s.CPUPeriods != nil && *s.CPUPeriods == 0 {
		b.WriteString(", no CPU quota (no CFS periods)")
	} else if s.CPUThrottledS != nil && s.CPUPeriods != nil && s.CPUThrottledPeriods != nil {
		fmt.Fprintf(&b, ", throttled %.2f s (%d of %d periods)", *s.CPUThrottledS, *s.CPUThrottledPeriods, *s.CPUPeriods)
	} else {
		b.WriteString(", throttling n/a")
	}
	if s.MemPeakBytes != nil {
		fmt.Fprintf(&b, ", memory peak %s", cli.Bytes(*s.MemPeakBytes))
		if s.MemLimitBytes != nil {
			fmt.Fprintf(&b, " of %s", cli.Bytes(*s.MemLimitBytes))
		} else {
			b.WriteString(" (no limit)")
		}
	}
	if s.DirtyWritebackPeak != nil {
		fmt.Fprintf(&b, ", dirty+writeback peak %s", cli.Bytes(*s.DirtyWritebackPeak))
	}
	if s.PgMajFaults != nil {
		fmt.Fprintf(&b, ", %d major faults", *s.PgMajFaults)
	}
	switch {
	case s.PSIIOSomeAvg10Max != nil:
		fmt.Fprintf(&b, ", io pressure (%s) some avg10 max %.1f%%", s.PSIScope, *s.PSIIOSomeAvg10Max)
	case s.PSIScope == timeline.PSINone:
		b.WriteString(", no PSI on this host")
	}
	return b.String()
}

// memory appends one reading of the group's memory (cgroupstat.MemoryStat)
// to --out.
func memory(args []string) {
	fs := flag.NewFlagSet("cgsample memory", flag.ContinueOnError)
	var t cgroupstat.Target
	fs.StringVar(&t.Container, "container", "", "Docker container id or name")
	fs.StringVar(&t.Path, "cgroup", "", "cgroup path relative to the hierarchy root")
	fs.IntVar(&t.PID, "pid", 0, "read the cgroup of this process")
	out := fs.String("out", "", "file to append the JSON line to")
	cli.Parse(fs, args, usage)
	if *out == "" {
		cli.Usage("cgsample memory", "--out FILE is required")
	}
	if n := count(t.Container != "", t.Path != "", t.PID != 0); n != 1 {
		cli.Usage("cgsample memory", "name exactly one of --container, --cgroup, --pid (got %d)", n)
	}
	s, err := cgroupstat.Open(t)
	if err != nil {
		cli.Fail("cgsample memory", "%v", err)
	}
	defer s.Close()
	m, err := s.Memory()
	if err != nil {
		cli.Fail("cgsample memory", "%v", err)
	}
	b, _ := json.Marshal(m)
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		cli.Fail("cgsample memory", "--out: %v", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		cli.Fail("cgsample memory", "%s: %v", *out, err)
	}
	if err := f.Close(); err != nil {
		cli.Fail("cgsample memory", "%s: %v", *out, err)
	}
}
