package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/synth"
	goldenpkg "stacklab/formats/golden"
)

func folder(t *testing.T, name string, sp synth.Spec) string { return synth.Temp(t, name, sp) }

// five runs each; B's go-nethttp is 10% faster, node-fastify unchanged.
func pair(t *testing.T, hostB string) (string, string) {
	a := synth.Pages()
	a.Runs = 5
	b := synth.Pages()
	b.Runs = 5
	b.Rate = map[string]float64{"go-nethttp": 44000, "node-fastify": 15000}
	if hostB != "" {
		b.Host.Fingerprint.CPUModel = hostB
	}
	return folder(t, "2026-11-29-local-pages", a), folder(t, "2026-11-30-local-pages", b)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenpkg.Check(t, filepath.Join("testdata", "golden", name), got)
}

func TestCompareGolden(t *testing.T) {
	a, b := pair(t, "")
	var out, errb bytes.Buffer
	if code := run([]string{a, b}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	golden(t, "same-host.md", out.Bytes())
	// What a reader must see: a real change with its p-value, and "~" for
	// an unchanged stack.
	if !strings.Contains(out.String(), "| go-nethttp   | up    |  40,000 |  44,000 | +10.00% (p=0.008 n=5) |") {
		t.Errorf("a 10%% change over 5 runs each was not reported as significant")
	}
	if !strings.Contains(out.String(), "| node-fastify | up    |  15,000 |  15,000 | ~ (p=1.000 n=5)") {
		t.Errorf("an unchanged stack was not shown as ~")
	}
}

func TestTooFewRuns(t *testing.T) {
	a := folder(t, "a", synth.Pages())
	b := folder(t, "b", synth.Pages())
	var out, errb bytes.Buffer
	if code := run([]string{a, b}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "~ (n=3: too few runs)") || !strings.Contains(out.String(), "Too few runs to tell (benchmath: need >= 4 samples") {
		t.Errorf("3 runs per side must be called too few:\n%s", out.String())
	}
}

func TestCrossHost(t *testing.T) {
	a, b := pair(t, "Other CPU")
	var out, errb bytes.Buffer
	code := run([]string{a, b}, &out, &errb)
	want := "compare: A and B come from different hosts (local: Test CPU @ 2.0GHz, 2 cores, kernel 6.18.0 vs local: Other CPU, 2 cores, kernel 6.18.0): numbers from two hosts are not comparable; pass --cross-host to compare anyway, every row labelled\n"
	got := strings.ReplaceAll(strings.ReplaceAll(errb.String(), a, "A"), b, "B")
	if code != 2 || got != want || out.Len() != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %d bytes; want 2, %q, nothing", code, got, out.Len(), want)
	}
	errb.Reset()
	if code := run([]string{"--cross-host", a, b}, &out, &errb); code != 0 {
		t.Fatalf("--cross-host: exit %d: %s", code, errb.String())
	}
	golden(t, "cross-host.md", out.Bytes())
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| go-") || strings.HasPrefix(l, "| node-") {
			if !strings.HasSuffix(l, "cross-host |") {
				t.Errorf("row not labelled cross-host: %s", l)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	a := folder(t, "a", synth.Pages())
	var out, errb bytes.Buffer
	missing := filepath.Join(t.TempDir(), "nope")
	if code := run([]string{a, missing}, &out, &errb); code != 2 || errb.String() != "compare: "+missing+": no such results folder\n" {
		t.Errorf("exit %d, %q", code, errb.String())
	}
}

// --within reads one folder's rows against its baseline run by run: the
// synthetic runs share one factor per run, so the ratio keeps still.
func TestWithin(t *testing.T) {
	sp := synth.Pages()
	sp.Runs = 5
	a := folder(t, "2026-11-29-local-pages", sp)
	var out, errb bytes.Buffer
	if code := run([]string{"--within", a}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	golden(t, "within.md", out.Bytes())
	if !strings.Contains(out.String(), "full profile, 5 runs): each row ÷ go-nethttp in the same run") {
		t.Errorf("header:\n%s", out.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--within", a, a}, "compare: --within reads one folder\n"},
		{[]string{"--within", a, "--baseline", "nope"}, "compare: --baseline nope: not a stack of this run (stacks: go-nethttp, node-fastify)\n"},
		{[]string{"--within", a, "--baseline"}, "compare: --baseline needs a row name\n"},
		{[]string{a, a, "--baseline", "go-nethttp"}, "compare: --baseline goes with --within\n"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(tc.args, &out, &errb); code != 2 || errb.String() != tc.want || out.Len() != 0 {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// Two runs whose Postgres ran at other settings are refused, one line
// naming both, unless --anyway.
func TestPostgresSettingsDiffer(t *testing.T) {
	sa, sb := synth.Pages(), synth.Pages()
	sa.Extra = map[string]string{"postgres_settings": "shared_buffers = 128MB; synchronous_commit = on"}
	sb.Extra = map[string]string{"postgres_settings": "shared_buffers = 128MB; synchronous_commit = off"}
	a, b := folder(t, "a", sa), folder(t, "b", sb)
	var out, errb bytes.Buffer
	code := run([]string{a, b}, &out, &errb)
	want := "compare: A and B ran Postgres at other settings (shared_buffers = 128MB; synchronous_commit = on vs shared_buffers = 128MB; synchronous_commit = off): a [pg] row's numbers are the server's too; pass --anyway to compare them\n"
	got := strings.ReplaceAll(strings.ReplaceAll(errb.String(), a, "A"), b, "B")
	if code != 2 || got != want || out.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 2, %q", code, got, want)
	}
	errb.Reset()
	if code := run([]string{"--anyway", a, b}, &out, &errb); code != 0 {
		t.Fatalf("--anyway: exit %d: %s", code, errb.String())
	}
}
