package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/synth"
)

// The committed results/README.md and results/index.html are what the
// committed folders give: a folder added or re-derived without
// `scripts/tool resultsindex` fails here.
func TestCommittedIndexIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "results")
	files, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatalf("results/%s: %v (scripts/tool resultsindex writes it)", f.Name, err)
		}
		if d := firstDiff(old, f.Data); d != "" {
			t.Errorf("results/%s is stale, run scripts/tool resultsindex: %s", f.Name, d)
		}
	}
}

const manifestQuiet = `{"manifest_version":2,"complete":true,"started_at":"2026-12-03T10:00:00Z",
 "study":"pages","profile":"full","host":{"profile":"local","settings":{},"fingerprint":{"cpu_model":"Test CPU","cores":4}},
 "parameters":{"runs":2,"stacks":["go-nethttp","rust-axum"]},
 "runs":[{"run":1,"order":[],"discarded":[{"reason":"busy"}],"quiet":{"quiet":true,"why":[],"waits":[{"at":"before the run","quiet":true}]}},
         {"run":2,"order":[],"discarded":[],"quiet":{"quiet":false,"why":["load 3.1"],"waits":[{"at":"before the run","quiet":false}]}}]}`

const manifestSize = `{"manifest_version":2,"complete":true,"started_at":"2026-12-02T10:00:00Z",
 "study":"size","profile":"quick","host":{"profile":"local","settings":{},"fingerprint":{"cpu_model":"Test CPU","cores":4}},
 "parameters":{"runs":1,"stacks":["go-nethttp"]},"runs":[{"run":1,"order":[],"discarded":[]}]}`

var write = synth.File

// What a reader of the index sees: each folder's quiet verdict, its runs
// and discarded runs, its links, and a folder without a manifest listed by
// its files; --check finds a stale file and says which.
func TestIndexOfFolders(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "2026-12-03-local-pages", "manifest.json"), manifestQuiet)
	write(t, filepath.Join(dir, "2026-12-03-local-pages", "summary.md"), "x")
	write(t, filepath.Join(dir, "2026-12-03-local-pages", "report.html"), "x")
	write(t, filepath.Join(dir, "2026-12-03-local-pages", "NOTES.md"), "x")
	write(t, filepath.Join(dir, "2026-12-02-local-size", "manifest.json"), manifestSize)
	write(t, filepath.Join(dir, "2026-12-02-local-size", "summary.md"), "x")
	write(t, filepath.Join(dir, "2026-12-01-local-logs", "before.log"), "x")
	// a native folder's profile cell says so: it is never read as a Docker one
	write(t, filepath.Join(dir, "2026-12-02-local-native", "manifest.json"),
		strings.NewReplacer(`"runs":1,`, `"runs":1,"extra":{"run_mode":"native"},`, "go-nethttp", "c-libmicrohttpd").Replace(manifestSize))

	files, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, page := string(files[0].Data), string(files[1].Data)
	rows := cells(md)
	for name, want := range map[string]string{
		"2026-12-03-local-pages":  "[2026-12-03-local-pages](2026-12-03-local-pages/summary.md)|2026-12-03|pages|full|local (Test CPU, 4 cores)|go-nethttp, rust-axum|no: run 2|2 (1 discarded)|[NOTES.md](2026-12-03-local-pages/NOTES.md)",
		"2026-12-02-local-size":   "[2026-12-02-local-size](2026-12-02-local-size/summary.md)|2026-12-02|size|quick|local (Test CPU, 4 cores)|go-nethttp|no gate|1|",
		"2026-12-01-local-logs":   "[2026-12-01-local-logs](2026-12-01-local-logs/)|2026-12-01|no manifest.json: before.log||||||",
		"2026-12-02-local-native": "[2026-12-02-local-native](2026-12-02-local-native/)|2026-12-02|size|quick, native|local (Test CPU, 4 cores)|c-libmicrohttpd|no gate|1|",
	} {
		if rows[name] != want {
			t.Errorf("README.md's row of %s:\n got %q\nwant %q", name, rows[name], want)
		}
	}
	for _, want := range []string{
		`<a href="2026-12-03-local-pages/report.html">report</a>`,
		`<a href="2026-12-01-local-logs/before.log">before.log</a>`,
		`<tr id="stack-go-nethttp"><td>go-nethttp</td><td><a href="2026-12-02-local-size/summary.md">2026-12-02-local-size</a>, <a href="2026-12-03-local-pages/report.html">2026-12-03-local-pages</a></td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("index.html must read without scripts")
	}

	var out bytes.Buffer
	stdout = &out
	defer func() { stdout = os.Stdout }()
	if code := run([]string{"--check", dir}); code != 1 || !strings.Contains(out.String(), "README.md is stale") {
		t.Fatalf("--check before writing: exit %d, %q; want 1 naming README.md", code, out.String())
	}
	if code := run([]string{dir}); code != 0 {
		t.Fatalf("writing: exit %d", code)
	}
	out.Reset()
	if code := run([]string{"--check", dir}); code != 0 {
		t.Fatalf("--check after writing: exit %d, %q", code, out.String())
	}
	write(t, filepath.Join(dir, "2026-12-04-local-new", "manifest.json"), manifestSize)
	if code := run([]string{"--check", dir}); code != 1 {
		t.Fatalf("--check after a folder was added: exit %d, want 1", code)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x", "manifest.json"), "{")
	var errb bytes.Buffer
	stderr = &errb
	defer func() { stderr = os.Stderr }()
	if code := run([]string{dir}); code != 2 || !strings.Contains(errb.String(), filepath.Join(dir, "x", "manifest.json")) {
		t.Fatalf("a broken manifest: exit %d, %q; want 2 naming the file", code, errb.String())
	}
	if code := run([]string{"--bogus"}); code != 2 {
		t.Fatalf("--bogus: exit %d, want 2", code)
	}
}

// cells maps each table row's folder name to its cells, trimmed, joined by |.
func cells(md string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| [") {
			continue
		}
		var c []string
		for _, x := range strings.Split(strings.Trim(line, "|"), "|") {
			c = append(c, strings.TrimSpace(x))
		}
		name := strings.TrimPrefix(c[0][:strings.Index(c[0], "]")], "[")
		out[name] = strings.Join(c, "|")
	}
	return out
}
