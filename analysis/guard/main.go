// Command guard holds a study's routes to a baseline: a committed results
// folder of the same study, host and method. Per route (a row and a
// window) it compares req/s of good answers, p95, p99, the error rate and
// CPU µs per request over the baseline's runs and the new ones. A change
// counts when it is beyond the study's margin for that measure ([guard]
// in the study, else study.DefaultGuard) and the U test the lab uses
// (stat.UTest, α = 0.05) finds it. docs/guard.md is the manual.
//
//	guard --baseline BASE [--row NEW=BASE]... [--markdown FILE] [--update] NEW_DIR
//	guard --within DIR --row HEAD=BASE [--markdown FILE]
//	guard --bench-flags --baseline FILE.baseline --study STUDY_FILE
//	guard --args --lab-root DIR [--compare NEW_DIR [--base-row ROW]] -- GUARD_ARGS...
//	guard --relative-study STUDY_FILE --stack STACK --base-row ROW --base-env FILE --base-image TAG --out DIR
//
// Exit status: 0 no route regressed (and, with --update, the baseline
// written); 1 a route regressed or failed a correctness gate, or --update
// refused; 2 bad input.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/analysis/summary"
)

const usage = `usage: guard --baseline BASE [--row NEW=BASE]... [--markdown FILE] [--update] NEW_DIR
       guard --within DIR --row HEAD=BASE [--markdown FILE]
       guard --bench-flags --baseline FILE.baseline --study STUDY_FILE
       guard --args --lab-root DIR [--compare NEW_DIR [--base-row ROW]] -- GUARD_ARGS...
       guard --relative-study STUDY_FILE --stack STACK --base-row ROW --base-env FILE --base-image TAG --out DIR

Holds every route of the results folder NEW_DIR to the baseline BASE (a
results folder of the same study and host, or a .baseline file naming
one): req/s of good answers, p95, p99, error rate and CPU µs per request,
each against the study's margin and with the U test (α = 0.05). One line
per route: regressed, improved, same, or unknown with how many more runs
would decide it.

  --row NEW=BASE   hold the new run's row NEW to the baseline's row BASE
                   (default: the row of the same name)
  --markdown FILE  also write the comparison as a Markdown table ("-": stdout)
  --update         BASE is a .baseline file: make NEW_DIR the baseline, only
                   if every route is same or improved (a first baseline
                   when the file does not exist yet)
  --within DIR     relative mode: hold row HEAD of the one folder DIR to its
                   row BASE, both measured in the same bench (scripts/guard
                   --against REV: BASE is the stack built at REV)
  --bench-flags    print the bench flags that measure as the baseline did
                   (profile, runs, warm-up, window), after checking it is a
                   baseline of STUDY_FILE
  --args           check scripts/guard's command line GUARD_ARGS for the
                   lab at DIR and print what it asks of the bench as
                   KEY=VALUE lines (args.go); with --compare, compare the
                   bench's folder NEW_DIR as GUARD_ARGS ask (--against: its
                   STACK held to the row ROW built at REV)
  --relative-study write into DIR the study STUDY_FILE (and the studies it
                   includes) with a stacks folder that adds ROW: the stack
                   STACK as its stack.env FILE (at another commit) says,
                   run from the image TAG; prints the study's path

Exit status: 0 no route regressed; 1 a route regressed or failed a
correctness gate, or --update refused; 2 bad input.
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// badInput is a fault in the command line or the folders: one line, exit 2.
type badInput struct{ msg string }

func (e *badInput) Error() string { return e.msg }

func bad(format string, a ...any) error { return &badInput{fmt.Sprintf(format, a...)} }

type options struct {
	baseline, markdown, study string
	rows                      map[string]string // new row → baseline row
	update, benchFlags        bool
	within                    string
	dirs                      []string
	relative                  relativeOptions
	script                    *scriptCall // --args
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args)
	if err == errHelp {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err == nil {
		var code int
		if o.script != nil {
			code, err = script(o.script, stdout, stderr)
		} else {
			code, err = guard(o, stdout, stderr)
		}
		if err == nil {
			return code
		}
	}
	fmt.Fprintln(stderr, "guard: "+err.Error())
	var bi *badInput
	if errors.As(err, &bi) {
		return 2
	}
	return 1
}

var errHelp = errors.New("help")

func parseArgs(args []string) (*options, error) {
	if len(args) > 0 && args[0] == "--args" {
		c, err := parseScriptCall(args[1:])
		return &options{script: c}, err
	}
	o := &options{rows: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func() (string, error) {
			if i+1 >= len(args) || args[i+1] == "" || strings.HasPrefix(args[i+1], "--") {
				return "", bad("%s needs a value (see --help)", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch a {
		case "-h", "--help":
			return nil, errHelp
		case "--baseline":
			o.baseline, err = val()
		case "--markdown":
			o.markdown, err = val()
		case "--study":
			o.study, err = val()
		case "--row":
			var v string
			if v, err = val(); err == nil {
				err = addRow(o.rows, v)
			}
		case "--within":
			o.within, err = val()
		case "--relative-study":
			o.relative.study, err = val()
		case "--stack":
			o.relative.stack, err = val()
		case "--base-row":
			o.relative.baseRow, err = val()
		case "--base-env":
			o.relative.baseEnv, err = val()
		case "--base-image":
			o.relative.baseImage, err = val()
		case "--out":
			o.relative.out, err = val()
		case "--update":
			o.update = true
		case "--bench-flags":
			o.benchFlags = true
		default:
			if strings.HasPrefix(a, "-") {
				return nil, bad("%s: unknown flag (see --help)", a)
			}
			o.dirs = append(o.dirs, a)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case o.relative.study != "":
		r := o.relative
		if r.stack == "" || r.baseRow == "" || r.baseEnv == "" || r.baseImage == "" || r.out == "" {
			return nil, bad("--relative-study needs --stack, --base-row, --base-env, --base-image and --out")
		}
		return o, nil
	case o.relative != (relativeOptions{}):
		return nil, bad("--stack, --base-row, --base-env, --base-image and --out go with --relative-study")
	case o.within != "":
		if o.baseline != "" || o.update || len(o.dirs) > 0 || len(o.rows) == 0 {
			return nil, bad("--within DIR takes --row HEAD=BASE (and --markdown) only: both rows are in DIR")
		}
		return o, nil
	case o.baseline == "":
		return nil, bad("--baseline is missing: a results folder or a .baseline file (see --help)")
	case o.benchFlags:
		if o.study == "" || len(o.dirs) > 0 || o.update || o.markdown != "" || len(o.rows) > 0 {
			return nil, bad("--bench-flags takes --baseline and --study only")
		}
	case o.study != "":
		return nil, bad("--study goes with --bench-flags")
	case len(o.dirs) != 1:
		return nil, bad("want one new results folder after the flags, got %d (see --help)", len(o.dirs))
	case o.update && !isPointer(o.baseline):
		return nil, bad("--update writes a baseline file: --baseline %s should end in %s", o.baseline, BaselineExt)
	}
	return o, nil
}

// addRow holds the new run's row to a row of the baseline, as --row
// NEW=BASE v says: one baseline row for each new row.
func addRow(rows map[string]string, v string) error {
	n, b, ok := strings.Cut(v, "=")
	switch {
	case !ok || n == "" || b == "":
		return bad("--row %s: want NEW=BASE (a row of the new run, a row of the baseline)", v)
	case rows[n] != "":
		return bad("--row %s: row %s is already held to %s", v, n, rows[n])
	}
	rows[n] = b
	return nil
}

// guard runs the comparison o asks for; an error is printed as one line.
func guard(o *options, stdout, stderr io.Writer) (int, error) {
	if o.benchFlags {
		return benchFlags(o, stdout)
	}
	if o.relative.study != "" {
		return relativeStudy(o.relative, stdout)
	}
	if o.within != "" {
		f, err := load(o.within)
		if err != nil {
			return 0, err
		}
		cmp, err := compare(f, f, o.rows)
		if err != nil {
			return 0, err
		}
		return cmp.report(o, stdout)
	}
	newDir := o.dirs[0]
	nf, err := load(newDir)
	if err != nil {
		return 0, err
	}
	if o.update {
		if _, err := os.Stat(o.baseline); errors.Is(err, os.ErrNotExist) {
			return firstBaseline(o, nf, stdout)
		}
	}
	baseDir := o.baseline
	if isPointer(o.baseline) {
		if baseDir, err = readPointer(o.baseline); err != nil {
			return 0, &badInput{err.Error()}
		}
	}
	bf, err := load(baseDir)
	if err != nil {
		return 0, err
	}
	cmp, err := compare(bf, nf, o.rows)
	if err != nil {
		return 0, err
	}
	code, err := cmp.report(o, stdout)
	if err != nil || !o.update {
		return code, err
	}
	if why := cmp.refuseUpdate(); why != "" {
		fmt.Fprintf(stderr, "guard: --update refused: %s; %s still names %s\n", why, o.baseline, bf.Name)
		return 1, nil
	}
	if err := writePointer(o.baseline, newDir, nf.Manifest.Study); err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "guard: %s now names %s (it was %s)\n", o.baseline, nf.Name, bf.Name)
	return 0, nil
}

// report prints the route lines (and the Markdown) and says the exit
// status: 1 when a route regressed or failed a gate.
func (c *comparison) report(o *options, stdout io.Writer) (int, error) {
	stdout.Write(c.lines())
	if o.markdown != "" {
		md := c.markdown()
		if o.markdown == "-" {
			stdout.Write(md)
		} else if err := os.WriteFile(o.markdown, md, 0o644); err != nil {
			return 0, bad("--markdown %s: %v", o.markdown, err)
		}
	}
	if c.count[Regressed]+c.count[Failed] > 0 {
		return 1, nil
	}
	return 0, nil
}

// load reads a results folder, refusing one the bench did not finish.
func load(dir string) (*results.Folder, error) {
	f, err := results.Load(dir)
	if err != nil {
		return nil, &badInput{err.Error()}
	}
	if !f.Manifest.Complete {
		return nil, bad("%s: incomplete (%s): a guard compares finished runs", dir, f.Manifest.IncompleteReason)
	}
	if f.Manifest.Study == "" || len(f.Manifest.StudyFiles) == 0 {
		return nil, bad("%s: its manifest keeps no study: a guard compares runs of one study", dir)
	}
	return f, nil
}

// firstBaseline makes the new folder the first baseline: nothing to
// compare with, so only its own gates are checked.
func firstBaseline(o *options, nf *results.Folder, stdout io.Writer) (int, error) {
	s, err := summary.Compute(nf, summary.Options{})
	if err != nil {
		return 0, &badInput{err.Error()}
	}
	if len(s.Failures) > 0 {
		return 1, fmt.Errorf("--update refused: %s failed a correctness gate (%s); a baseline must pass them all", nf.Dir, s.Failures[0])
	}
	if err := writePointer(o.baseline, nf.Dir, nf.Manifest.Study); err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "guard: %s written: the first baseline of study %s is %s\n", o.baseline, nf.Manifest.Study, nf.Name)
	return 0, nil
}

// benchFlags checks a baseline file against the study about to be run and
// prints the bench flags that measure the way its folder was measured.
func benchFlags(o *options, stdout io.Writer) (int, error) {
	m, err := measuredAs(o.baseline, o.study)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "--profile %s --runs %s --warmup %s --duration %s --mode %s\n", m.profile, m.runs, m.warmup, m.duration, m.mode)
	return 0, nil
}

// method is how the bench measures a guard's run: its --profile, --runs,
// --warmup, --duration and --mode ("": the bench's own default).
type method struct{ profile, runs, warmup, duration, mode string }

// measuredAs is how the baseline's folder was measured, once the baseline
// is checked to be one of the study at studyFile.
func measuredAs(baseline, studyFile string) (method, error) {
	st, err := study.Load(studyFile)
	if err != nil {
		return method{}, &badInput{err.Error()}
	}
	dir := baseline
	if isPointer(dir) {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return method{}, bad("%s: no such baseline file: the first run needs --update, which makes its folder the baseline", dir)
		}
		if dir, err = readPointer(baseline); err != nil {
			return method{}, &badInput{err.Error()}
		}
	}
	m, err := manifest.Read(dir)
	if err != nil {
		return method{}, &badInput{err.Error()}
	}
	if m.Study != st.Name {
		return method{}, bad("%s is a baseline of study %s, not of %s", baseline, m.Study, studyFile)
	}
	p := m.Parameters
	return method{m.Profile, strconv.Itoa(p.Runs), num(p.WarmupS), num(p.DurationS), p.RunMode()}, nil
}

func num(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// comparison is every route of the new folder against the baseline.
type comparison struct {
	base, now *results.Folder
	guard     study.Guard
	routes    []*Route
	notRun    []string        // baseline routes the new run did not measure
	capacity  []string        // capacity windows: not guarded
	users     map[string]bool // users cases: their flows guarded, their capacity not
	count     map[string]int
}

// compare checks that the two folders can be compared and compares them.
func compare(bf, nf *results.Folder, rowMap map[string]string) (*comparison, error) {
	bm, nm := bf.Manifest, nf.Manifest
	switch {
	case bm.Study != nm.Study:
		return nil, bad("%s is a run of study %s and the baseline %s of study %s: a guard holds a study to its own baseline", nf.Dir, nm.Study, bf.Dir, bm.Study)
	case !manifest.SameHost(bm, nm):
		return nil, bad("%s and the baseline %s come from different hosts (%s: %s vs %s: %s): numbers from two hosts are never mixed; measure a baseline on this host",
			nf.Dir, bf.Dir, nm.Host.Profile, nm.Host.Fingerprint.CPUModel, bm.Host.Profile, bm.Host.Fingerprint.CPUModel)
	case bm.Parameters.RunMode() != nm.Parameters.RunMode():
		return nil, bad("%s ran its stacks %s and the baseline %s %s: a guard holds a run to a baseline measured in its own mode",
			nf.Dir, manifest.ModeWords(nm.Parameters.RunMode()), bf.Dir, manifest.ModeWords(bm.Parameters.RunMode()))
	case bm.Profile != nm.Profile || bm.Parameters.DurationS != nm.Parameters.DurationS:
		return nil, bad("%s was measured with the %s profile, %s s windows, and the baseline %s with the %s profile, %s s windows: a guard compares runs measured alike (guard --bench-flags prints the baseline's)",
			nf.Dir, nm.Profile, num(nm.Parameters.DurationS), bf.Dir, bm.Profile, num(bm.Parameters.DurationS))
	}
	bs, err := summary.Compute(bf, summary.Options{})
	if err != nil {
		return nil, &badInput{err.Error()}
	}
	if len(bs.Failures) > 0 {
		return nil, bad("the baseline %s failed a correctness gate (%s): a baseline must pass them all", bf.Dir, bs.Failures[0])
	}
	ns, err := summary.Compute(nf, summary.Options{})
	if err != nil {
		return nil, &badInput{err.Error()}
	}
	if bs.CPUMode != ns.CPUMode {
		return nil, bad("%s and the baseline %s ran in different CPU modes (a quota and a cpuset are not compared)", nf.Dir, bf.Dir)
	}
	for n, b := range rowMap {
		if !slices.Contains(nm.Parameters.Stacks, n) {
			return nil, bad("--row %s=%s: %s is not a row of %s (rows: %s)", n, b, n, nf.Dir, strings.Join(nm.Parameters.Stacks, ", "))
		}
		if !slices.Contains(bm.Parameters.Stacks, b) {
			return nil, bad("--row %s=%s: %s is not a row of the baseline %s (rows: %s)", n, b, b, bf.Dir, strings.Join(bm.Parameters.Stacks, ", "))
		}
	}
	c := &comparison{base: bf, now: nf, guard: nf.Study.Guard, count: map[string]int{}}
	bwins, _ := measuredWindows(bf)
	bwin := map[string]study.Window{}
	for _, w := range bwins {
		bwin[w.ID] = w
	}
	nwins, capacity := measuredWindows(nf)
	c.capacity = capacity
	busers, buserList := map[string]study.Window{}, usersWindows(bf)
	for _, w := range buserList {
		busers[w.ID] = w
	}
	nusers := usersWindows(nf)
	c.users = map[string]bool{}
	for _, w := range nusers {
		c.users[w.ID] = true
	}
	covered := map[string]bool{}
	within := bf == nf
	for _, stack := range nm.Parameters.Stacks {
		if within && rowMap[stack] == "" {
			continue // a base row, or a row not asked for
		}
		baseStack := stack
		if b := rowMap[stack]; b != "" {
			baseStack = b
		}
		for _, w := range nwins {
			bw, err := baseWindow(bf, stack, baseStack, w, bwin, "window", "windows", "case")
			if err != nil {
				return nil, err
			}
			covered[baseStack+"\x00"+w.ID] = true
			r := &Route{Stack: stack, BaseStack: baseStack, Window: w.ID, Request: request(w), FailedRuns: failedRuns(ns.Failures, stack, w.ID), Together: within}
			bv, nv := values(bf, baseStack, bw), values(nf, stack, w)
			r.NBase, r.NNow = len(bv[0]), len(nv[0])
			for i, m := range measures {
				r.Cells = append(r.Cells, compareCell(m, c.guard, bv[i], nv[i], within))
			}
			r.Verdict = routeVerdict(r)
			c.count[r.Verdict]++
			c.routes = append(c.routes, r)
		}
		// A users case's flows (an own app's routes, with flows =
		// "routes") are held as routes too.
		for _, w := range nusers {
			bw, err := baseWindow(bf, stack, baseStack, w, busers, "users case", "cases", "users case (its flows)")
			if err != nil {
				return nil, err
			}
			for _, r := range c.usersRoutes(stack, baseStack, bw, w, failedRuns(ns.Failures, stack, w.ID), within) {
				covered[baseStack+"\x00"+r.Window] = true
				c.count[r.Verdict]++
				c.routes = append(c.routes, r)
			}
		}
	}
	for _, stack := range bm.Parameters.Stacks {
		for _, w := range bwins {
			if !within && !covered[stack+"\x00"+w.ID] {
				c.notRun = append(c.notRun, stack+" "+w.ID)
			}
		}
		for _, w := range buserList {
			for _, fl := range w.Case.Flows {
				if id := w.ID + ":" + fl.Name; !within && !covered[stack+"\x00"+id] {
					c.notRun = append(c.notRun, stack+" "+id)
				}
			}
		}
	}
	return c, nil
}

// baseWindow is the baseline's window that route stack w is held to, on
// baseStack's row: an error when the baseline has no such row, did not
// measure the window (a kind of window, listed as its kinds), or measured
// it when its case (caseWords) sent other requests.
func baseWindow(bf *results.Folder, stack, baseStack string, w study.Window, base map[string]study.Window, kind, kinds, caseWords string) (study.Window, error) {
	bm := bf.Manifest
	bw, ok := base[w.ID]
	switch {
	case !slices.Contains(bm.Parameters.Stacks, baseStack):
		return bw, bad("route %s %s: the baseline %s has no row %s (rows: %s; --row NEW=BASE holds a row to another)", stack, w.ID, bf.Dir, baseStack, strings.Join(bm.Parameters.Stacks, ", "))
	case !ok:
		return bw, bad("route %s %s: the baseline %s did not measure the %s %s (its %s: %s)", stack, w.ID, bf.Dir, kind, w.ID, kinds, strings.Join(bm.Parameters.Cases, ", "))
	case !sameRequest(bw, w):
		return bw, bad("route %s %s: the study's %s %s sends other requests than when the baseline %s was measured: measure a new baseline", stack, w.ID, caseWords, w.Case.Name, bf.Dir)
	}
	return bw, nil
}

// refuseUpdate says why the new folder may not become the baseline ("":
// it may).
func (c *comparison) refuseUpdate() string {
	var parts []string
	for _, v := range []string{Regressed, Failed, Unknown} {
		if n := c.count[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, "route", "routes")+" "+v))
		}
	}
	if len(c.notRun) > 0 {
		parts = append(parts, fmt.Sprintf("%d baseline %s not measured (%s)", len(c.notRun), plural(len(c.notRun), "route", "routes"), strings.Join(c.notRun, ", ")))
	}
	for _, r := range c.routes {
		if r.BaseStack != r.Stack {
			parts = append(parts, "rows held to other rows (--row) cannot become their baseline")
			break
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (a baseline moves only when every route is same or improved)"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// folderLine names a folder in a phrase: its name and runs.
func folderLine(f *results.Folder) string {
	return fmt.Sprintf("%s (%d %s)", filepath.Base(filepath.Clean(f.Dir)), len(f.Runs), plural(len(f.Runs), "run", "runs"))
}
