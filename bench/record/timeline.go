package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"stacklab/formats/latencyline"
)

// timelineCmd writes OUT, a window's or a capacity step's latency timeline
// (<window>.latency.jsonl, formats/latencyline/README.md), from the
// generator's per-request output: oha's --db-url file, whose clock starts
// at --start-unix-ns (oha's times count from its own start), or the CSV of
// `vegeta encode -to csv` of each lane of a step, which carries its own
// clock. Only OUT is kept: the caller may delete the db or CSVs after.
//
//	record timeline OUT (--oha-db FILE --start-unix-ns N | --vegeta-csv FILE [--vegeta-csv FILE]...) [--bucket-ms 100]
//
// Bad input (a missing file, a corrupt db, a bad CSV row, wrong flags) is
// one line naming the file and the fault, and exit 2; a failure to write
// OUT is exit 1. It returns the exit code.
func timelineCmd(out string, args []string, stderr io.Writer) int {
	t, err := timelineOf(args)
	if err != nil {
		fmt.Fprintln(stderr, "record timeline:", err)
		return 2
	}
	if err := latencyline.WriteFile(out, t); err != nil {
		fmt.Fprintln(stderr, "record timeline:", err)
		return 1
	}
	return 0
}

func timelineOf(args []string) (latencyline.Timeline, error) {
	fl := flag.NewFlagSet("record timeline", flag.ContinueOnError)
	fl.SetOutput(io.Discard) // the one line main prints says what is wrong
	db := fl.String("oha-db", "", "oha --db-url FILE of a window")
	start := fl.Int64("start-unix-ns", 0, "when oha started, unix ns (its times count from it)")
	bucketMs := fl.Int("bucket-ms", int(latencyline.DefaultBucket.Milliseconds()), "bucket length in ms")
	var csvs multi
	fl.Var(&csvs, "vegeta-csv", "vegeta encode -to csv of one lane of a step (repeatable)")
	if err := fl.Parse(args); err != nil {
		return latencyline.Timeline{}, err
	}
	bucket := time.Duration(*bucketMs) * time.Millisecond
	switch {
	case fl.NArg() > 0:
		return latencyline.Timeline{}, fmt.Errorf("unexpected argument %q (want OUT then flags)", fl.Arg(0))
	case *bucketMs < 1:
		return latencyline.Timeline{}, fmt.Errorf("--bucket-ms %d: want 1 or more", *bucketMs)
	case (*db == "") == (len(csvs) == 0):
		return latencyline.Timeline{}, errors.New("give either --oha-db with --start-unix-ns, or --vegeta-csv (one per lane)")
	case *db != "" && *start == 0:
		return latencyline.Timeline{}, errors.New("--oha-db needs --start-unix-ns (when oha started, unix ns)")
	case *db != "" && *start < 1e18:
		// Seconds or ms by mistake would put the window decades off the
		// cgroup timeline and the hiccup record it is lined up with.
		return latencyline.Timeline{}, fmt.Errorf("--start-unix-ns %d is not unix nanoseconds (19 digits, date +%%s%%N)", *start)
	case *db == "" && *start != 0:
		return latencyline.Timeline{}, errors.New("--start-unix-ns goes with --oha-db only: vegeta's CSV carries its own clock")
	}
	if *db != "" {
		reqs, err := latencyline.ReadOhaDB(*db)
		if err != nil {
			return latencyline.Timeline{}, err
		}
		return latencyline.Build(*start, latencyline.SourceOha, reqs, bucket), nil
	}
	var lanes []latencyline.Lane
	for _, path := range csvs {
		l, err := readLane(path)
		if err != nil {
			return latencyline.Timeline{}, err
		}
		lanes = append(lanes, l)
	}
	reqs, t0 := latencyline.Merge(lanes...)
	return latencyline.Build(t0.UnixNano(), latencyline.SourceVegeta, reqs, bucket), nil
}

func readLane(path string) (latencyline.Lane, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return latencyline.Lane{}, fmt.Errorf("%s: missing", path)
		}
		return latencyline.Lane{}, err
	}
	defer f.Close()
	reqs, t0, err := latencyline.ReadVegetaCSV(f, path)
	return latencyline.Lane{Requests: reqs, Start: t0}, err
}
