package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTableLine(t *testing.T) {
	for line, want := range map[string]bool{
		"| go-nethttp[pg]  |      83,659 |              0.75× |": true,
		"| c-libmicrohttpd |     110,814 |              1.00× |": true,
		"| rust-axum |7": true,
		"bench: row python-fastapi, run 1: up 14,035 (70.4 µs)":         true,
		"| stack           | req/s (2xx) | vs c-libmicrohttpd |":        false,
		"| --------------- | ----------: | -----------------: |":        false,
		"| go-nethttp      | ok, ≤87%    |":                             false,
		"| Go-nethttp | 83,659 |":                                       false,
		"  | go-nethttp | 83,659 |":                                     false,
		"bench: run 1/1 · case 8/72 · python-fastapi read-under-writes": false,
		"bench: rows": false,
		"":            false,
	} {
		if got := tableLine(line); got != want {
			t.Errorf("tableLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// Real logs of scripts/first-table: their lines, fed in again at the
// seconds they were stamped with, come out as the same log, and the first
// table line's seconds is the one the log's last line reported.
func TestStampRealLogs(t *testing.T) {
	for file, first := range map[string]string{
		"testdata/first-table-summary.log": "1515.0\n", // a summary table, its header and separator before the first row
		"testdata/first-table-row.log":     "476.0\n",  // the bench's row line
	} {
		log, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var in bytes.Buffer
		var at []time.Duration
		for _, l := range strings.SplitAfter(string(log), "\n") {
			if l == "" {
				continue
			}
			s, line, _ := strings.Cut(strings.TrimLeft(l, " "), " ")
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", file, l, err)
			}
			at = append(at, time.Duration(v*float64(time.Second)))
			in.WriteString(line)
		}
		got, firstGot := stampAt(t, in.String(), at)
		if got != string(log) {
			t.Errorf("%s: the log differs:\n%s", file, got)
		}
		if firstGot != first {
			t.Errorf("%s: first %q, want %q", file, firstGot, first)
		}
	}
}

// Only the first table line's seconds are written; an unended last line
// is stamped too.
func TestStampFirstOnce(t *testing.T) {
	in := "bootstrap: ready in 3 s\nbench: row go-nethttp, run 1: up 1\n| go-nethttp[pg] | 83,659 |\nbench: stopped"
	at := []time.Duration{40 * time.Millisecond, 3260 * time.Millisecond, 61 * time.Second, 99999900 * time.Millisecond}
	log, first := stampAt(t, in, at)
	want := "    0.0 bootstrap: ready in 3 s\n    3.3 bench: row go-nethttp, run 1: up 1\n   61.0 | go-nethttp[pg] | 83,659 |\n99999.9 bench: stopped\n"
	if log != want || first != "3.3\n" {
		t.Fatalf("got log:\n%sfirst %q; want log:\n%sfirst \"3.3\\n\"", log, first, want)
	}
}

func TestStampNoTableLine(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	if err := stamp(strings.NewReader("bench: building\n"), &log, filepath.Join(dir, "first"), func() time.Duration { return 0 }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "first")); !os.IsNotExist(err) {
		t.Fatalf("a log without a table line wrote its first file (%v)", err)
	}
}

func TestStampStart(t *testing.T) {
	for s, ok := range map[string]bool{"1733470000.123456": true, "1733470000,123456": true, "": false, "soon": false, "-1.5": false} {
		got, err := epochSeconds(s)
		if (err == nil) != ok {
			t.Errorf("epochSeconds(%q): error %v", s, err)
		}
		if ok && got.UnixMicro() != 1733470000123456 {
			t.Errorf("epochSeconds(%q) = %d µs", s, got.UnixMicro())
		}
	}
}

// stampAt stamps in with the clock at each of at in turn, and returns the
// log and the first file's text.
func stampAt(t *testing.T, in string, at []time.Duration) (string, string) {
	t.Helper()
	first := filepath.Join(t.TempDir(), "first")
	var log bytes.Buffer
	i := 0
	since := func() time.Duration { i++; return at[i-1] }
	if err := stamp(strings.NewReader(in), &log, first, since); err != nil {
		t.Fatal(err)
	}
	if i != len(at) {
		t.Fatalf("%d lines stamped, want %d", i, len(at))
	}
	b, _ := os.ReadFile(first)
	return log.String(), string(b)
}

// The log's last line: the first table line's seconds as the first file
// holds them, else that there was none; the bench's end and status.
func TestStampLastLine(t *testing.T) {
	first := filepath.Join(t.TempDir(), "first")
	if got := lastLine(first, "1", 3721449*time.Millisecond); got != "# no table line; the bench ended after 3721.4 s (status 1)\n" {
		t.Errorf("without a table line: %q", got)
	}
	if err := os.WriteFile(first, []byte("476.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := lastLine(first, "143", 479*time.Second); got != "# first table line after 476.0 s; the bench ended after 479.0 s (status 143)\n" {
		t.Errorf("with a table line: %q", got)
	}
}
