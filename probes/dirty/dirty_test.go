package main

import (
	"strings"
	"testing"
	"time"

	"stacklab/formats/timeline"
	"stacklab/probes/walwriter"
)

const mib = 1 << 20

func TestShare(t *testing.T) {
	if s := Share(256*mib, VM{DirtyRatio: 20}); s != 53687091 {
		t.Errorf("20%% of 256 MiB = %d", s)
	}
	// dirty_bytes set: the host's byte limit, scaled to the group's part of memory
	if s := Share(256*mib, VM{DirtyBytes: 1 << 30, MemTotalBytes: 4 << 30}); s != 256*mib/4 {
		t.Errorf("dirty_bytes 1 GiB, group 1/16 of 4 GiB: %d", s)
	}
	if Share(0, VM{DirtyRatio: 20}) != 0 {
		t.Error("no limit must give no share")
	}
}

// commits every 10 ms except in [from, to)
func commitsExcept(total, from, to time.Duration) []walwriter.Commit {
	var out []walwriter.Commit
	for at := 10 * time.Millisecond; at < total; at += 10 * time.Millisecond {
		if at >= from && at < to {
			continue
		}
		out = append(out, walwriter.Commit{TUs: at.Microseconds(), LatencyUs: 500})
	}
	return out
}

func load(t *testing.T, name string) []timeline.Sample {
	s, err := timeline.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestV2StallAtTheShareIsThrottling(t *testing.T) {
	c := &Case{Label: "small", LimitBytes: 256 * mib, VM: VM{DirtyRatio: 20}, Elapsed: 5 * time.Second,
		Commits: commitsExcept(5*time.Second, 1200*time.Millisecond, 3400*time.Millisecond), Samples: load(t, "v2-throttled.cgroup.jsonl")}
	r := analyse(c, time.Second)
	if len(r.Stalls) != 1 {
		t.Fatalf("%d stalls, want 1", len(r.Stalls))
	}
	s := r.Stalls[0]
	if !s.AtShare || !s.PSIRose || s.HostAtLimit || s.PeakDirtyWB != 52*mib {
		t.Errorf("stall %+v: want at share (52 MiB), io pressure rising, host not at its limit", s)
	}
	v := verdict(r, time.Second)
	for _, want := range []string{"dirty-page throttling: YES, 1 stalls > 1.00s (longest 2.21s)", "1 while the cgroup's dirty+writeback sat at its share (peak 52.0 MiB, 102% of its 51.2 MiB share)", "io pressure (cgroup) rose in 1"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict %q lacks %q", v, want)
		}
	}
}

func TestV1OverTheShareWithoutStallsSaysWhy(t *testing.T) {
	c := &Case{Label: "small", LimitBytes: 256 * mib, VM: VM{DirtyRatio: 20}, V1: true, Elapsed: 5 * time.Second,
		Commits: commitsExcept(5*time.Second, 0, 0), Samples: load(t, "v1-unthrottled.cgroup.jsonl")}
	r := analyse(c, time.Second)
	v := verdict(r, time.Second)
	if len(r.Stalls) != 0 || !strings.HasPrefix(v, "dirty-page throttling: NO, no stall > 1.00s") || !strings.Contains(v, "293% of its 51.2 MiB share") || !strings.Contains(v, "cgroup v1 has no per-cgroup dirty limit") {
		t.Errorf("verdict %q", v)
	}
}

func TestStallWithoutDirtyPagesIsNotThrottling(t *testing.T) {
	samples := load(t, "v1-unthrottled.cgroup.jsonl")[:5] // dirty stays under 40 MiB
	c := &Case{Label: "small", LimitBytes: 256 * mib, VM: VM{DirtyRatio: 20}, V1: true, Elapsed: 3 * time.Second,
		Commits: commitsExcept(500*time.Millisecond, 0, 0), Samples: samples}
	r := analyse(c, time.Second)
	v := verdict(r, time.Second)
	if len(r.Stalls) != 1 || !strings.HasPrefix(v, "dirty-page throttling: NOT SHOWN, 1 stalls") {
		t.Errorf("a stall with few dirty pages: %q", v)
	}
}

func TestCompareVerdict(t *testing.T) {
	small := analyse(&Case{Label: "small 256MiB", LimitBytes: 256 * mib, VM: VM{DirtyRatio: 20}, Elapsed: 5 * time.Second,
		Commits: commitsExcept(5*time.Second, 1200*time.Millisecond, 3400*time.Millisecond), Samples: load(t, "v2-throttled.cgroup.jsonl")}, time.Second)
	tmpfs := analyse(&Case{Label: "tmpfs, 256MiB", LimitBytes: 256 * mib, VM: VM{DirtyRatio: 20}, Elapsed: 5 * time.Second,
		Commits: commitsExcept(5*time.Second, 0, 0)}, time.Second)
	v := compareVerdict([]Result{small, tmpfs}, time.Second)
	want := "dirty-page throttling: YES (stall = no commit for > 1.00s): small 256MiB 1 stalls (1 at the dirty limit), 56 commits/s; tmpfs, 256MiB 0 stalls, 100 commits/s"
	if v != want {
		t.Errorf("got\n%s\nwant\n%s", v, want)
	}
}

func TestWriterKilledBeforeCommitting(t *testing.T) {
	r := analyse(&Case{Label: "x", Exit: "was killed (SIGKILL: the cgroup's OOM killer, most likely)", Elapsed: time.Second}, time.Second)
	if v := verdict(r, time.Second); !strings.Contains(v, "NO ANSWER, the writer was killed") {
		t.Errorf("%q", v)
	}
}
