// Command canary times a fixed amount of CPU work and appends the reading
// to a file (formats/speed owns the format). The bench runs it pinned
// (taskset) to the app's CPUs and to the load generator's, before and
// after every window.
//
//	canary --out FILE --label LABEL [--cpus LIST] [--rounds N] [--tries N] [--app-pid PID]
//	                              (--app-pid: also the CPU time PID's cgroup
//	                              used meanwhile, to tell a contended
//	                              reading from a slow CPU)
//	canary                        (no --out: print one reading)
//	canary verdict --out FILE [--rows FILE] [--threshold X] RUN
//	                              (a run's raw folder: exit 1 and the
//	                              reason in FILE when a window was flagged;
//	                              --rows: the rows with a flagged window,
//	                              one a line; the judgement is package
//	                              verdict's, which the bench asks through
//	                              plan redo)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"stacklab/bench/canary/verdict"
	"stacklab/formats/cgroupstat"
	"stacklab/formats/speed"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "verdict" {
		return verdictCmd(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("canary", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "append the reading to this file (one JSON line)")
	label := fs.String("label", "now", "when and where, e.g. \"before app\"")
	cpus := fs.String("cpus", "", "the CPU list the canary is pinned to (recorded; pin it with taskset)")
	rounds := fs.Int("rounds", speed.Rounds, "rounds of work per try")
	tries := fs.Int("tries", speed.Tries, "tries; the fastest counts")
	appPID := fs.Int("app-pid", 0, "a process of the app on these CPUs: its cgroup's CPU time during the reading is recorded")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "canary: unexpected argument %q (see -h)\n", fs.Arg(0))
		return 2
	}
	if *rounds < 1000 || *tries < 1 || *tries > 100 {
		fmt.Fprintln(stderr, "canary: --rounds must be at least 1000 and --tries from 1 to 100")
		return 2
	}
	var app *cgroupstat.Sampler
	var before uint64
	if *appPID != 0 {
		var err error
		if app, err = cgroupstat.Open(cgroupstat.Target{PID: *appPID}); err != nil {
			fmt.Fprintf(stderr, "canary: --app-pid %d: %v\n", *appPID, err)
			return 1
		}
		defer app.Close()
		if before, err = cpuUsage(app); err != nil {
			fmt.Fprintf(stderr, "canary: --app-pid %d: %v\n", *appPID, err)
			return 1
		}
	}
	best, elapsed := speed.MeasureAll(*rounds, *tries)
	r := speed.Reading{Label: *label, CPUs: *cpus, Rounds: *rounds, Tries: *tries, BestNs: best.Nanoseconds()}
	if app != nil {
		after, err := cpuUsage(app)
		if err != nil {
			fmt.Fprintf(stderr, "canary: --app-pid %d: %v\n", *appPID, err)
			return 1
		}
		busy, el := int64(after-before), elapsed.Nanoseconds()
		r.AppBusyNs, r.ElapsedNs = &busy, &el
	}
	if *out == "" {
		b, _ := json.Marshal(r)
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	if err := speed.Append(*out, r); err != nil {
		fmt.Fprintf(stderr, "canary: %v\n", err)
		return 1
	}
	return 0
}

// verdictCmd judges a run's raw folder (raw/run-N) with package verdict. A
// window off by more than the threshold makes it exit 1 with the reason,
// as JSON {"reason": ...} in --out, for the bench to keep as the evidence
// of a discarded run.
func verdictCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("canary verdict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the reason here when a window was flagged")
	rowsOut := fs.String("rows", "", "write the rows with a flagged window here, one a line")
	threshold := fs.Float64("threshold", speed.Threshold, "the share a reading may be off its run's median")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *out == "" {
		fmt.Fprintln(stderr, "canary verdict: want --out FILE and one run folder (raw/run-N)")
		return 2
	}
	v, err := verdict.Judge(fs.Arg(0), *threshold)
	if err == nil {
		err = v.Write(*out, *rowsOut)
	}
	if err != nil {
		fmt.Fprintf(stderr, "canary verdict: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, v.Line(*rowsOut != ""))
	if len(v.Flagged) > 0 {
		return 1
	}
	return 0
}

// cpuUsage is the cgroup's CPU time so far, in nanoseconds.
func cpuUsage(s *cgroupstat.Sampler) (uint64, error) {
	x, err := s.Sample()
	if err != nil {
		return 0, err
	}
	if x.CPUUsageNs == nil {
		return 0, fmt.Errorf("%s: no CPU usage to read", s.Desc)
	}
	return *x.CPUUsageNs, nil
}
