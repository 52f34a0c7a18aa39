package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/synth"
)

// With verify's captures in the raw files, every case table gets a
// bytes/answer column: head and framing from the capture, body from oha
// (synth writes 2 body bytes an answer). Without them the tables are as
// before (the pages golden).
func TestBytesPerAnswer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-pages")
	sp := synth.Pages()
	sp.Answers = true
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	md := out.String()
	from := strings.Index(md, "### json")
	if from < 0 {
		t.Fatalf("no json table:\n%s", md)
	}
	table := md[from : from+strings.Index(md[from:], "\n\n\n")+1]
	lines := strings.Split(md[from:], "\n")
	if !strings.Contains(lines[2], "bytes/answer") {
		t.Fatalf("no bytes/answer column: %q", lines[2])
	}
	// go-nethttp: 100 head + 2 body; node-fastify: 400 head + 10 framing + 2.
	if !strings.Contains(md[from:], "|          102 |") || !strings.Contains(md[from:], "|          412 |") {
		t.Errorf("bytes per answer not 102 and 412:\n%s", table)
	}
	if !strings.Contains(md, "bytes/answer: what one answer put on the wire") {
		t.Error("the column is not explained")
	}
	// A corrupt answers.json is one line naming it, and exit 2.
	p := filepath.Join(dir, "raw/run-1/go-nethttp/answers.json")
	os.WriteFile(p, []byte(`[{"path":"/json","status":200,"head_bytes":100,"extra":1}]`), 0o644)
	if err := results.WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if rc := run([]string{dir}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "go-nethttp/answers.json: not an answers file") {
		t.Errorf("corrupt answers.json: exit %d, %q", rc, errb.String())
	}
}
