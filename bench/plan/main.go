// Command plan tells the bench what a study asks for, so that bash never
// reads the study file itself (package study owns the format).
//
//	plan describe STUDY --lab-root DIR [--stacks a,b] [--connections N] [--extra-stacks DIR]
//	    checks the study, its stacks and its build variants' arguments; prints "key value" lines: study,
//	    hash, stacks_dir, sampler_check, paired_check, upstream, headroom, checks, for a size study
//	    "size_runs PROFILE N" and "size_build 0|1", then "row ROW STACK",
//	    "env ROW KEY=VALUE", "build ROW KEY=VALUE" (a variant's build
//	    arguments), "database ROW sqlite|postgres" for every row, and
//	    "window ID" lines in order
//	plan window STUDY ID [--connections N] [--warm-each 0|1]
//	    one window's facts as "key value" lines (fresh_db, rows, companion,
//	    ceiling, connections, rate, upstream_delay_ms, and warm: each,
//	    first (a container's first window only) or never, for the
//	    profile's --warm-each)
//	plan oha STUDY ID --url BASE [--connections N] [--companion | --ceiling] [--session FILE]
//	    oha's arguments for the window's load (or its companion's, or its
//	    ceiling's against the mock at BASE), NUL-separated; with a session
//	    (verify signin's file) its cookies and the form's token in the
//	    window's requests
//	plan signin STUDY ID --url BASE
//	    verify signin's arguments (but -out) for a window with a session:
//	    the credentials, and -form-only when the load posts the sign-in
//	    itself, NUL-separated
//	plan headroom STUDY --url BASE [--connections N]
//	    oha's arguments for the run's headroom window: the mock upstream
//	    with no delay at BASE, where the app stands (headroom.go)
//	plan checks STUDY --url BASE
//	    the study's per-case response checks against a running stack, one
//	    line each; exit 1 when one fails
//	plan schedule STUDY --rows a,b (--run N [--late a,b] [--only a,b] | --paired --runs N)
//	                    [--sampler-check W] [--sampler 0|1] [--connections N]
//	    the steps of run N (or of a whole paired bench) as the bench walks
//	    them, one "KIND RUN ROW WINDOW" a line (schedule.go)
//	plan images STUDY --rows a,b --lab-root DIR [--extra-stacks DIR] [--connections N]
//	            [--mode docker|native] [--late-images 0|1] [--oha-later 0|1] [--tags FILE] [--images FILE]
//	    which images the bench builds, and when (images.go), from the rows'
//	    tags (FILE: stack tags's "NAME TAG" lines) and the images Docker
//	    has (FILE: REPOSITORY:TAG a line), as KEY=VALUE lines, each list
//	    separated by spaces: NATIVE (natively: the rows' stacks, each once,
//	    built on this machine), NOW (built before the first row: the
//	    rows' stacks, each once, in row order (none natively), then
//	    upstream and postgres when they run), LATE (with --late-images 1: the stacks taken out
//	    of NOW, neither built nor an IMAGE of their own, built just before
//	    their first session) and WHILE_OHA (with --oha-later 1: LATE's
//	    first when it is the first row's stack, built while oha compiles)
//	plan size-left RUN ROW --runs N --took ROW=S,... ROW...
//	    the size study's time left from ROW of RUN on, as run 1 took each row
//	plan eta-start STUDY --state FILE --rows a,b --runs N [--paired] [schedule's flags] ... (eta.go)
//	    every step of the bench's schedule (plan schedule's own), costed,
//	    and its first estimate, into FILE; prints the line the bench shows
//	    ("2 run(s) of 9 row(s) × 4 window(s), about 3m05s")
//	plan eta FILE left|first|phases|done KIND MS [WINDOW]|end STEP|drop RUN ROW|
//	              add-run N|add-rows N ROWS
//	    the time left, a phase measured, a step walked, a row's steps
//	    dropped, a run or rows walked again
//	plan args --lab-root DIR -- ARGS...
//	    scripts/bench's command line ARGS checked, as the bench's KEY=VALUE
//	    lines: USAGE=0, STUDY_FILE (--study NAME's studies/NAME.toml, or a
//	    path), PROFILE, STACKS_ARG, LABEL, RESULTS_ROOT, RUN_MODE,
//	    QUIET_GATE, SAMPLER and RUNS_ARG (--runs as given), then the bench
//	    profile (analysis/profile) as its NAME=VALUE lines, then RUNS,
//	    WARMUP and DURATION (the flags given, each a whole number above 0,
//	    else the profile's) and the sampler's SAMPLER_INTERVAL for that
//	    window; USAGE=1 alone for -h or --help (args.go)
//	plan redo WORK --run N --attempt A --max M [--canary-redo 0|1 --raw DIR [--threshold X]]
//	               [--quiet-gate 0|1 --quiet FILE]
//	    what the bench does with a run it walked: REDO=rows (the canary's
//	    rows measured again), run (walked again: it was not quiet) or keep,
//	    with the attempt, a note, and the evidence kept (redo.go)
//	plan ramp|targets|vegeta STUDY ID ...
//	    a capacity case's next step (RAMP_KEY=VALUE lines: the step, its
//	    rate or users and their unit, a cooldown, restart or trim, its
//	    length, its warm-up from the bench's --warmup, --warmup-max,
//	    --lead-in and --duration, and how it starts after a restart; or
//	    the stop and the verdict), its request mix and the generator's
//	    arguments (ramp.go)
//	plan k6 STUDY --url BASE (--vus N --duration D | --stages D:N,...)
//	    the k6 script of the study's [[flow]]s (k6.go)
//
// Exit status 2 on a bad study or bad flags: one line naming the file, the
// key and what is wrong.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/hostprofile"
	"stacklab/analysis/ramp"
	"stacklab/analysis/stackenv"
	"stacklab/analysis/study"
	"stacklab/bench/websession"
)

// defaultConnections is a window's closed-loop connections when the bench
// gives none (--connections: the host profile's CONNECTIONS, 32 on every
// profile so far).
const defaultConnections = 32

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "usage: plan describe|window|oha|checks|images STUDY ... (see the comment at the top of bench/plan/main.go)")
		return 2
	}
	cmd, path, rest := args[0], args[1], args[2:]
	var err error
	switch cmd {
	case "describe":
		err = describe(path, rest, stdout)
	case "window":
		err = window(path, rest, stdout)
	case "oha":
		err = ohaArgs(path, rest, stdout)
	case "signin":
		err = signinArgs(path, rest, stdout)
	case "headroom":
		err = headroomArgs(path, rest, stdout)
	case "ramp":
		err = rampNext(path, rest, stdout)
	case "targets":
		err = targets(path, rest, stdout)
	case "vegeta":
		err = vegetaArgs(path, rest, stdout)
	case "k6":
		err = k6Script(path, rest, stdout)
	case "schedule":
		err = scheduleCmd(path, rest, stdout)
	case "images":
		err = imagesCmd(path, rest, stdout)
	case "size-left":
		err = sizeLeftCmd(path, rest, stdout)
	case "eta-start":
		err = etaStart(path, rest, stdout)
	case "eta":
		err = etaCommand(path, rest, stdout)
	case "redo":
		err = redoCmd(path, rest, stdout)
	case "args":
		err = argsCmd(args[1:], stdout)
	case "checks":
		var failed bool
		failed, err = checks(path, rest, stdout)
		if err == nil && failed {
			return 1
		}
	default:
		err = &usageError{fmt.Sprintf("unknown subcommand %q (describe, window, oha, headroom, checks, ramp, targets, vegeta, k6, schedule, images, size-left, eta-start, eta, args, redo)", cmd)}
	}
	if err != nil {
		fmt.Fprintln(stderr, "plan "+cmd+": "+err.Error())
		return 2
	}
	return 0
}

func parseFlags(name string, args []string, fl *flag.FlagSet) error {
	fl.SetOutput(io.Discard)
	if err := fl.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	if fl.NArg() > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q", fl.Arg(0))}
	}
	return nil
}

func describe(path string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("describe", flag.ContinueOnError)
	root := fl.String("lab-root", "", "the lab's folder (stacks/ under it)")
	stacks := fl.String("stacks", "", "rows to run instead of the study's")
	conns := fl.Int("connections", defaultConnections, "the host profile's default connections")
	extra := fl.String("extra-stacks", "", "another folder of stack folders")
	native := fl.Bool("native", false, "the bench runs its stacks natively: the study's stacks without a native build are left out")
	if err := parseFlags("describe", args, fl); err != nil {
		return err
	}
	s, err := study.Load(path)
	if err != nil {
		return err
	}
	if len(s.Cases()) == 0 && len(s.Flows) > 0 {
		return &study.Error{Path: path, Key: "flow", Msg: "a study of flows alone has no case that runs them: add a [[case]] with users = true (studies/README.md, \"A users case\")"}
	}
	dirs := []string{filepath.Join(*root, "stacks")}
	if s.StacksDir != "" {
		if st, err := os.Stat(s.StacksDir); err != nil || !st.IsDir() {
			return &study.Error{Path: path, Key: "stacks_dir", Msg: fmt.Sprintf("%s: no such folder", s.StacksDir)}
		}
	}
	dirs = append(dirs, s.ExtraStackDirs(*extra)...)
	all := stackenv.Folders(dirs)
	rows := s.Rows(all)
	if s.Lead != "" && !contains(rows, s.Lead) {
		return &study.Error{Path: path, Key: "lead", Msg: fmt.Sprintf("%q is not a row of this study (rows: %s)", s.Lead, strings.Join(rows, ", "))}
	}
	key := "stacks"
	if *stacks != "" {
		// the rows asked for, in the order asked
		rows, key = strings.Split(*stacks, ","), "--stacks"
	}
	for _, r := range rows {
		st := s.StackOf(r)
		if strings.Contains(r, "[") && s.Variant(r) == nil {
			return &study.Error{Path: path, Key: key, Msg: fmt.Sprintf("%q names no [[variant]] of this study", r)}
		}
		if !contains(all, st) {
			return &study.Error{Path: path, Key: key, Msg: fmt.Sprintf("%q: no stack folder %s with a stack.env (stacks: %s)", r, st, strings.Join(all, ", "))}
		}
	}
	lab := stackenv.Lab{Root: *root, Extra: dirs[1:]}
	for _, v := range s.Variants {
		if !contains(all, v.Stack) {
			return &study.Error{Path: path, Key: fmt.Sprintf("variant %q: stack", v.Row()), Msg: fmt.Sprintf("no stack folder %s with a stack.env (stacks: %s)", v.Stack, strings.Join(all, ", "))}
		}
		if v.Database == study.DatabasePostgres {
			st, err := lab.Read(v.Stack)
			if err == nil {
				err = study.RunsOn(st, study.DatabasePostgres)
			}
			if err != nil {
				return &study.Error{Path: path, Key: fmt.Sprintf("variant %q: database", v.Row()), Msg: err.Error()}
			}
		}
	}
	// Natively, the study's own rows are those whose stack builds natively;
	// rows asked for by name stay, and the bench refuses one that cannot.
	var leftOut []string
	if *native && *stacks == "" {
		var kept []string
		for _, r := range rows {
			if nativeBuild(dirs, s.StackOf(r)) {
				kept = append(kept, r)
			} else {
				leftOut = append(leftOut, r)
			}
		}
		rows = kept
	}
	if len(rows) == 0 {
		return &study.Error{Path: path, Key: key, Msg: "no stacks to run"}
	}
	// A build variant's arguments are checked here, before anything is
	// built: only names its stack's BUILD_ARGS declares reach its
	// build-image, and the native mode builds each stack with none.
	for _, r := range rows {
		v := s.Variant(r)
		if v == nil || len(v.Build) == 0 {
			continue
		}
		vkey := "variant " + r
		if *native {
			return &study.Error{Path: path, Key: vkey, Msg: "it has build arguments: the native mode builds each stack as its native-build does, with none"}
		}
		st, err := lab.Read(v.Stack)
		if err != nil {
			return err
		}
		var lines []string
		for k, val := range v.Build {
			lines = append(lines, k+"="+val)
		}
		sort.Strings(lines)
		if p := st.BuildArgsProblem(lines); p != "" {
			return &study.Error{Path: path, Key: vkey, Msg: p}
		}
	}
	fmt.Fprintf(out, "study %s\nhash %s\n", s.Name, s.Hash())
	for _, r := range leftOut {
		fmt.Fprintf(out, "left_out %s stacks/%s has no native build (native-build and native-start)\n", r, s.StackOf(r))
	}
	if s.StacksDir != "" {
		abs, _ := filepath.Abs(s.StacksDir)
		fmt.Fprintf(out, "stacks_dir %s\n", abs)
	}
	if s.SamplerCheck != "" {
		fmt.Fprintf(out, "sampler_check %s\n", s.SamplerCheck)
	}
	if s.PairedCheck != "" {
		fmt.Fprintf(out, "paired_check %s\n", s.PairedCheck)
	}
	checks := 0
	for _, c := range s.Cases() {
		if c.Check != nil {
			checks = 1
		}
	}
	fmt.Fprintf(out, "upstream %d\nheadroom %d\nchecks %d\n", b2i(needsUpstream(s)), b2i(Headroom(s.Windows(*conns))), checks)
	fmt.Fprintf(out, "seed_args %s\n", strings.Join(s.Seed.Args(), " "))
	if z := s.Size; z != nil {
		build := 0
		if z.Build {
			build = 1
		}
		fmt.Fprintf(out, "size_runs quick %d\nsize_runs full %d\nsize_build %d\n", z.QuickRuns, z.FullRuns, build)
	}
	for _, r := range rows {
		fmt.Fprintf(out, "row %s %s\n", r, s.StackOf(r))
		if v := s.Variant(r); v != nil {
			keys := make([]string, 0, len(v.Env))
			for k := range v.Env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(out, "env %s %s=%s\n", r, k, v.Env[k])
			}
			keys = keys[:0]
			for k := range v.Build {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(out, "build %s %s=%s\n", r, k, v.Build[k])
			}
		}
		fmt.Fprintf(out, "database %s %s\n", r, s.DatabaseOf(r))
	}
	for _, w := range s.Windows(*conns) {
		fmt.Fprintf(out, "window %s\n", w.ID)
	}
	return nil
}

// needsUpstream says whether a case of the study, or a request of a
// case's mix, waits on the mock upstream (upstream_delay_ms): the bench
// then starts the mock beside the app.
func needsUpstream(s *study.Study) bool {
	for _, c := range s.Cases() {
		if c.UpstreamDelayMs > 0 {
			return true
		}
		for _, m := range c.Mix {
			if m.UpstreamDelayMs > 0 {
				return true
			}
		}
	}
	return false
}

func etaStart(path string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("eta-start", flag.ContinueOnError)
	wf := addWalkFlags(fl)
	state := fl.String("state", "", "the ETA's state file (in the bench's scratch folder)")
	paired := fl.Bool("paired", false, "the paired profile: every row up at once, slices alternating")
	runs := fl.Int("runs", 0, "runs (slices, paired)")
	var p Pace
	fl.IntVar(&p.WarmupS, "warmup", 0, "the profile's warm-up, seconds")
	fl.IntVar(&p.DurationS, "duration", 0, "a window's length, seconds")
	warmEach := fl.Int("warm-each", 1, "1: every window warms up; 0: a container's first only")
	quiet := fl.Int("quiet-gate", 1, "1: the quiet-host gate waits before each run")
	fl.IntVar(&p.QuietForS, "quiet-for", 0, "the gate's quiet seconds")
	fl.IntVar(&p.QuietTimeoutS, "quiet-timeout", 0, "the gate's longest wait, seconds")
	fl.Float64Var(&p.QuietLoad, "quiet-load", hostprofile.DefaultNumber("QUIET_LOAD"), "the gate's 1-minute load (the host profile's)")
	if err := parseFlags("eta-start", args, fl); err != nil {
		return err
	}
	if *state == "" || *wf.rows == "" || *runs < 1 {
		return &usageError{"want --state FILE, --rows a,b and --runs N (N of 1 or more)"}
	}
	w, err := wf.walk(path)
	if err != nil {
		return err
	}
	if len(w.Windows) == 0 {
		return &study.Error{Path: path, Msg: "no windows to run"}
	}
	p.WarmEach, p.QuietGate = *warmEach == 1, *quiet == 1
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			p.Load1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	e, err := Start(w, p, *runs, *paired)
	if err != nil {
		return &study.Error{Path: path, Msg: err.Error()}
	}
	e.Study, e.Connections = path, *wf.conns
	if err := e.Save(*state); err != nil {
		return err
	}
	if *paired {
		fmt.Fprintf(out, "paired: %d slice(s) of %d s for each of %d row(s) × %d case(s), all rows up at once, about %s\n",
			*runs, p.DurationS, len(w.Rows), len(w.Windows), Fmt(e.FirstS))
	} else {
		fmt.Fprintf(out, "%d run(s) of %d row(s) × %d window(s), about %s\n", *runs, len(w.Rows), len(w.Windows), Fmt(e.FirstS))
	}
	return nil
}

func etaCommand(state string, args []string, out io.Writer) error {
	e, err := Load(state)
	if err != nil {
		return err
	}
	text, changed, err := e.Command(args)
	if err != nil {
		return &usageError{err.Error()}
	}
	if changed {
		if err := e.Save(state); err != nil {
			return err
		}
	}
	if text != "" {
		fmt.Fprintln(out, text)
	}
	return nil
}

func loadWindow(path, id string, conns int) (*study.Study, study.Window, error) {
	s, err := study.Load(path)
	if err != nil {
		return nil, study.Window{}, err
	}
	w, ok := s.Window(id, conns)
	if !ok {
		return nil, w, &study.Error{Path: path, Msg: fmt.Sprintf("no window %q in this study", id)}
	}
	return s, w, nil
}

func window(path string, args []string, out io.Writer) error {
	if len(args) < 1 {
		return &usageError{"want a window id"}
	}
	fl := flag.NewFlagSet("window", flag.ContinueOnError)
	conns := fl.Int("connections", defaultConnections, "the host profile's default connections")
	warmEach := fl.Int("warm-each", 1, "1: the profile warms every window up; 0: a container's first only")
	if err := parseFlags("window", args[1:], fl); err != nil {
		return err
	}
	_, w, err := loadWindow(path, args[0], *conns)
	if err != nil {
		return err
	}
	c := w.Case
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	fmt.Fprintf(out, "case %s\nconnections %d\nrate %s\nfresh_db %d\ncompanion %d\nceiling %d\nupstream_delay_ms %d\nramp %d\n",
		c.Name, w.Connections, strconv.FormatFloat(w.Rate, 'f', -1, 64), b(c.FreshDB), b(c.Companion != nil), b(c.Ceiling), c.UpstreamDelayMs, b(c.Ramp != nil))
	if c.Rows != "" {
		fmt.Fprintf(out, "rows %s\n", c.Rows)
	}
	if c.Session != nil {
		fmt.Fprintln(out, "session 1")
	}
	if c.JobPace {
		fmt.Fprintf(out, "jobs %d\n", study.JobPaceAfterS)
	}
	for _, l := range c.Lanes() {
		fmt.Fprintf(out, "lane %s\n", l.Name)
	}
	if c.Ramp != nil {
		fmt.Fprintf(out, "ramp_steps %d\n", ramp.Expected(c.Ramp))
	}
	if c.Ramp != nil && c.Ramp.Users {
		fmt.Fprintln(out, "users 1")
	}
	// warm: does the window get a warm-up of its own (WarmBefore)
	f := WindowFacts{Ramp: c.Ramp != nil}
	switch {
	case WarmBefore(f, false, *warmEach == 1):
		fmt.Fprintln(out, "warm each")
	case WarmBefore(f, true, *warmEach == 1):
		fmt.Fprintln(out, "warm first")
	default:
		fmt.Fprintln(out, "warm never")
	}
	return nil
}

func ohaArgs(path string, args []string, out io.Writer) error {
	if len(args) < 1 {
		return &usageError{"want a window id"}
	}
	fl := flag.NewFlagSet("oha", flag.ContinueOnError)
	base := fl.String("url", "", "http://127.0.0.1:PORT of the app (or the mock, with --ceiling)")
	conns := fl.Int("connections", defaultConnections, "the host profile's default connections")
	companion := fl.Bool("companion", false, "the companion load's arguments")
	ceiling := fl.Bool("ceiling", false, "oha straight at the mock upstream")
	sessionFile := fl.String("session", "", "the window's session (verify signin's file): its cookies and token go into the requests")
	if err := parseFlags("oha", args[1:], fl); err != nil {
		return err
	}
	if !strings.HasPrefix(*base, "http://127.0.0.1:") {
		return &usageError{fmt.Sprintf("--url %q: the lab targets http://127.0.0.1:PORT only", *base)}
	}
	_, w, err := loadWindow(path, args[0], *conns)
	if err != nil {
		return err
	}
	c := w.Case
	if c.Ramp != nil {
		return &usageError{fmt.Sprintf("case %q is a capacity ramp: its load is vegeta's (plan vegeta)", c.Name)}
	}
	var a []string
	switch {
	case *ceiling:
		if !c.Ceiling {
			return &usageError{fmt.Sprintf("case %q has no ceiling", c.Name)}
		}
		a = []string{"-c", strconv.Itoa(w.Connections), "-m", "GET", fmt.Sprintf("%s/delay?ms=%d", *base, c.UpstreamDelayMs)}
	case *companion:
		cp := c.Companion
		if cp == nil {
			return &usageError{fmt.Sprintf("case %q has no companion", c.Name)}
		}
		a = []string{"-c", strconv.Itoa(cp.Connections)}
		if cp.Rate > 0 {
			a = append(a, "-q", strconv.FormatFloat(cp.Rate, 'f', -1, 64))
		}
		a = append(a, request(cp.Method, cp.Body, cp.ContentType, nil)...)
		a = append(a, *base+cp.Path)
	default:
		a = []string{"-c", strconv.Itoa(w.Connections)}
		if w.Rate > 0 {
			// Open loop: latency from each request's intended send time.
			a = append(a, "-q", strconv.FormatFloat(w.Rate, 'f', -1, 64), "--latency-correction")
		}
		body, headers := c.Body, c.Headers
		if c.Session != nil {
			if *sessionFile == "" {
				return &usageError{fmt.Sprintf("case %q signs in: give its --session (verify signin's file)", c.Name)}
			}
			ws, err := websession.Read(*sessionFile)
			if err != nil {
				return &usageError{err.Error()}
			}
			body = strings.ReplaceAll(body, study.TokenPlaceholder, url.QueryEscape(ws.Token))
			headers = append(slices.Clone(headers), "Cookie: "+ws.Cookie)
		}
		if redirects(c.Status) {
			// A redirect is the answer measured (a form post's 303), not
			// a second request oha would make.
			a = append(a, "--redirect", "0")
		}
		a = append(a, request(c.Method, body, c.ContentType, headers)...)
		a = append(a, *base+c.Path)
	}
	for _, s := range a {
		fmt.Fprint(out, s+"\x00")
	}
	return nil
}

// redirects: do the good answers include a redirect?
func redirects(status []int) bool {
	for _, st := range status {
		if st >= 300 && st < 400 {
			return true
		}
	}
	return false
}

// signinArgs are verify signin's arguments for a window with a session.
func signinArgs(path string, args []string, out io.Writer) error {
	if len(args) < 1 {
		return &usageError{"want a window id"}
	}
	fl := flag.NewFlagSet("signin", flag.ContinueOnError)
	base := fl.String("url", "", "http://127.0.0.1:PORT of the app")
	if err := parseFlags("signin", args[1:], fl); err != nil {
		return err
	}
	if !strings.HasPrefix(*base, "http://127.0.0.1:") {
		return &usageError{fmt.Sprintf("--url %q: the lab targets http://127.0.0.1:PORT only", *base)}
	}
	_, w, err := loadWindow(path, args[0], defaultConnections)
	if err != nil {
		return err
	}
	ss := w.Case.Session
	if ss == nil {
		return &usageError{fmt.Sprintf("case %q has no [case.session]", w.Case.Name)}
	}
	a := []string{"-url", *base, "-email", ss.Email, "-password", ss.Password}
	if !ss.SignIn {
		a = append(a, "-form-only")
	}
	for _, s := range a {
		fmt.Fprint(out, s+"\x00")
	}
	return nil
}

func request(method, body, contentType string, headers []string) []string {
	a := []string{"-m", method}
	if body != "" {
		a = append(a, "-d", body)
	}
	if contentType != "" {
		a = append(a, "-T", contentType)
	}
	for _, h := range headers {
		a = append(a, "-H", h)
	}
	return a
}

// checks makes each case's response check once, as a user would with curl.
func checks(path string, args []string, out io.Writer) (bool, error) {
	fl := flag.NewFlagSet("checks", flag.ContinueOnError)
	base := fl.String("url", "", "http://127.0.0.1:PORT of the app")
	if err := parseFlags("checks", args, fl); err != nil {
		return false, err
	}
	if !strings.HasPrefix(*base, "http://127.0.0.1:") {
		return false, &usageError{fmt.Sprintf("--url %q: the lab targets http://127.0.0.1:PORT only", *base)}
	}
	s, err := study.Load(path)
	if err != nil {
		return false, err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	failed := false
	for _, c := range s.Cases() {
		if c.Check == nil {
			continue
		}
		verdict := checkOne(client, *base, c)
		if verdict != "" {
			failed = true
			fmt.Fprintf(out, "FAIL  %-20s %s %s: %s\n", c.Name, c.Method, c.Path, verdict)
		} else {
			fmt.Fprintf(out, "PASS  %-20s %s %s\n", c.Name, c.Method, c.Path)
		}
	}
	return failed, nil
}

func checkOne(client *http.Client, base string, c *study.Case) string {
	var body io.Reader
	if c.Body != "" {
		body = strings.NewReader(c.Body)
	}
	req, err := http.NewRequest(c.Method, base+c.Path, body)
	if err != nil {
		return err.Error()
	}
	if c.ContentType != "" {
		req.Header.Set("Content-Type", c.ContentType)
	}
	for _, h := range c.Headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return "no answer within 10 s"
		}
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ck := c.Check
	var bad []string
	if resp.StatusCode != ck.Status {
		bad = append(bad, fmt.Sprintf("status %d, want %d", resp.StatusCode, ck.Status))
	}
	if ck.ContentType != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), ck.ContentType) {
		bad = append(bad, fmt.Sprintf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), ck.ContentType))
	}
	if ck.BodyContains != "" && !strings.Contains(string(b), ck.BodyContains) {
		snippet := string(b)
		if len(snippet) > 60 {
			snippet = snippet[:60] + "…"
		}
		bad = append(bad, fmt.Sprintf("body has no %q (got %q)", ck.BodyContains, snippet))
	}
	return strings.Join(bad, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nativeBuild says whether stack's folder (the first of dirs that has it)
// holds an executable native-build and native-start.
func nativeBuild(dirs []string, stack string) bool {
	for _, d := range dirs {
		dir := filepath.Join(d, stack)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		for _, f := range []string{"native-build", "native-start"} {
			st, err := os.Stat(filepath.Join(dir, f))
			if err != nil || st.Mode()&0o111 == 0 {
				return false
			}
		}
		return true
	}
	return false
}
