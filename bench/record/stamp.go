package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"stacklab/formats/rawfile"
)

// record stamp LOG --start T --first FILE [--ended STATUS] < LINES
//
// How long a newcomer waits for a first table (scripts/first-table): each
// line the bench prints, appended to LOG after the seconds since T (bash's
// $EPOCHREALTIME when the bench started), and the seconds of the first
// table line written to FILE, once. Each line goes to LOG as it comes, so
// the log is whole whenever the bench is stopped. With --ended, LOG's last
// line instead: the first table line's seconds (FILE) and the bench's end
// and exit status. Exit 2 on a bad flag.
func stampCmd(log string, args []string, stdin io.Reader, stderr io.Writer) int {
	fl := flag.NewFlagSet("record stamp", flag.ContinueOnError)
	fl.SetOutput(stderr)
	startFlag := fl.String("start", "", "when the bench started, seconds since the epoch as $EPOCHREALTIME has them (1733470000.123456)")
	first := fl.String("first", "", "the file the first table line's seconds go to")
	ended := fl.String("ended", "", "the bench's exit status: write LOG's last line")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	start, err := epochSeconds(*startFlag)
	if _, serr := strconv.Atoi(*ended); err != nil || *first == "" || fl.NArg() != 0 || *ended != "" && serr != nil {
		fmt.Fprintln(stderr, "record stamp: want LOG --start SECONDS.MICROS --first FILE [--ended STATUS]")
		return 2
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, "record stamp:", err)
		return 2
	}
	defer f.Close()
	since := func() time.Duration { return time.Since(start) }
	if *ended != "" {
		_, err = io.WriteString(f, lastLine(*first, *ended, since()))
	} else {
		err = stamp(stdin, f, *first, since)
	}
	if err != nil {
		fmt.Fprintln(stderr, "record stamp:", err)
		return 1
	}
	return 0
}

// lastLine ends the log: when the first table line came, if one did, and
// when the bench ended.
func lastLine(first, status string, ended time.Duration) string {
	end := fmt.Sprintf("the bench ended after %.1f s (status %s)\n", ended.Seconds(), status)
	if b, err := os.ReadFile(first); err == nil {
		return fmt.Sprintf("# first table line after %s s; %s", strings.TrimSpace(string(b)), end)
	}
	return "# no table line; " + end
}

// epochSeconds reads $EPOCHREALTIME's form: seconds, then a decimal point
// (a comma under some locales) and microseconds.
func epochSeconds(s string) (time.Time, error) {
	v, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
	if err != nil || v <= 0 {
		return time.Time{}, fmt.Errorf("--start %q: not seconds since the epoch", s)
	}
	return time.Unix(0, int64(v*1e9)), nil
}

// stamp copies each line of in to log as "%7s LINE", the seconds since
// the start with one decimal, and writes the first table line's seconds to
// first. A last line without a newline is stamped too.
func stamp(in io.Reader, log io.Writer, first string, since func() time.Duration) error {
	r := bufio.NewReader(in)
	seen := false
	for {
		line, err := r.ReadString('\n')
		if line == "" && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		line = strings.TrimSuffix(line, "\n")
		t := fmt.Sprintf("%.1f", since().Seconds())
		if _, err := fmt.Fprintf(log, "%7s %s\n", t, line); err != nil {
			return err
		}
		if !seen && tableLine(line) {
			seen = true
			// (whole: scripts/first-table may read it the moment it appears)
			if err := rawfile.Write(first, []byte(t+"\n")); err != nil {
				return err
			}
		}
	}
}

// tableRow is a row of numbers in a markdown table of the summary: its
// first cell a stack or a variant (go-nethttp[pg]), its second a number;
// a header row or a separator is not one.
var tableRow = regexp.MustCompile(`^\| *[a-z][a-z0-9_.-]*(\[[^\]]*\])? *\| *[0-9]`)

// tableLine says whether the bench printed a row of numbers: a summary
// table's row, or the row line it prints as each stack is measured
// (scripts/lib/bench-run.sh row_line: "bench: row " and summarize --row).
func tableLine(line string) bool {
	return strings.HasPrefix(line, "bench: row ") || tableRow.MatchString(line)
}
