package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/bench/k6script"
)

// The capacity subcommands: the bench runs a ramp one step at a time and
// asks here, each time, what to do next; the decision is package ramp's.
//
//	plan ramp STUDY ID --dir DIR [--warmup S --warmup-max S --lead-in S --duration S]
//	    the next step of window ID given the steps in DIR: "step N", "rate R",
//	    "max_steps M" and "unit req/s|users" lines ("why TEXT" when the step
//	    re-measures a rate, "cooldown yes" when the app must settle first:
//	    the last step failed; "restart WHY" instead when it needs a fresh
//	    app: the last step lost requests; "trim yes" when the bench deletes
//	    the rows written since the seed before the step's warm-up and before
//	    its window), "after TEXT" (how the step starts after a restart, for
//	    its step-NN.restart), or "stop REASON" (then "capacity R UNIT" or
//	    "refused WHY"); a rate ramp's step adds "step_s S" (warm-up, lead-in
//	    and window), "warm_s S" (its warm-up: the bench's --warmup, the
//	    profile's most after a restart) and "restart_warm_s S" (its warm-up
//	    when the bench restarts an app that did not settle), from the flags,
//	    which it requires; a users ramp's step adds "users N", "measure_s S"
//	    (the span it is read from) and "step_s S" (its whole length)
//	plan targets STUDY ID --lane NAME --url BASE
//	    one lane of the window's request mix (study.Lane) as vegeta JSON
//	    targets, one a line
//	plan vegeta STUDY ID --lane NAME --targets FILE --rate R --duration S
//	    vegeta attack's arguments for one lane of a step at R req/s in all,
//	    NUL-separated

func rampCase(path, id string) (*study.Case, error) {
	_, w, err := loadWindow(path, id, 1)
	if err != nil {
		return nil, err
	}
	if w.Case.Ramp == nil {
		return nil, &usageError{fmt.Sprintf("window %q is not a capacity ramp (no [case.ramp])", id)}
	}
	return w.Case, nil
}

func rampNext(path string, args []string, out io.Writer) error {
	if len(args) < 1 {
		return &usageError{"want a window id"}
	}
	fl := flag.NewFlagSet("ramp", flag.ContinueOnError)
	dir := fl.String("dir", "", "the window's folder of steps (may not exist yet)")
	var fig warmFigures
	fl.IntVar(&fig.warmup, "warmup", 0, "the bench's warm-up, in seconds (WARMUP)")
	fl.IntVar(&fig.warmupMax, "warmup-max", 0, "the profile's most warm-up, in seconds (WARMUP_MAX_S)")
	fl.IntVar(&fig.leadIn, "lead-in", 0, "the profile's lead-in before a step's window, in seconds (LEAD_IN_S)")
	fl.IntVar(&fig.duration, "duration", 0, "the window's length, in seconds (DURATION)")
	if err := parseFlags("ramp", args[1:], fl); err != nil {
		return err
	}
	c, err := rampCase(path, args[0])
	if err != nil {
		return err
	}
	if !c.Ramp.Users && (fig.warmup <= 0 || fig.warmupMax <= 0 || fig.duration <= 0 || fig.leadIn < 0) {
		return &usageError{"a rate ramp's step needs --warmup, --warmup-max and --duration (each above 0) and --lead-in (0 or more)"}
	}
	var steps []results.Step
	if *dir == "" {
		return &usageError{"--dir is required"}
	}
	if ents, _ := readDirNames(*dir); len(ents) > 0 {
		if steps, err = results.LoadSteps(*dir); err != nil {
			return err
		}
	}
	for _, s := range steps {
		if !s.Measured() {
			fmt.Fprintf(out, "RAMP_STOP=step %d was not measured: %s\nRAMP_VERDICT=no capacity: the ramp stopped at an unmeasured step\n", s.Target.Step, s.Failed)
			return nil
		}
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	rs := results.RampSteps(steps)
	next := ramp.Decide(c, rs)
	if !next.Stop {
		fmt.Fprintf(out, "RAMP_STEP=%d\nRAMP_RATE=%s\nRAMP_MAX_STEPS=%d\nRAMP_UNIT=%s\n", len(rs)+1, num(next.Rate), c.Ramp.MaxSteps, c.Ramp.Unit())
		if c.Ramp.Users {
			// the users' count, and how long the whole step runs
			fmt.Fprintf(out, "RAMP_USERS=%s\nRAMP_MEASURE_S=%s\nRAMP_STEP_S=%s\n", num(next.Rate), num(c.Ramp.StepS),
				num(c.Ramp.LeadS+c.Ramp.StepS+k6script.TailS(c.Ramp.TimeoutS)))
		} else {
			fmt.Fprintf(out, "RAMP_STEP_S=%d\nRAMP_WARM_S=%d\nRAMP_RESTART_WARM_S=%d\n", fig.stepS(), fig.warmS(next.Restart != ""), fig.warmS(true))
		}
		fmt.Fprintf(out, "RAMP_AFTER=%s\n", fig.after(c.Ramp.Users))
		if next.Why != "" {
			fmt.Fprintf(out, "RAMP_WHY=%s\n", next.Why)
		}
		if next.Restart != "" {
			fmt.Fprintf(out, "RAMP_RESTART=%s\n", next.Restart)
		} else if next.Cooldown {
			fmt.Fprintln(out, "RAMP_COOLDOWN=yes")
		}
		if next.Trim {
			fmt.Fprintln(out, "RAMP_TRIM=yes")
		}
		return nil
	}
	fmt.Fprintf(out, "RAMP_STOP=%s\n", next.Reason)
	if cp := ramp.Of(c, rs); cp.Refused != "" {
		fmt.Fprintf(out, "RAMP_VERDICT=no capacity: %s\n", cp.Refused)
	} else {
		fmt.Fprintf(out, "RAMP_VERDICT=capacity %s %s\n", num(cp.Rate), c.Ramp.Unit())
	}
	return nil
}

// warmFigures are the bench's warm-up, lead-in and window (its profile's,
// or its flags'), from which a rate ramp's step gets its length and warm-up.
type warmFigures struct{ warmup, warmupMax, leadIn, duration int }

// stepS is a rate step's whole length as the bench announces it: its
// ordinary warm-up, the attack's lead-in and the window.
func (f warmFigures) stepS() int { return f.warmup + f.leadIn + f.duration }

// warmS is a rate step's warm-up: the bench's, or the profile's most on a
// fresh app (restarted before the step), which starts cold.
func (f warmFigures) warmS(restarted bool) int {
	if restarted {
		return f.warmupMax
	}
	return f.warmup
}

// after is how a step starts once the app was restarted before it, the
// end of its step-NN.restart line: a users step's own lead-in warms it.
func (f warmFigures) after(users bool) string {
	if users {
		return "then the step's own lead-in"
	}
	return fmt.Sprintf("then warmed up %d s at the step's rate", f.warmS(true))
}

// target is one line of vegeta's JSON targets format.
type target struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Body   []byte              `json:"body,omitempty"` // base64, as vegeta reads it
	Header map[string][]string `json:"header"`
}

func targets(path string, args []string, out io.Writer) error {
	if len(args) < 1 {
		return &usageError{"want a window id"}
	}
	fl := flag.NewFlagSet("targets", flag.ContinueOnError)
	base := fl.String("url", "", "http://127.0.0.1:PORT of the app")
	laneName := fl.String("lane", "main", "the lane (plan window lists them)")
	if err := parseFlags("targets", args[1:], fl); err != nil {
		return err
	}
	if !strings.HasPrefix(*base, "http://127.0.0.1:") {
		return &usageError{fmt.Sprintf("--url %q: the lab targets http://127.0.0.1:PORT only", *base)}
	}
	c, err := rampCase(path, args[0])
	if err != nil {
		return err
	}
	lane, ok := c.Lane(*laneName)
	if !ok {
		return &usageError{fmt.Sprintf("--lane %q: case %q has no such lane", *laneName, c.Name)}
	}
	enc := json.NewEncoder(out)
	for _, m := range lane.Cycle() {
		// No compression, as with oha: Go's client would ask for gzip.
		h := map[string][]string{"Accept-Encoding": {"identity"}}
		if m.ContentType != "" {
			h["Content-Type"] = []string{m.ContentType}
		}
		for _, line := range m.Headers {
			k, v, _ := strings.Cut(line, ":")
			k = http.CanonicalHeaderKey(strings.TrimSpace(k))
			h[k] = append(h[k], strings.TrimSpace(v))
		}
		t := target{Method: m.Method, URL: *base + m.Path, Header: h}
		if m.Body != "" {
			t.Body = []byte(m.Body)
		}
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	return nil
}

func vegetaArgs(path string, args []string, out io.Writer) error {
	if len(args) < 1 {
		return &usageError{"want a window id"}
	}
	fl := flag.NewFlagSet("vegeta", flag.ContinueOnError)
	file := fl.String("targets", "", "the targets file (plan targets)")
	laneName := fl.String("lane", "main", "the lane (plan window lists them)")
	rate := fl.Float64("rate", 0, "req/s")
	secs := fl.Float64("duration", 0, "seconds")
	if err := parseFlags("vegeta", args[1:], fl); err != nil {
		return err
	}
	if *file == "" || *rate < 1 || *secs <= 0 {
		return &usageError{"--targets, --rate (≥ 1) and --duration (> 0) are required"}
	}
	c, err := rampCase(path, args[0])
	if err != nil {
		return err
	}
	lane, ok := c.Lane(*laneName)
	if !ok {
		return &usageError{fmt.Sprintf("--lane %q: case %q has no such lane", *laneName, c.Name)}
	}
	// The lane's share of the rate, in requests per 10 s so that a small
	// share (5% of 50 req/s) keeps its fraction.
	per10 := int64(math.Round(lane.Rate(*rate) * 10))
	// An open loop: vegeta starts a new worker (and connection) whenever
	// every worker is busy, so a slow answer never delays the next send.
	a := []string{"attack", "-format", "json", "-targets", *file,
		"-rate", fmt.Sprintf("%d/10s", per10), "-duration", strconv.FormatFloat(*secs, 'f', -1, 64) + "s",
		"-timeout", strconv.FormatFloat(c.Ramp.TimeoutS, 'f', -1, 64) + "s",
		"-max-body", "0", "-keepalive=true", "-http2=false", "-redirects", "-1",
		"-max-connections", strconv.Itoa(c.Ramp.Connections)}
	for _, s := range a {
		fmt.Fprint(out, s+"\x00")
	}
	return nil
}

func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, err
}
