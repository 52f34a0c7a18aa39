package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"stacklab/analysis/manifest"
	"testing"

	"stacklab/analysis/results"
	_ "stacklab/formats/golden"
)

// With RECORD_TEST_MAIN=1 the test binary is the record command, so the
// test below drives it exactly as the bench does.
func TestMain(m *testing.M) {
	if os.Getenv("RECORD_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func record(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RECORD_TEST_MAIN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("record %v: %v\n%s", args, err, out)
	}
}

// `record finish` is how the bench writes checksums.sha256: it must write
// what analysis/results writes and verifies, and a raw file edited after it
// must be caught.
func TestFinishWritesTheChecksums(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	record(t, "start", dir, "--study-file", "../../studies/pages.toml", "--profile", "quick", "--host-profile", "../../hosts/local.env",
		"--lab-root", "../..", "--runs", "1", "--stacks", "go-nethttp")
	raw := filepath.Join(dir, "raw/run-1/go-nethttp")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"up.json": "{}\n", "up.cgroup.jsonl": "", "resources.json": "{}\n"} {
		if err := os.WriteFile(filepath.Join(raw, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record(t, "finish", dir)

	got, err := os.ReadFile(filepath.Join(dir, results.ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "want")
	if err := os.CopyFS(want, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteChecksums(want); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(want, results.ChecksumsFile)); string(b) != string(got) {
		t.Errorf("record finish wrote\n%s\nresults.WriteChecksums writes\n%s", got, b)
	}
	if len(got) == 0 {
		t.Fatal("record finish listed no raw file")
	}
	if err := results.VerifyChecksums(dir); err != nil {
		t.Fatalf("verify after record finish: %v", err)
	}
	if err := os.WriteFile(filepath.Join(raw, "up.json"), []byte("{\"changed\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.VerifyChecksums(dir); err == nil {
		t.Error("a raw file changed after record finish passed verify")
	}
}

// A shared host is declared at the start (--shared-host) or after the
// fact (record shared), and lands in the manifest either way.
func TestSharedHost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	record(t, "start", dir, "--study-file", "../../studies/pages.toml", "--profile", "quick", "--host-profile", "../../hosts/local.env",
		"--lab-root", "../..", "--runs", "1", "--stacks", "go-nethttp", "--shared-host", "a compiler on CPU 1")
	m, err := manifest.Read(dir)
	if err != nil || m.SharedHost != "a compiler on CPU 1" {
		t.Fatalf("after start: %q, %v", m.SharedHost, err)
	}
	record(t, "shared", dir, "helpers building images")
	if m, err = manifest.Read(dir); err != nil || m.SharedHost != "helpers building images" {
		t.Fatalf("after record shared: %q, %v", m.SharedHost, err)
	}
}
