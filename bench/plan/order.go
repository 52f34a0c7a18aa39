package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// sliceOrder is the paired profile's order of rows in slice seed: a
// Fisher–Yates shuffle driven by PCG seeded with the slice's number, so
// the same seed gives the same order on every host and Go release (PCG's
// output is fixed by its definition; the index comes from it by our own
// arithmetic, not by a library shuffle that may change).
func sliceOrder(seed uint64, rows []string) []string {
	out := append([]string(nil), rows...)
	r := rand.NewPCG(seed, 0x5ac1e)
	for i := len(out) - 1; i > 0; i-- {
		j := int(r.Uint64() % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// runOrder is the order of the rows in run n of a sequential bench: the
// study's order in odd runs and the reverse in even ones, so that no row
// always runs first on a fresh host or last on a warm one; in run 1 the
// rows whose image is built late (the quick profile's late_images) go
// after the others, so the first rows need no build.
func runOrder(n int, rows []string, late map[string]bool) []string {
	var out []string
	switch {
	case n == 1 && len(late) > 0:
		for _, r := range rows {
			if !late[r] {
				out = append(out, r)
			}
		}
		for _, r := range rows {
			if late[r] {
				out = append(out, r)
			}
		}
	case n%2 == 1:
		out = append(out, rows...)
	default:
		for i := len(rows) - 1; i >= 0; i-- {
			out = append(out, rows[i])
		}
	}
	return out
}

// sizeLeft is the size study's time left from row of run on, as run 1
// took each row (took, seconds), in each run's order; "" until run 1 has
// taken every row (its builds set the pace).
func sizeLeft(run, runs int, row string, rows []string, took map[string]int) string {
	for _, r := range rows {
		if _, ok := took[r]; !ok {
			return ""
		}
	}
	total, started := 0, false
	for n := run; n <= runs; n++ {
		for _, r := range runOrder(n, rows, nil) {
			started = started || n > run || r == row
			if started {
				total += took[r]
			}
		}
	}
	return fmt.Sprintf("%dm%02ds", total/60, total%60)
}

// sizeLeftCmd: plan size-left RUN ROW --runs N [--took ROW=S,...] ROW...
// prints "about XmYYs left", or that it is known after run 1.
func sizeLeftCmd(run string, args []string, out io.Writer) error {
	n, err := strconv.Atoi(run)
	if err != nil || n < 1 || len(args) < 1 {
		return &usageError{"want RUN ROW --runs N [--took ROW=S,...] ROW..."}
	}
	row, args := args[0], args[1:]
	fl := flag.NewFlagSet("size-left", flag.ContinueOnError)
	runs := fl.Int("runs", 0, "the study's runs")
	tookFlag := fl.String("took", "", "ROW=SECONDS each row took in run 1, comma-separated")
	fl.SetOutput(io.Discard)
	if err := fl.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	if *runs < n || fl.NArg() == 0 {
		return &usageError{"want --runs N (at least RUN) and the rows"}
	}
	took := map[string]int{}
	for _, kv := range strings.Split(*tookFlag, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s, err := strconv.Atoi(v)
			if err != nil || s < 0 {
				return &usageError{fmt.Sprintf("--took %q: want ROW=SECONDS", kv)}
			}
			took[k] = s
		}
	}
	if left := sizeLeft(n, *runs, row, fl.Args(), took); left != "" {
		fmt.Fprintf(out, "about %s left\n", left)
	} else {
		fmt.Fprintln(out, "time left known after run 1")
	}
	return nil
}
