package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/summary"
	"stacklab/analysis/synth"
	"stacklab/formats/golden"
)

func capacitySummary(t *testing.T, sp synth.Spec) (*summary.Summary, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "2026-11-29-local-capacity")
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	f, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.Compute(f, summary.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, out.String()
}

// The capacity section (its table, the steps, quota mode's throttled %),
// from a synthetic quota-mode run, as summary.md shows it: the header and
// the sections around it have goldens of their own.
func TestCapacityGolden(t *testing.T) {
	s, md := capacitySummary(t, synth.Capacity())
	from, to := strings.Index(md, "## capacity: "), strings.Index(md, "## resources")
	if from < 0 || to < from {
		t.Fatalf("summary.md has no capacity section before resources:\n%s", md)
	}
	if !strings.Contains(md[:from], "- CPU mode: quota (the app limited to 1 CPUs per 100 ms period") {
		t.Error("the header does not name quota mode")
	}
	golden.Check(t, "testdata/golden/capacity.md", []byte(md[from:to]))
	row := s.Capacity[0].Rows[0]
	if row.ReqPerSec.N != 3 || row.Throttled.N != 3 || row.Throttled.Median <= 0 || len(row.Refused) != 0 {
		t.Errorf("go-nethttp: %+v", row)
	}
}

// A run where the generator could not hold the rate reports no capacity
// for the stack it capped (issue 11): the table says refused and why, and
// summary.json has no number for it.
func TestGeneratorCappedCapacityRefused(t *testing.T) {
	s, md := capacitySummary(t, synth.CapacityCapped())
	goRow, py := s.Capacity[0].Rows[0], s.Capacity[0].Rows[1]
	if goRow.ReqPerSec.N != 0 || len(goRow.Refused) != 3 {
		t.Fatalf("go-nethttp capped by the generator at 1,500 req/s got a capacity: %+v", goRow.ReqPerSec)
	}
	for _, p := range goRow.PerRun {
		if p != nil {
			t.Errorf("a per-run capacity %v for a generator-capped run", *p)
		}
	}
	if !strings.Contains(goRow.Refused[0].Note, "generator-capped at") {
		t.Errorf("reason %q", goRow.Refused[0].Note)
	}
	if py.ReqPerSec.N != 3 || py.ReqPerSec.Median < 600 || py.ReqPerSec.Median > 800 {
		t.Errorf("python-fastapi, under the cap, should keep its capacity: %+v", py.ReqPerSec)
	}
	for _, want := range []string{"| go-nethttp     |        refused |", "CAPPED run 1 at", "**No capacity reported**", "GENERATOR: the generator sent"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}

// In quota mode every case table gets a throttled % column; in cpuset
// mode none does (and the committed runs' summaries stay byte for byte).
func TestQuotaModeThrottledColumn(t *testing.T) {
	io := synth.IO()
	io.Quota = true
	dir := filepath.Join(t.TempDir(), "2026-11-29-local-quota-io")
	if err := synth.Write(dir, io); err != nil {
		t.Fatal(err)
	}
	var iout, ierr bytes.Buffer
	if rc := run([]string{dir}, &iout, &ierr); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, ierr.String())
	}
	// upstream, write, and the read / read-under-writes pair table.
	if n := strings.Count(iout.String(), "| throttled % |"); n != 3 || !strings.Contains(iout.String(), "| 0.0% / 0.0% |") {
		t.Errorf("io in quota mode: %d tables with throttled %%:\n%s", n, iout.String())
	}
	sp := synth.Pages()
	sp.Quota = true
	dir = filepath.Join(t.TempDir(), "2026-11-29-local-quota-pages")
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	md := out.String()
	if n := strings.Count(md, "| throttled % |"); n != 4 {
		t.Errorf("%d case tables with a throttled %% column, want all 4 of pages", n)
	}
	if !strings.Contains(md, "- CPU mode: quota (the app limited to 1 CPUs") {
		t.Error("the header does not name the mode")
	}
	if !strings.Contains(md, "|        0.0% | ok, ≤") {
		t.Errorf("no throttled cell:\n%s", md)
	}
	sp.Quota = false
	dir = filepath.Join(t.TempDir(), "2026-11-29-local-pages")
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	run([]string{dir}, &out, &errb)
	if strings.Contains(out.String(), "throttled %") || strings.Contains(out.String(), "CPU mode") {
		t.Error("a cpuset run shows quota mode's column")
	}
}

// The bench's line after a stack's ramp says its capacity in that run,
// not nothing: a capacity study has no closed-loop cells.
func TestRowLineOfACapacityRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-11-29-local-capacity")
	if err := synth.Write(dir, synth.Capacity()); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--row", "go-nethttp", "--run", "2", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errb.String())
	}
	line := out.String()
	if !strings.HasPrefix(line, "go-nethttp, run 2: capacity ") || !strings.Contains(line, " req/s") ||
		!strings.HasSuffix(line, "(the highest rate that met the target, and what bounded it)\n") {
		t.Errorf("row line %q", line)
	}
}

// A users ramp (studies/users.toml's users case) from a synthetic run: the
// capacity in users, the req/s the users sent at it, the steps in users,
// and report.html's chart of p99 against users.
func TestUsersCapacityGolden(t *testing.T) {
	s, md := capacitySummary(t, synth.Users())
	from, to := strings.Index(md, "## capacity: users"), strings.Index(md, "## resources")
	if from < 0 || to < from {
		t.Fatalf("summary.md has no users capacity section before resources:\n%s", md)
	}
	golden.Check(t, "testdata/golden/users-capacity.md", []byte(md[from:to]))
	ct := s.Capacity[0]
	if ct.Unit != "users" || ct.StepS != 30 || ct.LeadInS != 10 {
		t.Errorf("table %+v", ct)
	}
	goRow := ct.Rows[0]
	// go-nethttp's capacity is near 3,000 users; a user sends a request
	// every 3 s, so about 1,000 req/s at it.
	if goRow.Users.N != 3 || goRow.Users.Median < 2500 || goRow.Users.Median > 3200 || goRow.ReqPerSec.Median < 800 || goRow.ReqPerSec.Median > 1100 {
		t.Errorf("go-nethttp: users %+v, req/s %+v", goRow.Users, goRow.ReqPerSec)
	}
	if k := ct.K6; k == nil || k.CPUs != 1 || k.Steps == 0 || k.CPUUsPerReq <= 0 || k.MaxUsers <= 0 {
		t.Errorf("k6's headroom %+v", ct.K6)
	}
	for _, want := range []string{" capacity users ", " req/s at capacity ", "Capacity in users:", "k6's headroom on this host: "} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}
