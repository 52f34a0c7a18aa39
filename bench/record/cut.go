package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
)

// record cut OUT --from-ns T --duration S CSV
//
// A capacity step's window is the part of one vegeta attack after its
// lead-in (the profile's lead_in_s): the attack runs lead-in and window at
// the step's rate without a pause, so the window begins on a generator
// and an app already at that rate. cut keeps, of CSV (`vegeta encode -to
// csv` of the whole attack), the rows sent from T (unix ns) for S
// seconds, as CSV that `vegeta report` and `record timeline` read. Exit 2
// on a row it cannot read, naming the file and line.
func cutCmd(out string, args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("cut", flag.ContinueOnError)
	fl.SetOutput(stderr)
	from := fl.Int64("from-ns", 0, "the window's start, unix ns")
	dur := fl.Float64("duration", 0, "the window's length, seconds")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *from <= 0 || !(*dur > 0) || fl.NArg() != 1 {
		fmt.Fprintln(stderr, "record cut: want OUT --from-ns T --duration S CSV (T and S above 0)")
		return 2
	}
	kept, err := cut(out, fl.Arg(0), *from, *from+int64(*dur*1e9))
	if err != nil {
		fmt.Fprintln(stderr, "record cut:", err)
		return 2
	}
	if kept == 0 {
		fmt.Fprintf(stderr, "record cut: %s: no request was sent in the window\n", fl.Arg(0))
		return 2
	}
	return 0
}

// cut copies the rows of in whose send time is in [from, to) to out and
// says how many it kept.
func cut(out, in string, from, to int64) (int, error) {
	f, err := os.Open(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	o, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(o)
	w := csv.NewWriter(bw)
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	kept := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			o.Close()
			return 0, fmt.Errorf("%s: line %d: not CSV (%v)", in, line, err)
		}
		ts, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil || len(rec) < 3 {
			o.Close()
			return 0, fmt.Errorf("%s: line %d: not a row of vegeta encode -to csv (its first column is no unix ns time)", in, line)
		}
		if ts < from || ts >= to {
			continue
		}
		if err := w.Write(rec); err != nil {
			o.Close()
			return 0, err
		}
		kept++
	}
	w.Flush()
	if err := w.Error(); err != nil {
		o.Close()
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		o.Close()
		return 0, err
	}
	return kept, o.Close()
}
