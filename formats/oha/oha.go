// Package oha reads the JSON that oha 1.16.0 writes with
// `--output-format json`: one measured window of the load generator.
//
// oha's own summary.successRate counts 4xx and 5xx answers as successes and
// summary.requestsPerSec includes errors, so the lab never reports them:
// Good counts the 2xx answers from statusCodeDistribution, and GoodPerSec
// divides them by the window's length.
package oha

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// DeadlineError is the errorDistribution key oha uses for requests still in
// flight when the window's deadline cut them (-z without waiting). They are
// an artefact of stopping, not a fault of the stack, and are counted apart.
const DeadlineError = "aborted due to deadline"

// Result is one oha run. Times are seconds, as oha writes them.
type Result struct {
	Summary                Summary            `json:"summary"`
	ResponseTimeHistogram  map[string]int64   `json:"responseTimeHistogram"`
	LatencyPercentiles     map[string]float64 `json:"latencyPercentiles"`
	RPS                    RPS                `json:"rps"`
	StatusCodeDistribution map[string]int64   `json:"statusCodeDistribution"`
	ErrorDistribution      map[string]int64   `json:"errorDistribution"`
}

type Summary struct {
	SuccessRate    float64 `json:"successRate"`
	Total          float64 `json:"total"`
	Slowest        float64 `json:"slowest"`
	Fastest        float64 `json:"fastest"`
	Average        float64 `json:"average"`
	RequestsPerSec float64 `json:"requestsPerSec"`
	TotalData      int64   `json:"totalData"`
	SizePerSec     float64 `json:"sizePerSec"`
}

// RPS is oha's spread of request rates over 10 ms slices of the window.
type RPS struct {
	Mean        float64            `json:"mean"`
	Stddev      float64            `json:"stddev"`
	Max         float64            `json:"max"`
	Min         float64            `json:"min"`
	Percentiles map[string]float64 `json:"percentiles"`
}

// Error is a fault in an oha file, worded for a one-line message.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Read loads and checks one oha JSON file.
func Read(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{path, "missing"}
	}
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	return Parse(path, b)
}

// Parse decodes and checks oha JSON held in memory; path names it in errors.
func Parse(path string, b []byte) (*Result, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &Error{path, "empty file"}
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &Error{path, "truncated or corrupt JSON: " + err.Error()}
	}
	// A JSON file from another tool or another oha version decodes without
	// error into zero values: insist on the parts the lab relies on.
	switch {
	case r.StatusCodeDistribution == nil:
		return nil, &Error{path, "no statusCodeDistribution (not oha 1.16 --output-format json?)"}
	case r.ErrorDistribution == nil:
		return nil, &Error{path, "no errorDistribution (not oha 1.16 --output-format json?)"}
	case r.LatencyPercentiles == nil:
		return nil, &Error{path, "no latencyPercentiles (not oha 1.16 --output-format json?)"}
	case r.Summary.Total <= 0:
		return nil, &Error{path, "summary.total is not a positive window length"}
	}
	for code, n := range r.StatusCodeDistribution {
		if c, err := strconv.Atoi(code); err != nil || c < 100 || c > 599 {
			return nil, &Error{path, fmt.Sprintf("statusCodeDistribution has a key %q that is not an HTTP status", code)}
		}
		if n < 0 {
			return nil, &Error{path, fmt.Sprintf("statusCodeDistribution[%q] is negative", code)}
		}
	}
	return &r, nil
}

// Good is the number of 2xx answers: the only answers the lab counts
// unless a case names its own.
func (r *Result) Good() int64 { return r.GoodWith(Is2xx) }

// Is2xx is the lab's default rule for a good answer.
func Is2xx(status int) bool { return status >= 200 && status < 300 }

// GoodWith counts the answers whose status ok accepts.
func (r *Result) GoodWith(ok func(int) bool) int64 {
	var n int64
	for code, c := range r.StatusCodeDistribution {
		if st, err := strconv.Atoi(code); err == nil && ok(st) {
			n += c
		}
	}
	return n
}

// GoodPerSecWith is GoodWith per second of the window.
func (r *Result) GoodPerSecWith(ok func(int) bool) float64 {
	return float64(r.GoodWith(ok)) / r.Summary.Total
}

// GoodPerSec is 2xx answers per second of the window.
func (r *Result) GoodPerSec() float64 { return float64(r.Good()) / r.Summary.Total }

// StatusCount is how many answers carried one HTTP status.
type StatusCount struct {
	Code  int
	Count int64
}

// Bad lists the non-2xx statuses, by status code.
func (r *Result) Bad() []StatusCount { return r.BadWith(Is2xx) }

// BadWith lists the statuses ok refuses, by status code.
func (r *Result) BadWith(ok func(int) bool) []StatusCount {
	var out []StatusCount
	for code, c := range r.StatusCodeDistribution {
		n, err := strconv.Atoi(code)
		if err == nil && ok(n) || c == 0 {
			continue
		}
		out = append(out, StatusCount{n, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// ErrorCount is how many requests failed with one error message.
type ErrorCount struct {
	Message string
	Count   int64
}

// ConnErrors lists the errors other than deadline aborts, by message.
func (r *Result) ConnErrors() []ErrorCount {
	var out []ErrorCount
	for msg, c := range r.ErrorDistribution {
		if msg == DeadlineError || c == 0 {
			continue
		}
		out = append(out, ErrorCount{msg, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Message < out[j].Message })
	return out
}

// DeadlineAborts is the number of requests cut by the window's end.
func (r *Result) DeadlineAborts() int64 { return r.ErrorDistribution[DeadlineError] }

// Percentile returns latencyPercentiles[key] (key like "p99" or "p99.9") in
// seconds, and whether oha wrote it.
func (r *Result) Percentile(key string) (float64, bool) {
	v, ok := r.LatencyPercentiles[key]
	return v, ok
}
