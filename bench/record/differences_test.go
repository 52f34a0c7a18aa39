package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
)

const (
	runID     = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	otherID   = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	runFiles  = "files:sha256:3333333333333333333333333333333333333333333333333333333333333333"
	otherFile = "files:sha256:4444444444444444444444444444444444444444444444444444444444444444"
)

// What rerun tells the user, case by case: which images it checks and
// which files it digests (only those under another id), its notes, and
// the differences that stop it.
func TestDifferences(t *testing.T) {
	runHost := manifest.Host{Profile: "local", Fingerprint: manifest.Fingerprint{CPUModel: "Some CPU", Cores: 8, MemoryBytes: 16 << 30, Kernel: "6.1.0"}}
	plain := map[string]manifest.Image{"go-nethttp": {ID: runID, Digest: runFiles}}
	for _, c := range []struct {
		name      string
		images    map[string]manifest.Image
		tools     map[string]string
		cpu       string // this host's CPU, when not the run's
		facts     string
		check     []string // the images to build and check
		build     []string // the tools to build first
		digests   []string
		notes     []string
		diffs     []string
		crossHost bool
	}{
		{name: "same id", images: plain, facts: "image go-nethttp " + runID,
			check: []string{"go-nethttp"}},
		{name: "another id, the same files", images: plain, facts: "image go-nethttp " + otherID + "\nfiles go-nethttp " + runFiles,
			check: []string{"go-nethttp"}, digests: []string{"go-nethttp"},
			notes: []string{"rerun: image go-nethttp: another id (sha256:222222222222) but the same files as the run's (files:sha256:333333333333)"}},
		{name: "another id, other files", images: plain, facts: "image go-nethttp " + otherID + "\nfiles go-nethttp " + otherFile,
			check: []string{"go-nethttp"}, digests: []string{"go-nethttp"},
			diffs: []string{"image go-nethttp: the run used sha256:111111111111, this host has sha256:222222222222 (other files)"}},
		{name: "another id, files unreadable", images: plain, facts: "image go-nethttp " + otherID + "\nfiles go-nethttp",
			check: []string{"go-nethttp"}, digests: []string{"go-nethttp"},
			diffs: []string{"image go-nethttp: the run used sha256:111111111111, this host has sha256:222222222222 (other files)"}},
		{name: "not on this engine", images: plain, facts: "image go-nethttp none",
			check: []string{"go-nethttp"},
			diffs: []string{"image go-nethttp: the run used sha256:111111111111, this host has none (other files)"}},
		{name: "no digest recorded", images: map[string]manifest.Image{"go-nethttp": {ID: runID}}, facts: "image go-nethttp " + otherID,
			check: []string{"go-nethttp"},
			diffs: []string{"image go-nethttp: the run used sha256:111111111111, this host has sha256:222222222222 (the run recorded no file digest to check)"}},
		{name: "build variant skipped", images: map[string]manifest.Image{"go-nethttp": {ID: runID, Digest: runFiles}, "go-nethttp[gc-off]": {ID: otherID, Digest: otherFile}},
			facts: "image go-nethttp " + runID,
			check: []string{"go-nethttp"},
			notes: []string{"rerun: image go-nethttp[gc-off] is a build variant's: the re-run builds it from the study, unchecked against the run's sha256:222222222222"}},
		{name: "tool differs", images: plain, tools: map[string]string{"oha": "1.4.0", "go": "go1.22.2", "just": "", "vegeta": "12.8.4", "k6": "none"},
			facts: "image go-nethttp " + runID + "\ntool docker 27.0.3\ntool go go1.22.2\ntool just 1.25.2\ntool oha 1.5.0\ntool vegeta none",
			check: []string{"go-nethttp"}, build: []string{"vegeta"},
			diffs: []string{"tool oha: the run used 1.4.0, this host has 1.5.0", "tool vegeta: the run used 12.8.4, this host has none"}},
		{name: "host differs", images: plain, cpu: "Other CPU", facts: "image go-nethttp " + runID,
			check: []string{"go-nethttp"}, crossHost: true,
			diffs: []string{"host: the run was on local: Some CPU, 8 cores, 16.0 GiB, kernel 6.1.0; this host is local: Other CPU, 8 cores, 16.0 GiB, kernel 6.1.0"}},
		{name: "host first, then images by name, then tools", cpu: "Other CPU",
			images: map[string]manifest.Image{"rust-axum": {ID: runID}, "go-nethttp": {ID: runID, Digest: runFiles}}, tools: map[string]string{"oha": "1.4.0"},
			facts: "image rust-axum " + otherID + "\nimage go-nethttp none\ntool oha 1.5.0",
			check: []string{"go-nethttp", "rust-axum"}, crossHost: true,
			diffs: []string{
				"host: the run was on local: Some CPU, 8 cores, 16.0 GiB, kernel 6.1.0; this host is local: Other CPU, 8 cores, 16.0 GiB, kernel 6.1.0",
				"image go-nethttp: the run used sha256:111111111111, this host has none (other files)",
				"image rust-axum: the run used sha256:111111111111, this host has sha256:222222222222 (the run recorded no file digest to check)",
				"tool oha: the run used 1.4.0, this host has 1.5.0",
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &manifest.Manifest{Host: runHost, Images: c.images, Tools: c.tools}
			here := runHost
			if c.cpu != "" {
				here.Fingerprint.CPUModel = c.cpu
			}
			file := filepath.Join(t.TempDir(), "facts")
			if err := os.WriteFile(file, []byte(c.facts+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			have, err := readFacts(file)
			if err != nil {
				t.Fatal(err)
			}
			check, build, variantNotes := gatherPlan(m)
			digests, err := digestsNeeded(m, have, file)
			if err != nil {
				t.Fatal(err)
			}
			v, err := judge(m, have, here, file)
			if err != nil {
				t.Fatal(err)
			}
			same(t, "images to check", check, c.check)
			same(t, "tools to build", build, c.build)
			same(t, "digests", digests, c.digests)
			same(t, "notes", append(variantNotes, v.notes...), c.notes)
			same(t, "differences", v.differences, c.diffs)
			if v.crossHost != c.crossHost {
				t.Errorf("cross-host %v, want %v", v.crossHost, c.crossHost)
			}
		})
	}
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// The command as rerun runs it: one line and exit 2 on facts it cannot
// read, exit 1 with the differences unless --anyway.
func TestDifferencesCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-01-01-local-pages")
	record(t, "start", dir, "--study-file", "../../studies/pages.toml", "--profile", "quick", "--host-profile", "../../hosts/local.env",
		"--lab-root", "../..", "--runs", "1", "--stacks", "go-nethttp", "--tool", "oha=1.4.0", "--tool", "vegeta=12.8.4")
	record(t, "image", dir, "go-nethttp", "--tag", "stacklab/go-nethttp:x", "--id", runID, "--size", "1", "--digest", runFiles)
	facts := func(text string) string {
		f := filepath.Join(t.TempDir(), "facts")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}

	out, errs, code := recordAll(t, "differences", dir, "--gather")
	if code != 0 || out != "image go-nethttp\ntool vegeta\n" || errs != "" {
		t.Errorf("--gather: exit %d, %q, %q", code, out, errs)
	}
	other := facts("image go-nethttp " + otherID + "\n")
	if out, _, code = recordAll(t, "differences", dir, "--have", other, "--digests"); code != 0 || out != "go-nethttp\n" {
		t.Errorf("--digests: exit %d, %q", code, out)
	}
	if _, errs, code = recordAll(t, "differences", dir, "--have", other, "--note", "go-nethttp"); code != 2 || !strings.Contains(errs, "no files line for go-nethttp") {
		t.Errorf("--note without the digest asked for: exit %d, %q", code, errs)
	}
	sameFiles := facts("image go-nethttp " + otherID + "\nfiles go-nethttp " + runFiles + "\n")
	out, errs, code = recordAll(t, "differences", dir, "--have", sameFiles, "--note", "go-nethttp")
	if code != 0 || out != "" || errs != "rerun: image go-nethttp: another id (sha256:222222222222) but the same files as the run's (files:sha256:333333333333)\n" {
		t.Errorf("--note on the same files: exit %d, %q, %q", code, out, errs)
	}

	differs := facts("image go-nethttp " + otherID + "\nfiles go-nethttp " + otherFile + "\ntool oha 1.4.0\n")
	wantErr := "rerun: this host differs from 2026-01-01-local-pages:\n" +
		"  image go-nethttp: the run used sha256:111111111111, this host has sha256:222222222222 (other files)\n"
	out, errs, code = recordAll(t, "differences", dir, "--have", differs)
	if code != 1 || out != "" || errs != wantErr+"rerun: not re-running with other images or tools; pass --anyway to do it and compare regardless\n" {
		t.Errorf("refusal: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = recordAll(t, "differences", dir, "--have", differs, "--anyway")
	if code != 0 || out != "" || errs != wantErr+"rerun: --anyway given, re-running regardless\n" {
		t.Errorf("--anyway: exit %d, %q, %q", code, out, errs)
	}

	for _, c := range []struct{ facts, want string }{
		{"image go-nethttp\n", "line 1: \"image go-nethttp\": want image NAME ID"},
		{"image go-nethttp " + runID + "\nlayer go-nethttp x\n", "line 2: \"layer go-nethttp x\": want image, files or tool"},
		{"tool oha 1.4.0\n", "no image line for go-nethttp"},
	} {
		f := facts(c.facts)
		out, errs, code := recordAll(t, "differences", dir, "--have", f)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "record differences: "+f+": ") || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("facts %q: exit %d, %q; want exit 2 and one line naming %s with %q", c.facts, code, errs, f, c.want)
		}
	}
	for _, args := range [][]string{{"--gather", "--have", differs}, {"--have", differs, "--digests", "--anyway"}, {"--have", differs, "--note", "go-nethttp[gc-off]"}} {
		if _, errs, code = recordAll(t, append([]string{"differences", dir}, args...)...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("differences %v: exit %d, %q; want exit 2 and one line", args, code, errs)
		}
	}
	if _, errs, code = recordAll(t, "differences", dir, "--have", differs, "--engines", filepath.Join(dir, "engines.json")); code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "engines.json") {
		t.Errorf("an engines file missing: exit %d, %q", code, errs)
	}
	if _, errs, code = recordAll(t, "differences", dir, "--have", filepath.Join(dir, "nope")); code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "nope") {
		t.Errorf("a missing facts file: exit %d, %q", code, errs)
	}
}

// recordAll runs record and returns its stdout, stderr and exit code.
func recordAll(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RECORD_TEST_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}
