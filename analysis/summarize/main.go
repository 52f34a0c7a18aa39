// Command summarize derives summary.md, summary.json and report.html from a
// results folder's raw files and manifest, writes them into the folder and
// prints summary.md.
//
//	summarize [--baseline STACK] RUN
//	summarize --row STACK --run N RUN   (one stack's line, as the bench prints it)
//
// Exit status: 0 all good; 1 a correctness gate failed (the outputs are
// written, whole, with the failed cells marked, and one line per failure
// goes to stderr); 2 bad input (nothing is written; one line names the
// file and the fault).
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"stacklab/analysis/render"
	"stacklab/analysis/results"
	"stacklab/analysis/sizes"
	"stacklab/analysis/summary"
)

const usage = `usage: summarize [--baseline STACK] RUN
       summarize --row STACK --run N RUN

Reads RUN/manifest.json and RUN/raw/, checks RUN/checksums.sha256, and writes
RUN/summary.md, RUN/summary.json and RUN/report.html, then prints summary.md.

  --baseline STACK   the stack ratios are taken against (default: the first
                     stack of the study)
  --row STACK        write nothing; print STACK's figures in run N (--run)
                     on one line, from a folder the bench may still be
                     writing (its progress line as each stack is done)

Exit status: 0 all good; 1 a correctness gate failed (outputs written, failed
cells marked, one line per failure on stderr); 2 bad input (nothing written).

Example:
  summarize --baseline go-nethttp results/2026-11-29-local-all
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	bad := func(msg string) int {
		fmt.Fprintln(stderr, "summarize: "+msg)
		return 2
	}
	var dir, row string
	runN := 0
	var opt summary.Options
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help" || a == "-help":
			fmt.Fprint(stdout, usage)
			return 0
		case a == "--baseline" || a == "-baseline":
			if i+1 >= len(args) {
				return bad("--baseline: needs a stack name")
			}
			i++
			opt.Baseline = args[i]
		case strings.HasPrefix(a, "--baseline="):
			opt.Baseline = strings.TrimPrefix(a, "--baseline=")
		case a == "--row":
			if i+1 >= len(args) {
				return bad("--row: needs a stack name")
			}
			i++
			row = args[i]
		case a == "--run":
			if i+1 >= len(args) {
				return bad("--run: needs a run number")
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 {
				return bad("--run " + args[i] + ": not a run number (1, 2, ...)")
			}
			runN = n
		case strings.HasPrefix(a, "-"):
			return bad(a + ": unknown flag (see --help)")
		case dir != "":
			return bad(a + ": one results folder at a time (already have " + dir + ")")
		default:
			dir = a
		}
	}
	if dir == "" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if row != "" || runN != 0 {
		if row == "" || runN == 0 {
			return bad("--row and --run go together")
		}
		return rowLine(dir, row, runN, opt, stdout, stderr)
	}
	if sizes.Is(dir) {
		return size(dir, opt, stdout, stderr)
	}
	f, err := results.Load(dir)
	if err != nil {
		return bad(err.Error())
	}
	s, err := summary.Compute(f, opt)
	if err != nil {
		return bad(err.Error())
	}
	files := render.Files(s)
	if err := writeAll(dir, files); err != nil {
		return bad(err.Error())
	}
	stdout.Write(files[0].Data)
	for _, fl := range s.Failures {
		fmt.Fprintln(stderr, "summarize: FAIL "+fl.String())
	}
	if len(s.Failures) > 0 {
		return 1
	}
	return 0
}

// rowLine prints one stack's line for one run (render.RowLine), from a
// folder that may still be written; nothing is written to it.
func rowLine(dir, stack string, run int, opt summary.Options, stdout, stderr io.Writer) int {
	f, err := results.LoadInProgress(dir)
	if err != nil {
		fmt.Fprintln(stderr, "summarize: "+err.Error())
		return 2
	}
	if !measuredIn(f, stack, run) {
		fmt.Fprintf(stderr, "summarize: %s: run %d has no window of %s\n", dir, run, stack)
		return 2
	}
	s, err := summary.Compute(f, opt)
	if err != nil {
		fmt.Fprintln(stderr, "summarize: "+err.Error())
		return 2
	}
	fmt.Fprintln(stdout, render.RowLine(s, stack, run))
	return 0
}

// measuredIn: has run n of the folder a window of stack that the bench
// came to (measured, or failed on its own)?
func measuredIn(f *results.Folder, stack string, n int) bool {
	for _, r := range f.Runs {
		if r.N != n {
			continue
		}
		for _, sr := range r.Stacks {
			if sr.Stack != stack {
				continue
			}
			for _, w := range sr.Windows {
				if w.Failed != results.NotMeasured {
					return true
				}
			}
		}
	}
	return false
}

// size summarizes a size study's folder (analysis/sizes), with the same
// outputs, exit status and failure lines as a load study's.
func size(dir string, opt summary.Options, stdout, stderr io.Writer) int {
	z, err := sizes.Load(dir, sizes.Options{Baseline: opt.Baseline})
	if err != nil {
		fmt.Fprintln(stderr, "summarize: "+err.Error())
		return 2
	}
	files := render.SizeFiles(z)
	if err := writeAll(dir, files); err != nil {
		fmt.Fprintln(stderr, "summarize: "+err.Error())
		return 2
	}
	stdout.Write(files[0].Data)
	for _, fl := range z.Failures {
		fmt.Fprintln(stderr, "summarize: FAIL "+fl.String())
	}
	if len(z.Failures) > 0 {
		return 1
	}
	return 0
}

// writeAll writes every file to a temporary name first and renames them
// only when all are written, so a failure leaves the old outputs in place.
func writeAll(dir string, files []render.File) error {
	var tmps []string
	cleanup := func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	for _, fl := range files {
		t, err := os.CreateTemp(dir, "."+fl.Name+".tmp-*")
		if err != nil {
			cleanup()
			return fmt.Errorf("%s: %v", dir, err)
		}
		tmps = append(tmps, t.Name())
		_, werr := t.Write(fl.Data)
		cerr := t.Close()
		if werr != nil || cerr != nil {
			cleanup()
			return fmt.Errorf("%s: cannot write: %v", t.Name(), firstErr(werr, cerr))
		}
		if err := os.Chmod(t.Name(), 0o644); err != nil {
			cleanup()
			return err
		}
	}
	for i, fl := range files {
		if err := os.Rename(tmps[i], filepath.Join(dir, fl.Name)); err != nil {
			cleanup()
			return err
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
