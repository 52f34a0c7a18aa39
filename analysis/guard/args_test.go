package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/study"
	"stacklab/analysis/synth"
)

// scriptRun runs guard --args for the lab at root on scripts/guard's
// command line args; call holds --args' own flags (--compare, --base-row).
func scriptRun(t *testing.T, root string, call []string, args ...string) (int, string, string) {
	t.Helper()
	full := append(append([]string{"--args", "--lab-root", root}, call...), "--")
	return guardRun(t, append(full, args...)...)
}

// lab is a lab's folder with the pages study in studies/ (and, given a
// results folder, studies/pages.baseline naming it).
func lab(t *testing.T, baseline string) string {
	t.Helper()
	root := t.TempDir()
	b, err := os.ReadFile(synth.StudyPath("pages"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "studies"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "studies", "pages.toml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if baseline != "" {
		if err := writePointer(filepath.Join(root, "studies", "pages.baseline"), baseline, "pages"); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// lines is the --args answer with everything but these keys as with no flag.
func lines(root, study string, set map[string]string) string {
	var b strings.Builder
	for _, k := range []string{"USAGE", "STUDY_FILE", "STACKS", "LABEL", "AGAINST", "STACK_FOLDER", "PROFILE", "RUNS", "WARMUP", "DURATION", "MODE"} {
		v, ok := set[k]
		if !ok {
			v = map[string]string{"USAGE": "0", "STUDY_FILE": study, "LABEL": "guard"}[k]
		}
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}

// A run held to the study's baseline (the .baseline file beside it) is
// measured as the baseline's folder was; --stacks and --label reach the
// bench.
func TestArgsBaseline(t *testing.T) {
	root := lab(t, folder(t, "base", pages(5, 40000)))
	pagesFile := filepath.Join(root, "studies", "pages.toml")
	code, out, errs := scriptRun(t, root, nil, "pages", "--stacks", "go-nethttp", "--label", "night", "--row", "go-nethttp=node-fastify", "--markdown", "-")
	want := lines(root, pagesFile, map[string]string{"STACKS": "go-nethttp", "LABEL": "night", "PROFILE": "full", "RUNS": "5", "WARMUP": "3", "DURATION": "15", "MODE": "docker"})
	if code != 0 || out != want {
		t.Errorf("exit %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
	for _, flag := range []string{"--runs", "--profile"} {
		code, out, errs = scriptRun(t, root, nil, "pages", flag, "3")
		if want := "guard: --profile and --runs are the baseline's (" + filepath.Join(root, "studies", "pages.baseline") + "); they apply to a first baseline only\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%s: exit %d %q %q", flag, code, out, errs)
		}
	}
	// a baseline of another study is refused before the bench
	io := filepath.Join(root, "studies", "io.toml")
	b, _ := os.ReadFile(synth.StudyPath("io"))
	os.WriteFile(io, b, 0o644)
	code, _, errs = scriptRun(t, root, nil, "io", "--baseline", filepath.Join(root, "studies", "pages.baseline"))
	if code != 2 || !strings.Contains(errs, "pages.baseline is a baseline of study pages, not of "+io) {
		t.Errorf("another study's baseline: exit %d %q", code, errs)
	}
}

// With no baseline yet, --update measures a first one: the quick profile
// and five runs, unless --profile and --runs say otherwise; without
// --update there is nothing to hold the run to.
func TestArgsFirstBaseline(t *testing.T) {
	root := lab(t, "")
	pagesFile := filepath.Join(root, "studies", "pages.toml")
	code, out, errs := scriptRun(t, root, nil, "pages", "--update")
	if want := lines(root, pagesFile, map[string]string{"PROFILE": "quick", "RUNS": "5"}); code != 0 || out != want {
		t.Errorf("exit %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
	code, out, errs = scriptRun(t, root, nil, "pages", "--update", "--profile", "full", "--runs", "7")
	if want := lines(root, pagesFile, map[string]string{"PROFILE": "full", "RUNS": "7"}); code != 0 || out != want {
		t.Errorf("exit %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
	elsewhere := filepath.Join(t.TempDir(), "x.baseline")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pages"}, filepath.Join(root, "studies", "pages.baseline") + ": no such baseline file (run with --update once to make a first one)"},
		{[]string{"pages", "--baseline", elsewhere}, elsewhere + ": no such baseline file (run with --update once to make a first one)"},
		{[]string{"pages", "--update", "--baseline", root}, "--update writes a baseline file: --baseline " + root + " should end in .baseline"},
		{[]string{"pages", "--update", "--row", "a"}, "--row a: want NEW=BASE (a row of the new run, a row of the baseline)"},
		{[]string{"pages", "--update", "--row", "a=b", "--row", "a=c"}, "--row a=c: row a is already held to b"},
	} {
		code, out, errs := scriptRun(t, root, nil, c.args...)
		if want := "guard: " + c.want + "\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d %q %q; want %q", c.args, code, out, errs, want)
		}
	}
}

// --against REV measures one stack and its build at REV in one bench, on
// the paired profile unless --profile says otherwise; the stack's folder
// is the study's stacks_dir's, relative to the lab.
func TestArgsAgainst(t *testing.T) {
	myAPI := "../../studies/examples/my-api.toml"
	code, out, errs := scriptRun(t, "../..", nil, myAPI, "--stacks", "my-api", "--against", "HEAD~2", "--markdown", "m.md")
	if want := lines("../..", myAPI, map[string]string{"STACKS": "my-api", "AGAINST": "HEAD~2", "STACK_FOLDER": "studies/examples/my-api/my-api", "PROFILE": "paired"}); code != 0 || out != want {
		t.Errorf("exit %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
	code, out, _ = scriptRun(t, "../..", nil, myAPI, "--stacks", "my-api", "--against", "HEAD", "--profile", "quick", "--runs", "4", "--label", "x")
	if want := lines("../..", myAPI, map[string]string{"STACKS": "my-api", "AGAINST": "HEAD", "STACK_FOLDER": "studies/examples/my-api/my-api", "LABEL": "x", "PROFILE": "quick", "RUNS": "4"}); code != 0 || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, out, want)
	}
	one := "--against builds one stack at another commit: name it with --stacks STACK (a stack, not a variant)"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--against", "HEAD"}, one},
		{[]string{"--stacks", "my-api,other", "--against", "HEAD"}, one},
		{[]string{"--stacks", "my-api[v]", "--against", "HEAD"}, one},
		{[]string{"--stacks", "my-api", "--against", "HEAD", "--update"}, "--against holds one build to another in one bench: there is no baseline to --update"},
		{[]string{"--stacks", "my-api", "--against", "HEAD", "--baseline", "b.baseline"}, "--against reads no baseline file: both builds are measured now"},
		{[]string{"--stacks", "my-api", "--against", "HEAD", "--row", "a=b"}, "--against sets the rows itself (STACK against STACK-at-REV)"},
		{[]string{"--stacks", "nope", "--against", "HEAD"}, myAPI + ": no stack nope (no ../../stacks/nope/stack.env)"},
	} {
		code, out, errs := scriptRun(t, "../..", nil, append([]string{myAPI}, c.args...)...)
		if want := "guard: " + c.want + "\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d %q %q; want %q", c.args, code, out, errs, want)
		}
	}
}

// -h or --help asks for the usage (bash prints the script's header) as
// soon as it is read; the flags are read in order, the first fault told
// in one line, exit 2.
func TestArgsRefused(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"nope", "--help", "--bad"}} {
		if code, out, errs := scriptRun(t, "../..", nil, args...); code != 0 || out != "USAGE=1\n" || errs != "" {
			t.Errorf("%q: exit %d %q %q", args, code, out, errs)
		}
	}
	_, err := study.Named("../..", "nope")
	if err == nil {
		t.Fatal("study.Named: no error for nope")
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[[case]]\nname = \"x\"\npath = \"x\"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bad", "--help"}, "unknown flag '--bad' (see scripts/guard --help)"},
		{[]string{"pages", "--stacks"}, "--stacks needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--row", "--update"}, "--row needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--markdown", ""}, "--markdown needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--baseline"}, "--baseline needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--label", "--x"}, "--label needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--profile"}, "--profile needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--runs"}, "--runs needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--against"}, "--against needs a value (see scripts/guard --help)"},
		{[]string{"pages", "--label", "a\nb"}, `--label "a\nb": want a value of one line`},
		{[]string{"pages", "io"}, "one study, not 'pages' and 'io'"},
		{[]string{}, "which study? (usage: scripts/guard STUDY [flags]; see --help)"},
		{[]string{"--update"}, "which study? (usage: scripts/guard STUDY [flags]; see --help)"},
		{[]string{"nope", "--against", "HEAD"}, err.Error()},
		{[]string{"/no/such.toml"}, "--study '/no/such.toml': no such study file"},
		{[]string{bad, "--update"}, bad + `: case "x": path: "x": want a path starting with / (the lab always targets 127.0.0.1)`},
	} {
		code, out, errs := scriptRun(t, "../..", nil, c.args...)
		if want := "guard: " + c.want + "\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d %q %q; want %q", c.args, code, out, errs, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--args", "--", "pages"}, "--args needs --lab-root DIR, the lab's folder"},
		{[]string{"--args", "--lab-root"}, "--args: --lab-root needs a value"},
		{[]string{"--args", "--lab-root", "../..", "--base-row", "r", "--", "pages"}, "--args: --base-row goes with --compare"},
		{[]string{"--args", "--lab-root", "../..", "--what", "--", "pages"}, "--args: --what: unknown flag (want --lab-root DIR [--compare NEW_DIR [--base-row ROW]] -- GUARD_ARGS...)"},
	} {
		code, out, errs := guardRun(t, c.args...)
		if want := "guard: " + c.want + "\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d %q %q; want %q", c.args, code, out, errs, want)
		}
	}
}

// --compare makes the comparison the command line asks for: the bench's
// folder held to the baseline (--row and --markdown reaching it), made a
// first baseline with --update, or, with --against, its stack's row held
// to the row built at REV.
func TestArgsCompare(t *testing.T) {
	root := lab(t, folder(t, "base", pages(5, 40000)))
	now := folder(t, "now", pages(5, 30000))
	code, out, errs := scriptRun(t, root, []string{"--compare", now}, "pages", "--markdown", "-")
	if code != 1 || !strings.Contains(out, "guard: go-nethttp up regressed: req/s 40,000 → 30,000") || !strings.Contains(out, "| go-nethttp up (GET /up) | req/s | 40,000 | 30,000 |") {
		t.Errorf("held to the baseline: exit %d %s\n%s", code, errs, out)
	}
	code, out, errs = scriptRun(t, root, []string{"--compare", now}, "pages", "--row", "go-nethttp=node-fastify", "--row", "node-fastify=node-fastify")
	if code != 0 || !strings.Contains(out, "guard: go-nethttp as node-fastify up ") {
		t.Errorf("--row: exit %d %s\n%s", code, errs, out)
	}
	first := lab(t, "")
	code, out, errs = scriptRun(t, first, []string{"--compare", now}, "pages", "--update")
	if code != 0 || !strings.Contains(out, "pages.baseline written: the first baseline of study pages is now") {
		t.Errorf("a first baseline: exit %d %s\n%s", code, errs, out)
	}
	sp := pages(5, 40000)
	sp.Rate["node-fastify"] = 30000
	both := folder(t, "both", sp)
	against := []string{synth.StudyPath("pages"), "--stacks", "node-fastify", "--against", "HEAD"}
	code, out, errs = scriptRun(t, "../..", []string{"--compare", both, "--base-row", "go-nethttp"}, against...)
	if code != 1 || !strings.Contains(out, "guard: node-fastify as go-nethttp up regressed: req/s 40,000 → 30,000, -25.0%") || strings.Contains(out, "guard: go-nethttp up") {
		t.Errorf("--against: exit %d %s\n%s", code, errs, out)
	}
	code, _, errs = scriptRun(t, "../..", []string{"--compare", both}, against...)
	if want := "guard: --args --compare: --against HEAD holds node-fastify to its build at REV: name that row with --base-row\n"; code != 2 || errs != want {
		t.Errorf("--against without --base-row: exit %d %q", code, errs)
	}
}
