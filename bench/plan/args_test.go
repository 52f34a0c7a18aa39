package main

import (
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/profile"
	"stacklab/analysis/study"
)

// benchArgsRun runs plan args on scripts/bench's command line ARGS.
func benchArgsRun(args ...string) (int, string, string) {
	return runPlan(append([]string{"args", "--lab-root", "../..", "--"}, args...)...)
}

// wantLines fails unless every line of want is a whole line of out.
func wantLines(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.HasPrefix(out, w+"\n") && !strings.Contains(out, "\n"+w+"\n") {
			t.Errorf("%s: no line %q in\n%s", what, w, out)
		}
	}
}

// With no flag the bench runs the study all on the quick profile into
// the lab's results/, in containers, with the quiet gate and the sampler.
func TestArgsDefaults(t *testing.T) {
	code, out, errs := benchArgsRun()
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	quick, err := profile.Get("quick")
	if err != nil {
		t.Fatal(err)
	}
	head := "USAGE=0\nSTUDY_FILE=" + filepath.Join("../..", "studies", "all.toml") + "\nPROFILE=quick\nSTACKS_ARG=\nLABEL=\n" +
		"RESULTS_ROOT=" + filepath.Join("../..", "results") + "\nRUN_MODE=docker\nQUIET_GATE=1\nSAMPLER=1\nRUNS_ARG=\n"
	if want := head + quick.Shell() + "RUNS=1\nWARMUP=1\nDURATION=5\nSAMPLER_INTERVAL=100ms\n"; out != want {
		t.Errorf("defaults:\n%s\nwant\n%s", out, want)
	}
}

// Every flag reaches its line; a flag given twice counts as given last,
// and a value may start with one dash.
func TestArgsEveryFlag(t *testing.T) {
	code, out, errs := benchArgsRun("--study", "pages", "--profile", "quick", "--profile", "full", "--stacks", "go-nethttp,go-nethttp[a]",
		"--label", "-night", "--results-root", "/tmp/r", "--runs", "3", "--warmup", "2", "--duration", "60", "--mode", "native",
		"--no-quiet", "--no-sampler")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantLines(t, "every flag", out, "USAGE=0", "STUDY_FILE="+filepath.Join("../..", "studies", "pages.toml"), "PROFILE=full",
		"STACKS_ARG=go-nethttp,go-nethttp[a]", "LABEL=-night", "RESULTS_ROOT=/tmp/r", "RUN_MODE=native", "QUIET_GATE=0", "SAMPLER=0",
		"RUNS_ARG=3", "PROFILE_RUNS=5", "RUNS=3", "WARMUP=2", "DURATION=60", "SAMPLER_INTERVAL=800ms")
	// a study file's path is itself; the profile's own window sets the interval
	code, out, errs = benchArgsRun("--study", "../../studies/io.toml", "--profile", "full")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantLines(t, "a path", out, "STUDY_FILE=../../studies/io.toml", "RUNS_ARG=", "RUNS=5", "WARMUP=3", "DURATION=15", "SAMPLER_INTERVAL=200ms")
}

// -h or --help asks for the usage (bash prints the script's header), as
// soon as it is read: a fault before it is still refused.
func TestArgsHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"--study", "nope", "--help", "--bad"}, {"--mode", "k8s", "-h"}} {
		if code, out, errs := benchArgsRun(args...); code != 0 || out != "USAGE=1\n" || errs != "" {
			t.Errorf("%q: exit %d, %q %q", args, code, out, errs)
		}
	}
	if code, out, errs := benchArgsRun("--bad", "--help"); code != 2 || out != "" || errs != "plan args: unknown argument '--bad' (see scripts/bench --help)\n" {
		t.Errorf("--bad --help: exit %d, %q %q", code, out, errs)
	}
}

// Each refusal is one line naming the flag, exit 2, nothing on stdout; the
// first fault in the bench's order is the one told (the flags as read,
// then the mode, the study, the profile, the runs, warm-up and window).
func TestArgsRefused(t *testing.T) {
	// (analysis/study's line, whose own test holds its words)
	_, err := study.Named("../..", "nope")
	if err == nil || !strings.HasPrefix(err.Error(), "--study 'nope' is not a study (studies/: all ") {
		t.Fatalf("study.Named: %v", err)
	}
	notStudy := err.Error()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--study"}, "--study needs a value (see scripts/bench --help)"},
		{[]string{"--label", "--no-quiet"}, "--label needs a value (see scripts/bench --help)"},
		{[]string{"--runs", ""}, "--runs needs a value (see scripts/bench --help)"},
		{[]string{"--label", "a\nb"}, `--label "a\nb": want a value of one line`},
		{[]string{"-x"}, "unknown argument '-x' (see scripts/bench --help)"},
		{[]string{"pages"}, "unknown argument 'pages' (see scripts/bench --help)"},
		{[]string{"--no-such", "--mode", "k8s"}, "unknown argument '--no-such' (see scripts/bench --help)"},
		{[]string{"--mode", "k8s", "--study", "nope"}, "--mode 'k8s': want docker or native"},
		{[]string{"--study", "nope", "--profile", "nope"}, notStudy},
		{[]string{"--study", "studies/nope.toml"}, "--study 'studies/nope.toml': no such study file"},
		{[]string{"--profile", "nope", "--runs", "0"}, "--profile 'nope' is not a profile (full, paired, quick)"},
		{[]string{"--runs", "0", "--warmup", "x"}, "--runs '0' is not a whole number above 0"},
		{[]string{"--warmup", "1.5"}, "--warmup '1.5' is not a whole number above 0"},
		{[]string{"--warmup", "-2"}, "--warmup '-2' is not a whole number above 0"},
		{[]string{"--duration", "+2"}, "--duration '+2' is not a whole number above 0"},
		{[]string{"--duration", "x"}, "--duration 'x' is not a whole number above 0"},
	} {
		code, out, errs := benchArgsRun(c.args...)
		if want := "plan args: " + c.want + "\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d, %q %q; want %q", c.args, code, out, errs, want)
		}
	}
	if code, _, errs := runPlan("args", "--", "--study", "pages"); code != 2 || errs != "plan args: --lab-root is missing: the lab's folder\n" {
		t.Errorf("no --lab-root: exit %d %q", code, errs)
	}
}
