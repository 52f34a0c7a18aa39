package main

// The users' script: a study's [[flow]]s as the k6 script bench/k6script
// writes, for the executor the arguments give.
//
//	plan k6 STUDY --url BASE (--vus N --duration D | --stages D:N,D:N... [--start-vus N]) [--seed N] [--timeout-s S]
//	    the script on stdout: constant-vus with --vus and --duration,
//	    ramping-vus with --stages (each DURATION:USERS, e.g. 30s:10,1m:10)
//	plan k6 STUDY --url BASE --case NAME --vus N [--seed N]
//	    one step of users case NAME's ramp with N users: its lead-in, its
//	    measured span and a tail, each request tagged with its phase, k6's
//	    summary written to the file $LAB_K6_SUMMARY names (bench/k6script)

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/study"
	"stacklab/bench/k6script"
)

func k6Script(path string, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("k6", flag.ContinueOnError)
	base := fl.String("url", "", "http://127.0.0.1:PORT of the app")
	vus := fl.Int("vus", 0, "users, for constant-vus")
	dur := fl.Duration("duration", 0, "how long, for constant-vus")
	stages := fl.String("stages", "", "DURATION:USERS,... for ramping-vus")
	start := fl.Int("start-vus", 0, "users at the start, for ramping-vus")
	seed := fl.Uint("seed", 1, "the users' random seed")
	timeout := fl.Float64("timeout-s", 0, "each request's timeout in seconds (0: k6's own)")
	caseName := fl.String("case", "", "a users case: the script of one of its steps")
	if err := parseFlags("k6", args, fl); err != nil {
		return err
	}
	if *seed > 1<<32-1 {
		return &usageError{fmt.Sprintf("--seed %d: want 0 to %d", *seed, uint32(1<<32-1))}
	}
	o := k6script.Options{URL: *base, VUs: *vus, Duration: *dur, StartVUs: *start, TimeoutS: *timeout, Seed: uint32(*seed)}
	if *stages != "" {
		var err error
		if o.Stages, err = parseStages(*stages); err != nil {
			return err
		}
	}
	s, err := study.Load(path)
	if err != nil {
		return err
	}
	flows := s.Flows
	o.Study = s.Name
	if *caseName != "" {
		c := s.Case(*caseName)
		if c == nil || c.Ramp == nil || !c.Ramp.Users {
			return &usageError{fmt.Sprintf("--case %q: the study has no users case of that name", *caseName)}
		}
		if *timeout != 0 {
			return &usageError{"--timeout-s: a users step takes its case's ramp.timeout_s"}
		}
		o.LeadS, o.MeasureS, o.TimeoutS = c.Ramp.LeadS, c.Ramp.StepS, c.Ramp.TimeoutS
		flows = c.Flows
	}
	if len(flows) == 0 {
		return &study.Error{Path: path, Key: "flow", Msg: "no [[flow]]: the script is the study's flows"}
	}
	b, err := k6script.Write(flows, o)
	if err != nil {
		return &usageError{err.Error()}
	}
	_, err = out.Write(b)
	return err
}

// parseStages reads --stages: DURATION:USERS, comma-separated.
func parseStages(v string) ([]k6script.Stage, error) {
	var out []k6script.Stage
	for _, part := range strings.Split(v, ",") {
		d, n, ok := strings.Cut(part, ":")
		dd, err := time.ParseDuration(d)
		users, err2 := strconv.Atoi(n)
		if !ok || err != nil || err2 != nil {
			return nil, &usageError{fmt.Sprintf("--stages %q: want DURATION:USERS,... (e.g. 30s:10,1m:10)", part)}
		}
		out = append(out, k6script.Stage{Duration: dd, Target: users})
	}
	return out, nil
}
