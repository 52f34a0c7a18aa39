package main

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"stacklab/formats/golden"
	"stacklab/formats/latencyline"
)

const fixtures = "../../formats/latencyline/testdata/"

// recordExit runs record and returns its stderr and exit code.
func recordExit(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RECORD_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return strings.TrimSpace(stderr.String()), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(stderr.String()), 0
}

// A step's two vegeta lanes become one timeline on the earlier lane's clock.
func TestTimelineVegeta(t *testing.T) {
	out := filepath.Join(t.TempDir(), "step-03.latency.jsonl")
	record(t, "timeline", out, "--vegeta-csv", fixtures+"vegeta-lane1.csv", "--vegeta-csv", fixtures+"vegeta-lane2.csv", "--bucket-ms", "250")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/golden/timeline-vegeta.jsonl", b)
	tl, err := latencyline.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if h := tl.Header; h.Source != "vegeta" || h.StartUnixNs != 1_767_225_600_000_000_000 || h.Requests != 9 || h.Errors != 2 || h.BucketMs != 250 {
		t.Errorf("header %+v", h)
	}
}

// A window's oha db, on the clock the bench gives.
func TestTimelineOha(t *testing.T) {
	dir := t.TempDir()
	schema, err := os.ReadFile(fixtures + "oha.schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "page.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{string(schema),
		`INSERT INTO oha VALUES ('u', 0.000, NULL, 0.002, 0.002, 200, 2, 1796161135)`,
		`INSERT INTO oha VALUES ('u', 0.002, NULL, 0.352, 0.350, 200, 2, 1796161135)`,
		`INSERT INTO oha VALUES ('u', 0.352, NULL, 0.353, 0.001, 503, 2, 1796161135)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	out := filepath.Join(dir, "page.latency.jsonl")
	record(t, "timeline", out, "--oha-db", path, "--start-unix-ns", "1796161135371811689")
	tl, err := latencyline.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if h := tl.Header; h.Source != "oha" || h.StartUnixNs != 1796161135371811689 || h.Answers != 3 || h.AnswerGapMs != 350 || h.AnswerGapAtMs != 2 || h.BucketMs != 100 {
		t.Errorf("header %+v", h)
	}
}

// Bad input is one line on stderr naming the file and the fault, exit 2,
// and no OUT.
func TestTimelineRefuses(t *testing.T) {
	dir := t.TempDir()
	notdb := filepath.Join(dir, "corrupt.db")
	os.WriteFile(notdb, []byte("not sqlite\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing db", []string{"--oha-db", filepath.Join(dir, "nosuch.db"), "--start-unix-ns", "1796161135371811689"}, "nosuch.db: missing"},
		{"corrupt db", []string{"--oha-db", notdb, "--start-unix-ns", "1796161135371811689"}, "corrupt.db: not an oha --db-url file"},
		{"bad csv", []string{"--vegeta-csv", fixtures + "vegeta-lane1.csv", "--vegeta-csv", fixtures + "vegeta-badcode.csv"}, "vegeta-badcode.csv:3: corrupt line: code"},
		{"missing csv", []string{"--vegeta-csv", filepath.Join(dir, "lane9.csv")}, "lane9.csv: missing"},
		{"no start", []string{"--oha-db", notdb}, "--oha-db needs --start-unix-ns"},
		{"start in seconds", []string{"--oha-db", notdb, "--start-unix-ns", "1796161135"}, "is not unix nanoseconds"},
		{"both sources", []string{"--oha-db", notdb, "--start-unix-ns", "1796161135371811689", "--vegeta-csv", "x.csv"}, "give either"},
		{"neither", nil, "give either"},
	} {
		out := filepath.Join(dir, "out.latency.jsonl")
		stderr, code := recordExit(t, append([]string{"timeline", out}, c.args...)...)
		if code != 2 || strings.Count(stderr, "\n") != 0 || !strings.HasPrefix(stderr, "record timeline: ") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: OUT written", c.name)
		}
	}
}
