package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"stacklab/analysis/manifest"
)

// timing records how long the bench took: wall time ÷ the measured windows
// (the orchestration overhead) and the first ETA's error, with the time
// spent in each kind of phase, and prints them in one line.
//
//	record timing DIR --wall-ms N --eta-first-s N --windows N --window-s S [--phase KIND=COUNT:MS]...
func timing(m *manifest.Manifest, args []string) error {
	fl := flag.NewFlagSet("record timing", flag.ContinueOnError)
	wallMs := fl.Int64("wall-ms", 0, "milliseconds from the first ETA to the end of the last run")
	eta := fl.Float64("eta-first-s", 0, "the first ETA, in seconds")
	windows := fl.Int("windows", 0, "measured windows (a stack's case, with a result)")
	windowS := fl.Float64("window-s", 0, "seconds per measured window")
	var phases, marks multi
	fl.Var(&phases, "phase", "KIND=COUNT:MS, the phases of one kind (repeatable)")
	fl.Var(&marks, "eta-at", "MS:LEFT_S, an estimate shown MS after the start (repeatable)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *wallMs <= 0 || *windowS <= 0 {
		return fmt.Errorf("--wall-ms and --window-s must be above 0")
	}
	t := &manifest.Timing{WallS: float64(*wallMs) / 1000, MeasuredWindows: *windows, WindowS: *windowS, ETAFirstS: *eta, Phases: []manifest.Phase{}}
	if *windows > 0 {
		t.Overhead = round3(t.WallS / (float64(*windows) * *windowS))
	}
	t.ETAError = round3((t.ETAFirstS - t.WallS) / t.WallS)
	var sum float64
	for _, mk := range marks {
		at, left, ok := strings.Cut(mk, ":")
		ms, err1 := strconv.ParseInt(at, 10, 64)
		l, err2 := strconv.ParseFloat(left, 64)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("--eta-at %q: want MS:LEFT_S", mk)
		}
		sum += math.Abs(l - (t.WallS - float64(ms)/1000))
	}
	if len(marks) > 0 {
		t.ETAMeanError, t.ETAEstimates = round3(sum/float64(len(marks))/t.WallS), len(marks)
	}
	var parts []string
	for _, p := range phases {
		kind, rest, ok := strings.Cut(p, "=")
		cs, ms, ok2 := strings.Cut(rest, ":")
		n, err1 := strconv.Atoi(cs)
		v, err2 := strconv.ParseInt(ms, 10, 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || kind == "" {
			return fmt.Errorf("--phase %q: want KIND=COUNT:MS", p)
		}
		t.Phases = append(t.Phases, manifest.Phase{Kind: kind, Count: n, Seconds: float64(v) / 1000})
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d × %.1f s", kind, n, float64(v)/1000/float64(n)))
		}
	}
	m.Timing = t
	line := fmt.Sprintf("bench: took %s; the first ETA said %s (%+.1f%%)", clock(t.WallS), clock(t.ETAFirstS), 100*t.ETAError)
	if t.ETAEstimates > 0 {
		line += fmt.Sprintf(", the %d along the way were off by %.1f%% of that on average", t.ETAEstimates, 100*t.ETAMeanError)
	}
	if t.Overhead > 0 {
		line += fmt.Sprintf("; orchestration overhead %.2f (wall time ÷ %d measured windows of %g s)", t.Overhead, t.MeasuredWindows, t.WindowS)
	}
	if len(parts) > 0 {
		line += "; phases: " + strings.Join(parts, ", ")
	}
	fmt.Println(line)
	return nil
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func clock(s float64) string {
	n := int(math.Round(s))
	return fmt.Sprintf("%dm%02ds", n/60, n%60)
}
