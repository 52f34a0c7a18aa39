package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The probe re-executes itself as the writer: let the test binary do the same.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "--child" {
		childMain(os.Args[2:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLiveShortRunInItsOwnCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating a cgroup needs root")
	}
	o := options{writers: 2, rowBytes: 4096, keepRows: 1000, duration: time.Second, stall: time.Second, interval: 50 * time.Millisecond}
	c, err := runCase(context.Background(), o, "live", t.TempDir(), 128<<20, "", VM{DirtyRatio: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Commits) < 10 || len(c.Samples) < 10 || c.Exit != "" {
		t.Errorf("%d commits, %d samples, exit %q", len(c.Commits), len(c.Samples), c.Exit)
	}
	if s := c.Samples[len(c.Samples)/2]; s.MemLimitBytes == nil || *s.MemLimitBytes != 128<<20 {
		t.Errorf("the group's limit was not 128 MiB: %+v", s.MemLimitBytes)
	}
	// the group is gone afterwards, in every hierarchy it was made in
	for _, h := range []string{"memory", "cpu", "cpuacct", ""} {
		matches, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", h, fmt.Sprintf("stacklab-probe-dirty-%d-*", os.Getpid())))
		if len(matches) > 0 {
			t.Errorf("left behind: %v", matches)
		}
	}
}
