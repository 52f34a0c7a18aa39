package main

// The bench's schedule, decided here once and walked by the bench's bash
// (walk in scripts/lib/bench-run.sh): every step of a run in order, each a kind
// the bench has one runner for. A step is "KIND RUN ROW WINDOW" ("-" for
// a part it has none of); its kinds are the ETA's phases (eta.go):
//
//	ceilings RUN        the mock upstream's ceiling windows
//	headroom RUN        the generator's headroom and the network path
//	boot RUN ROW [W]    ROW's app up on a fresh database, checked
//	restart RUN ROW W   (paired) every row again on a fresh database for W
//	warmup RUN ROW W    (paired) ROW's warm-up slice for W
//	window RUN ROW W    a measured window (sequential: its own restart
//	                    for a fresh_db case, its warm-up as plan window
//	                    says)
//	sampler RUN ROW W   W again without the sampler (and the like): what
//	                    watching costs
//	stop RUN ROW        ROW's app stopped
//
// What is left to the bench is what only a measurement can tell: a row
// whose app did not come up skips the rest of its steps, a run that was
// not quiet is walked again, the canary's rows get a schedule of their
// own (--rows).

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"stacklab/analysis/study"
)

// Step is one step of a schedule.
type Step struct {
	Kind   string `json:"kind"`
	Run    int    `json:"run"`
	Row    string `json:"row,omitempty"`
	Window string `json:"window,omitempty"`
}

func (s Step) String() string {
	dash := func(v string) string {
		if v == "" {
			return "-"
		}
		return v
	}
	return fmt.Sprintf("%s %d %s %s", s.Kind, s.Run, dash(s.Row), dash(s.Window))
}

// stepOf is the step String printed, read back: "-" is a part it has
// none of.
func stepOf(kind string, run int, row, window string) Step {
	undash := func(v string) string {
		if v == "-" {
			return ""
		}
		return v
	}
	return Step{Kind: kind, Run: run, Row: undash(row), Window: undash(window)}
}

// Walk is what a schedule is made from: the rows in the study's order,
// the study's windows, and the profile's choices.
type Walk struct {
	Rows     []string
	Windows  []study.Window
	Late     map[string]bool // rows whose image is built just before their turn
	Check    string          // the window measured again for the sampler's cost ("" none)
	Headroom bool            // the generator's headroom, once a run
}

func (w Walk) ceilings() bool {
	for _, win := range w.Windows {
		if win.Case.Ceiling {
			return true
		}
	}
	return false
}

// RunSteps is run n of a sequential bench: the ceilings and the headroom
// first, then each row in runOrder's order, its windows in the study's
// order, the sampler check after its window on the run's first row.
// With only set (rows measured again at the run's end, in that order),
// those rows alone; the check comes with the run's first row again.
func (w Walk) RunSteps(n int, only []string) []Step {
	order := runOrder(n, w.Rows, w.Late)
	var steps []Step
	rows := only
	if only == nil {
		rows = order
		if w.ceilings() {
			steps = append(steps, Step{Kind: "ceilings", Run: n})
		}
		if w.Headroom {
			steps = append(steps, Step{Kind: "headroom", Run: n})
		}
	}
	for _, row := range rows {
		steps = append(steps, Step{Kind: "boot", Run: n, Row: row})
		for _, win := range w.Windows {
			steps = append(steps, Step{Kind: "window", Run: n, Row: row, Window: win.ID})
			if win.ID == w.Check && row == order[0] {
				steps = append(steps, Step{Kind: "sampler", Run: n, Row: row, Window: win.ID})
			}
		}
		steps = append(steps, Step{Kind: "stop", Run: n, Row: row})
	}
	return steps
}

// PairedSteps is a paired bench's whole schedule: every row up at once
// (each run a slice): the ceilings once, then for each case every row
// booted (the first case) or restarted (a fresh_db case), warmed up, and
// slice after slice of it in sliceOrder's order; the sampler check on
// the study's first row, before the slice in even slices and after it in
// odd ones, so its cost is a median of adjacent pairs; every row stopped
// at the end.
func (w Walk) PairedSteps(runs int) ([]Step, error) {
	if len(w.Rows) < 2 {
		return nil, fmt.Errorf("the paired profile compares rows: it runs %d (give two or more with --stacks)", len(w.Rows))
	}
	var steps []Step
	if w.ceilings() {
		steps = append(steps, Step{Kind: "ceilings", Run: 1})
	}
	for i, win := range w.Windows {
		if win.Case.Ramp != nil {
			return nil, fmt.Errorf("the paired profile runs closed-loop cases; '%s' is a capacity ramp", win.ID)
		}
		if i == 0 || win.Case.FreshDB {
			kind := "restart"
			if i == 0 {
				kind = "boot"
			}
			for _, row := range w.Rows {
				steps = append(steps, Step{Kind: kind, Run: 1, Row: row, Window: win.ID})
			}
		}
		for _, row := range w.Rows {
			steps = append(steps, Step{Kind: "warmup", Run: 1, Row: row, Window: win.ID})
		}
		for k := 1; k <= runs; k++ {
			for _, row := range sliceOrder(uint64(k), w.Rows) {
				check := win.ID == w.Check && row == w.Rows[0]
				if check && k%2 == 0 {
					steps = append(steps, Step{Kind: "sampler", Run: k, Row: row, Window: win.ID})
				}
				steps = append(steps, Step{Kind: "window", Run: k, Row: row, Window: win.ID})
				if check && k%2 == 1 {
					steps = append(steps, Step{Kind: "sampler", Run: k, Row: row, Window: win.ID})
				}
			}
		}
	}
	for _, row := range w.Rows {
		steps = append(steps, Step{Kind: "stop", Run: 1, Row: row})
	}
	return steps, nil
}

// walkFlags are the flags a schedule is made from, shared by plan
// schedule and plan eta-start so that both make the same one.
type walkFlags struct {
	rows, late, check *string
	sampler, conns    *int
}

func addWalkFlags(fl *flag.FlagSet) walkFlags {
	return walkFlags{
		rows:    fl.String("rows", "", "the bench's rows, in the study's order, comma-separated"),
		late:    fl.String("late", "", "rows whose image is built just before their turn"),
		check:   fl.String("sampler-check", "", "the window measured again for the sampler's cost"),
		sampler: fl.Int("sampler", 1, "1: the cgroup sampler runs (0: no check of its cost)"),
		conns:   fl.Int("connections", defaultConnections, "the host profile's default connections"),
	}
}

// list is a comma-separated flag's values (none for "").
func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// walk makes the Walk of the study at path from the parsed flags.
func (f walkFlags) walk(path string) (Walk, error) {
	s, err := study.Load(path)
	if err != nil {
		return Walk{}, err
	}
	ws := s.Windows(*f.conns)
	w := Walk{Rows: list(*f.rows), Windows: ws, Late: map[string]bool{}, Headroom: Headroom(ws)}
	if *f.sampler == 1 {
		w.Check = *f.check
	}
	for _, r := range list(*f.late) {
		w.Late[r] = true
	}
	return w, nil
}

// scheduleCmd prints a schedule, one step a line:
// plan schedule STUDY --rows a,b (--run N [--late a,b] [--only a,b] | --paired --runs N)
// [--sampler-check W] [--sampler 0|1] [--connections N]
func scheduleCmd(path string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("schedule", flag.ContinueOnError)
	wf := addWalkFlags(fl)
	n := fl.Int("run", 0, "the run whose steps to print (sequential)")
	only := fl.String("only", "", "only these rows, in this order (measured again at the run's end)")
	paired := fl.Bool("paired", false, "the paired profile's whole schedule")
	runs := fl.Int("runs", 0, "slices (paired)")
	if err := parseFlags("schedule", args, fl); err != nil {
		return err
	}
	if *wf.rows == "" || (*paired && *runs < 1) || (!*paired && *n < 1) {
		return &usageError{"want --rows a,b and --run N, or --paired --runs N (N of 1 or more)"}
	}
	w, err := wf.walk(path)
	if err != nil {
		return err
	}
	var steps []Step
	if *paired {
		if steps, err = w.PairedSteps(*runs); err != nil {
			return &study.Error{Path: path, Msg: err.Error()}
		}
	} else {
		steps = w.RunSteps(*n, list(*only))
	}
	for _, st := range steps {
		fmt.Fprintln(out, st)
	}
	return nil
}
