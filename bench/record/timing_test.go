package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
)

// timing puts the bench's wall time against its windows and its first ETA
// into the manifest, and says it in one line.
func TestTiming(t *testing.T) {
	dir := t.TempDir()
	record(t, "start", dir, "--study-file", "../../studies/pages.toml", "--profile", "quick", "--host-profile", "../../hosts/local.env",
		"--lab-root", "../..", "--runs", "1", "--stacks", "go-nethttp")
	cmd := exec.Command(os.Args[0], "timing", dir, "--wall-ms", "60000", "--eta-first-s", "54", "--windows", "8", "--window-s", "5",
		"--phase", "window=8:52000", "--phase", "quiet=0:0", "--eta-at", "0:54", "--eta-at", "30000:33")
	cmd.Env = append(os.Environ(), "RECORD_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	want := "bench: took 1m00s; the first ETA said 0m54s (-10.0%), the 2 along the way were off by 7.5% of that on average; orchestration overhead 1.50 (wall time ÷ 8 measured windows of 5 s); phases: window 8 × 6.5 s\n"
	if err != nil || string(out) != want {
		t.Fatalf("timing: %q, %v; want %q", out, err, want)
	}
	m, err := manifest.Read(dir)
	if err != nil || m.Timing == nil || m.Timing.Overhead != 1.5 || m.Timing.ETAError != -0.1 || m.Timing.ETAMeanError != 0.075 || len(m.Timing.Phases) != 2 {
		t.Fatalf("manifest timing: %+v, %v", m.Timing, err)
	}
	if out := recordFails(t, "timing", dir, "--wall-ms", "1", "--window-s", "5", "--phase", "window"); !strings.Contains(out, "want KIND=COUNT:MS") {
		t.Errorf("bad phase: %s", out)
	}
}
