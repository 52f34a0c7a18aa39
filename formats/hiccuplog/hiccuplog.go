// Package hiccuplog reads and writes the hiccup meter's record (bench/hiccup):
// JSON lines, format id "stacklab-hiccup/1".
//
// Line 1 is the Header. Then one Gap line for every sleep that overslept by
// more than the header's threshold, in time order. The last line is the End,
// written when the meter stops: its loop count, longest oversleep, a
// histogram of every loop's oversleep and the meter's own CPU time. Times are
// unix nanoseconds, as in the latency timeline, so the two line up; the meter
// measures on the monotonic clock and converts from its start.
//
//	{"format":"stacklab-hiccup/1","label":"app","cpus":"0","start_unix_ns":1764625000000000000,"interval_us":1000,"threshold_us":5000}
//	{"at_unix_ns":1764625004310000000,"gap_us":212000}
//	{"end_unix_ns":1764625012000000000,"loops":11623,"max_gap_us":212000,"oversleep_hist":[11590,20,10,2,0,0,0,1,0,0],"cpu_ns":48000000}
//
// A meter killed before its End line leaves a log Read reports as truncated
// (ErrTruncated, and Log.Truncated says how): every gap before the cut is
// good, but gaps may be missing after it.
package hiccuplog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"stacklab/formats/lineerr"
	"time"
)

// FormatID is the header's "format".
const FormatID = "stacklab-hiccup/1"

// Header is the first line.
type Header struct {
	Format string `json:"format"`
	// Label names the role whose CPUs the meter shared: "app", "loadgen".
	Label string `json:"label"`
	// CPUs is the CPU list as given (the meter is pinned with taskset).
	CPUs        string `json:"cpus"`
	StartUnixNs int64  `json:"start_unix_ns"`
	// IntervalUs is the sleep asked for in each loop.
	IntervalUs int64 `json:"interval_us"`
	// ThresholdUs: only oversleeps longer than this get a Gap line.
	ThresholdUs int64 `json:"threshold_us"`
}

// Gap is one sleep that overslept by more than the threshold.
type Gap struct {
	// AtUnixNs is when the oversleep began: when the sleep should have ended.
	AtUnixNs int64 `json:"at_unix_ns"`
	// GapUs is how much longer than asked the sleep took.
	GapUs int64 `json:"gap_us"`
}

// Duration is the oversleep.
func (g Gap) Duration() time.Duration { return time.Duration(g.GapUs) * time.Microsecond }

// EndUnixNs is when the oversleep ended (the meter woke).
func (g Gap) EndUnixNs() int64 { return g.AtUnixNs + g.GapUs*1000 }

// HistBoundsMs are the upper bounds of the histogram's buckets: bucket i
// counts oversleeps ≤ HistBoundsMs[i] ms (and above the bound before it);
// the last bucket counts those over 500 ms.
var HistBoundsMs = [NumBuckets - 1]int64{1, 2, 5, 10, 20, 50, 100, 200, 500}

// NumBuckets is the length of a Histogram.
const NumBuckets = 10

// Histogram counts every loop's oversleep in the HistBoundsMs buckets.
type Histogram [NumBuckets]int64

// Bucket is the index of the bucket that counts an oversleep of d.
func Bucket(d time.Duration) int {
	for i, b := range HistBoundsMs {
		if d <= time.Duration(b)*time.Millisecond {
			return i
		}
	}
	return NumBuckets - 1
}

// Sum is the number of loops counted.
func (h Histogram) Sum() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// UnmarshalJSON takes exactly NumBuckets counts (encoding/json would pad a
// short array with zeros and drop the rest of a long one).
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var s []int64
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if len(s) != NumBuckets {
		return fmt.Errorf("oversleep_hist has %d counts, want %d", len(s), NumBuckets)
	}
	copy(h[:], s)
	return nil
}

// End is the last line, written when the meter stops.
type End struct {
	EndUnixNs int64 `json:"end_unix_ns"`
	Loops     int64 `json:"loops"`
	// MaxGapUs is the longest oversleep of any loop, over the threshold or not.
	MaxGapUs int64     `json:"max_gap_us"`
	Hist     Histogram `json:"oversleep_hist"`
	// CPUNs is the meter process's own CPU time (getrusage, user+system).
	CPUNs int64 `json:"cpu_ns"`
}

// How a log is truncated (Log.Truncated).
const (
	CutOff = lineerr.CutOff // killed in the middle of a write
	NoEnd  = lineerr.NoEnd  // every line whole, but the meter never wrote its End
)

// Log is one meter's record.
type Log struct {
	Header Header
	Gaps   []Gap
	// End is nil when the log is truncated.
	End *End
	// Truncated is "" for a complete log, else CutOff or NoEnd: Gaps then
	// holds every gap before the cut, and the meter may have seen more.
	Truncated string
}

// ErrTruncated matches (errors.Is) the error of a truncated log.
var ErrTruncated = lineerr.ErrTruncated

// LineError names the file and line of a log that cannot be read; its
// Truncated is CutOff or NoEnd when the log is truncated, "" when a line
// is corrupt.
type LineError = lineerr.Error

func (h Header) validate() error {
	switch {
	case h.Format != FormatID:
		return fmt.Errorf("format is %q, want %q", h.Format, FormatID)
	case h.StartUnixNs <= 0:
		return fmt.Errorf("start_unix_ns %d is not a time", h.StartUnixNs)
	case h.IntervalUs <= 0:
		return fmt.Errorf("interval_us %d must be positive", h.IntervalUs)
	case h.ThresholdUs <= 0:
		return fmt.Errorf("threshold_us %d must be positive", h.ThresholdUs)
	}
	return nil
}

// check validates g as the gap after prev (zero: the first) in a log of h.
func (g Gap) check(h Header, prev Gap) error {
	switch {
	case g.GapUs <= h.ThresholdUs:
		return fmt.Errorf("gap_us %d is not over the threshold of %d", g.GapUs, h.ThresholdUs)
	case g.AtUnixNs < h.StartUnixNs:
		return fmt.Errorf("at_unix_ns %d is before the start %d", g.AtUnixNs, h.StartUnixNs)
	case prev.AtUnixNs != 0 && g.AtUnixNs < prev.EndUnixNs():
		return fmt.Errorf("at_unix_ns %d is before the previous gap ended (%d)", g.AtUnixNs, prev.EndUnixNs())
	}
	return nil
}

// check validates e as the end of a log of h with gaps gap lines, the
// last of them last and the longest longest (zero: none).
func (e End) check(h Header, gaps int, last Gap, longest int64) error {
	if lo, hi := e.Hist.overThreshold(h.ThresholdUs); int64(gaps) < lo || int64(gaps) > hi {
		return fmt.Errorf("%d gap lines, but oversleep_hist counts %d to %d loops over the threshold", gaps, lo, hi)
	}
	switch {
	case e.EndUnixNs < h.StartUnixNs:
		return fmt.Errorf("end_unix_ns %d is before the start %d", e.EndUnixNs, h.StartUnixNs)
	case last.AtUnixNs != 0 && e.EndUnixNs < last.EndUnixNs():
		return fmt.Errorf("end_unix_ns %d is before the last gap ended (%d)", e.EndUnixNs, last.EndUnixNs())
	case e.Loops < 0 || e.CPUNs < 0 || e.MaxGapUs < 0:
		return errors.New("loops, max_gap_us and cpu_ns must not be negative")
	case e.Hist.Sum() != e.Loops:
		return fmt.Errorf("oversleep_hist counts %d loops, loops is %d", e.Hist.Sum(), e.Loops)
	case e.MaxGapUs < longest:
		return fmt.Errorf("max_gap_us %d is shorter than a gap of %d", e.MaxGapUs, longest)
	}
	for _, c := range e.Hist {
		if c < 0 {
			return errors.New("oversleep_hist has a negative count")
		}
	}
	return nil
}

// overThreshold bounds how many of the counted oversleeps were over
// thresholdUs: at least those of the buckets wholly above it, at most those
// of the buckets that reach above it.
func (h Histogram) overThreshold(thresholdUs int64) (lo, hi int64) {
	for i, c := range h {
		var low int64 // the bucket's lower bound, in µs
		if i > 0 {
			low = HistBoundsMs[i-1] * 1000
		}
		if low >= thresholdUs {
			lo += c
		}
		if i == NumBuckets-1 || HistBoundsMs[i]*1000 > thresholdUs {
			hi += c
		}
	}
	return lo, hi
}

// Writer writes a log, one write per line and no buffering, so a meter that
// is killed loses at most the line being written. Lines must come in order:
// Header, Gaps, End.
type Writer struct {
	w       io.Writer
	h       Header
	started bool
	ended   bool
	gaps    int
	last    Gap
	longest int64
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Header writes the first line; its Format is set to FormatID.
func (w *Writer) Header(h Header) error {
	if w.started {
		return errors.New("hiccuplog: header written twice")
	}
	h.Format = FormatID
	if err := h.validate(); err != nil {
		return err
	}
	if err := w.line(h); err != nil {
		return err
	}
	w.h, w.started = h, true
	return nil
}

// Gap writes one gap line.
func (w *Writer) Gap(g Gap) error {
	if !w.started || w.ended {
		return errors.New("hiccuplog: a gap outside header..end")
	}
	if err := g.check(w.h, w.last); err != nil {
		return err
	}
	if err := w.line(g); err != nil {
		return err
	}
	w.last, w.longest, w.gaps = g, max(w.longest, g.GapUs), w.gaps+1
	return nil
}

// End writes the last line.
func (w *Writer) End(e End) error {
	if !w.started || w.ended {
		return errors.New("hiccuplog: end without a header, or twice")
	}
	if err := e.check(w.h, w.gaps, w.last, w.longest); err != nil {
		return err
	}
	if err := w.line(e); err != nil {
		return err
	}
	w.ended = true
	return nil
}

func (w *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.w.Write(append(b, '\n'))
	return err
}

// Read reads the log at path. A truncated log (errors.Is(err,
// ErrTruncated)) comes back with its header and every gap before the cut,
// and Log.Truncated set; analysis may use those gaps, flagged:
//
//	l, err := hiccuplog.Read(path)
//	if errors.Is(err, hiccuplog.ErrTruncated) {
//		err = nil // l.Gaps holds every gap before the cut; l.Truncated says how
//	}
//
// Any other error is a *LineError naming the corrupt line, or the file's
// own error.
func Read(path string) (Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return Log{}, err
	}
	defer f.Close()
	return NewReader(f, path).Read()
}

// Reader reads a log from a stream.
type Reader struct {
	name string
	br   *bufio.Reader
}

// NewReader reads from r; name is the file name used in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: bufio.NewReader(r)}
}

// Read reads the whole log (see the function Read).
func (r *Reader) Read() (Log, error) {
	var l Log
	var longest int64
	for n := 1; ; n++ {
		raw, err := r.br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return l, err
		}
		if len(raw) == 0 { // EOF after a whole line
			if n == 1 {
				return l, &LineError{File: r.name, Line: 1, Err: errors.New("empty file: no header line")}
			}
			if l.End == nil {
				l.Truncated = NoEnd
				return l, &LineError{File: r.name, Line: n - 1, Truncated: NoEnd}
			}
			return l, nil
		}
		bad := func(e error) (Log, error) {
			if !bytes.HasSuffix(raw, []byte("\n")) && n > 1 && l.End == nil {
				l.Truncated = CutOff
				return l, &LineError{File: r.name, Line: n, Truncated: CutOff, Err: e}
			}
			return l, &LineError{File: r.name, Line: n, Err: e}
		}
		line := bytes.TrimSuffix(raw, []byte("\n"))
		switch {
		case l.End != nil:
			return bad(errors.New("a line after the end line"))
		case n == 1:
			if err := decodeExact(line, &l.Header, "format", "label", "cpus", "start_unix_ns", "interval_us", "threshold_us"); err != nil {
				return bad(fmt.Errorf("header: %w", err))
			}
			if err := l.Header.validate(); err != nil {
				return bad(fmt.Errorf("header: %w", err))
			}
		default:
			kind, err := kindOf(line)
			if err != nil {
				return bad(err)
			}
			if kind == "at_unix_ns" {
				var g Gap
				if err := decodeExact(line, &g, "at_unix_ns", "gap_us"); err != nil {
					return bad(err)
				}
				var prev Gap
				if len(l.Gaps) > 0 {
					prev = l.Gaps[len(l.Gaps)-1]
				}
				if err := g.check(l.Header, prev); err != nil {
					return bad(err)
				}
				l.Gaps, longest = append(l.Gaps, g), max(longest, g.GapUs)
				continue
			}
			var e End
			if err := decodeExact(line, &e, "end_unix_ns", "loops", "max_gap_us", "oversleep_hist", "cpu_ns"); err != nil {
				return bad(err)
			}
			var last Gap
			if len(l.Gaps) > 0 {
				last = l.Gaps[len(l.Gaps)-1]
			}
			if err := e.check(l.Header, len(l.Gaps), last, longest); err != nil {
				return bad(err)
			}
			l.End = &e
		}
	}
}

// kindOf tells a gap line from an end line by the key only one of them has.
func kindOf(line []byte) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return "", err
	}
	_, gap := m["at_unix_ns"]
	_, end := m["end_unix_ns"]
	switch {
	case gap && !end:
		return "at_unix_ns", nil
	case end && !gap:
		return "end_unix_ns", nil
	}
	return "", errors.New("neither a gap line (at_unix_ns) nor the end line (end_unix_ns)")
}

// decodeExact decodes line (one JSON object, nothing after it) into v,
// which must carry exactly the fields named: none missing, none unknown.
func decodeExact(line []byte, v any, fields ...string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return err
	}
	for k := range m {
		if !slices.Contains(fields, k) {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			return fmt.Errorf("field %s is missing", f)
		}
	}
	return json.Unmarshal(line, v)
}

// GapsBetween returns the gaps of at least minGap that overlap the time
// [fromUnixNs, toUnixNs): a stall that began before a window and ran into
// it counts for that window.
func (l Log) GapsBetween(fromUnixNs, toUnixNs int64, minGap time.Duration) []Gap {
	var out []Gap
	for _, g := range l.Gaps {
		if g.Duration() >= minGap && g.AtUnixNs < toUnixNs && g.EndUnixNs() > fromUnixNs {
			out = append(out, g)
		}
	}
	return out
}

// Max is the longest oversleep of the log: the end line's max_gap_us, or,
// in a log without one, the longest gap recorded (a lower bound).
func (l Log) Max() time.Duration {
	if l.End != nil {
		return time.Duration(l.End.MaxGapUs) * time.Microsecond
	}
	g, _ := l.Longest()
	return g.Duration()
}

// Longest is the longest recorded gap (the first, of equals); false when
// no sleep overslept by more than the threshold.
func (l Log) Longest() (Gap, bool) {
	var best Gap
	for _, g := range l.Gaps {
		if g.GapUs > best.GapUs {
			best = g
		}
	}
	return best, len(l.Gaps) > 0
}

// Threshold is the header's threshold_us as a duration.
func (h Header) Threshold() time.Duration { return time.Duration(h.ThresholdUs) * time.Microsecond }

// Interval is the header's interval_us as a duration.
func (h Header) Interval() time.Duration { return time.Duration(h.IntervalUs) * time.Microsecond }
