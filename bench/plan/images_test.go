package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile creates path's folders and the file.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The images a bench builds, and when, in a lab of fixture stacks: a, b
// and c built by the lab (Docker has a's tag, b's from older inputs, none
// of c), own an IMAGE of its own from the extra folder; the studies a plain
// one (oha drives it: the headroom needs the mock upstream), a capacity
// ramp with no upstream delay (no mock at all) and one with a delay in its
// mix (the mock, without a headroom).
func TestImages(t *testing.T) {
	dir := t.TempDir()
	root, extra := filepath.Join(dir, "lab"), filepath.Join(dir, "extra")
	for _, s := range []string{"a", "b", "c"} {
		writeFile(t, filepath.Join(root, "stacks", s, "stack.env"), "INPUTS=\"\"\nTOOLCHAINS=\"\"\n")
	}
	writeFile(t, filepath.Join(extra, "own", "stack.env"), "IMAGE=example/own:1\nCONTRACT=none\n")
	tags := filepath.Join(dir, "tags")
	writeFile(t, tags, "a stacklab/a:111\nb stacklab/b:222\nc stacklab/c:333\n")
	images := filepath.Join(dir, "images")
	writeFile(t, images, "stacklab/a:111\nstacklab/b:old\n<none>:<none>\nexample/own:1\n")
	plain := filepath.Join(dir, "plain.toml")
	writeFile(t, plain, "[[variant]]\nstack = \"a\"\nname = \"pg\"\ndatabase = \"postgres\"\n\n"+
		"[[variant]]\nstack = \"a\"\nname = \"env\"\nenv = { X = \"1\" }\n\n[[case]]\nname = \"items\"\npath = \"/items\"\n")
	ramp := "[[case]]\nname = \"capacity\"\n\n[case.ramp]\np99_ms = 100\nthink_s = 3\nstart = 200\ngrowth = 2\nresolution = 0.1\n" +
		"max_rate = 50000\nmax_steps = 16\ntimeout_s = 5\n\n[[case.mix]]\nname = \"items\"\npath = \"/items\"\nweight = 1\n"
	capacity := filepath.Join(dir, "capacity.toml")
	writeFile(t, capacity, ramp)
	waits := filepath.Join(dir, "waits.toml")
	writeFile(t, waits, ramp+"\n[[case.mix]]\nname = \"wait\"\npath = \"/delay\"\nweight = 1\nupstream_delay_ms = 100\n")

	for _, c := range []struct {
		name, study string
		args        []string
		want        string
	}{
		{"every image before the first row", plain, []string{"--rows", "c,a,b,own"},
			"NATIVE=\nNOW=c a b own upstream\nLATE=\nWHILE_OHA=\n"},
		{"late: the built and the own now, the others late in row order", plain, []string{"--rows", "c,a,b,own", "--late-images", "1"},
			"NATIVE=\nNOW=a own upstream\nLATE=c b\nWHILE_OHA=\n"},
		{"oha compiling: the first row's late stack built meanwhile", plain, []string{"--rows", "c,a,b,own", "--late-images", "1", "--oha-later", "1"},
			"NATIVE=\nNOW=a own upstream\nLATE=c b\nWHILE_OHA=c\n"},
		{"oha compiling, the first row's stack built: none meanwhile", plain, []string{"--rows", "a,c", "--late-images", "1", "--oha-later", "1"},
			"NATIVE=\nNOW=a upstream\nLATE=c\nWHILE_OHA=\n"},
		{"oha compiling, not late: none meanwhile", plain, []string{"--rows", "c,a", "--oha-later", "1"},
			"NATIVE=\nNOW=c a upstream\nLATE=\nWHILE_OHA=\n"},
		{"natively: the stacks built here, the roles' images alone", plain, []string{"--rows", "c,a[pg],b", "--mode", "native", "--late-images", "1", "--oha-later", "1"},
			"NATIVE=c a b\nNOW=upstream postgres\nLATE=\nWHILE_OHA=\n"},
		{"a stack's variant rows: its image once, the Postgres role for one of them", plain, []string{"--rows", "b,a,a[pg],a[env],b"},
			"NATIVE=\nNOW=b a upstream postgres\nLATE=\nWHILE_OHA=\n"},
		{"variant rows, late", plain, []string{"--rows", "a[env],b,a", "--late-images", "1"},
			"NATIVE=\nNOW=a upstream\nLATE=b\nWHILE_OHA=\n"},
		{"a ramp alone: no headroom, no mock upstream", capacity, []string{"--rows", "a"},
			"NATIVE=\nNOW=a\nLATE=\nWHILE_OHA=\n"},
		{"a ramp that waits on the mock upstream", waits, []string{"--rows", "a"},
			"NATIVE=\nNOW=a upstream\nLATE=\nWHILE_OHA=\n"},
	} {
		args := append([]string{"images", c.study, "--lab-root", root, "--extra-stacks", extra, "--tags", tags, "--images", images}, c.args...)
		code, out, errs := runPlan(args...)
		if code != 0 || out != c.want {
			t.Errorf("%s: exit %d %s\n%s\nwant\n%s", c.name, code, errs, out, c.want)
		}
	}

	// Without Docker's images nothing is built, so every stack but an
	// IMAGE of its own waits.
	code, out, errs := runPlan("images", plain, "--lab-root", root, "--extra-stacks", extra, "--rows", "a,own,b", "--late-images", "1")
	if want := "NATIVE=\nNOW=own upstream\nLATE=a b\nWHILE_OHA=\n"; code != 0 || out != want {
		t.Errorf("no images: exit %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
	// Bad flags, or a row whose stack has no folder: one line, exit 2.
	for _, args := range [][]string{
		{"--rows", "a", "--mode", "remote"},
		{"--late-images", "1"},
		{"--rows", "a,nope"},
		{"--rows", "a", "--images", filepath.Join(dir, "absent")},
	} {
		code, out, errs := runPlan(append([]string{"images", plain, "--lab-root", root}, args...)...)
		if code != 2 || out != "" || !strings.HasSuffix(errs, "\n") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, %q, stderr %q; want exit 2 and one line", args, code, out, errs)
		}
	}
}
