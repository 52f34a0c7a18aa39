// Package timeline reads and writes the lab's cgroup timeline: the
// `<case>.cgroup.jsonl` files that bench/cgsample writes, one JSON object per
// sample, as docs/results.md documents them.
//
// Every measured field is a pointer: nil (JSON null) means the host could not
// give that figure (no PSI on cgroup v1, a controller not mounted, no memory
// limit set), never "zero". Counters are cumulative where the kernel's are
// (CPUUsageNs, CPUPeriods, CPUThrottledPeriods, CPUThrottledNs, PgMajFault);
// the others are levels at the time of the sample.
package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"stacklab/formats/lineerr"
)

// PSI scopes: where the psi_* figures come from.
const (
	PSICgroup = "cgroup" // the cgroup's own *.pressure files (cgroup v2)
	PSIHost   = "host"   // the host's /proc/pressure (cgroup v1: no per-cgroup PSI)
	PSINone   = "none"   // no PSI on this host; every psi_* field is null
)

// Sample is one line of a timeline.
type Sample struct {
	// TMs counts milliseconds from the sampler's start.
	TMs int64 `json:"t_ms"`
	// UnixMs is the wall clock of the sample, the clock the latency
	// timeline and the hiccup meter keep, so analysis can line them up
	// (absent in timelines written before it was recorded).
	UnixMs int64 `json:"unix_ms,omitempty"`

	CPUUsageNs          *uint64 `json:"cpu_usage_ns"`
	CPUPeriods          *uint64 `json:"cpu_periods"`
	CPUThrottledPeriods *uint64 `json:"cpu_throttled_periods"`
	CPUThrottledNs      *uint64 `json:"cpu_throttled_ns"`

	MemUsageBytes *uint64 `json:"mem_usage_bytes"`
	// MemLimitBytes is nil when the cgroup has no memory limit.
	MemLimitBytes  *uint64 `json:"mem_limit_bytes"`
	PageCacheBytes *uint64 `json:"page_cache_bytes"`
	DirtyBytes     *uint64 `json:"dirty_bytes"`
	WritebackBytes *uint64 `json:"writeback_bytes"`
	PgMajFault     *uint64 `json:"pgmajfault"`

	PSIScope        string   `json:"psi_scope"`
	PSICPUSomeAvg10 *float64 `json:"psi_cpu_some_avg10"`
	PSIMemSomeAvg10 *float64 `json:"psi_mem_some_avg10"`
	PSIMemFullAvg10 *float64 `json:"psi_mem_full_avg10"`
	PSIIOSomeAvg10  *float64 `json:"psi_io_some_avg10"`
	PSIIOFullAvg10  *float64 `json:"psi_io_full_avg10"`

	HostNrDirtyBytes                  *uint64 `json:"host_nr_dirty_bytes"`
	HostNrWritebackBytes              *uint64 `json:"host_nr_writeback_bytes"`
	HostDirtyThresholdBytes           *uint64 `json:"host_dirty_threshold_bytes"`
	HostDirtyBackgroundThresholdBytes *uint64 `json:"host_dirty_background_threshold_bytes"`

	// RunDelayNs is how long the group's threads have waited on a run
	// queue, runnable but not running, summed over the threads present at
	// the sample (/proc/<tid>/schedstat, cumulative): a thread that exits
	// takes its share with it, so only a rise between two samples is a
	// measure. Absent in timelines written before it was recorded, and
	// where the kernel keeps no schedstat.
	RunDelayNs *uint64 `json:"run_delay_ns,omitempty"`
	// CPUSets is the host's own account (/proc/stat) of each CPU set the
	// sampler was asked to watch ("app", "loadgen"): what every process
	// and the kernel did on those CPUs, not only the group. Absent when
	// none was named.
	CPUSets map[string]CPUTime `json:"cpusets,omitempty"`
}

// CPUTime is one CPU set's cumulative time by kind, in milliseconds,
// summed over its CPUs: busy (user, nice, system), the kernel's interrupt
// work (irq, softirq), steal (time the hypervisor gave the virtual CPU to
// someone else) and total (every kind, idle included).
type CPUTime struct {
	BusyMs  uint64 `json:"busy_ms"`
	IrqMs   uint64 `json:"irq_ms"`
	StealMs uint64 `json:"steal_ms"`
	TotalMs uint64 `json:"total_ms"`
}

// U64 returns a pointer to v, for filling a Sample.
func U64(v uint64) *uint64 { return &v }

// F64 returns a pointer to v, for filling a Sample.
func F64(v float64) *float64 { return &v }

// Validate reports what makes s impossible as a timeline line.
func (s *Sample) Validate() error {
	if s.TMs < 0 {
		return fmt.Errorf("t_ms is negative (%d)", s.TMs)
	}
	switch s.PSIScope {
	case PSICgroup, PSIHost:
	case PSINone:
		for _, p := range []*float64{s.PSICPUSomeAvg10, s.PSIMemSomeAvg10, s.PSIMemFullAvg10, s.PSIIOSomeAvg10, s.PSIIOFullAvg10} {
			if p != nil {
				return errors.New(`psi_scope is "none" but a psi_* field has a value`)
			}
		}
	default:
		return fmt.Errorf("psi_scope is %q, want cgroup, host or none", s.PSIScope)
	}
	return nil
}

// Writer writes samples as JSON lines, one write per line and no buffering,
// so a sampler that is killed loses at most the line being written.
type Writer struct {
	w    io.Writer
	last int64
	n    int
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write validates s, checks it is in time order and writes it as one line.
func (w *Writer) Write(s Sample) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if w.n > 0 && s.TMs < w.last {
		return fmt.Errorf("t_ms %d is before the previous sample's %d", s.TMs, w.last)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		return err
	}
	w.last, w.n = s.TMs, w.n+1
	return nil
}

// LineError names the file and line of a timeline that cannot be read;
// its Truncated is lineerr.LastLine when the last line has no newline and
// does not parse (the sampler was stopped in the middle of a write: every
// line before it is good).
type LineError = lineerr.Error

// Reader reads a timeline line by line.
type Reader struct {
	name string
	br   *bufio.Reader
	line int
	last int64
	err  error
}

// NewReader reads from r; name is the file name used in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: bufio.NewReader(r)}
}

// Next returns the next sample, io.EOF after the last one, or a *LineError.
// Empty lines are corrupt: the writer never writes one.
func (r *Reader) Next() (Sample, error) {
	if r.err != nil {
		return Sample{}, r.err
	}
	raw, err := r.br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		r.err = err
		return Sample{}, err
	}
	if len(raw) == 0 && err == io.EOF {
		r.err = io.EOF
		return Sample{}, io.EOF
	}
	r.line++
	complete := bytes.HasSuffix(raw, []byte("\n"))
	var s Sample
	perr := decodeStrict(bytes.TrimSuffix(raw, []byte("\n")), &s)
	if perr == nil {
		perr = s.Validate()
	}
	if perr == nil && r.line > 1 && s.TMs < r.last {
		perr = fmt.Errorf("t_ms %d is before the previous line's %d", s.TMs, r.last)
	}
	if perr != nil {
		r.err = &LineError{File: r.name, Line: r.line, Truncated: lineerr.Cut(complete), Err: perr}
		return Sample{}, r.err
	}
	r.last = s.TMs
	return s, nil
}

func decodeStrict(b []byte, s *Sample) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("empty line")
	}
	// t_ms and psi_scope must be present: a line of {} is not a sample.
	// Sentinels tell a missing field from a given one without decoding the
	// line a second time (timelines are the bulk of what summarize reads).
	s.TMs, s.PSIScope = -1, ""
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(s); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value on the line")
	}
	if s.TMs == -1 {
		return errors.New("field t_ms is missing")
	}
	if s.PSIScope == "" {
		return errors.New("field psi_scope is missing")
	}
	return nil
}

// ReadAll reads every sample. On error it also returns the samples read
// before the bad line, so a caller may keep them after a truncated last line.
func (r *Reader) ReadAll() ([]Sample, error) {
	var out []Sample
	for {
		s, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

// ReadFile reads the timeline at path (see Reader.ReadAll). A sampler killed
// mid-write leaves a truncated last line; to keep what came before it:
//
//	samples, err := timeline.ReadFile(path)
//	var le *timeline.LineError
//	if errors.As(err, &le) && le.Truncated != "" {
//		err = nil // samples holds every complete line
//	}
func ReadFile(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return NewReader(f, path).ReadAll()
}

// ReadEnds reads only the first and the last complete line of the timeline
// at path: what a counter's change over the whole window needs (CPU time
// per request is read for every window, and decoding every line of every
// timeline would cost more than the rest of summarize). It reads the
// file's first and last few KiB, not the lines between. several is false
// when the file has fewer than two complete lines. A last line cut
// mid-write is skipped, as ReadFile's callers do; a first or last line
// that does not parse is a *LineError (its line number counted from the
// start only for the first line: the last is named by "last line").
func ReadEnds(path string) (first, last Sample, several bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return first, last, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return first, last, false, err
	}
	size := st.Size()
	head, err := readAt(f, 0, min(size, 8192))
	if err != nil {
		return first, last, false, err
	}
	nl := bytes.IndexByte(head, '\n')
	if nl < 0 {
		return first, last, false, nil // no complete line (or one longer than 8 KiB: not a timeline)
	}
	decode := func(b []byte, line int, s *Sample) error {
		err := decodeStrict(b, s)
		if err == nil {
			err = s.Validate()
		}
		if err != nil {
			return &LineError{File: path, Line: line, Err: err}
		}
		return nil
	}
	if err := decode(head[:nl], 1, &first); err != nil {
		return first, last, false, err
	}
	tailStart := max(0, size-8192)
	tail, err := readAt(f, tailStart, size-tailStart)
	if err != nil {
		return first, last, false, err
	}
	// The last complete line ends at the last newline; it starts after the
	// newline before it.
	end := bytes.LastIndexByte(tail, '\n')
	start := bytes.LastIndexByte(tail[:end], '\n') + 1
	if tailStart+int64(start) <= int64(nl) {
		return first, last, false, nil // the first line is the only complete one
	}
	if start == 0 && tailStart > 0 {
		return first, last, false, &LineError{File: path, Line: 0, Err: errors.New("last line longer than 8 KiB")}
	}
	if err := decode(tail[start:end], 0, &last); err != nil {
		return first, last, false, err
	}
	if last.TMs < first.TMs {
		return first, last, false, &LineError{File: path, Err: fmt.Errorf("last line's t_ms %d is before the first line's %d", last.TMs, first.TMs)}
	}
	return first, last, true, nil
}

func readAt(f *os.File, off, n int64) ([]byte, error) {
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// SetUse is one CPU set's use between two samples: the shares of its time
// busy, in interrupts and stolen, and its size in CPUs; ok is false when
// either sample lacks the set or no time passed.
type SetUse struct {
	Busy, Irq, Steal float64
	CPUs             float64
}

// BusyCPUs is the set's busy time as CPUs.
func (u SetUse) BusyCPUs() float64 { return u.Busy * u.CPUs }

// CPUSetUse reads set name's use from a to b.
func CPUSetUse(a, b Sample, name string) (SetUse, bool) {
	x, okA := a.CPUSets[name]
	y, okB := b.CPUSets[name]
	ms := b.TMs - a.TMs
	if !okA || !okB || y.TotalMs <= x.TotalMs || ms <= 0 {
		return SetUse{}, false
	}
	total := float64(y.TotalMs - x.TotalMs)
	return SetUse{
		Busy:  float64(y.BusyMs-x.BusyMs) / total,
		Irq:   float64(y.IrqMs-x.IrqMs) / total,
		Steal: float64(y.StealMs-x.StealMs) / total,
		CPUs:  total / float64(ms),
	}, true
}

// GroupCPUs is the group's CPU use from a to b, in CPUs.
func GroupCPUs(a, b Sample) (float64, bool) {
	ms := b.TMs - a.TMs
	if ms <= 0 || a.CPUUsageNs == nil || b.CPUUsageNs == nil || *b.CPUUsageNs < *a.CPUUsageNs {
		return 0, false
	}
	return float64(*b.CPUUsageNs-*a.CPUUsageNs) / (float64(ms) * 1e6), true
}

// HostTook says whether the host's account of the CPUs from a to b shows
// the host took the app's CPU: the hypervisor stole steal or more of the
// app's or the generator's set ("steal", that set and the share), or work
// other than the group used other CPUs or more of the app's set ("other",
// "app" and the CPUs). kind is "" when neither holds or it cannot be read.
func HostTook(a, b Sample, steal, other float64) (kind, set string, v float64) {
	for _, name := range []string{"app", "loadgen"} {
		if u, ok := CPUSetUse(a, b, name); ok && u.Steal >= steal {
			return "steal", name, u.Steal
		}
	}
	if u, ok := CPUSetUse(a, b, "app"); ok {
		if own, ok := GroupCPUs(a, b); ok && u.BusyCPUs()-own >= other {
			return "other", "app", u.BusyCPUs() - own
		}
	}
	return "", "", 0
}
