package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
)

func recordFails(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RECORD_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("record %v: no error, output %s", args, out)
	}
	return strings.TrimSpace(string(out))
}

// The small raw files the bench writes through record are the JSON
// analysis/results reads: one line each, and bad input refused in a line.
func TestRawFiles(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "up.json.time")
	os.WriteFile(tf, []byte("4.610 0.900 5.012\n"), 0o644)
	record(t, "loadgen", filepath.Join(dir, "up.loadgen.json"), "--time", tf, "--cpus", "1")
	record(t, "resources", filepath.Join(dir, "resources.json"), "--boot-ms", "19", "--memory-idle", "7000000", "--memory-after", "9000000")
	record(t, "rows", filepath.Join(dir, "write.rows.json"), "--before", "1000", "--after", "26001")
	for name, want := range map[string]string{
		"up.loadgen.json": `{"cpus":"1","cpu_seconds":5.51,"window_s":5.012,"saturated":true}`,
		"resources.json":  `{"boot_ms":19,"memory_idle_bytes":7000000,"memory_after_bytes":9000000}`,
		"write.rows.json": `{"before":1000,"after":26001}`,
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want+"\n" {
			t.Errorf("%s: %q, %v; want %s", name, b, err, want)
		}
	}
	// The bench's way: cgsample memory's readings, after the largest of the row's containers.
	idle, after := filepath.Join(dir, "idle.jsonl"), filepath.Join(dir, "after.jsonl")
	os.WriteFile(idle, []byte(`{"usage_bytes":8000000,"anon_bytes":5000000,"file_bytes":2000000}`+"\n"), 0o644)
	os.WriteFile(after, []byte(`{"usage_bytes":150000000,"anon_bytes":9000000,"file_bytes":140000000}`+"\n"+
		`{"usage_bytes":30000000,"anon_bytes":12000000,"file_bytes":17000000}`+"\n"), 0o644)
	record(t, "resources", filepath.Join(dir, "split.json"), "--boot-ms", "19", "--memory-idle-file", idle, "--memory-after-file", after)
	want := `{"boot_ms":19,"memory_idle_bytes":8000000,"memory_after_bytes":30000000,"memory":{"idle_anon_bytes":5000000,"idle_file_bytes":2000000,"after_anon_bytes":12000000,"after_file_bytes":140000000,"containers":2}}`
	if b, err := os.ReadFile(filepath.Join(dir, "split.json")); err != nil || string(b) != want+"\n" {
		t.Errorf("split.json: %s, %v; want %s", b, err, want)
	}
	if out := recordFails(t, "resources", filepath.Join(dir, "z.json"), "--memory-idle-file", idle); !strings.Contains(out, "go together") {
		t.Errorf("idle without after: %s", out)
	}
	os.WriteFile(tf, []byte("garbage\n"), 0o644)
	if out := recordFails(t, "loadgen", filepath.Join(dir, "x.json"), "--time", tf, "--cpus", "1"); !strings.Contains(out, `want "USER SYS REAL" seconds`) {
		t.Errorf("bad time file: %s", out)
	}
	if out := recordFails(t, "rows", filepath.Join(dir, "y.json"), "--before", "1000"); !strings.Contains(out, "--before and --after are required") {
		t.Errorf("rows without after: %s", out)
	}
}

// adopt-study gives an old manifest its study only when the windows match.
func TestAdoptStudy(t *testing.T) {
	dir := t.TempDir()
	record(t, "start", dir, "--study-file", "../../studies/pages.toml", "--profile", "quick", "--host-profile", "../../hosts/local.env",
		"--lab-root", "../..", "--runs", "1", "--stacks", "go-nethttp")
	m, err := manifest.Read(dir)
	if err != nil || len(m.StudyFiles) != 1 || m.StudyHash == "" || m.Rows["go-nethttp"].Contract != "app" {
		t.Fatalf("start: %v %+v", err, m)
	}
	// As a manifest of before study files: no copy.
	m.StudyFiles, m.StudyHash, m.ManifestVersion = nil, "", 1
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	if out := recordFails(t, "adopt-study", dir, "../../studies/io.toml"); !strings.Contains(out, "not the same study") {
		t.Errorf("adopting another study: %s", out)
	}
	record(t, "adopt-study", dir, "../../studies/pages.toml")
	if m, _ = manifest.Read(dir); len(m.StudyFiles) != 1 || !strings.Contains(m.StudyAdopted, "studies/pages.toml") {
		t.Errorf("adopted: %+v", m)
	}
	if out := recordFails(t, "adopt-study", dir, "../../studies/pages.toml"); !strings.Contains(out, "already holds its study") {
		t.Errorf("adopting twice: %s", out)
	}
}
