package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
