package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	wire "stacklab/formats/answer"
)

// answersReports writes three rows' reports as the check form prints them
// (report, then answersReport): a row that passed, a [pg] row that failed
// with a route not captured and a line on stderr after its report, and a row
// whose checks never ran (no file). It returns the ROW=FILE arguments.
func answersReports(t *testing.T, dir string) []string {
	t.Helper()
	pass := []result{
		{Stack: "go-nethttp", Check: "up", OK: true},
		{Stack: "go-nethttp", Check: "pragmas", OK: true, Note: "4 distinct connections"},
		{Stack: "go-nethttp", Check: "upstream", OK: true, Note: "200 through the mock in 112ms"},
	}
	fail := []result{
		{Stack: "rust-axum[pg]", Check: "up", OK: true},
		{Stack: "rust-axum[pg]", Check: "items", Expected: "20 items", Got: "19 items"},
		{Stack: "rust-axum[pg]", Check: "upstream", OK: true, Skipped: true, Note: "no upstream URL given"},
	}
	answers := []wire.Answer{
		{Method: "GET", Path: "/up", Status: 200, HeadBytes: 117, BodyBytes: 2, ContentBytes: 2, Framing: "content-length", Headers: []string{"content-length", "content-type", "date"}},
		{Method: "GET", Path: "/json", Status: 200, HeadBytes: 124, BodyBytes: 27, ContentBytes: 27, Framing: "content-length", Headers: []string{"content-length", "content-type", "date"}},
		{Method: "GET", Path: "/bench/read", Status: 200, HeadBytes: 98, BodyBytes: 1415, ContentBytes: 1400, Framing: "chunked", Headers: []string{"content-type", "date", "transfer-encoding"}},
	}
	write := func(row, text string) string {
		p := filepath.Join(dir, row+".verify.txt")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return row + "=" + p
	}
	return []string{
		write("go-nethttp", report("go-nethttp", pass, 4)+answersReport(answers, nil)),
		write("rust-axum[pg]", report("rust-axum[pg]", fail, 2)+answersReport(answers[:2], []string{"/bench/read: read tcp: connection reset by peer"})+
			"verify: -answers /data/answers.json: permission denied\n"),
		"ruby-rails=" + filepath.Join(dir, "ruby-rails.verify.txt"),
	}
}

// verify answers prints the bytes scripts/verify's sed loop printed from the
// same reports (testdata/answers.txt, made by running that loop on them).
func TestAnswersAsScriptsVerifyShowed(t *testing.T) {
	args := answersReports(t, t.TempDir())
	var out bytes.Buffer
	if code := answersMain(args, &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want, err := os.ReadFile("testdata/answers.txt")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Fatalf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// A report cut before its answers (verify stopped early) still names its row.
func TestAnswersOfAReportWithout(t *testing.T) {
	if got := answersSection("go-nethttp", "go-nethttp: FAIL, 1 of 1 checks (up); first: up: expected 200, got nothing\n"); got != "go-nethttp \n" {
		t.Fatalf("got %q", got)
	}
}
