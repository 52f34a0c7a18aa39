package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/sizes"
)

// runSizeOut runs size with env added to the test's environment and gives
// its exit status, stdout and stderr.
func runSizeOut(t *testing.T, stdin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// fakeTools writes programs that print what the real ones print, into a
// folder that is then the whole PATH.
func fakeTools(t *testing.T, scripts map[string]string) string {
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The lab's tools as tool_versions says them, on a machine without k6.
const labTools = "docker 27.5.1\ngo go1.26.8\njust 1.40.0\noha 1.8.0\nsqlite3 3.46.1\nvegeta none\n"

// Each toolchain's version, read its own way; the load generators, just
// and what did not run are left out.
func TestToolsRecordsTheBuildsToolchains(t *testing.T) {
	path := fakeTools(t, map[string]string{
		"rustc": "echo 'rustc 1.83.0 (90b35a623 2024-11-26)'\n",
		"cargo": "echo 'cargo 1.83.0 (5ffbef321 2024-10-29)'\n",
		"gcc":   "echo 12.2.0\n",
		"mvn": "printf '\\033[1mApache Maven 3.8.7\\033[m\\nMaven home: /usr/share/maven\\nJava version: 17.0.13, vendor: Debian\\n'\n" +
			"echo 'Apache Maven 9.9.9 named again' >&2\n",
		"java": "echo 'Picked up JAVA_TOOL_OPTIONS: -Xss1m' >&2\necho 'openjdk version \"17.0.13\" 2024-10-15' >&2\necho 'OpenJDK Runtime Environment (build 17.0.13+11)' >&2\n",
	})
	code, stdout, stderr := runSizeOut(t, labTools, []string{"PATH=" + path}, "tools")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "docker=27.5.1\ngo=go1.26.8\nsqlite3=3.46.1\nrustc=1.83.0\ncargo=1.83.0\ngcc=12.2.0\nmvn=3.8.7\njava=17.0.13\n"
	if stdout != want {
		t.Errorf("size tools printed\n%s\nwant\n%s", stdout, want)
	}
}

func TestToolsWithoutToolchains(t *testing.T) {
	// gcc is there but says nothing; the others are not on PATH.
	path := fakeTools(t, map[string]string{"gcc": "exit 1\n"})
	code, stdout, stderr := runSizeOut(t, labTools+"k6 1.0.0\n", []string{"PATH=" + path}, "tools")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "docker=27.5.1\ngo=go1.26.8\nsqlite3=3.46.1\nk6=1.0.0\n"; stdout != want {
		t.Errorf("size tools printed\n%s\nwant\n%s", stdout, want)
	}
}

// A line is split as bash's read splits it.
func TestNameVersion(t *testing.T) {
	for _, c := range []struct{ line, name, version string }{
		{"go go1.26.8", "go", "go1.26.8"},
		{"  docker \t 27.5.1  ", "docker", "27.5.1"},
		{"rustc ", "rustc", ""},
		{"sqlite3 3.46.1 2024-08-13", "sqlite3", "3.46.1 2024-08-13"},
		{"", "", ""},
	} {
		if n, v := nameVersion(c.line); n != c.name || v != c.version {
			t.Errorf("%q: %q %q, want %q %q", c.line, n, v, c.name, c.version)
		}
	}
}

// What a run does for a stack: code and lock data in run 1 (from the
// copy when it builds), a build from base for a stack built on it, an
// empty Go build cache for a Go app, the rebuild's file or why there is
// none, and scc over the image's dependency source.
func TestPlan(t *testing.T) {
	goApp := stackFolder(t, map[string]string{"stack.env": "LANGUAGE=go\nDEPENDS=\"\"\nSIZE_TOUCH=app.go\nSIZE_BINARY=/app/server\n"})
	ruby := filepath.Join(t.TempDir(), "ruby-app")
	os.MkdirAll(ruby, 0o755)
	os.WriteFile(filepath.Join(ruby, "stack.env"), []byte("LANGUAGE=ruby\nDEPENDS=\"base\"\nSIZE_DEPS_SRC=\"/usr/share/gems  /usr/lib/ruby\"   # the gems\n"), 0o644)
	for _, c := range []struct {
		name  string
		dir   string
		flags []string
		want  string
	}{
		{"run 1 without builds", goApp, []string{"--run", "1", "--build", "0"},
			"SIZE_CODE=1\nSIZE_DEPS=stack\nSIZE_BUILDS=0\nSIZE_COPY=\nSIZE_TAG=\nSIZE_LOG=\nSIZE_GOCACHE=\n" +
				"SIZE_TOUCH=\nSIZE_TOUCH_FAULT=\nSIZE_BINARY=\nSIZE_DEPS_SRC=\nSIZE_DEPS_SCC=\nSIZE_DEPS_CODE=\n"},
		{"run 2 without builds", goApp, []string{"--run", "2", "--build", "0"},
			"SIZE_CODE=0\nSIZE_DEPS=\nSIZE_BUILDS=0\nSIZE_COPY=\nSIZE_TAG=\nSIZE_LOG=\nSIZE_GOCACHE=\n" +
				"SIZE_TOUCH=\nSIZE_TOUCH_FAULT=\nSIZE_BINARY=\nSIZE_DEPS_SRC=\nSIZE_DEPS_SCC=\nSIZE_DEPS_CODE=\n"},
		{"a Go app's first build", goApp, []string{"--run", "1", "--build", "1", "--bench-id", "bench-42", "--work", "/w"},
			"SIZE_CODE=1\nSIZE_DEPS=copy\nSIZE_BUILDS=1\nSIZE_COPY=/w/copy-my-stack-1\nSIZE_TAG=stacklab-size/my-stack:bench-42-run-1\n" +
				"SIZE_LOG=/w/my-stack-1.build.log\nSIZE_GOCACHE=/w/copy-my-stack-1/.gocache\n" +
				"SIZE_TOUCH=app.go\nSIZE_TOUCH_FAULT=\nSIZE_BINARY=/app/server\nSIZE_DEPS_SRC=\nSIZE_DEPS_SCC=\nSIZE_DEPS_CODE=\n"},
		{"a stack on base, no SIZE_TOUCH, run 3", ruby, []string{"--run", "3", "--build", "1", "--bench-id", "bench-42", "--work", "/w"},
			"SIZE_CODE=0\nSIZE_DEPS=\nSIZE_BUILDS=1\nSIZE_COPY=/w/copy-ruby-app-3\nSIZE_TAG=stacklab-size/ruby-app:bench-42-run-3\n" +
				"SIZE_LOG=/w/ruby-app-3.build.log\nSIZE_GOCACHE=\nSIZE_TOUCH=\n" +
				"SIZE_TOUCH_FAULT=ruby-app: stack.env states no SIZE_TOUCH, the handler file the rebuild changes by one line (stacks/README.md)\n" +
				"SIZE_BINARY=\nSIZE_DEPS_SRC=/usr/share/gems  /usr/lib/ruby\n" +
				"SIZE_DEPS_SCC=--format json --no-cocomo --no-complexity --no-gitignore --no-ignore -- /usr/share/gems /usr/lib/ruby\n" +
				"SIZE_DEPS_CODE=/r/raw/run-3/ruby-app/deps-code.scc.json\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := "/r/raw/run-" + c.flags[1] + "/" + filepath.Base(c.dir)
			code, stdout, stderr := runSizeOut(t, "", nil, append([]string{"plan", c.dir, out}, c.flags...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stdout != c.want {
				t.Errorf("size plan printed\n%s\nwant\n%s", stdout, c.want)
			}
		})
	}
	for _, bad := range [][]string{
		{"--run", "0", "--build", "0"},
		{"--run", "1", "--build", "2"},
		{"--run", "1", "--build", "1", "--work", "/w"},
	} {
		if code, _, _ := runSizeOut(t, "", nil, append([]string{"plan", goApp, "/r"}, bad...)...); code != 2 {
			t.Errorf("size plan %v: exit %d, want 2", bad, code)
		}
	}
}

// A failed measure is taken or not, and one not taken always leaves its
// .error: the one size wrote, the bench's line (with the build's log),
// or a line of its own when the failure left nothing.
func TestFailed(t *testing.T) {
	run := t.TempDir()
	out := filepath.Join(run, "go-nethttp")
	os.MkdirAll(out, 0o755)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			return "(none)"
		}
		return string(b)
	}

	// The stack folder's fault: size wrote the .error and said so.
	os.WriteFile(filepath.Join(out, "code.error"), []byte("go-nethttp: stack.env states no SIZE_EXCLUDE\n"), 0o644)
	if code, stdout, stderr := runSizeOut(t, "", nil, "failed", out, "code"); code != 0 || stdout != "SIZE_TAKEN=0\n" || stderr != "" {
		t.Errorf("code with its .error: exit %d, %q, %q", code, stdout, stderr)
	}
	// A failure that left the result: taken, nothing written.
	os.MkdirAll(filepath.Join(out, "deps"), 0o755)
	if code, stdout, stderr := runSizeOut(t, "", nil, "failed", out, "deps"); code != 0 || stdout != "SIZE_TAKEN=1\n" || stderr != "" || read("deps.error") != "(none)" {
		t.Errorf("deps with its result: exit %d, %q, %q, deps.error %q", code, stdout, stderr, read("deps.error"))
	}
	// A failure that left nothing gets a line of its own.
	line := "go-nethttp: image: lab_tool size failed (its message above)"
	if code, stdout, stderr := runSizeOut(t, "", nil, "failed", out, "image"); code != 0 || stdout != "SIZE_TAKEN=0\n" || stderr != "bench: "+line+"\n" {
		t.Errorf("image with nothing: exit %d, %q, %q", code, stdout, stderr)
	}
	if got := read("image.error"); got != line+"\n" {
		t.Errorf("image.error %q, want %q", got, line+"\n")
	}
	// A build the bench saw fail: its line, and its log kept beside.
	log := filepath.Join(run, "build.log")
	os.WriteFile(log, []byte("step 3/9: exit 1\n"), 0o644)
	code, stdout, stderr := runSizeOut(t, "", nil, "failed", out, "build", "--line", "go-nethttp: the clean build failed", "--log", log)
	if code != 0 || stdout != "SIZE_TAKEN=0\n" || stderr != "bench: go-nethttp: the clean build failed\n" {
		t.Errorf("build: exit %d, %q, %q", code, stdout, stderr)
	}
	if read("build.error") != "go-nethttp: the clean build failed\n" || read("build.log") != "step 3/9: exit 1\n" {
		t.Errorf("build.error %q, build.log %q", read("build.error"), read("build.log"))
	}
	for _, bad := range [][]string{{out, "window"}, {out, "code", "--log", log}, {out}} {
		if code, _, _ := runSizeOut(t, "", nil, append([]string{"failed"}, bad...)...); code != 2 {
			t.Errorf("size failed %v: exit %d, want 2", bad, code)
		}
	}
}

// The build's times are recorded, and said in whole seconds.
func TestBuildSaysItsTimes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rust-axum")
	os.MkdirAll(out, 0o755)
	code, _, stderr := runSizeOut(t, "", nil, "build", out, "--clean-ms", "81999", "--rebuild-ms", "4020", "--touched", "src/main.rs", "--cpus", "0-1")
	if code != 0 || stderr != "bench: rust-axum: clean build 81 s, rebuild 4 s\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	var b sizes.Build
	if err := sizes.ReadJSON(filepath.Join(out, sizes.BuildFile), &b); err != nil || b.CleanS != 81.999 || b.RebuildS != 4.02 {
		t.Errorf("build.json: %+v (%v)", b, err)
	}
}
