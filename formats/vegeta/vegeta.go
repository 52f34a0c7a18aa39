// Package vegeta reads the JSON that vegeta 12.13.0 writes with
// `vegeta report -type=json`: one capacity step of the open-loop generator
// (raw/run-N/<stack>/<case>/step-NN.json, kept as vegeta wrote it).
//
// vegeta's own "success" and "throughput" count 3xx as successes; the lab
// never reports them: Good counts the statuses the case accepts (2xx by
// default) from status_codes. Times are nanoseconds, as vegeta writes them
// (Go's time.Duration); the percentiles are vegeta's t-digest estimates
// (compression 100), latency from the moment a worker sent the request.
package vegeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// Report is one vegeta report.
type Report struct {
	Latencies   Latencies        `json:"latencies"`
	BytesIn     Bytes            `json:"bytes_in"`
	BytesOut    Bytes            `json:"bytes_out"`
	Earliest    string           `json:"earliest"`
	Latest      string           `json:"latest"`
	End         string           `json:"end"`
	DurationNs  int64            `json:"duration"` // first to last request sent
	WaitNs      int64            `json:"wait"`     // last send to its answer
	Requests    int64            `json:"requests"`
	Rate        float64          `json:"rate"` // requests sent per second of DurationNs
	Throughput  float64          `json:"throughput"`
	Success     float64          `json:"success"`
	StatusCodes map[string]int64 `json:"status_codes"`
	Errors      []string         `json:"errors"`
}

// Latencies are vegeta's latency summary, in nanoseconds.
type Latencies struct {
	Total int64 `json:"total"`
	Mean  int64 `json:"mean"`
	P50   int64 `json:"50th"`
	P90   int64 `json:"90th"`
	P95   int64 `json:"95th"`
	P99   int64 `json:"99th"`
	Max   int64 `json:"max"`
	Min   int64 `json:"min"`
}

// Bytes are vegeta's byte counts.
type Bytes struct {
	Total int64   `json:"total"`
	Mean  float64 `json:"mean"`
}

// Error is a fault in a vegeta file, worded for a one-line message.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Read loads and checks one vegeta report.
func Read(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{path, "missing"}
	}
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	return Parse(path, b)
}

// Parse decodes and checks a report held in memory; path names it in errors.
func Parse(path string, b []byte) (*Report, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &Error{path, "empty file"}
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, &Error{path, "truncated or corrupt JSON: " + err.Error()}
	}
	if dec.More() {
		return nil, &Error{path, "more than one report in the file"}
	}
	// Another tool's JSON (an oha file in the wrong place) is refused by
	// DisallowUnknownFields; insist on the parts the lab relies on too.
	switch {
	case r.StatusCodes == nil:
		return nil, &Error{path, "no status_codes (not vegeta 12 report -type=json?)"}
	case r.Requests <= 0:
		return nil, &Error{path, "requests is not a positive count: the step sent nothing"}
	case r.DurationNs < 0 || r.WaitNs < 0:
		return nil, &Error{path, "duration or wait is negative"}
	case r.Latencies.P99 < 0 || r.Latencies.Mean < 0 || r.Latencies.Max < r.Latencies.P99:
		return nil, &Error{path, "latencies are inconsistent (negative, or max below 99th)"}
	}
	var sum int64
	for code, n := range r.StatusCodes {
		c, err := strconv.Atoi(code)
		// vegeta writes status 0 for a request that got no answer.
		if err != nil || c != 0 && (c < 100 || c > 599) {
			return nil, &Error{path, fmt.Sprintf("status_codes has a key %q that is not an HTTP status", code)}
		}
		if n < 0 {
			return nil, &Error{path, fmt.Sprintf("status_codes[%q] is negative", code)}
		}
		sum += n
	}
	if sum != r.Requests {
		return nil, &Error{path, fmt.Sprintf("status_codes add up to %d, requests says %d", sum, r.Requests)}
	}
	return &r, nil
}

// Is2xx is the lab's default rule for a good answer.
func Is2xx(status int) bool { return status >= 200 && status < 300 }

// GoodWith counts the answers whose status ok accepts.
func (r *Report) GoodWith(ok func(int) bool) int64 {
	var n int64
	for code, c := range r.StatusCodes {
		if st, err := strconv.Atoi(code); err == nil && st != 0 && ok(st) {
			n += c
		}
	}
	return n
}

// StatusCount is how many answers carried one HTTP status (0: no answer).
type StatusCount struct {
	Code  int
	Count int64
}

// BadWith lists the statuses ok refuses, and status 0 (no answer), by code.
func (r *Report) BadWith(ok func(int) bool) []StatusCount {
	var out []StatusCount
	for code, c := range r.StatusCodes {
		n, _ := strconv.Atoi(code)
		if c == 0 || n != 0 && ok(n) {
			continue
		}
		out = append(out, StatusCount{n, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Bad is the number of requests BadWith lists.
func (r *Report) Bad(ok func(int) bool) int64 {
	var n int64
	for _, b := range r.BadWith(ok) {
		n += b.Count
	}
	return n
}

// P99Ms is the 99th percentile latency in milliseconds.
func (r *Report) P99Ms() float64 { return float64(r.Latencies.P99) / 1e6 }

// MeanMs is the mean latency in milliseconds.
func (r *Report) MeanMs() float64 { return float64(r.Latencies.Mean) / 1e6 }

// SentSeconds is the time from the first request sent to the last.
func (r *Report) SentSeconds() float64 { return float64(r.DurationNs) / 1e9 }
