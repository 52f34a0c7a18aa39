// Command misbehave is a test fixture for the lab's confinement
// (analysis/confine, tested by scripts/testdata/confine-e2e): it tries
// what a benchmarked app must not be able to do and prints one line per
// attempt,
//
//	blocked NAME: ERROR      the kernel refused, with an error confinement explains
//	allowed NAME[: DETAIL]   it worked
//	error NAME: ERROR        it failed for another reason (the test counts it as a failure)
//
// then "info" lines (uid, capabilities, no_new_privs as the kernel reports
// them), then "done". It then waits for SIGTERM, so the test can inspect the
// running container; --once exits after "done" instead, and --no-fork skips
// the fork loop (for the unconfined control run, which has no pid limit).
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
)

// maxForks bounds the fork loop even with no pid limit at all: far beyond
// the lab's 4096, far below what would hurt the host.
const maxForks = 20000

func main() {
	once := flag.Bool("once", false, "exit after the report instead of waiting for SIGTERM")
	noFork := flag.Bool("no-fork", false, "skip the fork loop")
	flag.Parse()

	try("write-root", func() (string, error) { return "", os.WriteFile("/misbehave.txt", []byte("x"), 0o644) })
	try("write-app", func() (string, error) { return "", os.WriteFile("/app/misbehave.txt", []byte("x"), 0o644) })
	// Docker bind-mounts these three into every container.
	for _, f := range []string{"/etc/hosts", "/etc/resolv.conf", "/etc/hostname"} {
		try("write-"+f, func() (string, error) { return "", appendTo(f) })
	}
	try("write-data", func() (string, error) { return "", os.WriteFile("/data/misbehave.txt", []byte("x"), 0o644) })
	// Docker's private /dev/shm (64 MiB of memory, counted in the container's
	// limit): left writable, POSIX semaphores need it.
	try("write-/dev/shm", func() (string, error) { return "", os.WriteFile("/dev/shm/misbehave.txt", []byte("x"), 0o644) })
	try("write-tmp", func() (string, error) { return "", os.WriteFile("/tmp/misbehave.txt", []byte("x"), 0o644) })
	try("write-scratch", func() (string, error) {
		return "", os.WriteFile("/app/scratch/misbehave.txt", []byte("x"), 0o644)
	})
	try("remount-root-rw", func() (string, error) {
		return "", syscall.Mount("", "/", "", syscall.MS_REMOUNT|syscall.MS_BIND, "")
	})
	try("setuid-root", func() (string, error) { return "", syscall.Setuid(0) })
	try("chown-data-to-root", func() (string, error) { return "", os.Chown("/data/misbehave.txt", 0, 0) })
	try("bind-port-1023", func() (string, error) {
		l, err := net.Listen("tcp", "127.0.0.1:1023")
		if err == nil {
			l.Close()
		}
		return "", err
	})
	try("raw-socket", func() (string, error) {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
		if err == nil {
			syscall.Close(fd)
		}
		return "", err
	})
	if !*noFork {
		try("fork-loop", forkLoop)
	}
	info()
	fmt.Println("done")
	if *once {
		return
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}

// try runs one attempt and prints its line. Only the errors confinement
// gives (permission, read-only file system, no more processes) count as
// blocked; anything else is an error, so a test cannot pass by accident.
func try(name string, f func() (string, error)) {
	detail, err := f()
	var errno syscall.Errno
	switch {
	case err == nil && detail == "":
		fmt.Printf("allowed %s\n", name)
	case err == nil:
		fmt.Printf("allowed %s: %s\n", name, detail)
	case errors.As(err, &errno) && (errno == syscall.EPERM || errno == syscall.EACCES ||
		errno == syscall.EROFS || errno == syscall.EAGAIN):
		if detail != "" {
			fmt.Printf("blocked %s: %s: %v\n", name, detail, err)
		} else {
			fmt.Printf("blocked %s: %v\n", name, err)
		}
	default:
		fmt.Printf("error %s: %v\n", name, err)
	}
}

// forkLoop forks children that block forever until a fork fails or maxForks
// are running, then kills and reaps them all. Raw clone(2) and raw system
// calls only: the Go runtime must not need a new thread while the pid limit
// is exhausted (it would abort), so the garbage collector is off and the
// goroutine holds its thread.
func forkLoop() (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	pids := make([]uintptr, 0, maxForks)
	var err error
	for len(pids) < maxForks {
		pid, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		if e != 0 {
			err = e
			break
		}
		if pid == 0 { // the child: block in ppoll (no fds, no timeout) until killed
			for {
				syscall.RawSyscall6(syscall.SYS_PPOLL, 0, 0, 0, 0, 0, 0)
			}
		}
		pids = append(pids, pid)
	}
	for _, p := range pids {
		syscall.RawSyscall(syscall.SYS_KILL, p, uintptr(syscall.SIGKILL), 0)
	}
	for _, p := range pids {
		syscall.RawSyscall6(syscall.SYS_WAIT4, p, 0, 0, 0, 0, 0)
	}
	if err != nil {
		return fmt.Sprintf("after %d processes", len(pids)), err
	}
	return fmt.Sprintf("%d processes", len(pids)), nil
}

func appendTo(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// info prints what the kernel says about this process: its ids, its
// capability sets and no_new_privs.
func info() {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Printf("info status: %v\n", err)
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs":
			fmt.Printf("info %s %s\n", strings.ToLower(k), strings.Join(strings.Fields(v), " "))
		}
	}
}
