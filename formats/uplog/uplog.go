// Package uplog owns the mock upstream's record of its own lateness
// (`<window>.upstream.jsonl`, format id "stacklab-upstream/1"): for every
// `GET /delay?ms=N` it answered, how much longer than N ms the answer took
// inside the upstream, from its handler's start to the end of writing the
// answer. That is the upstream's share of a slow request that waited on
// it: a timer that fired late, or a goroutine that waited for its CPU (on
// the local profile the upstream shares CPU 1 with the load generator).
// What it cannot see is the time before its handler ran (the app's client
// sending, the connection waiting to be read) and after its write.
//
// The upstream keeps the last Keep of it in 100 ms buckets (Recorder) and
// answers `GET /lateness?from_ms=A&to_ms=B` with the buckets that end in
// that span, as this format; `record upstream` fetches and checks it after
// every window and step. Times are unix milliseconds on the upstream's
// clock: on one machine, the clock of the latency timeline.
//
// Line 1 is the Header; then one Bucket line per bucket that answered
// anything, in time order:
//
//	{"format":"stacklab-upstream/1","bucket_ms":100,"from_unix_ms":1764650000000,"to_unix_ms":1764650010000,"answers":5000,"late_5ms":3,"late_50ms":1,"max_late_us":61000}
//	{"t_unix_ms":1764650000000,"answers":500,"late_5ms":0,"late_50ms":0,"max_late_us":900}
package uplog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// FormatID is the header's "format".
const FormatID = "stacklab-upstream/1"

// What the record keeps.
const (
	BucketMs = 100              // the length of a bucket
	Keep     = 15 * time.Minute // how far back the upstream remembers
	Late5    = 5 * time.Millisecond
	Late50   = 50 * time.Millisecond
)

// Header is the first line: the span asked for and its totals.
type Header struct {
	Format     string `json:"format"`
	BucketMs   int64  `json:"bucket_ms"`
	FromUnixMs int64  `json:"from_unix_ms"`
	ToUnixMs   int64  `json:"to_unix_ms"`
	Counts
}

// Counts are the answers of a bucket or a span: how many, how many were
// 5 ms or more late and 50 ms or more, and the latest.
type Counts struct {
	Answers   int64 `json:"answers"`
	Late5ms   int64 `json:"late_5ms"`
	Late50ms  int64 `json:"late_50ms"`
	MaxLateUs int64 `json:"max_late_us"`
}

func (c *Counts) add(o Counts) {
	c.Answers += o.Answers
	c.Late5ms += o.Late5ms
	c.Late50ms += o.Late50ms
	c.MaxLateUs = max(c.MaxLateUs, o.MaxLateUs)
}

// MaxLate is the latest answer's lateness.
func (c Counts) MaxLate() time.Duration { return time.Duration(c.MaxLateUs) * time.Microsecond }

// Bucket is one bucket's answers; TUnixMs is its start, a multiple of
// bucket_ms, and an answer belongs to the bucket in which it was written.
type Bucket struct {
	TUnixMs int64 `json:"t_unix_ms"`
	Counts
}

// File is one record, as read.
type File struct {
	Header  Header
	Buckets []Bucket
}

// In adds up the buckets that overlap [fromNs, toNs) (unix ns).
func (f File) In(fromNs, toNs int64) Counts {
	var c Counts
	for _, b := range f.Buckets {
		start := b.TUnixMs * 1e6
		if start < toNs && start+f.Header.BucketMs*1e6 > fromNs {
			c.add(b.Counts)
		}
	}
	return c
}

// Read reads and checks a whole record.
func Read(path string) (File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer fh.Close()
	return Parse(fh, path)
}

// Parse reads and checks a record from r; name is for messages. Every
// line is checked: the header's totals must be its buckets' sums, every
// bucket inside the span, on the grid and after the one before it.
func Parse(r io.Reader, name string) (File, error) {
	var f File
	sc := bufio.NewScanner(r)
	n := 0
	var sum Counts
	for sc.Scan() {
		n++
		line := sc.Bytes()
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, a...))
		}
		if n == 1 {
			if err := strict(line, &f.Header); err != nil {
				return f, bad("%v", err)
			}
			if err := f.Header.validate(); err != nil {
				return f, bad("%v", err)
			}
			continue
		}
		var b Bucket
		if err := strict(line, &b); err != nil {
			return f, bad("%v", err)
		}
		h := f.Header
		switch {
		case b.TUnixMs%h.BucketMs != 0:
			return f, bad("t_unix_ms %d is not a multiple of bucket_ms %d", b.TUnixMs, h.BucketMs)
		case b.TUnixMs+h.BucketMs <= h.FromUnixMs || b.TUnixMs >= h.ToUnixMs:
			return f, bad("bucket %d is outside the span %d..%d", b.TUnixMs, h.FromUnixMs, h.ToUnixMs)
		case len(f.Buckets) > 0 && b.TUnixMs <= f.Buckets[len(f.Buckets)-1].TUnixMs:
			return f, bad("bucket %d is not after the one above it", b.TUnixMs)
		}
		if err := b.Counts.validate(); err != nil {
			return f, bad("%v", err)
		}
		if b.Answers == 0 {
			return f, bad("a bucket with no answers is not written")
		}
		sum.add(b.Counts)
		f.Buckets = append(f.Buckets, b)
	}
	if err := sc.Err(); err != nil {
		return f, fmt.Errorf("%s: %v", name, err)
	}
	if n == 0 {
		return f, fmt.Errorf("%s: empty, want a %s header", name, FormatID)
	}
	if sum != f.Header.Counts {
		return f, fmt.Errorf("%s: the header counts %+v, its buckets add up to %+v (truncated?)", name, f.Header.Counts, sum)
	}
	return f, nil
}

func strict(line []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(line)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func (h Header) validate() error {
	switch {
	case h.Format != FormatID:
		return fmt.Errorf("format is %q, want %q", h.Format, FormatID)
	case h.BucketMs <= 0:
		return fmt.Errorf("bucket_ms %d must be positive", h.BucketMs)
	case h.FromUnixMs <= 0 || h.ToUnixMs <= h.FromUnixMs:
		return fmt.Errorf("the span %d..%d is not one", h.FromUnixMs, h.ToUnixMs)
	}
	return h.Counts.validate()
}

func (c Counts) validate() error {
	if c.Answers < 0 || c.Late5ms < 0 || c.Late50ms < 0 || c.MaxLateUs < 0 {
		return errors.New("a count is negative")
	}
	if c.Late50ms > c.Late5ms || c.Late5ms > c.Answers {
		return fmt.Errorf("late_50ms %d, late_5ms %d and answers %d must not grow in that order", c.Late50ms, c.Late5ms, c.Answers)
	}
	if (c.Late50ms > 0) != (c.MaxLateUs >= Late50.Microseconds()) || (c.Late5ms > 0) != (c.MaxLateUs >= Late5.Microseconds()) {
		return fmt.Errorf("max_late_us %d does not agree with late_5ms %d and late_50ms %d", c.MaxLateUs, c.Late5ms, c.Late50ms)
	}
	return nil
}

// Recorder is the upstream's memory: a ring of buckets covering the last
// Keep. It is safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	ring []slot
}

type slot struct {
	t int64 // the bucket's start, unix ms; 0 when never used
	Counts
}

// NewRecorder remembers the last Keep.
func NewRecorder() *Recorder {
	return &Recorder{ring: make([]slot, Keep.Milliseconds()/BucketMs)}
}

// Add counts an answer written at end that took late longer than asked.
func (r *Recorder) Add(end time.Time, late time.Duration) {
	late = max(late, 0)
	t := end.UnixMilli() / BucketMs * BucketMs
	c := Counts{Answers: 1, MaxLateUs: late.Microseconds()}
	if late >= Late5 {
		c.Late5ms = 1
	}
	if late >= Late50 {
		c.Late50ms = 1
	}
	r.mu.Lock()
	s := &r.ring[(t/BucketMs)%int64(len(r.ring))]
	if s.t != t {
		*s = slot{t: t}
	}
	s.add(c)
	r.mu.Unlock()
}

// Write writes the record of the buckets that overlap [from, to) to w;
// a span longer than Keep, or one that is not a span, is refused.
func (r *Recorder) Write(w io.Writer, from, to time.Time) error {
	h := Header{Format: FormatID, BucketMs: BucketMs, FromUnixMs: from.UnixMilli(), ToUnixMs: to.UnixMilli()}
	if h.FromUnixMs <= 0 || h.ToUnixMs <= h.FromUnixMs {
		return fmt.Errorf("from %d to %d is not a span", h.FromUnixMs, h.ToUnixMs)
	}
	if to.Sub(from) > Keep {
		return fmt.Errorf("a span of %s is longer than the %s the upstream keeps", to.Sub(from), Keep)
	}
	f := File{Header: h}
	r.mu.Lock()
	for t := h.FromUnixMs / BucketMs * BucketMs; t < h.ToUnixMs; t += BucketMs {
		if s := r.ring[(t/BucketMs)%int64(len(r.ring))]; s.t == t && s.Answers > 0 {
			f.Buckets = append(f.Buckets, Bucket{TUnixMs: t, Counts: s.Counts})
			f.Header.add(s.Counts)
		}
	}
	r.mu.Unlock()
	return f.Write(w)
}

// Write writes f in the format Parse reads.
func (f File) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(f.Header); err != nil {
		return err
	}
	for _, b := range f.Buckets {
		if err := enc.Encode(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
