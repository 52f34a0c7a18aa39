package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/sizes"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "size-test-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "size")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sccPath is the pinned scc, if this machine has it (scripts/bootstrap).
func sccPath(t *testing.T) string {
	for _, p := range []string{"../../.tools/bin/scc"} {
		if _, err := os.Stat(p); err == nil {
			abs, _ := filepath.Abs(p)
			return abs
		}
	}
	if p, err := exec.LookPath("scc"); err == nil {
		return p
	}
	t.Skip("scc is not installed (scripts/bootstrap installs the pinned one): not testing the count itself")
	return ""
}

// stackFolder writes a stack folder of files (path: text).
func stackFolder(t *testing.T, files map[string]string) string {
	dir := filepath.Join(t.TempDir(), "my-stack")
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runSize(t *testing.T, stdin []byte, args ...string) (int, string) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

const app = "package main\n\n// main says hello.\nfunc main() {\n\tprintln(\"hello\")\n}\n"

// A stack folder that states what the study needs, and one fault each:
// one line naming the stack and what is missing, exit 1, the .error file.
func TestStackFolderFaults(t *testing.T) {
	for _, tc := range []struct {
		name, measure string
		files         map[string]string
		line          string
	}{
		{"no exclusion rule", "code", map[string]string{"stack.env": "STACK_NAME=my-stack\n", "main.go": app},
			"my-stack: stack.env states no SIZE_EXCLUDE, the rule that keeps generated and vendored files out of the code count (SIZE_EXCLUDE=\"glob ...\" or SIZE_EXCLUDE=none; stacks/README.md)"},
		{"no lock data named", "deps", map[string]string{"stack.env": "SIZE_EXCLUDE=none\n", "main.go": app},
			"my-stack: stack.env states no SIZE_LOCK, where its resolved dependency tree is (e.g. SIZE_LOCK=\"cargo:Cargo.lock\"; stacks/README.md)"},
		{"lock file missing", "deps", map[string]string{"stack.env": "SIZE_LOCK=\"cargo:Cargo.lock\"\n", "main.rs": "fn main() {}\n"},
			"my-stack: lock data missing: Cargo.lock (SIZE_LOCK names cargo:Cargo.lock)"},
		{"lock file cut short", "deps", map[string]string{"stack.env": "SIZE_LOCK=npm:package-lock.json\n", "package-lock.json": `{"lockfileVersion": 3, "packa`},
			"my-stack: lock data unreadable: package-lock.json: truncated or corrupt package-lock.json: unexpected end of JSON input"},
		{"unpinned requirement", "deps", map[string]string{"stack.env": "SIZE_LOCK=pip:requirements.txt\n", "requirements.txt": "fastapi==0.165.0\nuvicorn>=0.30\n"},
			`my-stack: lock data unreadable: requirements.txt: line 2: "uvicorn>=0.30" is not pinned (want name==version: a lock, not a wish list)`},
		{"unknown ecosystem", "deps", map[string]string{"stack.env": "SIZE_LOCK=\"conda:env.yml\"\n"},
			`my-stack: SIZE_LOCK "conda:env.yml": want ECOSYSTEM:FILE (ecosystems: cargo, npm, pip, gem, maven, go, debian)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := stackFolder(t, tc.files)
			out := t.TempDir()
			code, stderr := runSize(t, nil, tc.measure, dir, out, "--scc", "/nonexistent/scc")
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
			}
			if want := "size: " + tc.line + "\n"; stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
			b, err := os.ReadFile(filepath.Join(out, tc.measure+".error"))
			if err != nil || string(b) != tc.line+"\n" {
				t.Errorf("%s.error: %q (%v), want the same line", tc.measure, b, err)
			}
		})
	}
}

// The count: the rule's files only, tests apart, scc's JSON as written.
func TestCodeByTheRule(t *testing.T) {
	scc := sccPath(t)
	dir := stackFolder(t, map[string]string{
		"stack.env":          "SIZE_EXCLUDE=\"gen/ *.lock\"   # generated\nSIZE_TESTS=\"*_test.go\"\n",
		"main.go":            app,
		"main_test.go":       "package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"gen/big.go":         strings.Repeat("var x = 1\n", 500),
		"deps.lock":          "x\n",
		"views/page.ejs":     "<p><%= x %></p>\n",
		"config/app.yaml":    "a: 1\n# c\n",
		"README.md":          "# hi\n",
		"migrations/one.sql": "CREATE TABLE t (a int);\n",
	})
	out := t.TempDir()
	if code, stderr := runSize(t, nil, "code", dir, out, "--scc", scc); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rule sizes.CodeRule
	if err := sizes.ReadJSON(filepath.Join(out, sizes.RuleFile), &rule); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rule.Excluded, " "); got != "deps.lock gen/ stack.env" {
		t.Errorf("excluded %q, want the rule's files and stack.env", got)
	}
	b, _ := os.ReadFile(filepath.Join(out, sizes.CodeFile))
	langs, err := sizes.ParseSCC(b)
	if err != nil {
		t.Fatal(err)
	}
	code := map[string]int64{}
	for _, l := range langs {
		for _, f := range l.Files {
			code[f.Location] = f.Code
		}
	}
	// main.go: 6 lines, one blank and one comment.
	want := map[string]int64{"main.go": 4, "main_test.go": 3, "views/page.ejs": 1, "config/app.yaml": 1, "README.md": 1, "migrations/one.sql": 1}
	for f, n := range want {
		if code[f] != n {
			t.Errorf("%s: %d lines of code, want %d (scc gave %v)", f, code[f], n, code)
		}
	}
	if len(code) != len(want) {
		t.Errorf("scc counted %v, want exactly %v", code, want)
	}
}

func TestTouch(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{"a.go": "var sizeStudyTouch = 1 // changed", "b.rb": "# changed", "c.c": "int size_study_touch = 1; /* changed", "d.erb": "<%# changed", "e.rs": "#[allow(dead_code)] const SIZE_STUDY_TOUCH"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x"), 0o644)
		if code, stderr := runSize(t, nil, "touch", p); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		b, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != 2 || lines[0] != "x" || !strings.HasPrefix(lines[1], want) {
			t.Errorf("%s after touch: %q, want x and one line starting %q", name, b, want)
		}
	}
	p := filepath.Join(dir, "x.unknownext")
	os.WriteFile(p, []byte("x\n"), 0o644)
	if code, _ := runSize(t, nil, "touch", p); code != 2 {
		t.Errorf("touch of a file of unknown syntax: exit %d, want 2", code)
	}
}

func TestImage(t *testing.T) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, f := range []struct {
		name string
		size int
		typ  byte
	}{{"app/", 0, tar.TypeDir}, {"app/server", 1234, tar.TypeReg}, {"etc/passwd", 10, tar.TypeReg}, {"bin/sh", 0, tar.TypeSymlink}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Size: int64(f.size), Typeflag: f.typ, Mode: 0o755, Linkname: "x"})
		tw.Write(make([]byte, f.size))
	}
	tw.Close()
	out := t.TempDir()
	if code, stderr := runSize(t, tb.Bytes(), "image", out, "--tag", "t:1", "--size", "5000", "--gzipped", "2000", "--binary", "/app/server"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var im sizes.Image
	b, _ := os.ReadFile(filepath.Join(out, sizes.ImageFile))
	json.Unmarshal(b, &im)
	if im.Files != 2 || im.BinaryBytes != 1234 || im.SizeBytes != 5000 || im.GzippedBytes != 2000 {
		t.Errorf("image.json: %+v, want 2 files, a binary of 1234 bytes", im)
	}
	code, stderr := runSize(t, tb.Bytes(), "image", out, "--tag", "t:1", "--size", "5000", "--gzipped", "2000", "--binary", "/app/other")
	if code != 1 || stderr != "size: t:1: SIZE_BINARY /app/other is no file of the image\n" {
		t.Errorf("missing binary: exit %d, stderr %q", code, stderr)
	}
}

// What cargo builds for the image's target, not every platform's crates
// in Cargo.lock: the fixture's lock names windows-sys (a cfg(windows)
// dependency, with windows-link under it) and libc (a dev dependency);
// the tree, and so the count, holds cfg-if alone. The crates must be in
// this machine's cargo registry (the Rust stacks' builds put them there).
func TestCargoCountsTheTargetsTree(t *testing.T) {
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("skipped: cargo is not installed (scripts/bootstrap installs it)")
	}
	src, _ := filepath.Abs("testdata/cargo-target-only")
	lock, err := os.ReadFile(filepath.Join(src, "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	inLock, err := sizes.ParseLock("cargo", lock)
	if err != nil || len(inLock) != 4 {
		t.Fatalf("the fixture's Cargo.lock: %d packages (%v), want 4", len(inLock), err)
	}
	dir := t.TempDir()
	stack := filepath.Join(dir, "target-only")
	if err := exec.Command("cp", "-r", src, stack).Run(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stderr := runSize(t, nil, "deps", stack, out, "--scc", sccPath(t)); code != 0 {
		if strings.Contains(stderr, "offline") || strings.Contains(stderr, "registry") {
			t.Skipf("skipped: cargo's registry on this machine lacks the fixture's crates: %s", stderr)
		}
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, sizes.DepsDir, "cargo-Cargo.lock")); err == nil {
		t.Errorf("deps/ holds the lock too: its other platforms' crates would be counted")
	}
	b, err := os.ReadFile(filepath.Join(out, sizes.DepsDir, sizes.CargoTreeFile))
	if err != nil {
		t.Fatal(err)
	}
	pk, err := sizes.ParseDeps(sizes.CargoTreeFile, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(pk) != 1 || pk[0].Name != "cfg-if" || pk[0].Version != "1.0.5" {
		t.Errorf("counted %v, want cfg-if 1.0.5 alone; the tree:\n%s", pk, b)
	}
}
