package main

// What a dead bench left behind, found and judged here (the bench's bash
// removes the containers Go names and prints Go's line): a bench killed
// outright (SIGKILL, an OOM kill, a closed terminal's group) runs no
// cleanup, and what it leaves blocks the next one: its containers (the
// label stacklab.bench=bench-PID names its pid), its scratch folder
// (.work/bench-PID), its results folder's open manifest (the owner file's
// "run DIR" line), and processes it started in groups of their own that
// still hold the lab's lock.
//
//	record reap LABROOT --self PID [--native LINE] < CONTAINERS
//	    CONTAINERS: "ID LABEL" lines (docker ps, the stacklab.bench
//	    label); prints "container ID" for each of a dead bench, removes
//	    dead benches' scratch folders, marks the owner file's open manifest
//	    incomplete, then "say LINE", the one line to print, when anything
//	    was found (LINE: what native reap did, to be named in it)
//	record reap LABROOT --lock-holders --self PID
//	    when the owner file's bench is dead, the pids still holding
//	    .work/bench.lock, one a line

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"stacklab/analysis/results"
)

// alive says whether a process pid exists (signal 0: ESRCH when it does not).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

var ownerPid = regexp.MustCompile(`^pid ([0-9]+),`)

// owner reads the owner file: its first line, the bench's pid in it (0:
// none) and the results folder its "run" line names.
func owner(root string) (first string, pid int, run string) {
	b, err := os.ReadFile(ownerFile(root))
	if err != nil {
		return "", 0, ""
	}
	for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if i == 0 {
			first = l
			if m := ownerPid.FindStringSubmatch(l); m != nil {
				pid, _ = strconv.Atoi(m[1])
			}
		}
		if r, ok := strings.CutPrefix(l, "run "); ok {
			run = r
		}
	}
	return first, pid, run
}

// deadPid reads a bench's pid from "bench-PID" and says whether that
// bench is gone (never self, never what is not a bench's name).
func deadPid(name string, self int) bool {
	p, ok := strings.CutPrefix(name, "bench-")
	pid, err := strconv.Atoi(p)
	return ok && err == nil && pid > 0 && pid != self && !alive(pid)
}

func reapCmd(root string, args []string, in io.Reader, out io.Writer) error {
	fl := flag.NewFlagSet("record reap", flag.ContinueOnError)
	self := fl.Int("self", 0, "the bench asking (its pid): never reaped")
	native := fl.String("native", "", "what native reap did, to name in the line")
	holders := fl.Bool("lock-holders", false, "print the pids holding the lock of a dead owner")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *self <= 0 {
		return fmt.Errorf("want --self PID")
	}
	if *holders {
		return lockHolders(root, *self, out)
	}
	var found []string
	n := 0
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && deadPid(f[1], *self) {
			fmt.Fprintln(out, "container", f[0])
			n++
		}
	}
	if n > 0 {
		found = append(found, fmt.Sprintf("removed its %d container(s)", n))
	}
	n = 0
	dirs, _ := filepath.Glob(filepath.Join(root, ".work", "bench-*"))
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() && deadPid(filepath.Base(d), *self) && os.RemoveAll(d) == nil {
			n++
		}
	}
	if n > 0 {
		found = append(found, fmt.Sprintf("removed %d scratch folder(s)", n))
	}
	if *native != "" {
		found = append(found, *native)
	}
	first, _, run := owner(root)
	if run != "" {
		if closed, err := closeDead(run, first); err != nil {
			return err
		} else if closed {
			rel, err := filepath.Rel(root, run)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = run
			}
			found = append(found, "marked "+rel+" incomplete")
		}
	}
	if len(found) == 0 {
		return nil
	}
	who := "owner unknown"
	if first != "" {
		who, _, _ = strings.Cut(first, ",")
	}
	fmt.Fprintf(out, "say bench: a dead bench (%s) left things behind: %s\n", who, strings.Join(found, "; "))
	return nil
}

// closeDead marks the manifest in dir incomplete when no bench closed it;
// true when it did.
func closeDead(dir, ownerLine string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return false, nil
	}
	finishDir = dir
	err := update(dir, []string{"--incomplete", "the bench writing it died before closing it (" + ownerLine + ")", "--if-open"}, finish)
	if errors.Is(err, errUnchanged) {
		return false, nil
	}
	if err == nil {
		err = results.WriteChecksums(dir)
	}
	return err == nil, err
}

// lockHolders prints the processes holding the lab's lock when its owner
// is gone: what a dead bench started in groups of their own (oha under
// its runner, a sampler) outlives a SIGKILL of the bench's group. Neither
// the asking bench nor this process and its parent (the asking shell's
// subshell, which holds the lock's descriptor too) is named.
func lockHolders(root string, self int, out io.Writer) error {
	if _, pid, _ := owner(root); pid == 0 || alive(pid) {
		return nil
	}
	lock := filepath.Join(root, ".work", "bench.lock")
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	seen := map[int]bool{self: true, os.Getpid(): true, os.Getppid(): true}
	for _, fd := range fds {
		if t, err := os.Readlink(fd); err != nil || t != lock {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
		if !seen[pid] {
			seen[pid] = true
			fmt.Fprintln(out, pid)
		}
	}
	return nil
}
