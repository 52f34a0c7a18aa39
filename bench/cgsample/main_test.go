package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stacklab/formats/cgroupstat"
	"stacklab/formats/timeline"
)

func TestRunWritesAReadableTimeline(t *testing.T) {
	s, err := cgroupstat.OpenV1("../../formats/cgroupstat/testdata/v1", "/docker/0123abcd", "../../formats/cgroupstat/testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "case.cgroup.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	got, note, err := run(ctx, s, hostReader{procRoot: "../../formats/cgroupstat/testdata/proc"}, 20*time.Millisecond, timeline.NewWriter(f))
	f.Close()
	if err != nil || note != "" {
		t.Fatalf("run: %v %q", err, note)
	}
	back, err := timeline.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(got) || len(back) < 4 {
		t.Fatalf("wrote %d samples, read back %d; want at least 4 in 150 ms at 20 ms", len(got), len(back))
	}
	if back[0].TMs > 10 || back[len(back)-1].TMs < 100 {
		t.Errorf("t_ms runs %d..%d, want from ~0 to past 100", back[0].TMs, back[len(back)-1].TMs)
	}
}

func TestSummaryLine(t *testing.T) {
	samples, err := timeline.ReadFile("../../formats/timeline/testdata/good.cgroup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line := SummaryLine("cgroup v1 /docker/0123abcd", timeline.Summarize(samples))
	for _, want := range []string{"3 samples over 0.2 s of cgroup v1 /docker/0123abcd", "cpu 0.89 cores", "throttled 0.01 s (2 of 20 periods)", "memory peak 60.1 MiB of 4.0 GiB", "dirty+writeback peak 8.0 MiB", "1 major faults"} {
		if !strings.Contains(line, want) {
			t.Errorf("summary line %q lacks %q", line, want)
		}
	}
	// the last sample has no PSI at all: the line must say so rather than print 0.
	if !strings.Contains(line, "io pressure (none) some avg10 max 1.3%") && !strings.Contains(line, "no PSI") {
		t.Errorf("summary line %q says nothing about PSI", line)
	}
}
