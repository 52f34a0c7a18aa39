package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/synth"
	"stacklab/formats/golden"
)

func sizeFolder(t testing.TB, change func(dir string), keepSums bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-size")
	must(t, synth.WriteSize(dir, synth.SizeSpec{Runs: 3, Host: synth.LocalHost()}))
	if change != nil {
		change(dir)
		if !keepSums {
			must(t, results.WriteChecksums(dir))
		}
	}
	return dir
}

func sizeRaw(dir, stack, name string) string {
	return filepath.Join(dir, "raw", "run-1", stack, filepath.FromSlash(name))
}

// The size study's outputs, byte for byte, and its failures' lines.
func TestSizeGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(dir string)
		code   int
	}{
		{"size", nil, 0},
		// node-fastify's folder states no exclusion rule, and go-nethttp's
		// lock data is missing: one line each, the rest is measured.
		{"size-failures", func(dir string) {
			must(t, os.Remove(sizeRaw(dir, "node-fastify", "code.scc.json")))
			must(t, os.Remove(sizeRaw(dir, "node-fastify", "code.rule.json")))
			must(t, os.WriteFile(sizeRaw(dir, "node-fastify", "code.error"), []byte("node-fastify: stack.env states no SIZE_EXCLUDE, the rule that keeps generated and vendored files out of the code count (SIZE_EXCLUDE=\"glob ...\" or SIZE_EXCLUDE=none; stacks/README.md)\n"), 0o644))
			must(t, os.RemoveAll(sizeRaw(dir, "go-nethttp", "deps")))
			must(t, os.Remove(sizeRaw(dir, "go-nethttp", "deps-code.scc.json")))
			must(t, os.WriteFile(sizeRaw(dir, "go-nethttp", "deps.error"), []byte("go-nethttp: lock data missing: go.sum (SIZE_LOCK names go:go.sum)\n"), 0o644))
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sizeFolder(t, tc.change, false)
			var out, errb bytes.Buffer
			code := run([]string{dir}, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errb.String())
			}
			md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			must(t, err)
			if !bytes.Equal(out.Bytes(), md) {
				t.Errorf("stdout is not summary.md")
			}
			files := []string{"summary.md", "summary.json", "report.html"}
			if tc.code != 0 {
				must(t, os.WriteFile(filepath.Join(dir, "stderr.txt"), errb.Bytes(), 0o644))
				files = append(files, "stderr.txt")
			}
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(dir, f))
				must(t, err)
				golden.Check(t, filepath.Join("testdata", "golden", tc.name, f), got)
			}
		})
	}
}

// Bad input: one line naming the file, exit 2, nothing written.
func TestSizeFaults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		change   func(dir string)
		keepSums bool
		stderr   string
	}{
		{"truncated scc output", func(dir string) {
			p := sizeRaw(dir, "go-nethttp", "code.scc.json")
			b, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		}, false, "summarize: RUN/raw/run-1/go-nethttp/code.scc.json: truncated or corrupt scc JSON: unexpected end of JSON input\n"},
		{"corrupt lock copy", func(dir string) {
			must(t, os.WriteFile(sizeRaw(dir, "node-fastify", "deps/npm-package-lock.json"), []byte(`{"lockfileVersion":3,"packages":{"node_mod`), 0o644))
		}, false, "summarize: RUN/raw/run-1/node-fastify/deps/npm-package-lock.json: truncated or corrupt package-lock.json: unexpected end of JSON input\n"},
		{"truncated build record", func(dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "raw", "run-2", "node-fastify", "build.json"), []byte(`{"clean_s": 14`), 0o644))
		}, false, "summarize: RUN/raw/run-2/node-fastify/build.json: truncated or corrupt JSON: unexpected EOF\n"},
		{"missing image record", func(dir string) {
			must(t, os.Remove(filepath.Join(dir, "raw", "run-3", "go-nethttp", "image.json")))
		}, false, "summarize: RUN/raw/run-3/go-nethttp/image.json: missing\n"},
		{"changed after the bench", func(dir string) {
			must(t, os.WriteFile(sizeRaw(dir, "go-nethttp", "deps/go-list.txt"), []byte("github.com/mattn/go-sqlite3 v1.14.54 /x\n"), 0o644))
		}, true, "summarize: RUN/raw/run-1/go-nethttp/deps/go-list.txt: checksum mismatch: the raw file changed after the bench wrote checksums.sha256\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sizeFolder(t, tc.change, tc.keepSums)
			var out, errb bytes.Buffer
			if code := run([]string{dir}, &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, errb.String())
			}
			if got := strings.ReplaceAll(errb.String(), dir, "RUN"); got != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tc.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "summary.md")); err == nil {
				t.Errorf("summary.md written despite bad input")
			}
		})
	}
}

// A bench stopped during a stack's build: the folder is marked incomplete,
// what was measured is shown, the rest is one FAIL line each (exit 1).
func TestSizeIncomplete(t *testing.T) {
	dir := sizeFolder(t, func(dir string) {
		must(t, os.RemoveAll(filepath.Join(dir, "raw", "run-3")))
		must(t, os.Remove(filepath.Join(dir, "raw", "run-2", "node-fastify", "build.json")))
		must(t, os.Remove(filepath.Join(dir, "raw", "run-2", "node-fastify", "image.json")))
		editManifest(t, dir, func(m *manifest.Manifest) {
			m.Complete, m.IncompleteReason = false, "interrupted by SIGINT"
			m.Runs = m.Runs[:2]
		})
	}, false)
	var out, errb bytes.Buffer
	if code := run([]string{dir}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errb.String())
	}
	want := "summarize: FAIL run 2, node-fastify, build: not measured: the bench stopped before it (interrupted by SIGINT)\n"
	if errb.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errb.String(), want)
	}
	if !strings.Contains(out.String(), "**Incomplete run**: interrupted by SIGINT.") {
		t.Errorf("summary.md does not say the run is incomplete")
	}
}
