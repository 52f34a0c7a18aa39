package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
)

// deadPidForTest is the pid of a process that has exited.
func deadPidForTest(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A dead bench's containers are named, its scratch folder goes, its open
// manifest is marked incomplete, and one line says all of it; a live
// bench's (this test's own pid) are left alone, and a second reap finds
// nothing.
func TestReap(t *testing.T) {
	root, run := t.TempDir(), t.TempDir()
	dead, live := deadPidForTest(t), os.Getpid()
	work := filepath.Join(root, ".work")
	for _, d := range []string{"bench-" + strconv.Itoa(dead), "bench-" + strconv.Itoa(live)} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	owner := "pid " + strconv.Itoa(dead) + ", started 2026-12-06T00:00:00Z, writing results\nrun " + run + "\n"
	if err := os.WriteFile(filepath.Join(work, "bench.owner"), []byte(owner), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := manifest.Write(run, &manifest.Manifest{ManifestVersion: manifest.Version, Study: "pages", Host: manifest.Host{Profile: "local"}}); err != nil {
		t.Fatal(err)
	}
	in := "aaa bench-" + strconv.Itoa(dead) + "\nbbb bench-" + strconv.Itoa(live) + "\nccc bench-x\n"
	var out bytes.Buffer
	if err := reapCmd(root, []string{"--self", "1", "--native", "stopped 1 native group(s)"}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := "container aaa\nsay bench: a dead bench (pid " + strconv.Itoa(dead) + ") left things behind: removed its 1 container(s); removed 1 scratch folder(s); stopped 1 native group(s); marked " + run + " incomplete\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if _, err := os.Stat(filepath.Join(work, "bench-"+strconv.Itoa(dead))); !os.IsNotExist(err) {
		t.Errorf("the dead bench's scratch folder is still there")
	}
	if _, err := os.Stat(filepath.Join(work, "bench-"+strconv.Itoa(live))); err != nil {
		t.Errorf("a live bench's scratch folder went: %v", err)
	}
	m, err := manifest.Read(run)
	if err != nil {
		t.Fatal(err)
	}
	if m.Complete || !strings.Contains(m.IncompleteReason, "died before closing it (pid "+strconv.Itoa(dead)+",") {
		t.Errorf("manifest: complete %v, reason %q", m.Complete, m.IncompleteReason)
	}
	out.Reset()
	if err := reapCmd(root, []string{"--self", "1"}, strings.NewReader(""), &out); err != nil || out.Len() != 0 {
		t.Errorf("a second reap: %v %q, want nothing", err, out.String())
	}
	// the lock's holders are asked for only when the owner is dead; with
	// a live owner, none
	if err := os.WriteFile(filepath.Join(work, "bench.owner"), []byte("pid "+strconv.Itoa(live)+", started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := reapCmd(root, []string{"--self", "1", "--lock-holders"}, nil, &out); err != nil || out.Len() != 0 {
		t.Errorf("live owner: %v %q", err, out.String())
	}
}

// With the owner dead, a process still holding the lock (what the dead
// bench started in a group of its own) is named.
func TestReapLockHolders(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, ".work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	owner := "pid " + strconv.Itoa(deadPidForTest(t)) + ", started\n"
	if err := os.WriteFile(filepath.Join(work, "bench.owner"), []byte(owner), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := os.Create(filepath.Join(work, "bench.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	holder := exec.Command("sleep", "30")
	holder.ExtraFiles = []*os.File{lock}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	var out bytes.Buffer
	if err := reapCmd(root, []string{"--self", "1", "--lock-holders"}, nil, &out); err != nil {
		t.Fatal(err)
	}
	// (this test's process holds the lock too: it is the reaper's parent
	// here, as the asking shell's subshell is in the bench, and not named)
	if got := strings.TrimSpace(out.String()); got != strconv.Itoa(holder.Process.Pid) {
		t.Errorf("holders %q, want %d", got, holder.Process.Pid)
	}
}
