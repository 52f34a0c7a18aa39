// Command native runs a stack as a host process in a cgroup the lab makes
// with github.com/containerd/cgroups/v3, on cgroup v1 (every mounted
// hierarchy) and v2 alike: the same CPUs (and CPU quota), memory limit and
// pid limit as the stack's container, as an unprivileged user (by default
// the container's: the pid limit, uid and gid are package confine's). It is the
// native runner's one contact with the kernel's cgroups; the bench starts
// and stops a native row through it, and a dead bench's groups are found
// with `native list`.
//
//	native start --name NAME --cpus LIST --memory SIZE [--quota CPUS] [--pids N]
//	             [--uid N --gid N] [--dir DIR] [--log FILE [--log-cpus LIST]]
//	             [--ready URL [--ready-timeout 60s]] [--pid-file FILE] -- CMD ARGS...
//	    make the cgroup /stacklab/NAME with those limits, start CMD in it
//	    (in the group before CMD runs: a child of this program joins it,
//	    drops to --uid/--gid, then execs CMD), and print one JSON line
//	    (formats/nativegroup): pid, cgroup, mode (v1, v2), library,
//	    limits; --pid-file gets the pid alone. CMD keeps running. With
//	    --log, CMD's output goes to FILE a line at a time, each line
//	    stamped with the time it came (as `docker logs --timestamps`
//	    writes them), by a process of this program's outside the group
//	    (as Docker's own log copying is outside a container's), on
//	    --log-cpus when given. With --ready (http://127.0.0.1:PORT/PATH),
//	    first wait until it answers 200; CMD exiting before, or the
//	    timeout, stops the group and is one line, exit 1.
//	native stop --name NAME [--grace 5s]
//	    SIGTERM every process in the group, SIGKILL what is left after
//	    --grace, then remove the group (a v1 group cannot go while a
//	    process is in it: retried for a while)
//	native list
//	    the lab's groups on this host, one NAME a line
//	native reap --dir DIR [--bench ID]
//	    stop the groups of the bench ID (bench-PID: a bench names its rows'
//	    groups stacklab-bench-PID-ROW), or without --bench of every bench
//	    whose process is gone, and remove their folders DIR/.bench/ID;
//	    says how many groups it stopped, nothing when none
//	native check --cpus LIST --memory SIZE [--quota CPUS] [--pids N]
//	    make a group with those limits and remove it at once: a native
//	    bench asks before anything starts
//
//	native log
//	    (start's log copier) stdin to stdout, each line stamped with the
//	    time it came, until stdin ends
//	native logs --file FILE [--since TIME]
//	    the copier's FILE back: with --since (RFC 3339) the lines stamped
//	    from then on, stamps kept (as docker logs --timestamps --since);
//	    without, every line without its stamp; no FILE, nothing
//
// A group that cannot be made (not root, a controller missing, no cgroup
// file system) is one line naming what is missing, exit 2.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"stacklab/analysis/confine"
	"stacklab/formats/cpulist"
	"stacklab/formats/nativegroup"
)

// parent is where the lab's groups live, in every hierarchy.
const parent = "/stacklab"

// unifiedRoot is where a v2 host mounts its one hierarchy.
const unifiedRoot = "/sys/fs/cgroup"

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = "usage: native start --name NAME --cpus LIST --memory SIZE [--quota CPUS] [--pids N] [--uid N --gid N] [--dir DIR] [--log FILE [--log-cpus LIST]] [--ready URL] [--pid-file FILE] -- CMD ARGS... | native stop --name NAME [--grace 5s] | native list | native reap --dir DIR [--bench ID] | native check --cpus LIST --memory SIZE (see bench/native/main.go)"

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "start":
		return start(args[1:], stdout, stderr)
	case "stop":
		return stop(args[1:], stderr)
	case "check":
		return checkCmd(args[1:], stderr)
	case "reap":
		return reap(args[1:], stdout, stderr)
	case "list":
		for _, n := range list() {
			fmt.Fprintln(stdout, n)
		}
		return 0
	case "enter":
		return enter(args[1:], stderr)
	case "log":
		return copyStamped(os.Stdin, stdout, time.Now)
	case "logs":
		return logs(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "native: unknown subcommand %q (%s)\n", args[0], usage)
	return 2
}

// Limits and Started are formats/nativegroup's.
type (
	Limits  = nativegroup.Limits
	Started = nativegroup.Started
)

// options are start's flags, checked by check.
type options struct {
	name, cpus, memory, dir, log string
	logCPUs, ready, pidFile      string
	readyTimeout                 time.Duration
	quota                        float64
	pids                         int64
	uid, gid                     int
	cmd                          []string
}

// check says what is wrong with o in one line (flag and what), or "".
func (o options) check() string {
	switch {
	case !nameRe.MatchString(o.name):
		return fmt.Sprintf("--name %q: want lower-case letters, digits, '.', '_' or '-' (at most 63)", o.name)
	case o.cpus == "":
		return "--cpus is required (the app's CPU list, as its container's --cpuset-cpus)"
	case o.memory == "":
		return "--memory is required (the app's limit, as its container's --memory)"
	case o.pids < 1:
		return fmt.Sprintf("--pids %d: want 1 or more", o.pids)
	case o.quota < 0:
		return fmt.Sprintf("--quota %v: want 0 (none) or a number of CPUs", o.quota)
	case o.uid < 0 || o.gid < 0:
		return "--uid and --gid: want ids of 0 or more"
	case len(o.cmd) == 0:
		return "no command after --"
	case o.logCPUs != "" && o.log == "":
		return "--log-cpus without --log"
	case o.ready != "" && !strings.HasPrefix(o.ready, "http://127.0.0.1:"):
		return fmt.Sprintf("--ready %q: the lab probes http://127.0.0.1:PORT/PATH only", o.ready)
	case o.ready != "" && o.readyTimeout <= 0:
		return fmt.Sprintf("--ready-timeout %v: want a duration above 0", o.readyTimeout)
	}
	cpus, err := cpulist.Parse(o.cpus)
	if err != nil {
		return fmt.Sprintf("--cpus %q: %v", o.cpus, err)
	}
	if o.logCPUs != "" {
		if _, err := cpulist.Parse(o.logCPUs); err != nil {
			return fmt.Sprintf("--log-cpus %q: %v", o.logCPUs, err)
		}
	}
	if o.quota > float64(len(cpus)) {
		return fmt.Sprintf("--quota %v: more than the %d CPUs of --cpus %s", o.quota, len(cpus), o.cpus)
	}
	if _, err := parseSize(o.memory); err != nil {
		return fmt.Sprintf("--memory %q: %v", o.memory, err)
	}
	return ""
}

// parseSize reads a memory size as docker's --memory takes it: bytes, or
// a number with b, k, m or g (powers of 1024).
func parseSize(s string) (int64, error) {
	m := regexp.MustCompile(`^([0-9]+)([bkmgBKMG]?)$`).FindStringSubmatch(s)
	if m == nil {
		return 0, errors.New("want a size such as 4g, 512m or 1048576")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n < 1 {
		return 0, errors.New("want a size above 0")
	}
	shift := map[string]uint{"": 0, "b": 0, "k": 10, "m": 20, "g": 30}[strings.ToLower(m[2])]
	if n > (1<<62)>>shift {
		return 0, errors.New("too large")
	}
	return n << shift, nil
}

func start(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("native start", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var o options
	fl.StringVar(&o.name, "name", "", "the group's name under /stacklab")
	fl.StringVar(&o.cpus, "cpus", "", "the CPU list")
	fl.StringVar(&o.memory, "memory", "", "the memory limit")
	fl.Float64Var(&o.quota, "quota", 0, "a CFS quota in CPUs (0: none)")
	fl.Int64Var(&o.pids, "pids", confine.PidsLimit, "the pid limit")
	fl.IntVar(&o.uid, "uid", confine.UID, "the user id the command runs as")
	fl.IntVar(&o.gid, "gid", confine.GID, "the group id the command runs as")
	fl.StringVar(&o.dir, "dir", "", "the command's working folder")
	fl.StringVar(&o.log, "log", "", "the command's stdout and stderr, time-stamped (default: this program's, as they come)")
	fl.StringVar(&o.logCPUs, "log-cpus", "", "the CPUs of the log's copier (default: any)")
	fl.StringVar(&o.pidFile, "pid-file", "", "write the command's pid here")
	fl.StringVar(&o.ready, "ready", "", "wait until this URL answers 200 (http://127.0.0.1:PORT/PATH)")
	fl.DurationVar(&o.readyTimeout, "ready-timeout", 60*time.Second, "how long --ready may take")
	if err := fl.Parse(args); err != nil {
		fmt.Fprintf(stderr, "native start: %v (%s)\n", err, usage)
		return 2
	}
	o.cmd = fl.Args()
	if p := o.check(); p != "" {
		fmt.Fprintln(stderr, "native start: "+p)
		return 2
	}
	mem, _ := parseSize(o.memory)
	l := Limits{CPUs: o.cpus, Memory: mem, Quota: o.quota, Pids: o.pids}
	g, err := create(o.name, l)
	if err != nil {
		fmt.Fprintf(stderr, "native start: cgroup %s/%s: %v\n", parent, o.name, err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		g.remove()
		fmt.Fprintf(stderr, "native start: %v\n", err)
		return 1
	}
	cmd := exec.Command(self, append([]string{"enter", "--mode", g.mode(), "--name", o.name,
		"--uid", strconv.Itoa(o.uid), "--gid", strconv.Itoa(o.gid), "--"}, o.cmd...)...)
	cmd.Dir = o.dir
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	var logPipe *os.File // the write end, closed here once CMD has it
	if o.log != "" {
		w, err := startLog(self, o.log, o.logCPUs)
		if err != nil {
			g.remove()
			fmt.Fprintf(stderr, "native start: --log: %v\n", err)
			return 2
		}
		logPipe = w
		cmd.Stdout, cmd.Stderr = w, w
	}
	// its own process group, so a Ctrl-C at the bench's terminal reaches
	// the bench, which stops the app through `native stop`
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	if logPipe != nil {
		// the copier ends when CMD (and what it started) has closed it too
		logPipe.Close()
	}
	if err != nil {
		g.remove()
		fmt.Fprintf(stderr, "native start: %s: %v\n", o.cmd[0], err)
		return 1
	}
	if o.ready != "" {
		if err := waitReady(cmd, o.ready, o.readyTimeout); err != nil {
			stopGroup(g, time.Second)
			fmt.Fprintf(stderr, "native start: %s: %v; the group is stopped%s\n", o.cmd[0], err, logHint(o.log))
			return 1
		}
	}
	st := Started{PID: cmd.Process.Pid, Group: nativegroup.Group{Cgroup: parent + "/" + o.name, Mode: g.mode(), Library: library(), Limits: l}}
	if o.pidFile != "" {
		if err := os.WriteFile(o.pidFile, []byte(strconv.Itoa(st.PID)+"\n"), 0o644); err != nil {
			stopGroup(g, time.Second)
			fmt.Fprintf(stderr, "native start: --pid-file: %v; the group is stopped\n", err)
			return 2
		}
	}
	fmt.Fprintln(stdout, st.Line())
	return 0
}

// startLog starts this program's log copier (`native log`, in a process
// group of its own, on cpus when given) appending to path, and returns
// the pipe's write end for the command's output.
func startLog(self, path, cpus string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	argv := []string{self, "log"}
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = r, f, f
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("its copier: %v", err)
	}
	c.Process.Release()
	return w, nil
}

// copyStamped copies in to out a line at a time, each line prefixed with
// the time it was read (UTC, nine fractional digits, so that two stamps
// compare as strings as they do as times) and a space; a last line
// without its newline gets one.
func copyStamped(in io.Reader, out io.Writer, now func() time.Time) int {
	rd := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := rd.ReadString('\n')
		if line != "" {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			if _, werr := io.WriteString(out, now().UTC().Format(StampLayout)+" "+line); werr != nil {
				return 1
			}
		}
		if err != nil {
			return 0
		}
	}
}

// logs reads the copier's file back (see the top of the file).
func logs(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("native logs", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	file := fl.String("file", "", "the log start's copier wrote")
	sinceFlag := fl.String("since", "", "the lines from this time on (RFC 3339)")
	if err := fl.Parse(args); err != nil || fl.NArg() > 0 || *file == "" {
		fmt.Fprintf(stderr, "native logs: --file FILE [--since TIME] (%s)\n", usage)
		return 2
	}
	var since time.Time
	if *sinceFlag != "" {
		t, err := time.Parse(time.RFC3339Nano, *sinceFlag)
		if err != nil {
			fmt.Fprintf(stderr, "native logs: --since %q: not an RFC 3339 time\n", *sinceFlag)
			return 2
		}
		since = t
	}
	f, err := os.Open(*file)
	if errors.Is(err, os.ErrNotExist) {
		return 0 // an app that never started wrote nothing
	}
	if err != nil {
		fmt.Fprintf(stderr, "native logs: %v\n", err)
		return 1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		stamp, line, _ := strings.Cut(sc.Text(), " ")
		t, err := time.Parse(time.RFC3339Nano, stamp)
		switch {
		case *sinceFlag == "":
			fmt.Fprintln(stdout, line)
		case err == nil && !t.Before(since):
			fmt.Fprintln(stdout, sc.Text())
		}
	}
	return 0
}

// StampLayout is the log's time stamp: RFC 3339 with nine fractional
// digits, always.
const StampLayout = "2006-01-02T15:04:05.000000000Z07:00"

// benchRe is a bench's name for a row's group: stacklab-bench-PID-ROW.
var benchRe = regexp.MustCompile(`^stacklab-(bench-([0-9]+))-`)

// benchOf is the bench (bench-PID) and its pid a group's name says made
// it; ok is false for a group no bench made.
func benchOf(name string) (id string, pid int, ok bool) {
	m := benchRe.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false
	}
	pid, err := strconv.Atoi(m[2])
	return m[1], pid, err == nil && pid > 0
}

// alive: does the process pid run (a zombie not yet reaped counts as gone)?
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// the state follows the command's closing parenthesis
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// reap stops the groups of one bench, or of the benches that died, and
// removes their folders (see the top of the file).
func reap(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("native reap", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	dir := fl.String("dir", "", "the native mode's folder (LAB_NATIVE_DIR)")
	only := fl.String("bench", "", "this bench's groups and folder (bench-PID)")
	if err := fl.Parse(args); err != nil || fl.NArg() > 0 || *dir == "" {
		fmt.Fprintf(stderr, "native reap: --dir DIR [--bench ID] (%s)\n", usage)
		return 2
	}
	gone := func(id string, pid int) bool {
		if *only != "" {
			return id == *only
		}
		return !alive(pid)
	}
	n := 0
	for _, name := range list() {
		id, pid, ok := benchOf(name)
		if !ok || !gone(id, pid) {
			continue
		}
		if g, err := load(modeName(), name); err == nil && stopGroup(g, 5*time.Second) == nil {
			n++
		}
	}
	entries, _ := os.ReadDir(filepath.Join(*dir, ".bench"))
	for _, e := range entries {
		if id, pid, ok := benchOf("stacklab-" + e.Name() + "-"); ok && gone(id, pid) {
			os.RemoveAll(filepath.Join(*dir, ".bench", e.Name()))
		}
	}
	if n > 0 {
		fmt.Fprintf(stdout, "stopped %d native group(s)\n", n)
	}
	return 0
}

// checkCmd makes a group with the app's limits and removes it at once, so
// that a host where no group of the lab's can be made is one line, exit 2,
// before a bench starts anything, not a row that failed to start.
func checkCmd(args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("native check", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	o := options{name: fmt.Sprintf("check-%d", os.Getpid()), cmd: []string{"true"}}
	fl.StringVar(&o.cpus, "cpus", "", "the CPU list")
	fl.StringVar(&o.memory, "memory", "", "the memory limit")
	fl.Float64Var(&o.quota, "quota", 0, "a CFS quota in CPUs (0: none)")
	fl.Int64Var(&o.pids, "pids", confine.PidsLimit, "the pid limit")
	if err := fl.Parse(args); err != nil || fl.NArg() > 0 {
		fmt.Fprintf(stderr, "native check: --cpus LIST --memory SIZE [--quota CPUS] [--pids N] (%s)\n", usage)
		return 2
	}
	if p := o.check(); p != "" {
		fmt.Fprintln(stderr, "native check: "+p)
		return 2
	}
	mem, _ := parseSize(o.memory)
	g, err := create(o.name, Limits{CPUs: o.cpus, Memory: mem, Quota: o.quota, Pids: o.pids})
	if err != nil {
		fmt.Fprintf(stderr, "native check: no cgroup of the lab's can be made here (%s/%s): %v\n", parent, o.name, err)
		return 2
	}
	if err := g.remove(); err != nil {
		fmt.Fprintf(stderr, "native check: removing %s/%s: %v\n", parent, o.name, err)
		return 1
	}
	removeParent()
	return 0
}

// waitReady polls url until it answers 200, the command exits, or the
// timeout passes (the command is this program's child: its exit is seen at
// once, not after the timeout).
func waitReady(cmd *exec.Cmd, url string, timeout time.Duration) error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	client := &http.Client{Timeout: time.Second}
	for end := time.Now().Add(timeout); time.Now().Before(end); {
		select {
		case err := <-exited:
			return fmt.Errorf("exited (%v) before %s answered 200", err, url)
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s did not answer 200 within %v", url, timeout)
}

func logHint(log string) string {
	if log == "" {
		return ""
	}
	return " (its output: " + log + ")"
}

// enter runs in the child: it joins the group, drops to the user, and
// becomes the command.
func enter(args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("native enter", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	mode := fl.String("mode", "", "v1 or v2")
	name := fl.String("name", "", "the group")
	uid := fl.Int("uid", -1, "")
	gid := fl.Int("gid", -1, "")
	if err := fl.Parse(args); err != nil || fl.NArg() == 0 || *uid < 0 || *gid < 0 {
		fmt.Fprintln(stderr, "native enter: internal: bad arguments")
		return 2
	}
	g, err := load(*mode, *name)
	if err == nil {
		err = g.add(os.Getpid())
	}
	if err != nil {
		fmt.Fprintf(stderr, "native enter: joining %s/%s: %v\n", parent, *name, err)
		return 1
	}
	if err := syscall.Setgroups([]int{*gid}); err != nil {
		fmt.Fprintf(stderr, "native enter: setgroups: %v\n", err)
		return 1
	}
	if err := syscall.Setgid(*gid); err != nil {
		fmt.Fprintf(stderr, "native enter: setgid %d: %v\n", *gid, err)
		return 1
	}
	if err := syscall.Setuid(*uid); err != nil {
		fmt.Fprintf(stderr, "native enter: setuid %d: %v\n", *uid, err)
		return 1
	}
	path, err := exec.LookPath(fl.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "native enter: %v\n", err)
		return 1
	}
	err = syscall.Exec(path, fl.Args(), os.Environ())
	fmt.Fprintf(stderr, "native enter: exec %s: %v\n", path, err)
	return 1
}

func stop(args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("native stop", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	name := fl.String("name", "", "the group")
	grace := fl.Duration("grace", 5*time.Second, "how long SIGTERM has before SIGKILL")
	if err := fl.Parse(args); err != nil || !nameRe.MatchString(*name) || *grace < 0 {
		fmt.Fprintf(stderr, "native stop: --name NAME [--grace 5s] (%s)\n", usage)
		return 2
	}
	g, err := load(modeName(), *name)
	if err != nil {
		fmt.Fprintf(stderr, "native stop: %s/%s: %v\n", parent, *name, err)
		return 1
	}
	if err := stopGroup(g, *grace); err != nil {
		fmt.Fprintf(stderr, "native stop: removing %s/%s: %v\n", parent, *name, err)
		return 1
	}
	return 0
}

// stopGroup TERMs every process in g, KILLs what is left after grace, and
// removes g (retried: a v1 group cannot go while a process is in it), then
// /stacklab once no group is in it.
func stopGroup(g group, grace time.Duration) error {
	signalAll(g, syscall.SIGTERM)
	for end := time.Now().Add(grace); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if pids, _ := g.procs(); len(pids) == 0 {
			break
		}
	}
	signalAll(g, syscall.SIGKILL)
	var err error
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err = g.remove(); err == nil || time.Now().After(end) {
			break
		}
	}
	if err == nil {
		removeParent()
	}
	return err
}

// removeParent removes /stacklab itself once it holds no group of the
// lab's (in every hierarchy); while another bench's group is there, the
// kernel refuses and it stays.
func removeParent() {
	if len(list()) > 0 {
		return
	}
	if modeName() == "v2" {
		os.Remove(filepath.Join(unifiedRoot, parent))
		return
	}
	if cg, err := cgroup1.Load(cgroup1.StaticPath(parent)); err == nil {
		cg.Delete()
	}
}

func signalAll(g group, sig syscall.Signal) {
	pids, _ := g.procs()
	for _, p := range pids {
		syscall.Kill(p, sig)
	}
}

// list is the lab's groups on this host (names under /stacklab in the cpu
// hierarchy on v1, the one hierarchy on v2).
func list() []string {
	dir := filepath.Join(unifiedRoot, parent)
	if modeName() == "v1" {
		dir = filepath.Join(unifiedRoot, "cpu", parent)
	}
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if e.IsDir() && nameRe.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// library is the cgroup library and its version, as this binary was built.
func library() string {
	const mod = "github.com/containerd/cgroups/v3"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == mod {
				return mod + " " + d.Version
			}
		}
	}
	return mod
}

// modeName is this host's cgroup mode: "v2" on a unified host, else "v1"
// (a hybrid host's controllers are v1's).
func modeName() string {
	if cgroups.Mode() == cgroups.Unified {
		return "v2"
	}
	return "v1"
}

// group is one of the lab's cgroups, v1 or v2.
type group interface {
	mode() string
	add(pid int) error
	procs() ([]int, error)
	remove() error
}

func create(name string, l Limits) (group, error) {
	path := parent + "/" + name
	period := uint64(100000)
	if modeName() == "v2" {
		res := &cgroup2.Resources{
			CPU:    &cgroup2.CPU{Cpus: l.CPUs},
			Memory: &cgroup2.Memory{Max: &l.Memory},
			Pids:   &cgroup2.Pids{Max: l.Pids},
		}
		if l.Quota > 0 {
			q := int64(l.Quota * float64(period))
			res.CPU.Max = cgroup2.NewCPUMax(&q, &period)
		}
		m, err := cgroup2.NewManager(unifiedRoot, path, res)
		if err != nil {
			return nil, err
		}
		return v2{m}, nil
	}
	res := &specs.LinuxResources{
		CPU:    &specs.LinuxCPU{Cpus: l.CPUs},
		Memory: &specs.LinuxMemory{Limit: &l.Memory},
		Pids:   &specs.LinuxPids{Limit: &l.Pids},
	}
	if l.Quota > 0 {
		q := int64(l.Quota * float64(period))
		res.CPU.Quota, res.CPU.Period = &q, &period
	}
	// every controller the lab limits must be there: a group without one
	// would run the app unconfined in it
	need := map[cgroup1.Name]bool{cgroup1.Cpuset: true, cgroup1.Cpu: true, cgroup1.Memory: true, cgroup1.Pids: true}
	check := func(c *cgroup1.InitConfig) error {
		c.InitCheck = func(s cgroup1.Subsystem, _ cgroup1.Path, _ error) error {
			if need[s.Name()] {
				return fmt.Errorf("the %s controller is not active on this host", s.Name())
			}
			return cgroup1.ErrIgnoreSubsystem
		}
		return nil
	}
	cg, err := cgroup1.New(cgroup1.StaticPath(path), res, check)
	if err != nil {
		return nil, err
	}
	have := map[cgroup1.Name]bool{}
	for _, s := range cg.Subsystems() {
		have[s.Name()] = true
	}
	for n := range need {
		if !have[n] {
			cg.Delete()
			return nil, fmt.Errorf("the %s controller is not mounted on this host", n)
		}
	}
	return v1{cg}, nil
}

func load(mode, name string) (group, error) {
	path := parent + "/" + name
	if mode == "v2" {
		m, err := cgroup2.Load(path, cgroup2.WithMountpoint(unifiedRoot))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(unifiedRoot, path)); err != nil {
			return nil, errors.New("no such group")
		}
		return v2{m}, nil
	}
	cg, err := cgroup1.Load(cgroup1.StaticPath(path))
	if err != nil {
		return nil, err
	}
	return v1{cg}, nil
}

type v1 struct{ cg cgroup1.Cgroup }

func (g v1) mode() string      { return "v1" }
func (g v1) add(pid int) error { return g.cg.AddProc(uint64(pid)) }
func (g v1) remove() error     { return g.cg.Delete() }
func (g v1) procs() ([]int, error) {
	ps, err := g.cg.Processes(cgroup1.Cpu, true)
	var out []int
	for _, p := range ps {
		out = append(out, p.Pid)
	}
	return out, err
}

type v2 struct{ m *cgroup2.Manager }

func (g v2) mode() string      { return "v2" }
func (g v2) add(pid int) error { return g.m.AddProc(uint64(pid)) }
func (g v2) remove() error     { return g.m.Delete() }
func (g v2) procs() ([]int, error) {
	ps, err := g.m.Procs(true)
	var out []int
	for _, p := range ps {
		out = append(out, int(p))
	}
	return out, err
}
