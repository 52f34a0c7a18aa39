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

// The self-test section: A against its twin flags nothing; the planted
// slowdowns of 10% and 20% are flagged in the slower direction, and the
// 5% one is not, because the synthetic runs wobble by ±4% and five runs
// of each then overlap (issue 15).
func TestSelfTestGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-12-01-local-selftest")
	if err := synth.Write(dir, synth.SelfTest()); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{dir}, &out, &errb); rc != 0 {
		t.Fatalf("summarize exit %d: %s", rc, errb.String())
	}
	md := out.String()
	from := strings.Index(md, "## self-test")
	to := strings.Index(md[from+1:], "\n## ")
	if from < 0 || to < 0 {
		t.Fatalf("summary.md has no self-test section:\n%s", md)
	}
	golden.Check(t, "testdata/golden/selftest.md", []byte(md[from:from+1+to]))
	f, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.Compute(f, summary.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := s.SelfTest
	if st == nil || st.FalsePositives != 0 || st.Comparisons != 6 || st.TooFew != "" {
		t.Fatalf("self-test %+v", st)
	}
	for _, sm := range st.Smallest {
		if sm.Row != "go-nethttp[burn10]" {
			t.Errorf("%s %s: smallest flagged %q, want go-nethttp[burn10]", sm.Case, sm.Metric, sm.Row)
		}
	}
	if c := st.Pairs[1].Cell("page", summary.MetricRate); c == nil || c.Flagged {
		t.Errorf("burn5 page req/s: %+v, want not flagged", c)
	}
	for _, pr := range st.Pairs[2:] {
		if c := pr.Cell("page", summary.MetricRate); c == nil || !c.Flagged || !c.Slower {
			t.Errorf("%s page req/s: %+v, want flagged slower", pr.Row, c)
		}
	}
}
