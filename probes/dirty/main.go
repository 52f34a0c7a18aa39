// dirty answers: are writes in a memory-limited cgroup stalled by dirty-page
// throttling? It runs an SQLite WAL writer (N writers, fixed duration) in a
// cgroup it creates with a memory limit, or in a given container's cgroup,
// samples the cgroup as cgsample does, finds stalls (no commit completed for
// longer than a threshold) and says for each whether the cgroup's
// dirty+writeback sat at its share of the dirty limit and whether IO pressure
// rose. --compare runs a small limit, a large limit and tmpfs side by side.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docker/go-units"
	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"stacklab/formats/cgroupstat"
	"stacklab/formats/cli"
	"stacklab/formats/latency"
	"stacklab/formats/timeline"
	"stacklab/probes/walwriter"
)

const help = `dirty: are writes in a memory-limited cgroup stalled by dirty-page throttling?

Usage: dirty [--memory 256m] [--writers 4] [--duration 15s] [--row-bytes 16384]
             [--stall 1s] [--interval 100ms] [--dir DIR] [--out FILE]
       dirty --compare [--small 256m] [--large 4g] [--tmpfs /dev/shm] [...]
       dirty --container ID [...]

Runs --writers SQLite writers (one connection each, synchronous=NORMAL, WAL,
one --row-bytes row per commit, the file growing as a real table does unless
--keep-mb bounds it) for --duration in a cgroup created for the run
(stacklab-probe-dirty-*, removed afterwards) with a --memory limit, or inside
the cgroup of --container. The cgroup is sampled every --interval. A stall is
a stretch of more than --stall in which no commit completed; each is listed
with the cgroup's dirty+writeback against its share of the dirty limit
(dirty_ratio of the limit), the host's dirty pages against its threshold, and
IO pressure.

--compare runs the same workload three times: under --small, under --large,
and with the database on tmpfs (--tmpfs, no writeback at all) under --large
(tmpfs pages cannot be written back or dropped, so a growing file would only
meet the small limit's OOM killer), and prints a table.

Cgroup v1 hosts (this lab's) have no per-cgroup dirty limit: writers there are
throttled only by the host's threshold, or wait on writeback when the group
must reclaim. The verdict says which applied.

Examples:
  dirty --compare
  dirty --memory 512m --writers 8 --duration 30s --out dirty.jsonl
  dirty --container stacklab-go-nethttp --duration 20s
`

type options struct {
	writers, rowBytes, keepRows int
	duration, stall, interval   time.Duration
	dir, tmpfs                  string
	out                         *json.Encoder
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--child" {
		childMain(os.Args[2:])
		return
	}
	fs := flag.NewFlagSet("dirty", flag.ContinueOnError)
	var o options
	memory := fs.String("memory", "256m", "memory limit of the cgroup created for the run")
	compare := fs.Bool("compare", false, "run a small limit, a large limit and tmpfs, and compare")
	small := fs.String("small", "256m", "--compare: the small limit")
	large := fs.String("large", "4g", "--compare: the large limit (the lab's APP_MEMORY)")
	container := fs.String("container", "", "run the writer inside this container's cgroup instead")
	fs.IntVar(&o.writers, "writers", 4, "concurrent writers, one connection each")
	fs.IntVar(&o.rowBytes, "row-bytes", 16384, "payload bytes per commit")
	fs.DurationVar(&o.duration, "duration", 15*time.Second, "how long each run writes")
	fs.DurationVar(&o.stall, "stall", time.Second, "no commit for longer than this is a stall")
	fs.DurationVar(&o.interval, "interval", 100*time.Millisecond, "cgroup sampling interval")
	fs.StringVar(&o.dir, "dir", os.TempDir(), "directory for the database: the disk under test")
	fs.StringVar(&o.tmpfs, "tmpfs", "/dev/shm", "--compare: a tmpfs directory")
	keepMB := fs.Int("keep-mb", 0, "bound the table to about this many MiB (0: let the file grow, as a real table does)")
	out := fs.String("out", "", "write every commit and cgroup sample as JSON lines here")
	cli.Parse(fs, os.Args[1:], help)
	switch {
	case o.writers < 1 || o.writers > 256:
		cli.Usage("dirty", "--writers %d: want 1 to 256", o.writers)
	case o.rowBytes < 1 || o.rowBytes > 16<<20:
		cli.Usage("dirty", "--row-bytes %d: want 1 to 16 MiB", o.rowBytes)
	case o.duration <= 0 || o.stall <= 0:
		cli.Usage("dirty", "--duration and --stall must be positive")
	case o.interval < 10*time.Millisecond || o.interval > time.Second:
		cli.Usage("dirty", "--interval %v: want 10ms to 1s", o.interval)
	case *compare && *container != "":
		cli.Usage("dirty", "--compare and --container do not go together")
	}
	if *keepMB < 0 {
		cli.Usage("dirty", "--keep-mb %d: must not be negative", *keepMB)
	}
	o.keepRows = (*keepMB << 20) / o.rowBytes
	cli.RequireDir("dirty", o.dir)
	limitOf := func(flagName, v string) uint64 {
		n, err := units.RAMInBytes(v)
		if err != nil || n < 32<<20 {
			cli.Usage("dirty", "--%s %q: want a size of at least 32m, e.g. 256m or 4g", flagName, v)
		}
		return uint64(n)
	}
	var outFile io.Closer
	o.out, outFile = cli.JSONLines("dirty", *out)
	defer outFile.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	vm := hostVM()

	type plan struct {
		label, dir string
		limit      uint64
	}
	var plans []plan
	switch {
	case *compare:
		if !isTmpfs(o.tmpfs) {
			cli.Usage("dirty", "--tmpfs %s: not a tmpfs mount", o.tmpfs)
		}
		s, l := limitOf("small", *small), limitOf("large", *large)
		plans = []plan{{"small " + units.BytesSize(float64(s)), o.dir, s}, {"large " + units.BytesSize(float64(l)), o.dir, l}, {"tmpfs, " + units.BytesSize(float64(l)), o.tmpfs, l}}
	case *container != "":
		plans = []plan{{"container " + *container, o.dir, 0}}
	default:
		m := limitOf("memory", *memory)
		plans = []plan{{"limit " + units.BytesSize(float64(m)), o.dir, m}}
	}
	var results []Result
	for i, p := range plans {
		fmt.Fprintf(os.Stderr, "dirty: case %d of %d: %s, %d writers for %v, database in %s…\n", i+1, len(plans), p.label, o.writers, o.duration, p.dir)
		c, err := runCase(ctx, o, p.label, p.dir, p.limit, *container, vm)
		if err != nil {
			cli.Fail("dirty", "%s: %v", p.label, err)
		}
		results = append(results, analyse(c, o.stall))
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "dirty: interrupted; reporting what was measured")
			break
		}
	}
	if *compare {
		printCompare(os.Stdout, results, o)
		return
	}
	printCase(os.Stdout, results[0], o)
}

func hostVM() VM {
	var vm VM
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return vm
	}
	if v, err := fs.VM(); err == nil {
		if v.DirtyRatio != nil {
			vm.DirtyRatio = *v.DirtyRatio
		}
		if v.DirtyBytes != nil {
			vm.DirtyBytes = *v.DirtyBytes
		}
	}
	if m, err := fs.Meminfo(); err == nil && m.MemTotalBytes != nil {
		vm.MemTotalBytes = *m.MemTotalBytes
	}
	return vm
}

func isTmpfs(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.TMPFS_MAGIC
}

var caseSeq int

// runCase runs the writer once in its cgroup and collects commits and samples.
func runCase(ctx context.Context, o options, label, dir string, limit uint64, container string, vm VM) (*Case, error) {
	c := &Case{Label: label, LimitBytes: limit, Dir: dir, VM: vm}
	work, err := os.MkdirTemp(dir, "stacklab-dirty-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	var g *group
	if container != "" {
		pid, err := containerPID(container)
		if err != nil {
			return nil, err
		}
		if g, err = containerGroup(pid); err != nil {
			return nil, fmt.Errorf("container %s: %v", container, err)
		}
	} else {
		caseSeq++
		if g, err = newGroup(fmt.Sprintf("stacklab-probe-dirty-%d-%d", os.Getpid(), caseSeq), int64(limit)); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err := g.remove(); err != nil {
			fmt.Fprintln(os.Stderr, "dirty:", err)
		}
	}()
	c.V1 = g.V1

	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	cmd := exec.Command(self, "--child", "--dir", work, "--writers", strconv.Itoa(o.writers), "--row-bytes", strconv.Itoa(o.rowBytes),
		"--keep-rows", strconv.Itoa(o.keepRows), "--duration", o.duration.String(), "--t0-us", strconv.FormatInt(start.UnixMicro(), 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	kill := func() { syscall.Kill(-pid, syscall.SIGKILL) }
	if err := g.add(pid); err != nil {
		kill()
		cmd.Wait()
		return nil, fmt.Errorf("move the writer into %s: %v", g.Path, err)
	}
	target := cgroupstat.Target{Path: g.Path}
	if g.target != 0 {
		target = cgroupstat.Target{PID: g.target}
	}
	sampler, err := cgroupstat.Open(target)
	if err != nil {
		kill()
		cmd.Wait()
		return nil, err
	}
	if g.target != 0 && c.LimitBytes == 0 {
		if s, err := sampler.Sample(); err == nil && s.MemLimitBytes != nil {
			c.LimitBytes = *s.MemLimitBytes
		}
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer's commits
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var x walwriter.Commit
			if json.Unmarshal(sc.Bytes(), &x) == nil {
				c.Commits = append(c.Commits, x)
				c.record("commit", x, o)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	exited := make(chan error, 1)
	start = time.Now()
	io.WriteString(stdin, "go\n")
	go func() { wg.Wait(); exited <- cmd.Wait() }()

	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	var werr error
loop:
	for {
		if s, err := sampler.Sample(); err == nil {
			s.TMs = time.Since(start).Milliseconds()
			c.Samples = append(c.Samples, s)
			c.record("sample", s, o)
		}
		select {
		case werr = <-exited:
			break loop
		case <-ctx.Done():
			kill()
			werr = <-exited
			break loop
		case <-tick.C:
		}
	}
	c.Elapsed = min(time.Since(start), o.duration)
	if werr != nil && ctx.Err() == nil {
		c.Exit = describeExit(werr)
	}
	return c, nil
}

func (c *Case) record(kind string, v any, o options) {
	if o.out == nil {
		return
	}
	o.out.Encode(map[string]any{"case": c.Label, "kind": kind, kind: v})
}

func describeExit(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ws.Signal() == syscall.SIGKILL {
				return "was killed (SIGKILL: the cgroup's OOM killer, most likely)"
			}
			return "was killed by " + ws.Signal().String()
		}
	}
	return "failed: " + err.Error()
}

func containerPID(id string) (int, error) {
	out, err := exec.Command("docker", "inspect", "--format", "{{.State.Pid}}", id).Output()
	if err != nil {
		return 0, fmt.Errorf("container %s: docker inspect failed", id)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("container %s is not running", id)
	}
	return pid, nil
}

func printCase(w io.Writer, r Result, o options) {
	fmt.Fprintln(w, verdict(r, o.stall))
	c := r.Case
	fmt.Fprintf(w, "\n%s, %d writers, %d-byte rows, database in %s, cgroup v1: %v\n", c.Label, o.writers, o.rowBytes, c.Dir, c.V1)
	fmt.Fprintf(w, "commits: %d in %.1f s = %.0f/s, %d failed; latency %s\n", r.Commits, c.Elapsed.Seconds(), r.PerSec, r.Failed, r.Latency)
	if r.PeakKnown {
		fmt.Fprintf(w, "cgroup dirty+writeback: peak %s; share of the dirty limit %s (dirty_ratio %d%% of %s)\n", cli.Bytes(r.PeakDirtyWB), cli.Bytes(r.Share), c.VM.DirtyRatio, cli.Bytes(c.LimitBytes))
	}
	printHostThreshold(w, c.Samples)
	if len(r.Stalls) > 0 {
		fmt.Fprintf(w, "\nstalls (no commit completed):\n")
		for _, s := range r.Stalls {
			psi := "io pressure unknown"
			if s.PSIKnown {
				psi = fmt.Sprintf("io pressure (%s) some avg10 %.1f%% → %.1f%%", r.PSIScope, s.PSIFrom, s.PSIMax)
			}
			fmt.Fprintf(w, "  %6.2fs–%6.2fs  %6s  dirty+writeback %s (%s of share)  host at threshold: %v  %s\n",
				s.Gap.From.Seconds(), s.Gap.To.Seconds(), latency.Short(s.Gap.Len()), cli.Bytes(s.PeakDirtyWB), pctOf(s.PeakDirtyWB, r.Share), s.HostAtLimit, psi)
		}
	}
}

func printHostThreshold(w io.Writer, samples []timeline.Sample) {
	var peak, thr uint64
	for _, s := range samples {
		if s.HostNrDirtyBytes != nil && s.HostNrWritebackBytes != nil {
			peak = max(peak, *s.HostNrDirtyBytes+*s.HostNrWritebackBytes)
		}
		if s.HostDirtyThresholdBytes != nil {
			thr = max(thr, *s.HostDirtyThresholdBytes)
		}
	}
	if thr > 0 {
		fmt.Fprintf(w, "host dirty+writeback: peak %s; host dirty threshold %s\n", cli.Bytes(peak), cli.Bytes(thr))
	}
}

func printCompare(w io.Writer, rs []Result, o options) {
	fmt.Fprintln(w, compareVerdict(rs, o.stall))
	fmt.Fprintf(w, "\n%d writers, %d-byte rows, %v per case, synchronous=NORMAL, stall = no commit for > %s\n\n", o.writers, o.rowBytes, o.duration, latency.Short(o.stall))
	fmt.Fprintf(w, "  %-18s %10s %8s %9s %9s %18s %10s  %s\n", "case", "commits/s", "stalls", "longest", "p99", "peak dirty+wb", "share", "writer")
	for _, r := range rs {
		var longest time.Duration
		for _, s := range r.Stalls {
			longest = max(longest, s.Gap.Len())
		}
		long := "-"
		if longest > 0 {
			long = latency.Short(longest)
		}
		exit := "finished"
		if r.Case.Exit != "" {
			exit = r.Case.Exit
		}
		fmt.Fprintf(w, "  %-18s %10.0f %8d %9s %9s %18s %10s  %s\n", r.Case.Label, r.PerSec, len(r.Stalls), long, latency.Short(r.Latency.P99), cli.Bytes(r.PeakDirtyWB), cli.Bytes(r.Share), exit)
	}
	for _, r := range rs {
		fmt.Fprintf(w, "\n%s: %s\n", r.Case.Label, verdict(r, o.stall))
	}
}
