package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/analysis/synth"
	goldenpkg "stacklab/formats/golden"
)

func folder(t *testing.T, name string, sp synth.Spec) string { return synth.Temp(t, name, sp) }

// pages is the pages study, five runs of go-nethttp and node-fastify; rate
// sets go-nethttp's req/s on the first window (40,000 in the baseline).
func pages(runs int, rate float64) synth.Spec {
	sp := synth.Pages()
	sp.Runs = runs
	sp.Rate = map[string]float64{"go-nethttp": rate, "node-fastify": 15000}
	return sp
}

func guardRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, squeeze(out.String()), errb.String()
}

// squeeze collapses the runs of spaces that align the route names, so that
// a test names a line as a reader would say it.
func squeeze(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		b.WriteString(strings.Join(strings.Fields(line), " "))
		if strings.HasSuffix(line, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func golden(t *testing.T, name string, got string) {
	t.Helper()
	goldenpkg.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// A slower go-nethttp (25% fewer answers, so 33% more latency and CPU per
// answer) is regressed on every route; node-fastify, unchanged, is the same.
func TestRegressionGolden(t *testing.T) {
	base := folder(t, "2026-11-29-local-pages", pages(5, 40000))
	now := folder(t, "2026-11-30-local-pages", pages(5, 30000))
	md := filepath.Join(t.TempDir(), "guard.md")
	var stdout, stderr bytes.Buffer
	code := run([]string{"--baseline", base, "--markdown", md, now}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a regression); stderr: %s", code, stderr.String())
	}
	golden(t, "regressed.txt", stdout.String())
	out := squeeze(stdout.String())
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "regressed.md", string(b))
	for _, want := range []string{
		"guard: go-nethttp up regressed: req/s 40,000 → 30,000, -25.0% (p=0.008 n=5+5)",
		"guard: node-fastify up same",
		"8 routes: 4 regressed, 4 same",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The same measurements again (an A/A comparison): every route the same,
// exit 0.
func TestSameIsSame(t *testing.T) {
	base := folder(t, "base", pages(5, 40000))
	now := folder(t, "now", pages(5, 40000))
	code, out, errs := guardRun(t, "--baseline", base, now)
	if code != 0 || !strings.Contains(out, "8 routes: 8 same") {
		t.Fatalf("exit %d, want 0 with every route the same:\n%s%s", code, out, errs)
	}
}

func TestImproved(t *testing.T) {
	base := folder(t, "base", pages(5, 40000))
	now := folder(t, "now", pages(5, 50000))
	code, out, _ := guardRun(t, "--baseline", base, now)
	if code != 0 || !strings.Contains(out, "guard: go-nethttp up improved: req/s 40,000 → 50,000, +25.0%") {
		t.Fatalf("exit %d, want 0 and go-nethttp up improved:\n%s", code, out)
	}
}

// Three runs a side: the U test cannot reach α = 0.05 (its smallest
// p-value is 0.1), so even a 25% drop is unknown, with the runs more that
// would decide it.
func TestTooFewRunsIsUnknown(t *testing.T) {
	base := folder(t, "base", pages(3, 40000))
	now := folder(t, "now", pages(3, 30000))
	var raw, errb bytes.Buffer
	code := run([]string{"--baseline", base, "--markdown", "-", now}, &raw, &errb)
	out := squeeze(raw.String())
	golden(t, "unknown.md", raw.String()[strings.Index(raw.String(), "###"):])
	if code != 0 {
		t.Errorf("exit %d, want 0: unknown is not a regression", code)
	}
	if !strings.Contains(out, "guard: go-nethttp up unknown — run 2 more (5 new runs against the baseline's 3): req/s 40,000 → 30,000, -25.0% (p=0.100 n=3+3)") {
		t.Errorf("a 3+3 comparison did not ask for more runs:\n%s", out)
	}
}

// A run whose window answered 500s fails the route, whatever its numbers.
func TestFailedGate(t *testing.T) {
	base := folder(t, "base", pages(5, 40000))
	now := folder(t, "now", pages(5, 40000))
	plant(t, now, "raw/run-2/node-fastify/json.json", synth.Window{Seconds: 15, OK: 200000, Status: map[string]int64{"500": 12}, P50: 0.002, P99: 0.008})
	code, out, _ := guardRun(t, "--baseline", base, now)
	if code != 1 || !strings.Contains(out, "guard: node-fastify json failed — a correctness gate failed in run 2") {
		t.Fatalf("exit %d, want 1 and node-fastify json failed:\n%s", code, out)
	}
}

func plant(t *testing.T, dir, rel string, w synth.Window) {
	t.Helper()
	if err := synth.WriteOha(filepath.Join(dir, rel), w); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
}

// The error rate is held to points, not percent: 0.5% → 2% of answers is
// +1.5 points, beyond the default 1 point; 0 → 0.6% is inside it.
func TestErrorRatePoints(t *testing.T) {
	g := study.DefaultGuard
	m := measures[3]
	c := compareCell(m, g, []float64{0.005, 0.005, 0.004, 0.006, 0.005}, []float64{0.02, 0.021, 0.019, 0.02, 0.02}, false)
	if c.Verdict != Regressed || math.Abs(c.Change-1.5) > 1e-9 {
		t.Errorf("0.5%% → 2%%: %s, change %.3f pt; want regressed, +1.5 pt", c.Verdict, c.Change)
	}
	c = compareCell(m, g, []float64{0, 0, 0, 0, 0}, []float64{0.006, 0.006, 0.006, 0.006, 0.006}, false)
	if c.Verdict != Same {
		t.Errorf("0 → 0.6%%: %s; want same (a significant change inside the margin)", c.Verdict)
	}
}

// How many runs more: from the spread against the margin and the baseline's
// runs; a spread that five baseline runs cannot resolve at any count says
// so.
func TestMoreRuns(t *testing.T) {
	n, thin := more(5, 5, 0.03, 0.10)
	if thin || n != 5 {
		// a spread small enough for 5 runs, still undecided: twice as many
		t.Errorf("more(5,5,3%%,10%%) = %d, %v; want 5, false", n, thin)
	}
	// 1/((0.1/(k·0.05))² − 1/10) = 2.6: three new runs, one more than two
	n, thin = more(10, 2, 0.05, 0.10)
	want := int(math.Ceil(1/(math.Pow(0.10/(detect*0.05), 2)-0.1))) - 2
	if thin || n != want || want != 1 {
		t.Errorf("more(10,2,5%%,10%%) = %d, %v; want %d, false", n, thin, want)
	}
	if _, thin = more(5, 5, 0.10, 0.10); !thin {
		t.Errorf("a 10%% spread against a 10%% margin with a 5-run baseline: want the baseline too thin")
	}
	// One bench, both sides growing: 2·(k·sd/margin)² a side.
	if n := moreTogether(20, 0.271, 0.20); n != int(math.Ceil(2*math.Pow(detect*0.271/0.20, 2)))-20 || n <= 0 {
		t.Errorf("moreTogether(20, 27.1%%, 20%%) = %d", n)
	}
	if !canReach(4, 4) || canReach(3, 3) || !canReach(3, 5) {
		t.Errorf("the U test reaches α = 0.05 from 4+4 and 3+5, not from 3+3")
	}
}

// --update moves the baseline only when every route is same or improved.
func TestUpdate(t *testing.T) {
	base := folder(t, "base", pages(5, 40000))
	ptr := filepath.Join(t.TempDir(), "pages.baseline")
	if code, out, errs := guardRun(t, "--baseline", ptr, "--update", base); code != 0 || !strings.Contains(out, "the first baseline of study pages is base") {
		t.Fatalf("first baseline: exit %d: %s%s", code, out, errs)
	}
	first, _ := os.ReadFile(ptr)

	slower := folder(t, "slower", pages(5, 30000))
	code, _, errs := guardRun(t, "--baseline", ptr, "--update", slower)
	if code != 1 || !strings.Contains(errs, "--update refused: 4 routes regressed") {
		t.Errorf("--update over a regression: exit %d, stderr %q; want 1 and a refusal", code, errs)
	}
	if b, _ := os.ReadFile(ptr); !bytes.Equal(b, first) {
		t.Errorf("a refused --update changed %s", ptr)
	}

	few := folder(t, "few", pages(2, 40000))
	if code, _, errs := guardRun(t, "--baseline", ptr, "--update", few); code != 1 || !strings.Contains(errs, "8 routes unknown") {
		t.Errorf("--update over unknown routes: exit %d, stderr %q; want 1 and a refusal", code, errs)
	}

	faster := folder(t, "faster", pages(5, 50000))
	if code, out, errs := guardRun(t, "--baseline", ptr, "--update", faster); code != 0 || !strings.Contains(out, "now names faster (it was base)") {
		t.Fatalf("--update over an improvement: exit %d: %s%s", code, out, errs)
	}
	dir, err := readPointer(ptr)
	if err != nil || filepath.Base(dir) != "faster" {
		t.Errorf("the updated baseline file reads as %q, %v; want the folder faster", dir, err)
	}
	// The improved run is the bar now: the old speed is a regression.
	if code, _, _ := guardRun(t, "--baseline", ptr, base); code != 1 {
		t.Errorf("the old, slower run against the raised baseline: exit %d, want 1", code)
	}
}

// Bad input is one line on stderr and exit 2.
func TestBadInput(t *testing.T) {
	base := folder(t, "base", pages(5, 40000))
	now := folder(t, "now", pages(5, 40000))
	io := synth.IO()
	io.Runs = 5
	other := folder(t, "io-run", io)
	extra := pages(5, 40000)
	extra.Stacks = append(extra.Stacks, "rust-axum")
	extra.Rate["rust-axum"] = 60000
	wider := folder(t, "wider", extra)
	elsewhere := pages(5, 40000)
	elsewhere.Host.Fingerprint.CPUModel = "Other CPU"
	remote := folder(t, "remote", elsewhere)
	ptr := filepath.Join(t.TempDir(), "pages.baseline")
	if err := writePointer(ptr, base, "pages"); err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "tampered.baseline")
	b, _ := os.ReadFile(ptr)
	rel, _ := filepath.Rel(filepath.Dir(tampered), wider)
	os.WriteFile(tampered, bytes.Replace(b, []byte(`folder = "`), []byte(`folder = "`+filepath.ToSlash(rel)+`" # `), 1), 0o644)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another study", []string{"--baseline", other, now}, "is a run of study pages and the baseline " + other + " of study io"},
		{"missing folder", []string{"--baseline", filepath.Join(t.TempDir(), "gone"), now}, "no such results folder"},
		{"missing new folder", []string{"--baseline", base, filepath.Join(t.TempDir(), "gone")}, "no such results folder"},
		{"a route the baseline lacks", []string{"--baseline", base, wider}, "route rust-axum up: the baseline " + base + " has no row rust-axum"},
		{"another host", []string{"--baseline", base, remote}, "come from different hosts"},
		{"missing baseline file", []string{"--baseline", filepath.Join(t.TempDir(), "x.baseline"), now}, "no such baseline file"},
		{"a baseline file whose folder changed", []string{"--baseline", tampered, now}, "the folder changed since it became the baseline"},
		{"--row to no row", []string{"--baseline", base, "--row", "go-nethttp=rust-axum", now}, "rust-axum is not a row of the baseline"},
		{"--update on a folder", []string{"--baseline", base, "--update", now}, "--update writes a baseline file"},
		{"no baseline", []string{now}, "--baseline is missing"},
		{"two new folders", []string{"--baseline", base, now, now}, "want one new results folder"},
	} {
		code, out, errs := guardRun(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.name, code, out, errs, tc.want)
		}
	}
}

// --row holds a row of the new run to another row of the baseline: a
// variant to the stack it varies, the twin to the A row.
func TestRowMapping(t *testing.T) {
	base := pages(5, 40000)
	base.Stacks = []string{"go-nethttp"}
	now := pages(5, 40000)
	now.Stacks = []string{"node-fastify"}
	now.Rate = map[string]float64{"node-fastify": 40000}
	b, n := folder(t, "base", base), folder(t, "now", now)
	code, out, errs := guardRun(t, "--baseline", b, "--row", "node-fastify=go-nethttp", n)
	if code != 0 || !strings.Contains(out, "guard: node-fastify as go-nethttp up same") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
}

func TestBenchFlags(t *testing.T) {
	base := folder(t, "base", pages(5, 40000))
	ptr := filepath.Join(t.TempDir(), "pages.baseline")
	if err := writePointer(ptr, base, "pages"); err != nil {
		t.Fatal(err)
	}
	code, out, errs := guardRun(t, "--bench-flags", "--baseline", ptr, "--study", synth.StudyPath("pages"))
	if code != 0 || out != "--profile full --runs 5 --warmup 3 --duration 15 --mode docker\n" {
		t.Errorf("exit %d, %q %s", code, out, errs)
	}
	code, _, errs = guardRun(t, "--bench-flags", "--baseline", ptr, "--study", synth.StudyPath("io"))
	if code != 2 || !strings.Contains(errs, "is a baseline of study pages, not of") {
		t.Errorf("a baseline of another study: exit %d, %q", code, errs)
	}
}

// --within holds one row of a folder to another (relative mode: both
// builds in one bench); only the rows named are guarded.
func TestWithin(t *testing.T) {
	sp := pages(5, 40000)
	sp.Rate["node-fastify"] = 30000
	dir := folder(t, "both", sp)
	code, out, errs := guardRun(t, "--within", dir, "--row", "node-fastify=go-nethttp")
	if code != 1 || !strings.Contains(out, "guard: node-fastify as go-nethttp up regressed: req/s 40,000 → 30,000, -25.0%") || strings.Contains(out, "guard: go-nethttp up") {
		t.Fatalf("exit %d, want 1 with node-fastify held to go-nethttp only:\n%s%s", code, out, errs)
	}
	if code, _, errs := guardRun(t, "--within", dir); code != 2 || !strings.Contains(errs, "--within DIR takes --row HEAD=BASE") {
		t.Errorf("--within without --row: exit %d, %q", code, errs)
	}
}

// --relative-study writes a study that reads, with the base row's folder
// (the other commit's stack.env, renamed, running its image) and the
// study's own stack folders linked beside it.
func TestRelativeStudy(t *testing.T) {
	out := t.TempDir()
	env := filepath.Join(t.TempDir(), "stack.env")
	os.WriteFile(env, []byte("STACK_NAME=app-a\nIMAGE=example/app-a:1\nCONTRACT=none\n"), 0o644)
	code, stdout, errs := guardRun(t, "--relative-study", filepath.Join(filepath.Dir(synth.StudyPath("pages")), "examples", "two-apps.toml"), "--stack", "app-a",
		"--base-row", "app-a-at-0123456", "--base-env", env, "--base-image", "stacklab-guard/app-a:0123456789ab", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	st, err := study.Load(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if st.StacksDir != filepath.Join(out, "stacks") || len(st.Cases()) != 3 {
		t.Errorf("stacks_dir %s, %d cases; want %s/stacks and two-apps' 3", st.StacksDir, len(st.Cases()), out)
	}
	b, _ := os.ReadFile(filepath.Join(out, "stacks", "app-a-at-0123456", "stack.env"))
	if !strings.Contains(string(b), "STACK_NAME=app-a-at-0123456\n") || !strings.HasSuffix(string(b), "IMAGE=stacklab-guard/app-a:0123456789ab\n") {
		t.Errorf("the base row's stack.env:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(out, "stacks", "app-b", "stack.env")); err != nil {
		t.Errorf("the study's own stack folders are not linked: %v", err)
	}
}

// A users case's flows are held as routes, each at the most users every
// run of both sides passed: python-fastapi at half its capacity answers
// slower at that count, and its flows regress; go-nethttp's, the same
// runs again, do not (held near its capacity, where its p99 spreads from
// run to run, they are unknown rather than same).
func TestUsersFlowsAreRoutes(t *testing.T) {
	users := func(python float64) synth.Spec {
		sp := synth.Users()
		sp.Runs = 5
		sp.Rate = map[string]float64{"go-nethttp": 3000, "python-fastapi": python}
		return sp
	}
	base := folder(t, "base", users(700))
	now := folder(t, "now", users(350))
	var raw, errb bytes.Buffer
	code := run([]string{"--baseline", base, "--markdown", "-", now}, &raw, &errb)
	out := squeeze(raw.String())
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a regression); stderr: %s\n%s", code, errb.String(), out)
	}
	for _, want := range []string{
		"guard: python-fastapi users:browse regressed: p95 ms ",
		"guard: python-fastapi users:order regressed: ",
		"guard: go-nethttp users:browse unknown",
		"guard: go-nethttp users:order unknown",
		"guard: users a users case: its flows are held above, its capacity is not guarded (just compare reads it)",
		"4 routes: 2 regressed, 2 unknown",
		"| go-nethttp users:browse (flow browse at 2,800 users, the most every run passed) | req/s | 467 | 467 | 0 (p=1.000 n=5+5) | same |",
		" users, the most every run passed) ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A native run is never held to a Docker baseline: one line, exit 2.
func TestModesNotMixed(t *testing.T) {
	nat := pages(5, 40000)
	nat.Extra = map[string]string{"run_mode": "native"}
	base := folder(t, "base", pages(5, 40000))
	now := folder(t, "now", nat)
	code, out, errs := guardRun(t, "--baseline", base, now)
	if code != 2 || out != "" || !strings.Contains(errs, "ran its stacks natively (each stack a host process in a cgroup the lab made) and the baseline ") ||
		!strings.Contains(errs, " in Docker: a guard holds a run to a baseline measured in its own mode") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
