package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/formats/latencyline"
)

// A step's attack ran a lead-in before its window: cut keeps the rows sent
// in the window, as CSV the timeline (and vegeta report) read again.
func TestCutKeepsTheWindow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "main.cut.csv")
	// lane 1 sent at +0, +5, … +25 ms; the window is [+10 ms, +20 ms)
	record(t, "cut", out, "--from-ns", "1767225600010000000", "--duration", "0.010", fixtures+"vegeta-lane1.csv")
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reqs, start, err := latencyline.ReadVegetaCSV(f, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || start.UnixNano() != 1767225600010000000 {
		t.Errorf("kept %d rows from %d, want 2 from the window's start", len(reqs), start.UnixNano())
	}
}

// A row that is not vegeta's, and a window nothing was sent in, get one
// line and exit 2.
func TestCutRefuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	good, err := os.ReadFile(fixtures + "vegeta-lane1.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, append(good, []byte("yesterday,200,1\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from-ns", "1767225600000000000", "--duration", "1", bad}, "bad.csv: line 7: not a row of vegeta encode -to csv"},
		{[]string{"--from-ns", "1767225700000000000", "--duration", "1", fixtures + "vegeta-lane1.csv"}, "no request was sent in the window"},
		{[]string{"--duration", "1", bad}, "want OUT --from-ns T --duration S CSV"},
	} {
		msg, code := recordExit(t, append([]string{"cut", filepath.Join(dir, "out.csv")}, c.args...)...)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 0 {
			t.Errorf("cut %v: exit %d, %q; want exit 2 and one line with %q", c.args, code, msg, c.want)
		}
	}
}
