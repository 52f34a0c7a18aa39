// Command loadrun is the entrypoint of the load generator's image (built
// by scripts/loadgen-image, run on the engine the host profile gives the
// load generator), and the runner of every program a role runs on the
// bench's own machine too (scripts/lib/engine.sh, role_tool): it runs a
// program, timed, started and stopped the same way wherever it runs, and
// reads the machine's fingerprint.
//
//	loadrun run [--time FILE] [--start FILE] [--deadline S] [--emit FILE]
//	            [--token @NAME=PATH]... [--arg @NAME=PATH]... -- PROGRAM ARGS...
//	    PROGRAM (oha, vegeta, canary, hiccup, netpath, cgsample, settle, verify,
//	    seed: /bin/NAME; or a path) with ARGS, its
//	    stdout and stderr passed through; SIGTERM and SIGINT passed on to
//	    it. --time writes its CPU time as bash's `time` does with
//	    TIMEFORMAT='%3U %3S %3R' (user, system, real seconds), which record
//	    loadgen reads; --start writes the Unix nanoseconds it started at
//	    (a window's latency timeline counts from there); --deadline kills it after S seconds (exit 124, as
//	    timeout does); --emit copies FILE to stdout once it has exited (what
//	    the program itself prints then goes to stderr).
//	    --token and --arg say what a token in ARGS stands for on the machine
//	    the program runs on (role_tool gives the real paths here, a
//	    container's own there): --token puts PATH for every @NAME inside an
//	    argument (@OUT, the output file; @DATA, the app's data folder:
//	    "@DATA/app.db"); --arg puts PATH for an argument that is @NAME and
//	    nothing else (a file kept from the program: @time, @db). Only the
//	    tokens given are put in, since a generator's ARGS carry a study's
//	    request bodies; each argument gets its --arg first, then each
//	    --token in the order given. FILE of --time, --start and --emit may
//	    be a token too (--time @time). A value that is not @NAME=PATH, or a
//	    token given twice, is refused (exit 2).
//	loadrun fingerprint
//	    the machine's fingerprint (bench/hostfp) as JSON, cores counted
//	    from the kernel's online CPUs, not the container's cpuset
//	loadrun fill DIR UID:GID
//	    the tar stream on stdin unpacked into DIR (an app's /data volume on
//	    its own engine), DIR and everything in it then owned by UID:GID:
//	    the seeded database handed to the uid the app runs as
//	    (scripts/lib/confine.sh); regular files and folders only, each
//	    kept inside DIR. Needs CAP_CHOWN, nothing else.
package main

import (
	"archive/tar"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"encoding/json"

	"stacklab/bench/hostfp"
	"stacklab/formats/cpulist"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: loadrun run|fingerprint ... (see bench/loadrun/main.go)")
		return 2
	}
	switch args[0] {
	case "fingerprint":
		fp, err := hostfp.Read()
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadrun: %v\n", err)
			return 1
		}
		if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
			if cpus, err := cpulist.Parse(string(b)); err == nil {
				fp.Cores = len(cpus)
			}
		}
		b, _ := json.Marshal(fp)
		fmt.Println(string(b))
		return 0
	case "run":
		return runProgram(args[1:])
	case "fill":
		if len(args) != 3 {
			fmt.Fprintln(os.Stderr, "usage: loadrun fill DIR UID:GID (a tar stream on stdin)")
			return 2
		}
		if err := fill(os.Stdin, args[1], args[2]); err != nil {
			fmt.Fprintf(os.Stderr, "loadrun fill: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "loadrun: unknown subcommand %q (run, fingerprint, fill)\n", args[0])
	return 2
}

// runFlags is what loadrun run was asked: its own flags, and PROGRAM with
// its ARGS, every token already put in.
type runFlags struct {
	timeFile, startFile, emit string
	deadline                  float64
	prog                      string
	args                      []string
}

// parseRun reads loadrun run's arguments; an error is one line.
func parseRun(args []string) (runFlags, error) {
	var r runFlags
	var within, whole tokens
	fs := flag.NewFlagSet("loadrun run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&r.timeFile, "time", "", "write the program's CPU time here (user system real, seconds)")
	fs.Float64Var(&r.deadline, "deadline", 0, "kill the program after this many seconds (0: never)")
	fs.StringVar(&r.emit, "emit", "", "copy this file to stdout after the program exits")
	fs.StringVar(&r.startFile, "start", "", "write the time the program starts (Unix nanoseconds) here")
	fs.Var(&within, "token", "@NAME=PATH: every @NAME inside an argument is PATH")
	fs.Var(&whole, "arg", "@NAME=PATH: an argument that is @NAME is PATH")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return r, errors.New("usage: loadrun run [FLAGS] -- PROGRAM ARGS... (see bench/loadrun/main.go)")
		}
		return r, err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return r, errors.New("which program?")
	}
	r.prog = rest[0]
	if !strings.Contains(r.prog, "/") {
		r.prog = filepath.Join("/bin", r.prog)
	}
	put := func(a string) string { return putTokens(a, whole, within) }
	r.timeFile, r.startFile, r.emit = put(r.timeFile), put(r.startFile), put(r.emit)
	for _, a := range rest[1:] {
		r.args = append(r.args, put(a))
	}
	return r, nil
}

// token is one @NAME and the path it stands for.
type token struct{ name, path string }

// tokens is a repeatable @NAME=PATH flag, in the order given.
type tokens []token

func (l *tokens) String() string { return "" }

func (l *tokens) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || len(name) < 2 || name[0] != '@' || path == "" {
		return errors.New("want @NAME=PATH")
	}
	for _, t := range *l {
		if t.name == name {
			return fmt.Errorf("%s given twice", name)
		}
	}
	*l = append(*l, token{name, path})
	return nil
}

// putTokens is a with the tokens put in: the path of a whole-argument
// token when a is one, then each token inside it, in order.
func putTokens(a string, whole, within tokens) string {
	for _, t := range whole {
		if a == t.name {
			a = t.path
			break
		}
	}
	for _, t := range within {
		a = strings.ReplaceAll(a, t.name, t.path)
	}
	return a
}

func runProgram(args []string) int {
	r, err := parseRun(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadrun run: %v\n", err)
		return 2
	}
	cmd := exec.Command(r.prog, r.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if r.emit != "" {
		// stdout is the emitted file's; what the program prints goes to stderr
		cmd.Stdout = os.Stderr
	}
	start := time.Now()
	if r.startFile != "" {
		if err := os.WriteFile(r.startFile, []byte(fmt.Sprintf("%d\n", start.UnixNano())), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "loadrun: %v\n", err)
		}
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "loadrun: %v\n", err)
		return 127
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	timedOut := false
	var timer <-chan time.Time
	if r.deadline > 0 {
		timer = time.After(time.Duration(r.deadline * float64(time.Second)))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
wait:
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case <-timer:
			timedOut = true
			_ = cmd.Process.Signal(syscall.SIGTERM)
			timer = time.After(5 * time.Second)
			go func() {
				<-time.After(5 * time.Second)
				_ = cmd.Process.Kill()
			}()
		case werr = <-done:
			break wait
		}
	}
	real := time.Since(start)
	if r.timeFile != "" && cmd.ProcessState != nil {
		u, s := cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime()
		line := fmt.Sprintf("%.3f %.3f %.3f\n", u.Seconds(), s.Seconds(), real.Seconds())
		if err := os.WriteFile(r.timeFile, []byte(line), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "loadrun: %v\n", err)
		}
	}
	if r.emit != "" {
		if f, err := os.Open(r.emit); err == nil {
			_, _ = io.Copy(os.Stdout, f)
			f.Close()
		}
	}
	if timedOut {
		return 124
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if werr != nil {
		fmt.Fprintf(os.Stderr, "loadrun: %v\n", werr)
		return 1
	}
	return 0
}

// fill unpacks the tar stream r into dir and hands dir and all it holds
// to owner ("UID:GID").
func fill(r io.Reader, dir, owner string) error {
	var uid, gid int
	if _, err := fmt.Sscanf(owner, "%d:%d", &uid, &gid); err != nil || uid < 0 || gid < 0 {
		return fmt.Errorf("owner %q: want UID:GID, two numbers", owner)
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		rel := filepath.Clean(h.Name)
		if rel == "." {
			continue
		}
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Errorf("%s: outside the folder", h.Name)
		}
		dest := filepath.Join(dir, rel)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: not a regular file or folder", h.Name)
		}
	}
	return filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}
