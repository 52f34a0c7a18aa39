package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"stacklab/analysis/study"
)

// scriptCall is --args: scripts/guard's command line (after --) for the
// lab at labRoot, and, after the bench, the folder to compare as it asks
// (with --against, the row built at REV that the stack is held to).
type scriptCall struct {
	labRoot, compare, baseRow string
	args                      []string
}

// scriptArgs is scripts/guard's command line, checked: the study's file,
// the bench's rows and label, the method the bench measures with, and the
// comparison to make of the bench's folder.
type scriptArgs struct {
	help                     bool
	studyFile, stacks, label string
	against, folder          string // --against REV, and its stack's folder
	method                   method
	cmp                      *options // without the bench's folder
}

func parseScriptCall(args []string) (*scriptCall, error) {
	c := &scriptCall{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			c.args = args[i+1:]
			break
		}
		var p *string
		switch a {
		case "--lab-root":
			p = &c.labRoot
		case "--compare":
			p = &c.compare
		case "--base-row":
			p = &c.baseRow
		default:
			return nil, bad("--args: %s: unknown flag (want --lab-root DIR [--compare NEW_DIR [--base-row ROW]] -- GUARD_ARGS...)", a)
		}
		if i+1 >= len(args) || args[i+1] == "" {
			return nil, bad("--args: %s needs a value", a)
		}
		i++
		*p = args[i]
	}
	switch {
	case c.labRoot == "":
		return nil, bad("--args needs --lab-root DIR, the lab's folder")
	case c.baseRow != "" && c.compare == "":
		return nil, bad("--args: --base-row goes with --compare")
	}
	return c, nil
}

// script answers --args: scripts/guard's command line as KEY=VALUE lines
// for its bash, or, with --compare, the comparison it asks for.
func script(c *scriptCall, stdout, stderr io.Writer) (int, error) {
	s, err := parseScript(c.labRoot, c.args)
	if err != nil {
		return 0, err
	}
	if s.help {
		fmt.Fprintln(stdout, "USAGE=1")
		return 0, nil
	}
	if c.compare == "" {
		m := s.method
		fmt.Fprintf(stdout, "USAGE=0\nSTUDY_FILE=%s\nSTACKS=%s\nLABEL=%s\nAGAINST=%s\nSTACK_FOLDER=%s\n", s.studyFile, s.stacks, s.label, s.against, s.folder)
		fmt.Fprintf(stdout, "PROFILE=%s\nRUNS=%s\nWARMUP=%s\nDURATION=%s\nMODE=%s\n", m.profile, m.runs, m.warmup, m.duration, m.mode)
		return 0, nil
	}
	o := s.cmp
	if s.against == "" {
		o.dirs = []string{c.compare}
	} else if c.baseRow == "" {
		return 0, bad("--args --compare: --against %s holds %s to its build at REV: name that row with --base-row", s.against, s.stacks)
	} else {
		o.within, o.rows = c.compare, map[string]string{s.stacks: c.baseRow}
	}
	return guard(o, stdout, stderr)
}

// parseScript reads scripts/guard's flags in order, as its bash loop did:
// the first fault ends it, -h or --help ends it with help alone; a flag's
// value is the next argument, neither empty nor a --flag, and of one line.
// Then it holds the line to its mode's rules (scriptRules).
func parseScript(root string, args []string) (*scriptArgs, error) {
	s := &scriptArgs{label: "guard"}
	var name, baseline, markdown, profile, runs string
	var rows []string
	update := false
	// the flags that take a value, and where it goes (--row's, repeated, to rows)
	takes := map[string]*string{"--stacks": &s.stacks, "--markdown": &markdown, "--baseline": &baseline, "--label": &s.label,
		"--profile": &profile, "--runs": &runs, "--against": &s.against, "--row": nil}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if p, ok := takes[a]; ok {
			if i+1 == len(args) || args[i+1] == "" || strings.HasPrefix(args[i+1], "--") {
				return nil, bad("%s needs a value (see scripts/guard --help)", a)
			}
			if i++; strings.Contains(args[i], "\n") {
				return nil, bad("%s %q: want a value of one line", a, args[i])
			}
			if p == nil {
				rows = append(rows, args[i])
			} else {
				*p = args[i]
			}
			continue
		}
		switch {
		case a == "--update":
			update = true
		case a == "-h" || a == "--help":
			return &scriptArgs{help: true}, nil
		case strings.HasPrefix(a, "--"):
			return nil, bad("unknown flag '%s' (see scripts/guard --help)", a)
		case name != "":
			return nil, bad("one study, not '%s' and '%s'", name, a)
		default:
			name = a
		}
	}
	if name == "" {
		return nil, bad("which study? (usage: scripts/guard STUDY [flags]; see --help)")
	}
	f, err := study.Named(root, name)
	if err != nil {
		return nil, &badInput{err.Error()}
	}
	if strings.Contains(f, "\n") {
		return nil, bad("%q: want a study file's path of one line", f)
	}
	// A study that does not read is bad input before any rule of the flags.
	if _, err := study.Load(f); err != nil {
		return nil, &badInput{err.Error()}
	}
	s.studyFile = f
	s.cmp = &options{markdown: markdown, update: update, rows: map[string]string{}}
	if s.against != "" {
		return s, s.againstRules(root, baseline, rows, profile, runs)
	}
	return s, s.baselineRules(baseline, rows, profile, runs)
}

// againstRules are relative mode's (--against REV): one stack, built at
// REV too, both measured in one bench on the paired profile unless
// --profile says otherwise; no baseline file, no --row of the user's.
func (s *scriptArgs) againstRules(root, baseline string, rows []string, profile, runs string) error {
	switch {
	case s.stacks == "" || strings.ContainsAny(s.stacks, ",["):
		return bad("--against builds one stack at another commit: name it with --stacks STACK (a stack, not a variant)")
	case s.cmp.update:
		return bad("--against holds one build to another in one bench: there is no baseline to --update")
	case baseline != "":
		return bad("--against reads no baseline file: both builds are measured now")
	case len(rows) > 0:
		return bad("--against sets the rows itself (STACK against STACK-at-REV)")
	}
	folder, err := stackFolder(s.studyFile, s.stacks, root)
	if err != nil {
		return err
	}
	s.folder = folder
	s.method = method{profile: or(profile, relativeProfile), runs: runs}
	return nil
}

// baselineRules are those of a run held to its baseline, the .baseline
// file beside the study file unless --baseline names another: measured as
// the baseline was (so --profile and --runs are refused), or, with
// --update and no baseline yet, as a first baseline is.
func (s *scriptArgs) baselineRules(baseline string, rows []string, profile, runs string) error {
	if baseline == "" {
		baseline = strings.TrimSuffix(s.studyFile, ".toml") + BaselineExt
	}
	s.cmp.baseline = baseline
	switch st, err := os.Stat(baseline); {
	case err == nil && st.Mode().IsRegular():
		if profile != "" || runs != "" {
			return bad("--profile and --runs are the baseline's (%s); they apply to a first baseline only", baseline)
		}
		if s.method, err = measuredAs(baseline, s.studyFile); err != nil {
			return err
		}
	case s.cmp.update:
		s.method = method{profile: or(profile, firstBaselineProfile), runs: or(runs, strconv.Itoa(firstBaselineRuns))}
	default:
		return bad("%s: no such baseline file (run with --update once to make a first one)", baseline)
	}
	for _, r := range rows {
		if err := addRow(s.cmp.rows, r); err != nil {
			return err
		}
	}
	if s.cmp.update && !isPointer(baseline) {
		return bad("--update writes a baseline file: --baseline %s should end in %s", baseline, BaselineExt)
	}
	return nil
}

func or(v, otherwise string) string {
	if v == "" {
		return otherwise
	}
	return v
}
