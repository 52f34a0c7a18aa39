package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"stacklab/analysis/profile"
	"stacklab/analysis/study"
)

// benchArgs is scripts/bench's command line: the flags its header comment
// lists (its usage, which bash prints for -h), each defaulted as the bench
// runs without it.
type benchArgs struct {
	study, profile, stacks, label, resultsRoot string
	runs, warmup, duration, mode               string
	noQuiet, noSampler, help                   bool
}

// argsCmd checks scripts/bench's command line (after --) and prints what
// it asks for as the bench's variables, then the profile it names as
// profile.Shell has it, with the bench's runs, warm-up and window (the
// flags given, else the profile's) and the sampler's interval for that
// window; -h or --help prints USAGE=1 alone.
func argsCmd(args []string, out io.Writer) error {
	fl := flag.NewFlagSet("args", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	root := fl.String("lab-root", "", "the lab's folder (studies/ and results/ under it)")
	if err := fl.Parse(args); err != nil {
		return &usageError{err.Error()}
	}
	if *root == "" {
		return &usageError{"--lab-root is missing: the lab's folder"}
	}
	b, err := parseBenchArgs(*root, fl.Args())
	if err != nil {
		return err
	}
	if b.help {
		fmt.Fprintln(out, "USAGE=1")
		return nil
	}
	studyFile, err := study.Named(*root, b.study)
	if err != nil {
		return &usageError{err.Error()}
	}
	p, err := profile.Get(b.profile)
	if err != nil {
		return &usageError{err.Error()}
	}
	runs, warmup, duration := p.Runs, p.WarmupS, p.WindowS
	for _, f := range []struct {
		name, given string
		n           *int
	}{{"runs", b.runs, &runs}, {"warmup", b.warmup, &warmup}, {"duration", b.duration, &duration}} {
		if f.given == "" {
			continue
		}
		n, err := strconv.Atoi(f.given)
		if err != nil || n <= 0 || strings.TrimLeft(f.given, "0123456789") != "" {
			return &usageError{fmt.Sprintf("--%s '%s' is not a whole number above 0", f.name, f.given)}
		}
		*f.n = n
	}
	fmt.Fprintf(out, "USAGE=0\nSTUDY_FILE=%s\nPROFILE=%s\nSTACKS_ARG=%s\nLABEL=%s\nRESULTS_ROOT=%s\nRUN_MODE=%s\n",
		studyFile, b.profile, b.stacks, b.label, b.resultsRoot, b.mode)
	fmt.Fprintf(out, "QUIET_GATE=%d\nSAMPLER=%d\nRUNS_ARG=%s\n", bit(!b.noQuiet), bit(!b.noSampler), b.runs)
	fmt.Fprint(out, p.Shell())
	fmt.Fprintf(out, "RUNS=%d\nWARMUP=%d\nDURATION=%d\nSAMPLER_INTERVAL=%dms\n", runs, warmup, duration, p.SamplerIntervalMs(duration))
	return nil
}

// parseBenchArgs reads the bench's flags in order, as bash's loop did: the
// first fault ends it, and -h or --help ends it with help alone. A flag's
// value is the next argument, neither empty nor a --flag, and of one line
// (each is printed as one KEY=VALUE line). Then the mode is checked.
func parseBenchArgs(root string, args []string) (benchArgs, error) {
	b := benchArgs{study: "all", profile: "quick", resultsRoot: filepath.Join(root, "results"), mode: "docker"}
	takes := map[string]*string{"--study": &b.study, "--profile": &b.profile, "--stacks": &b.stacks, "--label": &b.label,
		"--results-root": &b.resultsRoot, "--runs": &b.runs, "--warmup": &b.warmup, "--duration": &b.duration, "--mode": &b.mode}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok := takes[a]; ok {
			if i+1 == len(args) || args[i+1] == "" || strings.HasPrefix(args[i+1], "--") {
				return b, &usageError{a + " needs a value (see scripts/bench --help)"}
			}
			if i++; strings.Contains(args[i], "\n") {
				return b, &usageError{fmt.Sprintf("%s %q: want a value of one line", a, args[i])}
			}
			*v = args[i]
			continue
		}
		switch a {
		case "--no-quiet":
			b.noQuiet = true
		case "--no-sampler":
			b.noSampler = true
		case "-h", "--help":
			return benchArgs{help: true}, nil
		default:
			return b, &usageError{fmt.Sprintf("unknown argument '%s' (see scripts/bench --help)", a)}
		}
	}
	if b.mode != "docker" && b.mode != "native" {
		return b, &usageError{fmt.Sprintf("--mode '%s': want docker or native", b.mode)}
	}
	return b, nil
}

func bit(v bool) int {
	if v {
		return 1
	}
	return 0
}
