package main

// The bench's redo rules, decided here and nowhere else. After a run is
// walked (its quiet watch still on) the bench asks with the run's raw
// folder, and as long as the answer is "rows" it measures those rows
// again and asks again; once the watch has stopped it asks with the
// watch's file. The rules, in order:
//
//   - rows: the profile's canary_redo is on, an attempt is left (the
//     profile's max_redo), and the CPU-speed canary (bench/canary/verdict)
//     flagged windows of the run: their rows are measured again at the
//     run's end, the canary's words the evidence of the attempt set aside;
//   - run: the quiet gate is on, an attempt is left, and the quiet watch's
//     file (formats/quietlog) says the run was not quiet: the run is set
//     aside and walked again, the watch's file its evidence;
//   - keep: otherwise. A canary verdict that cannot read its files says so
//     and the run is kept (summarize will name the bad file); a run with no
//     watch file has nothing said against it.
//
//	plan redo WORK --run N --attempt A --max M [--canary-redo 0|1 --raw DIR [--threshold X]]
//	               [--quiet-gate 0|1 --quiet FILE]
//	    REDO=rows|run|keep, REDO_ATTEMPT (the attempt the redo is, else A),
//	    REDO_NOTE (a line for the bench to show, or empty), REDO_EVIDENCE
//	    (the JSON the manifest keeps of the attempt set aside) and
//	    REDO_ROWS_FILE (the rows to measure again, one a line); the
//	    canary's evidence goes to WORK/run-N.canary.json and .rows

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"stacklab/bench/canary/verdict"
	"stacklab/formats/quietlog"
	"stacklab/formats/speed"
)

// redoAsk is what the bench knows when it asks: the run, the attempts so
// far and allowed, the profile's switches and the evidence at hand.
type redoAsk struct {
	Work       string // the bench's scratch folder, for the canary's evidence
	Run        int
	Attempt    int // attempts set aside so far
	Max        int // the profile's max_redo (or the tests' LAB_MAX_REDO)
	CanaryRedo bool
	Raw        string // the run's raw folder (raw/run-N): ask the canary
	Threshold  float64
	QuietGate  bool
	Quiet      string // the quiet watch's file: ask the gate
}

// redoAnswer is what the bench does next.
type redoAnswer struct {
	Redo     string // rows, run or keep
	Attempt  int
	Note     string
	Evidence string
	RowsFile string
}

// decideRedo applies the rules above. It reads the evidence it is given
// and writes the canary's; what it cannot read is in its note.
func decideRedo(a redoAsk) redoAnswer {
	keep := redoAnswer{Redo: "keep", Attempt: a.Attempt}
	if a.Attempt >= a.Max {
		return keep
	}
	of := fmt.Sprintf("attempt %d of %d", a.Attempt+2, a.Max+1)
	if a.CanaryRedo && a.Raw != "" {
		ev := filepath.Join(a.Work, fmt.Sprintf("run-%d.canary", a.Run))
		if err := errors.Join(removeIfThere(ev+".json"), removeIfThere(ev+".rows")); err != nil {
			keep.Note = fmt.Sprintf("run %d: canary verdict: %v", a.Run, err)
			return keep
		}
		v, err := verdict.Judge(a.Raw, a.Threshold)
		if err == nil {
			err = v.Write(ev+".json", ev+".rows")
		}
		if err != nil {
			keep.Note = fmt.Sprintf("run %d: canary verdict: %v", a.Run, err)
			return keep
		}
		if len(v.Rows) > 0 {
			return redoAnswer{Redo: "rows", Attempt: a.Attempt + 1, Evidence: ev + ".json", RowsFile: ev + ".rows",
				Note: fmt.Sprintf("run %d: %s (%s)", a.Run, v.Line(true), of)}
		}
	}
	if a.QuietGate && a.Quiet != "" {
		if _, err := os.Stat(a.Quiet); errors.Is(err, os.ErrNotExist) {
			return keep
		}
		// A file that cannot be read says nothing for the run either.
		words := ""
		r, err := quietlog.Read(a.Quiet)
		if err != nil {
			words = "quiet verdict: " + err.Error()
		} else if !r.Quiet {
			words = r.Verdict()
		}
		if words != "" {
			return redoAnswer{Redo: "run", Attempt: a.Attempt + 1, Evidence: a.Quiet,
				Note: fmt.Sprintf("run %d was not quiet (%s); discarding it, %s", a.Run, words, of)}
		}
	}
	return keep
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func redoCmd(work string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("redo", flag.ContinueOnError)
	a := redoAsk{Work: work}
	fl.IntVar(&a.Run, "run", 0, "the run (1, 2, …)")
	fl.IntVar(&a.Attempt, "attempt", 0, "attempts of the run set aside so far")
	fl.IntVar(&a.Max, "max", -1, "the profile's max_redo")
	canary := fl.Int("canary-redo", 0, "1: the profile's canary_redo is on")
	fl.StringVar(&a.Raw, "raw", "", "the run's raw folder (raw/run-N), for the canary")
	fl.Float64Var(&a.Threshold, "threshold", speed.Threshold, "the share a canary reading may be off its run's median")
	gate := fl.Int("quiet-gate", 0, "1: the quiet gate is on")
	fl.StringVar(&a.Quiet, "quiet", "", "the quiet watch's file, once the watch has stopped")
	if err := parseFlags("redo", args, fl); err != nil {
		return err
	}
	switch {
	case a.Run < 1:
		return &usageError{"--run N: want a run of 1 or more"}
	case a.Max < 0:
		return &usageError{"--max M: want the profile's max_redo, 0 or more"}
	case a.Attempt < 0:
		return &usageError{"--attempt A: want 0 or more"}
	case *canary != 0 && *canary != 1, *gate != 0 && *gate != 1:
		return &usageError{"--canary-redo and --quiet-gate: want 0 or 1"}
	}
	a.CanaryRedo, a.QuietGate = *canary == 1, *gate == 1
	r := decideRedo(a)
	// each value on its line: a process's name in the quiet verdict may hold a newline
	line := strings.NewReplacer("\r", " ", "\n", " ")
	fmt.Fprintf(out, "REDO=%s\nREDO_ATTEMPT=%d\nREDO_NOTE=%s\nREDO_EVIDENCE=%s\nREDO_ROWS_FILE=%s\n",
		r.Redo, r.Attempt, line.Replace(r.Note), line.Replace(r.Evidence), line.Replace(r.RowsFile))
	return nil
}
