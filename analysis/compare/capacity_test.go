package main

import (
	"bytes"
	"strings"
	"testing"

	"stacklab/analysis/synth"
)

// Capacity runs compare by their per-run capacities, with the U test.
func TestCompareCapacity(t *testing.T) {
	a, b := synth.Capacity(), synth.Capacity()
	a.Runs, b.Runs = 5, 5
	b.Rate = map[string]float64{"go-nethttp": 4500, "python-fastapi": 700}
	var out, errb bytes.Buffer
	if code := run([]string{folder(t, "2026-11-29-local-capacity", a), folder(t, "2026-11-30-local-capacity", b)}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	golden(t, "capacity.md", out.Bytes())
	if !strings.Contains(out.String(), "| go-nethttp     | capacity: capacity |   3,000 |   4,400 | +46.67% (p=0.008 n=5)") {
		t.Errorf("a larger capacity over 5 runs was not significant:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "| python-fastapi | capacity: capacity |     700 |     700 | ~ (p=1.000 n=5)") {
		t.Errorf("an unchanged capacity was not ~")
	}
}

// A quota-mode run and a cpuset-mode run are never one table, even across hosts.
func TestCompareRefusesTwoModes(t *testing.T) {
	a, b := synth.Capacity(), synth.Capacity()
	b.Quota = false
	var out, errb bytes.Buffer
	code := run([]string{"--cross-host", folder(t, "a", a), folder(t, "b", b)}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "ran in quota mode and") || !strings.Contains(errb.String(), "in cpuset mode") {
		t.Errorf("exit %d, %q: want 2 and a line naming both modes", code, errb.String())
	}
}

// A native run and a Docker run are never one table: one line naming both
// modes, exit 2, even across hosts.
func TestCompareRefusesNativeBesideDocker(t *testing.T) {
	a, b := synth.Pages(), synth.Pages()
	b.Extra = map[string]string{"run_mode": "native"}
	fa, fb := folder(t, "a", a), folder(t, "b", b)
	var out, errb bytes.Buffer
	code := run([]string{"--cross-host", fa, fb}, &out, &errb)
	got := strings.ReplaceAll(strings.ReplaceAll(errb.String(), fa, "A"), fb, "B")
	want := "compare: A ran its stacks in Docker and B natively (each stack a host process in a cgroup the lab made): a table never mixes the two modes (Docker costs each runtime differently); pass --modes to set them side by side, each change what the mode costs\n"
	if code != 2 || got != want || out.Len() != 0 {
		t.Errorf("exit %d, %q: want 2 and %q", code, got, want)
	}
}

// With --modes the two modes are set side by side, the table first saying
// which folder ran which.
func TestCompareModesSideBySide(t *testing.T) {
	a, b := synth.Pages(), synth.Pages()
	b.Extra = map[string]string{"run_mode": "native"}
	fa, fb := folder(t, "a", a), folder(t, "b", b)
	var out, errb bytes.Buffer
	code := run([]string{"--cross-host", "--modes", fa, fb}, &out, &errb)
	first, _, _ := strings.Cut(strings.ReplaceAll(strings.ReplaceAll(out.String(), fa, "A"), fb, "B"), "\n")
	want := "Run modes: A (A) ran its stacks in Docker; B (B) natively (each stack a host process in a cgroup the lab made). Each change is B against A, the same stack and case in the other mode: what the mode costs or gives it."
	if code != 0 || first != want || !strings.Contains(out.String(), "| go-nethttp") {
		t.Errorf("exit %d (%s), first line %q: want 0, %q, and the table", code, errb.String(), first, want)
	}
}

// With --modes a last table gives each stack's B ÷ A over its cases:
// the median case with the lowest and highest, a case at the generator's
// limit left out and named.
func TestCompareModesRatios(t *testing.T) {
	a, b := synth.Pages(), synth.Pages()
	b.Extra = map[string]string{"run_mode": "native"}
	b.Rate = map[string]float64{"go-nethttp": 44000, "node-fastify": 12000}
	var out, errb bytes.Buffer
	if code := run([]string{"--cross-host", "--modes", folder(t, "a", a), folder(t, "b", b)}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	_, ratios, ok := strings.Cut(out.String(), "## What the mode gives each stack")
	if !ok {
		t.Fatalf("no ratio table:\n%s", out.String())
	}
	for _, want := range []string{"| go-nethttp   |", "1.10×", "| node-fastify |", "0.80×"} {
		if !strings.Contains(ratios, want) {
			t.Errorf("ratio table lacks %q:\n%s", want, ratios)
		}
	}
}
