// Package steady decides when a warm-up is over: the bench warms an app up
// in short slices and asks, after each, whether the app's throughput has
// stopped moving. It also reads and writes the verdict a window keeps,
// `<window>.warmup.json`, so the summary can say how long each row took to
// get steady, or that it never did.
package steady

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// Tolerance is how far apart (a share of the earlier one) the last two
// warm-up slices' throughput may be for the app to count as steady.
const Tolerance = 0.05

// Warmup is a window's warm-up: each slice's good answers per second, in
// order, and the verdict.
type Warmup struct {
	SliceS    float64   `json:"slice_s"`
	SlicesRPS []float64 `json:"slices_rps"`
	MinSlices int       `json:"min_slices"`
	MaxSlices int       `json:"max_slices"`
	Tolerance float64   `json:"tolerance"`
	// Steady: the last two slices were within Tolerance; false with Done
	// means MaxSlices ran out first.
	Steady bool `json:"steady"`
	Done   bool `json:"done"`
	// Seconds is the warm-up's length so far (slices × slice length).
	Seconds float64 `json:"seconds"`
}

// Decide adds nothing: it judges the slices so far. The warm-up is done
// when at least minSlices ran and the last two are within Tolerance of
// each other, or when maxSlices ran.
func Decide(sliceS float64, rps []float64, minSlices, maxSlices int) Warmup {
	w := Warmup{SliceS: sliceS, SlicesRPS: rps, MinSlices: minSlices, MaxSlices: maxSlices, Tolerance: Tolerance,
		Seconds: sliceS * float64(len(rps))}
	n := len(rps)
	if n >= max(2, minSlices) {
		a, b := rps[n-2], rps[n-1]
		w.Steady = a > 0 && math.Abs(b-a) <= Tolerance*a
	}
	w.Done = w.Steady || n >= maxSlices
	return w
}

// Word is what the bench reads: "again", "steady" or "unsteady".
func (w Warmup) Word() string {
	switch {
	case w.Steady:
		return "steady"
	case w.Done:
		return "unsteady"
	}
	return "again"
}

// Write writes w to path as one JSON object.
func Write(path string, w Warmup) error {
	b, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Read reads a window's warm-up; an error names the file.
func Read(path string) (*Warmup, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w Warmup
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("%s: not a warm-up record: %v", path, err)
	}
	if w.SliceS <= 0 || len(w.SlicesRPS) == 0 {
		return nil, fmt.Errorf("%s: a warm-up record needs slice_s above 0 and at least one slice", path)
	}
	return &w, nil
}
