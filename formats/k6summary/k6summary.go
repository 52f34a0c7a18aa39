// Package k6summary reads what a users step's k6 run leaves: k6 1.8.1's
// end-of-test data object, written as k6 hands it to the script's
// handleSummary (bench/k6script) and kept unchanged as raw data
// (raw/run-N/<stack>/<case>/step-NN.k6.json).
//
// A step's users run for a lead-in, then for the measured span, then for
// a tail the length of a request's timeout; every request is tagged with
// the phase it was sent in (Phase: Lead, Measure, After), and the script
// declares a threshold on each metric's Measure submetric so that k6
// summarizes it apart. A step's figures are those submetrics only: the
// requests sent after the lead-in and before the step's end, every one of
// which has its answer, or its timeout, before k6 stops. Times are
// milliseconds, as k6 writes them; the percentiles are k6's own, from
// every sample.
package k6summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// The phase tag and its values: what the script tags each request with.
const (
	Phase   = "phase"
	Lead    = "lead"
	Measure = "measure"
	After   = "after"
)

// TrendStats are the statistics the script asks k6 to summarize a trend
// with (options.summaryTrendStats); Read needs them all but p(95), which
// scripts before it did not ask for.
var TrendStats = []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"}

// optionalStats: the TrendStats a summary may lack.
var optionalStats = map[string]bool{"p(95)": true}

// Measured names the Measure submetric of metric, as k6 keys it in the
// summary and as a threshold declares it: "http_reqs{phase:measure}".
func Measured(metric string) string { return metric + "{" + Phase + ":" + Measure + "}" }

// FlowTag is the tag naming the flow a request was sent in.
const FlowTag = "flow"

// MeasuredFlow names the Measure submetric of metric for one flow's
// requests: "http_reqs{phase:measure,flow:browse}".
func MeasuredFlow(metric, flow string) string {
	return metric + "{" + Phase + ":" + Measure + "," + FlowTag + ":" + flow + "}"
}

// Flow is one flow's requests in the measured span (a script that
// declared its submetrics; older scripts did not).
type Flow struct {
	Requests, Failed int64
	// P95Ms is 0 in a summary from before the script asked for p(95).
	P50Ms, P95Ms, P99Ms float64
}

// The metrics a step is read from, each as its Measure submetric.
const (
	Duration = "http_req_duration"
	Failed   = "http_req_failed"
	Reqs     = "http_reqs"
	Checks   = "checks"
)

// Step is one users step as its summary shows it.
type Step struct {
	// Requests were sent in the measured span; Failed of them got no
	// answer or a status k6 does not expect (4xx, 5xx).
	Requests, Failed int64
	// Checks made on the measured span's answers, ChecksFailed of them
	// failed (a wrong status, a body without its text, a value not found).
	Checks, ChecksFailed int64
	// The measured span's latency, milliseconds: k6's http_req_duration
	// (sending to the last byte received, after a connection was had).
	MeanMs, P50Ms, P90Ms, P99Ms, MaxMs float64
	// VUsMax is the most users k6 had; Iterations the flows started and
	// AllRequests the requests sent over the whole run (every phase: what
	// k6's CPU time over the step paid for); DurationMs the run's length.
	VUsMax      int
	Iterations  int64
	AllRequests int64
	DurationMs  float64
	// FailedChecks are the checks that failed in any phase, by name, the
	// most failed first (k6 counts checks by name for the whole run).
	FailedChecks []Check
	// Flows are each flow's requests in the measured span, by flow name
	// (nil when the script did not measure flows apart).
	Flows map[string]*Flow
}

// Check is one named check's count over the whole run.
type Check struct {
	Name          string
	Passes, Fails int64
}

// Error is a summary that cannot be read: the file and what is wrong.
type Error struct{ Path, Msg string }

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

type metricJS struct {
	Type   string             `json:"type"`
	Values map[string]float64 `json:"values"`
}

type groupJS struct {
	Checks []struct {
		Name   string  `json:"name"`
		Passes float64 `json:"passes"`
		Fails  float64 `json:"fails"`
	} `json:"checks"`
	Groups []groupJS `json:"groups"`
}

type dataJS struct {
	Metrics map[string]metricJS `json:"metrics"`
	State   struct {
		TestRunDurationMs float64 `json:"testRunDurationMs"`
	} `json:"state"`
	RootGroup groupJS `json:"root_group"`
}

// Read reads one step's summary.
func Read(path string) (*Step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st, err := Parse(b)
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	return st, nil
}

// Parse reads a summary's bytes.
func Parse(b []byte) (*Step, error) {
	var d dataJS
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("not k6's summary JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if d.Metrics == nil {
		return nil, errors.New("no \"metrics\": not k6's end-of-test summary")
	}
	st := &Step{DurationMs: d.State.TestRunDurationMs}
	// A submetric with no sample keeps its threshold's key; a metric that
	// is absent was never declared: the script is not the lab's.
	get := func(name, typ string) (metricJS, error) {
		m, ok := d.Metrics[name]
		if !ok {
			return m, fmt.Errorf("no metric %q: the script did not measure its phases (bench/k6script)", name)
		}
		if m.Type != typ {
			return m, fmt.Errorf("metric %q is a %s, want a %s", name, m.Type, typ)
		}
		return m, nil
	}
	whole := func(name, key string, v float64) (int64, error) {
		if v < 0 || v != math.Trunc(v) || v > 1e15 {
			return 0, fmt.Errorf("metric %q: %s %v is not a count", name, key, v)
		}
		return int64(v), nil
	}
	reqs, err := get(Measured(Reqs), "counter")
	if err != nil {
		return nil, err
	}
	if st.Requests, err = whole(Measured(Reqs), "count", reqs.Values["count"]); err != nil {
		return nil, err
	}
	for _, r := range []struct {
		name        string
		fail, total *int64
		failKey     string
	}{
		// http_req_failed's true values are the failed requests (passes),
		// checks' false values the failed checks (fails).
		{Measured(Failed), &st.Failed, nil, "passes"},
		{Measured(Checks), &st.ChecksFailed, &st.Checks, "fails"},
	} {
		m, err := get(r.name, "rate")
		if err != nil {
			return nil, err
		}
		p, err := whole(r.name, "passes", m.Values["passes"])
		if err != nil {
			return nil, err
		}
		f, err := whole(r.name, "fails", m.Values["fails"])
		if err != nil {
			return nil, err
		}
		*r.fail = p
		if r.failKey == "fails" {
			*r.fail = f
		}
		if r.total != nil {
			*r.total = p + f
		}
	}
	if st.Failed > st.Requests {
		return nil, fmt.Errorf("%d failed requests of %d sent", st.Failed, st.Requests)
	}
	dur, err := get(Measured(Duration), "trend")
	if err != nil {
		return nil, err
	}
	if st.Requests > 0 {
		for _, s := range TrendStats {
			if _, ok := dur.Values[s]; !ok && !optionalStats[s] {
				return nil, fmt.Errorf("metric %q has no %s: the script did not ask for it (summaryTrendStats)", Measured(Duration), s)
			}
		}
		st.MeanMs, st.P50Ms, st.P90Ms, st.P99Ms, st.MaxMs = dur.Values["avg"], dur.Values["med"], dur.Values["p(90)"], dur.Values["p(99)"], dur.Values["max"]
		for _, v := range []float64{st.MeanMs, st.P50Ms, st.P90Ms, st.P99Ms, st.MaxMs} {
			if v < 0 || math.IsNaN(v) {
				return nil, fmt.Errorf("metric %q: a negative latency", Measured(Duration))
			}
		}
	}
	if vus, ok := d.Metrics["vus_max"]; ok {
		st.VUsMax = int(vus.Values["value"])
	}
	if it, ok := d.Metrics["iterations"]; ok {
		st.Iterations, _ = whole("iterations", "count", it.Values["count"])
	}
	if all, ok := d.Metrics[Reqs]; ok {
		st.AllRequests, _ = whole(Reqs, "count", all.Values["count"])
	}
	if st.Flows, err = flows(d.Metrics, whole); err != nil {
		return nil, err
	}
	var walk func(g groupJS)
	walk = func(g groupJS) {
		for _, c := range g.Checks {
			if c.Fails > 0 {
				st.FailedChecks = append(st.FailedChecks, Check{c.Name, int64(c.Passes), int64(c.Fails)})
			}
		}
		for _, sub := range g.Groups {
			walk(sub)
		}
	}
	walk(d.RootGroup)
	sort.SliceStable(st.FailedChecks, func(i, j int) bool { return st.FailedChecks[i].Fails > st.FailedChecks[j].Fails })
	return st, nil
}

// flows reads each flow's measured submetrics: a flow whose request count
// is declared must have its failures and its latency declared too.
func flows(ms map[string]metricJS, whole func(name, key string, v float64) (int64, error)) (map[string]*Flow, error) {
	prefix := strings.TrimSuffix(MeasuredFlow(Reqs, ""), "}")
	var out map[string]*Flow
	for key, reqs := range ms {
		name, ok := strings.CutPrefix(key, prefix)
		if !ok || !strings.HasSuffix(name, "}") {
			continue
		}
		name = strings.TrimSuffix(name, "}")
		fl := &Flow{}
		var err error
		if reqs.Type != "counter" {
			return nil, fmt.Errorf("metric %q is a %s, want a counter", key, reqs.Type)
		}
		if fl.Requests, err = whole(key, "count", reqs.Values["count"]); err != nil {
			return nil, err
		}
		fk := MeasuredFlow(Failed, name)
		failed, ok := ms[fk]
		if !ok || failed.Type != "rate" {
			return nil, fmt.Errorf("no rate metric %q beside %q: the script did not measure the flow's failures", fk, key)
		}
		if fl.Failed, err = whole(fk, "passes", failed.Values["passes"]); err != nil {
			return nil, err
		}
		if fl.Failed > fl.Requests {
			return nil, fmt.Errorf("flow %s: %d failed requests of %d sent", name, fl.Failed, fl.Requests)
		}
		dk := MeasuredFlow(Duration, name)
		dur, ok := ms[dk]
		if !ok || dur.Type != "trend" {
			return nil, fmt.Errorf("no trend metric %q beside %q: the script did not measure the flow's latency", dk, key)
		}
		if fl.Requests > 0 {
			fl.P50Ms, fl.P95Ms, fl.P99Ms = dur.Values["med"], dur.Values["p(95)"], dur.Values["p(99)"]
			for _, v := range []float64{fl.P50Ms, fl.P95Ms, fl.P99Ms} {
				if v < 0 || math.IsNaN(v) {
					return nil, fmt.Errorf("metric %q: a negative latency", dk)
				}
			}
		}
		if out == nil {
			out = map[string]*Flow{}
		}
		out[name] = fl
	}
	return out, nil
}

// ChecksOnly: every request of the span had an answer with a status its
// step allows, and yet checks failed (a body without its text, a value
// not captured).
func (s *Step) ChecksOnly() bool { return s.Failed == 0 && s.ChecksFailed > 0 }

// PerSec is the measured span's requests a second.
func (s *Step) PerSec(measureS float64) float64 {
	if measureS <= 0 {
		return 0
	}
	return float64(s.Requests) / measureS
}
