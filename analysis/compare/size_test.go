package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/synth"
)

func sizeFolder(t *testing.T, name string, sp synth.SizeSpec) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := synth.WriteSize(dir, sp); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Two size runs of five builds each: node-fastify's builds 20% slower in B.
func TestCompareSize(t *testing.T) {
	a := sizeFolder(t, "2026-12-01-local-size", synth.SizeSpec{Runs: 5, Host: synth.LocalHost()})
	b := sizeFolder(t, "2026-12-02-local-size", synth.SizeSpec{Runs: 5, Host: synth.LocalHost(), Slower: 1.2})
	var out, errb bytes.Buffer
	if code := run([]string{a, b}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	golden(t, "size.md", out.Bytes())
	flat := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"| node-fastify | clean build | 141 s | 169 s | +20.00% (p=0.008 n=5) |",
		"| go-nethttp | clean build | 41.0 s | 41.0 s | ~ (p=1.000 n=5) |",
		"| go-nethttp | app code lines | 496 | 496 | 0% |",
		"| go-nethttp | image unpacked | 8.58 MiB | 8.58 MiB | 0% (every run the same) |",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	// A size folder against a load study's: refused, one line.
	p := folder(t, "pages", synth.Pages())
	out.Reset()
	errb.Reset()
	if code := run([]string{a, p}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "one is a size study and the other is not") {
		t.Errorf("size vs pages: exit %d, stderr %q", code, errb.String())
	}
}
