package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary stands in for native when start re-executes itself: as
// the child that enters the group, and as the log's copier.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "enter" || os.Args[1] == "log") {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Bad input: one line naming the flag, exit 2, no group made.
func TestBadInput(t *testing.T) {
	good := options{name: "t1", cpus: "0", memory: "64m", pids: 16, uid: 65534, gid: 65534, cmd: []string{"sleep", "1"}}
	if p := good.check(); p != "" {
		t.Fatalf("good options refused: %s", p)
	}
	for _, c := range []struct {
		edit func(*options)
		want string
	}{
		{func(o *options) { o.name = "Bad/Name" }, "--name"},
		{func(o *options) { o.cpus = "" }, "--cpus is required"},
		{func(o *options) { o.cpus = "0-" }, "--cpus \"0-\": not a CPU list"},
		{func(o *options) { o.memory = "4 GB" }, "--memory \"4 GB\""},
		{func(o *options) { o.pids = 0 }, "--pids 0"},
		{func(o *options) { o.quota = 1.5 }, "--quota 1.5: more than the 1 CPUs"},
		{func(o *options) { o.cmd = nil }, "no command after --"},
		{func(o *options) { o.ready = "http://10.0.0.1:80/up" }, "--ready"},
		{func(o *options) { o.logCPUs = "0" }, "--log-cpus without --log"},
		{func(o *options) { o.log, o.logCPUs = "/tmp/x.log", "z" }, "--log-cpus"},
	} {
		o := good
		c.edit(&o)
		if p := o.check(); !strings.Contains(p, c.want) {
			t.Errorf("%+v: %q, want …%s…", o, p, c.want)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"start", "--name", "t1", "--cpus", "0", "--memory", "x", "--", "true"}, &out, &errs); code != 2 || strings.Count(errs.String(), "\n") != 1 || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4g": 4 << 30, "512m": 512 << 20, "1048576": 1 << 20, "64K": 64 << 10, "10b": 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1g", "1.5g", "4gb", "9999999999999g"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Live, as root on a host with cgroups: a process started in a group of
// the lab's is in it (its CPUs' and memory's controllers) as the user it
// was given, before it runs anything; stop leaves no process and no group.
func TestStartAndStop(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: not root (a cgroup of the lab's needs root)")
	}
	if _, err := os.Stat(unifiedRoot); err != nil {
		t.Skip("skipped: no cgroup file system at " + unifiedRoot)
	}
	name := fmt.Sprintf("test-%d", os.Getpid())
	var out, errs bytes.Buffer
	code := run([]string{"start", "--name", name, "--cpus", "0", "--memory", "64m", "--pids", "16",
		"--uid", "65534", "--gid", "65534", "--", "sleep", "30"}, &out, &errs)
	if code != 0 && (strings.Contains(errs.String(), "permission denied") || strings.Contains(errs.String(), "read-only file system")) {
		t.Skipf("skipped: this machine lets no process make a cgroup (%s)", strings.TrimSpace(errs.String()))
	}
	if code != 0 {
		t.Fatalf("start: exit %d: %s", code, errs.String())
	}
	t.Cleanup(func() { run([]string{"stop", "--name", name, "--grace", "1s"}, &out, &errs) })
	var s Started
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.PID == 0 || s.Cgroup != "/stacklab/"+name || !strings.HasPrefix(s.Library, "github.com/containerd/cgroups/v3") {
		t.Fatalf("start printed %q (%v)", out.String(), err)
	}
	// the child re-executes into sleep; give it a moment to get there
	var cg string
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.PID))
		if strings.HasPrefix(string(b), "sleep\x00") {
			c, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", s.PID))
			cg = string(c)
			break
		}
	}
	for _, want := range []string{"memory:/stacklab/" + name, "cpuset:/stacklab/" + name} {
		if s.Mode == "v2" {
			want = "0::/stacklab/" + name
		}
		if !strings.Contains(cg, want) {
			t.Errorf("the process's cgroups have no %q:\n%s", want, cg)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(fmt.Sprintf("/proc/%d", s.PID), &st); err != nil || st.Uid != 65534 {
		t.Errorf("the process runs as uid %d (%v), want 65534", st.Uid, err)
	}
	found := false
	for _, n := range list() {
		found = found || n == name
	}
	if !found {
		t.Errorf("list has no %s: %v", name, list())
	}
	errs.Reset()
	if code := run([]string{"stop", "--name", name, "--grace", "1s"}, &out, &errs); code != 0 {
		t.Fatalf("stop: exit %d: %s", code, errs.String())
	}
	// the test is the process's parent here (native start exits at once
	// in the bench, and init reaps it): reap it, or it stays a zombie
	reaped := false
	for end := time.Now().Add(2 * time.Second); !reaped && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		var ws syscall.WaitStatus
		if p, _ := syscall.Wait4(s.PID, &ws, syscall.WNOHANG, nil); p == s.PID {
			reaped = true
		}
	}
	if !reaped {
		t.Errorf("pid %d still runs after stop", s.PID)
	}
	for _, n := range list() {
		if n == name {
			t.Errorf("group %s still there after stop", name)
		}
	}
	if len(list()) == 0 {
		for _, d := range []string{"cpu", "memory", "cpuset", "pids", ""} {
			if _, err := os.Stat(unifiedRoot + "/" + d + "/stacklab"); err == nil {
				t.Errorf("%s/%s/stacklab left behind with no group in it", unifiedRoot, d)
			}
		}
	}
}

// --ready: a command that exits before its URL answers is one line at
// once, not after the timeout, and leaves no group behind.
func TestReadyCommandExits(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: not root (a cgroup of the lab's needs root)")
	}
	name := fmt.Sprintf("ready-%d", os.Getpid())
	var out, errs bytes.Buffer
	t0 := time.Now()
	code := run([]string{"start", "--name", name, "--cpus", "0", "--memory", "64m", "--pids", "16",
		"--uid", "65534", "--gid", "65534", "--ready", "http://127.0.0.1:1/up", "--ready-timeout", "20s", "--", "false"}, &out, &errs)
	if code != 0 && strings.Contains(errs.String(), "permission denied") {
		t.Skip("skipped: this machine lets no process make a cgroup")
	}
	took := time.Since(t0)
	if code != 1 || out.Len() != 0 || strings.Count(errs.String(), "\n") != 1 || !strings.Contains(errs.String(), "exited") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
	if took > 10*time.Second {
		t.Errorf("took %v: the exit should end the wait, not the timeout", took)
	}
	for _, n := range list() {
		if n == name {
			t.Errorf("group %s left behind", name)
		}
	}
}

// The log copier stamps every line, the last one too when it has no
// newline, and its stamps sort as their times do.
func TestCopyStampedStampsEachLine(t *testing.T) {
	times := []time.Time{time.Date(2026, 12, 5, 12, 0, 0, 500_000_000, time.UTC), time.Date(2026, 12, 5, 12, 0, 0, 450_000_001, time.FixedZone("x", 3600))}
	i := 0
	now := func() time.Time { t := times[i%len(times)]; i++; return t }
	var out bytes.Buffer
	if code := copyStamped(strings.NewReader("[gc] pause 3ms\nlast line"), &out, now); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "2026-12-05T12:00:00.500000000Z [gc] pause 3ms\n2026-12-05T11:00:00.450000001Z last line\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
}

// check makes a group and removes it: nothing of the lab's is left; its
// bad input is one line, exit 2.
func TestCheck(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"check", "--cpus", "0"}, &out, &errs); code != 2 || strings.Count(errs.String(), "\n") != 1 {
		t.Errorf("no --memory: exit %d, stderr %q", code, errs.String())
	}
	errs.Reset()
	code := run([]string{"check", "--cpus", "0", "--memory", "64m"}, &out, &errs)
	if code == 2 && strings.Contains(errs.String(), "no cgroup of the lab's can be made here") {
		t.Skipf("skipped: this machine lets no process make a cgroup (%s)", strings.TrimSpace(errs.String()))
	}
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, errs.String())
	}
	for _, n := range list() {
		if strings.HasPrefix(n, "check-") {
			t.Errorf("check left its group %s", n)
		}
	}
}

// A bench's groups are known by its name in theirs; a group no bench made
// is never reaped; a live process is alive and a pid that runs nothing is not.
func TestBenchOfAndAlive(t *testing.T) {
	for name, want := range map[string]string{"stacklab-bench-123-go-nethttp": "bench-123", "stacklab-bench-9-x": "bench-9"} {
		if id, pid, ok := benchOf(name); !ok || id != want || pid < 1 {
			t.Errorf("benchOf(%q) = %q %d %v, want %q", name, id, pid, ok, want)
		}
	}
	for _, name := range []string{"go-nethttp", "check-12", "stacklab-bench-x-y", "stacklab-bench-0-x"} {
		if id, _, ok := benchOf(name); ok {
			t.Errorf("benchOf(%q) = %q: no bench made it", name, id)
		}
	}
	if !alive(os.Getpid()) {
		t.Error("this test's own process is not alive")
	}
	if alive(1 << 30) {
		t.Error("a pid above the kernel's limit is alive")
	}
}

// reap without a group of the lab's removes the folders of dead benches
// and keeps a live one's; its bad input is one line, exit 2.
func TestReapFolders(t *testing.T) {
	dir := t.TempDir()
	live, dead := fmt.Sprintf("bench-%d", os.Getpid()), fmt.Sprintf("bench-%d", 1<<30)
	for _, d := range []string{live, dead, "other"} {
		if err := os.MkdirAll(dir+"/.bench/"+d+"/row", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"reap", "--dir", dir}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for d, want := range map[string]bool{live: true, dead: false, "other": true} {
		if _, err := os.Stat(dir + "/.bench/" + d); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", d, err == nil, want)
		}
	}
	if code := run([]string{"reap", "--dir", dir, "--bench", live}, &out, &errs); code != 0 {
		t.Fatalf("--bench: exit %d", code)
	}
	if _, err := os.Stat(dir + "/.bench/" + live); err == nil {
		t.Error("--bench: the bench's own folder is still there")
	}
	errs.Reset()
	if code := run([]string{"reap"}, &out, &errs); code != 2 || strings.Count(errs.String(), "\n") != 1 {
		t.Errorf("no --dir: exit %d, %q", code, errs.String())
	}
}

// logs gives the lines stamped from --since on with their stamps (as
// docker logs --timestamps --since), or every line without its stamp;
// a log not written yet is nothing, a bad --since one line, exit 2.
func TestLogs(t *testing.T) {
	f := t.TempDir() + "/app.log"
	log := "2026-12-05T12:00:00.500000000Z listening\n2026-12-05T12:00:01.250000000Z gc 1 @0.5s\n"
	if err := os.WriteFile(f, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"logs", "--file", f, "--since", "2026-12-05T12:00:01Z"}, &out, &errs); code != 0 || out.String() != "2026-12-05T12:00:01.250000000Z gc 1 @0.5s\n" {
		t.Errorf("--since: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"logs", "--file", f}, &out, &errs); code != 0 || out.String() != "listening\ngc 1 @0.5s\n" {
		t.Errorf("every line: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"logs", "--file", f + ".none"}, &out, &errs); code != 0 || out.Len() != 0 {
		t.Errorf("no file: exit %d, %q", code, out.String())
	}
	if code := run([]string{"logs", "--file", f, "--since", "noon"}, &out, &errs); code != 2 {
		t.Errorf("bad --since: exit %d", code)
	}
}
