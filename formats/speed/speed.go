// Package speed is the CPU-speed canary's work and its file format. These
// VMs slow down in ways the guest cannot see (no steal time, no hardware
// counters): the canary times a fixed amount of CPU work, pinned to the
// app's CPUs and to the load generator's, before and after every window,
// so that a window measured on a slowed vCPU can be told from the others.
//
// The file is <window>.canary.jsonl beside the window's oha file, one
// JSON object (a Reading) per line, appended by the `canary` probe.
package speed

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"
)

// Rounds is the default work: about 5 ms of one CPU on this project's
// host (AMD EPYC), long enough to outlast a timer tick, short enough that
// four readings a window cost the app nothing it would notice.
const Rounds = 5_000_000

// Tries is how often the work runs; the fastest counts (a slow try is one
// that was interrupted, the canary asks how fast the CPU can go).
const Tries = 5

// Reading is one timing of the work.
type Reading struct {
	// Label says when and where: "before app", "after loadgen".
	Label string `json:"label"`
	// CPUs is the CPU list the canary was pinned to.
	CPUs   string `json:"cpus"`
	Rounds int    `json:"rounds"`
	Tries  int    `json:"tries"`
	// BestNs is the fastest try, in nanoseconds.
	BestNs int64 `json:"best_ns"`
	// AppBusyNs and ElapsedNs, on a reading of the app's CPUs, are the
	// CPU time the app's cgroup used while the canary ran and how long it
	// ran (all tries): an app still busy after its window (a JIT compiling,
	// a collector) shares the CPU with the canary and slows it without the
	// vCPU being slow. Absent (nil): not measured.
	AppBusyNs *int64 `json:"app_busy_ns,omitempty"`
	ElapsedNs *int64 `json:"elapsed_ns,omitempty"`
}

// Contended is the share of the app's CPU time in a reading's own time
// above which the reading says more about the app than about the CPU.
const Contended = 0.10

// Contended: the app used more than Contended of the time the canary ran
// on its CPUs.
func (r Reading) Contended() bool {
	return r.AppBusyNs != nil && r.ElapsedNs != nil && *r.ElapsedNs > 0 &&
		float64(*r.AppBusyNs) > Contended*float64(*r.ElapsedNs)
}

// Work does n rounds of integer work the compiler cannot drop.
func Work(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var sink uint64

// Measure times Work(rounds) tries times and returns the fastest.
func Measure(rounds, tries int) time.Duration {
	best, _ := MeasureAll(rounds, tries)
	return best
}

// MeasureAll is Measure, with the time all tries took.
func MeasureAll(rounds, tries int) (time.Duration, time.Duration) {
	start := time.Now()
	best := time.Duration(1<<63 - 1)
	for range tries {
		t := time.Now()
		sink += Work(rounds)
		if d := time.Since(t); d < best {
			best = d
		}
	}
	return best, time.Since(start)
}

// Append adds r to the file at path as one line.
func Append(path string, r Reading) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Error is a bad canary file: the file, the line, what is wrong.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

// ReadFile reads a canary file. Every line must be a whole Reading with a
// label, positive rounds and a positive time; anything else is an *Error.
func ReadFile(path string) ([]Reading, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Reading
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Reading
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&r); err != nil {
			return nil, &Error{path, n, "not a canary reading: " + err.Error()}
		}
		if r.Label == "" || r.Rounds <= 0 || r.BestNs <= 0 {
			return nil, &Error{path, n, "a canary reading needs a label, rounds > 0 and best_ns > 0"}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, &Error{path, 1, "no readings"}
	}
	return out, nil
}

// Threshold is the share a reading may be off its run's median on the
// same CPUs before its window is flagged.
const Threshold = 0.10

// Set is the CPU set a reading's label names: its last word ("app",
// "loadgen").
func Set(label string) string {
	f := strings.Fields(label)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// Flag is one window's reading furthest off its run's median on the same
// CPUs: Off is its time ÷ that median − 1 (positive: the CPU was slower).
// Readings the app contended (Reading.Contended) are left out of the
// medians and of the flags, and counted in Contended.
type Flag struct {
	Window  string
	Reading string
	Off     float64
	// Flagged: |Off| > the threshold judged against.
	Flagged bool
	// Contended counts the window's readings left out.
	Contended int
}

// Judge reads one run: windows maps a window's name to its readings. It
// returns every window's furthest reading, in the order of names, and the
// medians per CPU set it judged them against.
func Judge(windows map[string][]Reading, names []string, threshold float64) ([]Flag, map[string]float64) {
	per := map[string][]float64{}
	for _, n := range names {
		for _, r := range windows[n] {
			if !r.Contended() {
				per[Set(r.Label)] = append(per[Set(r.Label)], float64(r.BestNs))
			}
		}
	}
	med := map[string]float64{}
	for set, vs := range per {
		sort.Float64s(vs)
		m := vs[len(vs)/2]
		if len(vs)%2 == 0 {
			m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
		}
		med[set] = m
	}
	var out []Flag
	for _, n := range names {
		if len(windows[n]) == 0 {
			continue
		}
		f := Flag{Window: n}
		for _, r := range windows[n] {
			if r.Contended() {
				f.Contended++
				continue
			}
			off := float64(r.BestNs)/med[Set(r.Label)] - 1
			if math.Abs(off) > math.Abs(f.Off) || f.Reading == "" {
				f.Reading, f.Off = r.Label, off
			}
		}
		f.Flagged = math.Abs(f.Off) > threshold
		out = append(out, f)
	}
	return out, med
}
