package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"stacklab/probes/walwriter"
)

func TestParseFlags(t *testing.T) {
	if m, err := parseModes("full, Normal"); err != nil || len(m) != 2 || m[0] != "FULL" || m[1] != "NORMAL" {
		t.Errorf("%v %v", m, err)
	}
	if _, err := parseModes("full,fast"); err == nil || !strings.Contains(err.Error(), `"FAST"`) {
		t.Errorf("fast accepted: %v", err)
	}
	if d, m, err := parseCheckpoint("2s"); err != nil || d != 2*time.Second || m != "PASSIVE" {
		t.Errorf("%v %v %v", d, m, err)
	}
	if _, m, _ := parseCheckpoint("500ms:truncate"); m != "TRUNCATE" {
		t.Errorf("mode %s", m)
	}
	for _, bad := range []string{"2", "0s", "1s:SOON"} {
		if _, _, err := parseCheckpoint(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func ms(v int64) int64 { return v * 1000 }

func fixtureRun() *Run {
	dirty, wb, psi := uint64(300<<20), uint64(8<<20), 42.5
	return &Run{
		Mode:    "NORMAL",
		Elapsed: 3 * time.Second,
		Commits: []walwriter.Commit{
			{TUs: ms(100), Writer: 1, LatencyUs: 50},
			{TUs: ms(900), Writer: 1, LatencyUs: ms(700), Backfilled: 1000}, // ran an autocheckpoint
			{TUs: ms(2000), Writer: 2, LatencyUs: ms(300)},                  // overlaps the forced one
			{TUs: ms(2900), Writer: 1, LatencyUs: ms(150)},                  // nothing of ours coincided
			{TUs: ms(2950), Writer: 2, LatencyUs: 60},
		},
		Checkpoints: []Checkpoint{{Mode: "TRUNCATE", StartUs: ms(1800), LatencyUs: ms(150), Done: 420}},
		Samples: []HostSample{
			{TUs: ms(800), WALBytes: 4 << 20, Dirty: &dirty, Writeback: &wb, PSIIOSome: &psi},
			{TUs: ms(1900), WALBytes: 1 << 20},
			{TUs: ms(2850), WALBytes: 2 << 20},
		},
	}
}

func TestFindStallsSaysWhatCoincided(t *testing.T) {
	st := findStalls(fixtureRun(), 100*time.Millisecond)
	if len(st) != 3 {
		t.Fatalf("%d stalls, want 3", len(st))
	}
	want := [][]string{
		{"an automatic checkpoint ran during it (1000 frames copied)", "WAL 4.0 MiB", "host dirty 300.0 MiB, writeback 8.0 MiB, io pressure some avg10 42.5%"},
		{"forced TRUNCATE checkpoint at 1.80s took 150ms (420 frames)", "WAL 1.0 MiB"},
		{"WAL 2.0 MiB"},
	}
	for i, w := range want {
		got := strings.Join(st[i].Coincided, "; ")
		for _, part := range w {
			if !strings.Contains(got, part) {
				t.Errorf("stall %d: %q lacks %q", i, got, part)
			}
		}
	}
	if !st[0].Checkpoint || !st[1].Checkpoint || st[2].Checkpoint {
		t.Errorf("checkpoint flags %v %v %v", st[0].Checkpoint, st[1].Checkpoint, st[2].Checkpoint)
	}
	v := runVerdict(fixtureRun(), options{stall: 100 * time.Millisecond, writers: 2}, st)
	if !strings.HasPrefix(v, "walstall: 3 commits stalled > 100ms of 5 over 3.0 s (max 700ms); 2 of 3 coincided with a checkpoint") {
		t.Errorf("verdict %q", v)
	}
	if v := runVerdict(fixtureRun(), options{stall: time.Second, writers: 2}, nil); !strings.HasPrefix(v, "walstall: no stalls: all 5 commits under 1.00s") {
		t.Errorf("verdict %q", v)
	}
}

func TestComparisonVerdict(t *testing.T) {
	full := &Run{Mode: "FULL", Commits: []walwriter.Commit{{LatencyUs: 2020}, {LatencyUs: 2000}, {LatencyUs: 2100}}}
	normal := &Run{Mode: "NORMAL", Commits: []walwriter.Commit{{LatencyUs: 96}, {LatencyUs: 90}, {LatencyUs: 100}}}
	v := comparisonVerdict([]*Run{full, normal})
	if v != "walstall: a commit costs 2.02ms at synchronous=FULL, 96µs at synchronous=NORMAL (p50) on this disk: 21.0× apart" {
		t.Errorf("%q", v)
	}
}

func TestShortLiveRun(t *testing.T) {
	o := options{writers: 2, duration: 400 * time.Millisecond, rowBytes: 1024, autocheckpoint: -1, dir: t.TempDir(), ckptEvery: 100 * time.Millisecond, ckptMode: "PASSIVE"}
	r, err := runOnce(context.Background(), o, "FULL", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Commits) == 0 || len(r.Checkpoints) < 2 || len(r.Samples) < 10 {
		t.Errorf("%d commits, %d forced checkpoints, %d samples in 400 ms", len(r.Commits), len(r.Checkpoints), len(r.Samples))
	}
}
