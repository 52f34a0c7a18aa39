package main

import (
	"flag"
	"fmt"

	"stacklab/analysis/ramp"
	"stacklab/analysis/results"
)

// step writes OUT (a capacity step's step-NN.target.json): the rate and
// length the ramp planned, before the step runs, so analysis knows what
// the generator was asked to hold.
//
//	record step OUT --step N --rate R --duration S [--lead-in S]
//
// It records the version of the ramp's rules (ramp.Rules) beside them.
func step(out string, args []string) error {
	fl := flag.NewFlagSet("record step", flag.ContinueOnError)
	var t results.Target
	fl.IntVar(&t.Step, "step", 0, "the step's number, from 1")
	fl.Float64Var(&t.Rate, "rate", 0, "the planned req/s")
	fl.Float64Var(&t.DurationS, "duration", 0, "the planned seconds")
	fl.Float64Var(&t.LeadInS, "lead-in", 0, "seconds at the rate before the window, not measured")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if t.Step < 1 || !(t.Rate > 0) || !(t.DurationS > 0) {
		return fmt.Errorf("--step (from 1), --rate and --duration (above 0) are required")
	}
	t.RampRules = ramp.Rules
	return results.WriteRaw(out, t)
}
