// Command verify checks that a running stack implements the lab app
// (docs/app.md) before any of its numbers are reported, and
// compares the parity snapshots of several stacks.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	wire "stacklab/formats/answer"
	"stacklab/formats/cli"
	"stacklab/formats/verdict"
)

const usage = `verify: does a running stack answer as docs/app.md says?

  verify -stack NAME -url http://127.0.0.1:PORT -db PATH [-upstream URL] [-snapshot FILE] [-answers FILE] [-record FILE]
  verify compare SNAPSHOT SNAPSHOT...
  verify collect -raw RAWDIR -out FILE
  verify signin -url http://127.0.0.1:PORT -email E -password P [-form-only] -out FILE
  verify answers ROW=REPORT...

The first form checks one stack started exactly as the bench starts it, on a
freshly seeded database whose file PATH is on this host: every route's status,
content type, framing and body shape (JSON key order included), 404 and 405,
the HTML escaping of /page against the titles in the file, N writes raising
/bench/read's count and the file's rows by exactly N, /bench/pragmas sampled
while writes run -write-concurrency at once, for -load-writes writes and
-load-time at least (so the pool opens
the connections the write case gets; each answer names its connection, and
every connection must be at docs/app.md's settings), and /bench/upstream when
-upstream is given (200 through the mock if it answers, else the 502
answer). The verdict line comes first, with how many distinct connections
answered, then one line per check; a failure names the stack, the check,
what was expected and what came back. Exit 1 when any check fails.

With -snapshot it writes the parity snapshot, taken after the -writes
writes and before the write load: every GET route's answer, the 404 and 405
answers, and two writes each read back, normalised. With
-record, the verdict as a formats/verdict row record.

The second form compares snapshots of several stacks with the first and
counts identical and mismatched answers; the first difference is shown
with both answers in full. Exit 1 when any differs.

The third form gathers a bench run's row records (RAWDIR/run-N/ROW/
verify.verdict.json) and compares the parity snapshots beside them run by run,
into the run's record FILE (formats/verdict). Exit 1 when a row failed or
an answer differs.

The fourth form signs a load in before its window, as a browser would
(docs/app.md, "Signed-in routes"): GET /sign_in, then (unless -form-only)
POST it with the credentials and GET /account; it writes the cookies and
the last form's CSRF token to FILE (mode 0600; bench/websession), which
plan oha --session puts into the window's requests. A sign-in the app
refuses is one line naming what came back, exit 1.

The fifth form prints what each row puts on the wire per answer, from the
report the first form printed (REPORT, verify.txt): "ROW answers (...):"
and the route lines under it, as scripts/verify shows them. A REPORT that
does not exist (the row's checks never ran) prints nothing.

Examples:
  verify -stack rust-axum -url http://127.0.0.1:18201 -db /tmp/v/app.db \
      -upstream http://127.0.0.1:18290 -snapshot /tmp/v/rust-axum.parity.json
  verify compare /tmp/v/go-nethttp.parity.json /tmp/v/rust-axum.parity.json
  verify answers go-nethttp=/tmp/v/go-nethttp/verify.txt rust-axum=/tmp/v/rust-axum/verify.txt
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		os.Exit(compareMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "signin" {
		os.Exit(signinMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "collect" {
		os.Exit(collectMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "answers" {
		os.Exit(answersMain(os.Args[2:], os.Stdout))
	}
	os.Exit(checkMain(os.Args[1:]))
}

func checkMain(args []string) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var cfg config
	var snapPath, outPath string
	fs.StringVar(&cfg.Stack, "stack", "", "the stack's name, for the output (required)")
	fs.StringVar(&cfg.BaseURL, "url", "", "the running stack, http://127.0.0.1:PORT (required)")
	fs.StringVar(&cfg.DBPath, "db", "", "the stack's database file on this host (this or -db-url is required)")
	fs.StringVar(&cfg.DBURL, "db-url", "", "the stack's Postgres database, postgres://USER@127.0.0.1:PORT/DB, for a row on the lab's Postgres")
	fs.StringVar(&cfg.UpstreamURL, "upstream", "", "the mock upstream the stack was given; empty skips /bench/upstream")
	fs.IntVar(&cfg.Writes, "writes", 50, "POST /bench/write requests")
	fs.IntVar(&cfg.Samples, "samples", 256, "GET /bench/pragmas requests, at least")
	fs.IntVar(&cfg.Concurrency, "concurrency", 32, "requests in flight during writes and pragma samples")
	fs.IntVar(&cfg.LoadWrites, "load-writes", 200, "POST /bench/write requests while /bench/pragmas is sampled, at least")
	fs.DurationVar(&cfg.LoadTime, "load-time", time.Second, "how long the write load runs, at least")
	fs.IntVar(&cfg.WriteConcurrency, "write-concurrency", 32, "writes in flight while /bench/pragmas is sampled (the bench's write concurrency)")
	var recordPath string
	fs.StringVar(&recordPath, "record", "", "write the verdict as a row record (formats/verdict) to this file")
	fs.StringVar(&snapPath, "snapshot", "", "write the parity snapshot to this file")
	fs.StringVar(&outPath, "out", "", "write the results as JSON lines to this file")
	var answersPath string
	fs.StringVar(&answersPath, "answers", "", "write each route's answer as captured on the wire (formats/answer) to this file")
	cli.Parse(fs, args, usage)

	switch {
	case cfg.Stack == "":
		cli.Usage("verify", "-stack is required (see -h)")
	case cfg.DBPath == "" && cfg.DBURL == "":
		cli.Usage("verify", "-db or -db-url is required (see -h)")
	case cfg.DBPath != "" && cfg.DBURL != "":
		cli.Usage("verify", "-db and -db-url name two databases: give one")
	case cfg.Writes < 1 || cfg.Samples < 1 || cfg.Concurrency < 1 || cfg.LoadWrites < 1 || cfg.WriteConcurrency < 1:
		cli.Usage("verify", "-writes, -samples, -concurrency, -load-writes and -write-concurrency must be at least 1")
	}
	if err := loopbackURL(cfg.BaseURL); err != nil {
		cli.Usage("verify", "-url %q: %v", cfg.BaseURL, err)
	}
	if cfg.UpstreamURL != "" {
		if err := loopbackURL(cfg.UpstreamURL); err != nil {
			cli.Usage("verify", "-upstream %q: %v", cfg.UpstreamURL, err)
		}
	}
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	cfg.UpstreamURL = strings.TrimSuffix(cfg.UpstreamURL, "/")
	if cfg.DBURL != "" {
		if err := loopbackDBURL(cfg.DBURL); err != nil {
			cli.Usage("verify", "-db-url %q: %v", cfg.DBURL, err)
		}
	} else if st, err := os.Stat(cfg.DBPath); err != nil || !st.Mode().IsRegular() {
		cli.Usage("verify", "-db %s: not a database file", cfg.DBPath)
	}

	c := newChecker(cfg)
	results, snap := c.verify()
	fmt.Print(report(cfg.Stack, results, c.connections))
	answers, faults := captureAnswers(cfg.BaseURL)
	fmt.Print(answersReport(answers, faults))
	if answersPath != "" {
		if err := wire.WriteFile(answersPath, answers); err != nil {
			cli.Fail("verify", "-answers %s: %v", answersPath, err)
		}
	}
	if outPath != "" {
		if err := writeResults(outPath, results); err != nil {
			cli.Fail("verify", "-out %s: %v", outPath, err)
		}
	}
	if recordPath != "" {
		if err := verdict.Write(recordPath, rowRecord(cfg.Stack, results, c)); err != nil {
			cli.Fail("verify", "-record %s: %v", recordPath, err)
		}
	}
	if snapPath != "" && snap != nil {
		if err := os.WriteFile(snapPath, snap.encode(), 0o644); err != nil {
			cli.Fail("verify", "-snapshot %s: %v", snapPath, err)
		}
	}
	for _, r := range results {
		if !r.OK {
			return 1
		}
	}
	return 0
}

// loopbackURL accepts http://127.0.0.1:PORT only: the lab targets loopback.
func loopbackURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" {
		return fmt.Errorf("want http://127.0.0.1:PORT")
	}
	if u.Path != "" && u.Path != "/" {
		return fmt.Errorf("want no path")
	}
	return nil
}

// loopbackDBURL accepts a Postgres URL on 127.0.0.1 only.
func loopbackDBURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Hostname() != "127.0.0.1" || u.Port() == "" || len(u.Path) < 2 {
		return fmt.Errorf("want postgres://USER@127.0.0.1:PORT/DATABASE")
	}
	return nil
}

// rowRecord is the verdict as formats/verdict keeps it.
func rowRecord(stack string, results []result, c *checker) verdict.Row {
	r := verdict.Row{Format: verdict.Format, Row: stack, Checks: len(results), Connections: c.connections, Wrong: c.wrong}
	for _, x := range results {
		if !x.OK {
			r.Failed = append(r.Failed, x.Check)
		}
	}
	r.Pass = len(r.Failed) == 0
	if !r.Pass {
		f := firstFailure(results)
		r.First = fmt.Sprintf("%s: expected %s, got %s", f.Check, f.Expected, f.Got)
	}
	return r
}

// report is the verdict line, then one line per check; conns is how many
// distinct connections /bench/pragmas named.
func report(stack string, results []result, conns int) string {
	var b strings.Builder
	var failed []string
	for _, r := range results {
		if !r.OK {
			failed = append(failed, r.Check)
		}
	}
	if len(failed) == 0 {
		up := ""
		for _, r := range results {
			if r.Check == "upstream" {
				up = "; upstream: " + r.Note
			}
		}
		fmt.Fprintf(&b, "%s: PASS, %d checks, %s%s\n", stack, len(results), plural(conns, "distinct connection"), up)
	} else {
		first := firstFailure(results)
		fmt.Fprintf(&b, "%s: FAIL, %d of %d checks (%s); first: %s: expected %s, got %s\n",
			stack, len(failed), len(results), strings.Join(failed, ", "), first.Check, first.Expected, first.Got)
	}
	for _, r := range results {
		switch {
		case r.Skipped:
			fmt.Fprintf(&b, "  skip  %s %s: %s\n", r.Stack, r.Check, r.Note)
		case r.OK && r.Note != "":
			fmt.Fprintf(&b, "  ok    %s %s (%s)\n", r.Stack, r.Check, r.Note)
		case r.OK:
			fmt.Fprintf(&b, "  ok    %s %s\n", r.Stack, r.Check)
		default:
			fmt.Fprintf(&b, "  FAIL  %s %s\n          expected: %s\n          got:      %s\n", r.Stack, r.Check, r.Expected, r.Got)
		}
	}
	return b.String()
}

// answerPaths are the GET routes whose answers verify captures: the ones
// the pages and io studies load (the writes' POST would add a row).
var answerPaths = []string{"/up", "/json", "/items", "/page", "/bench/read"}

// captureAnswers takes one answer of each route off the wire; a route
// that cannot be captured is a line in the report, not a failed check
// (the checks above judge the answers).
func captureAnswers(base string) ([]wire.Answer, []string) {
	var out []wire.Answer
	var faults []string
	for _, p := range answerPaths {
		a, err := wire.Capture(base, p, 10*time.Second)
		if err != nil {
			faults = append(faults, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		out = append(out, a)
	}
	return out, faults
}

// answersReport lists each route's bytes on the wire and header names, so
// a reader sees when stacks do different work per request.
func answersReport(answers []wire.Answer, faults []string) string {
	var b strings.Builder
	b.WriteString(answersIntro + "GET; bytes on the wire: head + body; how the body is framed; header names):\n")
	for _, a := range answers {
		fmt.Fprintf(&b, "    %-11s %d  %4d + %5d B  %-14s  %s\n", a.Path, a.Status, a.HeadBytes, a.BodyBytes, a.Framing, strings.Join(a.Headers, ", "))
	}
	for _, f := range faults {
		fmt.Fprintf(&b, "    not captured: %s\n", f)
	}
	return b.String()
}

func firstFailure(results []result) result {
	for _, r := range results {
		if !r.OK {
			return r
		}
	}
	return result{}
}

func writeResults(path string, results []result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func compareMain(args []string) int {
	fs := flag.NewFlagSet("verify compare", flag.ContinueOnError)
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			cli.Parse(fs, []string{"-h"}, usage) // prints the usage, exits 0
		}
	}
	if len(args) < 2 {
		cli.Usage("verify compare", "give two or more parity snapshots (see -h)")
	}
	var snaps []*snapshot
	for _, p := range args {
		s, err := readSnapshot(p)
		if err != nil {
			cli.Usage("verify compare", "%v", err)
		}
		snaps = append(snaps, s)
	}
	p := compareSnapshots(snaps)
	fmt.Println(parityLine(snaps, p))
	for _, d := range p.diffs {
		fmt.Println("  " + d)
	}
	if p.first != "" {
		fmt.Println("  first difference: " + p.first)
	}
	if p.mismatched > 0 {
		return 1
	}
	return 0
}

// parityLine is the comparison's verdict: "parity: N identical, M
// mismatched (A answers of each of S stacks against REF's)".
func parityLine(snaps []*snapshot, p parityResult) string {
	var names []string
	for _, s := range snaps {
		names = append(names, s.Stack)
	}
	return fmt.Sprintf("parity: %d identical, %d mismatched (%d answers of each of %s against %s's: %s)",
		p.identical, p.mismatched, len(snaps[0].Exchanges), plural(len(snaps)-1, "other stack"), snaps[0].Stack, strings.Join(names, ", "))
}

// collectMain gathers a bench run's row records and compares each run's
// snapshots (raw/run-N/ROW/verify.parity.json) into the run's record.
func collectMain(args []string) int {
	fs := flag.NewFlagSet("verify collect", flag.ContinueOnError)
	var out, raw string
	fs.StringVar(&out, "out", "", "the run's record to write (required)")
	fs.StringVar(&raw, "raw", "", "the run's raw folder, holding run-N/ROW/verify.verdict.json (required)")
	cli.Parse(fs, args, usage)
	if out == "" || raw == "" {
		cli.Usage("verify collect", "-raw and -out are required (see -h)")
	}
	runs, err := filepath.Glob(filepath.Join(raw, "run-*"))
	if err != nil || len(runs) == 0 {
		cli.Usage("verify collect", "%s: no run-N folders", raw)
	}
	slices.SortFunc(runs, func(a, b string) int { return runNumber(a) - runNumber(b) })
	rec := verdict.Record{Format: verdict.Format, Rows: []verdict.Row{}, Parity: []verdict.Parity{}}
	rc := 0
	for _, run := range runs {
		n := runNumber(run)
		files, _ := filepath.Glob(filepath.Join(run, "*", verdict.RowFile))
		var snaps []*snapshot
		for _, f := range files {
			row, err := verdict.ReadRow(f)
			if err != nil {
				cli.Fail("verify collect", "%v", err)
			}
			row.Run = n
			rec.Rows = append(rec.Rows, *row)
			if !row.Pass {
				rc = 1
			}
			if s, err := readSnapshot(filepath.Join(filepath.Dir(f), verdict.SnapshotFile)); err == nil {
				snaps = append(snaps, s)
			}
		}
		if len(snaps) < 2 {
			continue
		}
		p := compareSnapshots(snaps)
		var names []string
		for _, s := range snaps {
			names = append(names, s.Stack)
		}
		fmt.Printf("run %d: %s\n", n, parityLine(snaps, p))
		if p.first != "" {
			fmt.Println("  first difference: " + p.first)
			rc = 1
		}
		rec.Parity = append(rec.Parity, verdict.Parity{
			Run: n, Reference: snaps[0].Stack, Rows: names, Answers: len(snaps[0].Exchanges),
			Identical: p.identical, Mismatched: p.mismatched, First: p.first,
		})
	}
	if err := verdict.Write(out, rec); err != nil {
		cli.Fail("verify collect", "-out %s: %v", out, err)
	}
	fmt.Println(rec.Header())
	return rc
}

func runNumber(dir string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "run-"))
	return n
}
