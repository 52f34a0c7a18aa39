package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"stacklab/formats/timeline"
)

// A --cpuset is NAME=LIST, the list read by formats/cpulist.
func TestCPUSets(t *testing.T) {
	c := cpuSets{}
	if err := c.Set("app=0,2-3"); err != nil || !reflect.DeepEqual(c["app"], []int{0, 2, 3}) {
		t.Errorf("app=0,2-3: %v %v", c["app"], err)
	}
	if err := c.Set("app=3-1"); err == nil {
		t.Error("app=3-1 accepted")
	}
	if err := (cpuSets{}).Set("app"); err == nil {
		t.Error("--cpuset app (no =CPUS) accepted")
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A fixture host: two CPUs in /proc/stat, a v1 cpu group with two threads.
func TestHostReaderAddsCPUSetsAndRunDelay(t *testing.T) {
	dir := t.TempDir()
	proc, cg := filepath.Join(dir, "proc"), filepath.Join(dir, "cgroup")
	write(t, filepath.Join(proc, "stat"), "cpu  30 0 6 100 0 0 0 0 0 0\n"+
		"cpu0 10 0 2 80 0 1 1 3 0 0\n"+
		"cpu1 20 0 4 20 0 0 2 1 0 0\nintr 1 2\n")
	write(t, filepath.Join(proc, "42", "cgroup"), "4:memory:/docker/abc\n1:cpu,cpuacct:/docker/abc\n0::/\n")
	write(t, filepath.Join(cg, "cpu,cpuacct", "docker", "abc", "tasks"), "42\n43\n44\n")
	write(t, filepath.Join(proc, "42", "schedstat"), "1000 250 7\n")
	write(t, filepath.Join(proc, "43", "schedstat"), "5000 750 9\n")
	// thread 44 exited between the list and its read: skipped

	threads, err := threadsFile(proc, cg, 42)
	if err != nil {
		t.Fatal(err)
	}
	sets := cpuSets{}
	for _, v := range []string{"app=0", "loadgen=1"} {
		if err := sets.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	var x timeline.Sample
	if err := (hostReader{procRoot: proc, sets: sets, threads: threads}).add(&x); err != nil {
		t.Fatal(err)
	}
	want := map[string]timeline.CPUTime{
		"app":     {BusyMs: 120, IrqMs: 20, StealMs: 30, TotalMs: 970},
		"loadgen": {BusyMs: 240, IrqMs: 20, StealMs: 10, TotalMs: 470},
	}
	if !reflect.DeepEqual(x.CPUSets, want) {
		t.Errorf("cpusets = %+v, want %+v", x.CPUSets, want)
	}
	if x.RunDelayNs == nil || *x.RunDelayNs != 1000 {
		t.Errorf("run_delay_ns = %v, want 1000", x.RunDelayNs)
	}
	if _, err := setTimes(cpuSets{"app": {7}}, map[int][8]uint64{0: {}}); err == nil {
		t.Error("a CPU the host does not have was accepted")
	}
}
