package main

import (
	"strings"
	"testing"
)

// A sequential run: the ceilings and the headroom first, each row in the
// run's order with its windows, the sampler check after its window on the
// run's first row only; even runs reverse the rows.
func TestScheduleRun(t *testing.T) {
	code, out, errs := runPlan("schedule", "../../studies/io.toml", "--rows", "a,b", "--run", "2", "--sampler-check", "write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `ceilings 2 - -
headroom 2 - -
boot 2 b -
window 2 b upstream
window 2 b write
sampler 2 b write
window 2 b read
window 2 b read-under-writes
stop 2 b -
boot 2 a -
window 2 a upstream
window 2 a write
window 2 a read
window 2 a read-under-writes
stop 2 a -
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// Rows measured again at a run's end: those rows alone, in the order
// given; the check comes with the run's first row; late rows go last in
// run 1.
func TestScheduleRedoAndLate(t *testing.T) {
	code, out, _ := runPlan("schedule", "../../studies/io.toml", "--rows", "a,b,c", "--run", "1", "--only", "c,a", "--sampler-check", "read")
	if code != 0 || strings.Contains(out, "ceilings") || strings.Contains(out, "headroom") || strings.Contains(out, " b ") {
		t.Fatalf("redo: exit %d\n%s", code, out)
	}
	if !strings.HasPrefix(out, "boot 1 c -\n") || strings.Count(out, "sampler 1 a read\n") != 1 || strings.Count(out, "sampler") != 1 {
		t.Errorf("redo: want c then a, the check on a (the run's first row)\n%s", out)
	}
	_, out, _ = runPlan("schedule", "../../studies/io.toml", "--rows", "a,b,c", "--run", "1", "--late", "a")
	var boots []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "boot ") {
			boots = append(boots, strings.Fields(l)[2])
		}
	}
	if strings.Join(boots, ",") != "b,c,a" {
		t.Errorf("late row a should go last in run 1: %v", boots)
	}
}

// A paired bench: every row booted for the first case and restarted for
// each later fresh_db case, warmed up per case, slices in the seeded
// order, the check around the first row's slice, every row stopped.
func TestSchedulePaired(t *testing.T) {
	code, out, errs := runPlan("schedule", "../../studies/io.toml", "--rows", "a,b", "--paired", "--runs", "2", "--sampler-check", "read")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "ceilings 1 - -" || lines[1] != "boot 1 a upstream" || lines[2] != "boot 1 b upstream" || lines[3] != "warmup 1 a upstream" {
		t.Errorf("head:\n%s", out)
	}
	if strings.Count(out, "restart 1 ") != 6 || strings.Count(out, "window ") != 16 || strings.Count(out, "stop 1 ") != 2 {
		t.Errorf("counts:\n%s", out)
	}
	// slice 1 (odd): the check after a's window; slice 2 (even): before it
	if !strings.Contains(out, "window 1 a read\nsampler 1 a read\n") || !strings.Contains(out, "sampler 2 a read\nwindow 2 a read\n") {
		t.Errorf("sampler check around a's slices of read:\n%s", out)
	}
	for _, k := range []string{"1", "2"} {
		var got []string
		for _, l := range lines {
			if f := strings.Fields(l); f[0] == "window" && f[1] == k && f[3] == "write" {
				got = append(got, f[2])
			}
		}
		if want := sliceOrder(map[string]uint64{"1": 1, "2": 2}[k], []string{"a", "b"}); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("slice %s: %v, want %v", k, got, want)
		}
	}
	// one row is nothing to pair; a ramp is not a closed-loop case
	if code, _, errs := runPlan("schedule", "../../studies/io.toml", "--rows", "a", "--paired", "--runs", "2"); code != 2 || !strings.Contains(errs, "io.toml: the paired profile compares rows: it runs 1") {
		t.Errorf("one row: exit %d %s", code, errs)
	}
	if code, _, errs := runPlan("schedule", "../../studies/capacity.toml", "--rows", "a,b", "--paired", "--runs", "2"); code != 2 || !strings.Contains(errs, "capacity ramp") {
		t.Errorf("a ramp: exit %d %s", code, errs)
	}
	if code, _, _ := runPlan("schedule", "../../studies/io.toml", "--rows", "a"); code != 2 {
		t.Errorf("no --run: exit %d, want 2", code)
	}
}

// With the sampler off there is no cost of it to measure: no sampler step.
func TestScheduleSamplerOff(t *testing.T) {
	code, out, _ := runPlan("schedule", "../../studies/io.toml", "--rows", "a,b", "--run", "1", "--sampler-check", "write", "--sampler", "0")
	if code != 0 || strings.Contains(out, "sampler") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
