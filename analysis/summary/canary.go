package summary

import (
	"math"
	"sort"

	"stacklab/analysis/results"
	"stacklab/analysis/stat"
	"stacklab/formats/speed"
)

// The CPU-speed canary (formats/speed): before and after every window a
// fixed amount of CPU work was timed on the app's CPUs and on the load
// generator's. A reading more than CanaryThreshold off the median of its
// run's readings on the same CPUs flags its window: the vCPU ran at
// another speed then, which no load average shows.

// CanaryThreshold is the share a reading may be off its run's median.
const CanaryThreshold = speed.Threshold

// OutlierThreshold is how far a window's req/s may be off its row's
// median over runs before the canary section calls it an outlier.
const OutlierThreshold = 0.10

// Canary is what the canary saw over the whole run.
type Canary struct {
	Threshold float64 `json:"threshold"`
	// Windows had readings; Readings were taken in all.
	Windows  int `json:"windows"`
	Readings int `json:"readings"`
	// Spread is, per CPU set ("app", "loadgen"), (max − min) ÷ median of
	// all its readings.
	Spread []CanarySpread `json:"spread"`
	// Flagged are the windows with a reading past the threshold.
	Flagged []CanaryFlag `json:"flagged"`
	// Contended counts the app-CPU readings left out because the app
	// itself used the CPU while they ran (speed.Reading.Contended).
	Contended int `json:"contended,omitempty"`
	// Outliers counts the windows whose req/s was more than
	// OutlierThreshold off their row's median over runs, among the flagged
	// windows (FlaggedKnown of them in rows measured in two runs or more)
	// and among the others (Other).
	OutliersFlagged, FlaggedKnown, OutliersOther, Other int `json:"-"`
}

// CanarySpread is how far one CPU set's readings spread over the run.
type CanarySpread struct {
	Set    string  `json:"cpus"`
	Spread float64 `json:"spread"`
}

// CanaryFlag is one flagged window.
type CanaryFlag struct {
	Run   int    `json:"run"`
	Stack string `json:"stack"`
	Case  string `json:"case"`
	// Reading is the label of the reading furthest off; Off is its time ÷
	// the run's median on the same CPUs − 1 (positive: the CPU was slower).
	Reading string  `json:"reading"`
	Off     float64 `json:"off"`
	// RateOff is the window's req/s ÷ its row's median over runs − 1 (nil
	// with one run).
	RateOff *float64 `json:"req_per_sec_off,omitempty"`
}

func canary(f *results.Folder, sections []Section) *Canary {
	c := &Canary{Threshold: CanaryThreshold}
	all := map[string][]float64{}
	rate := rowRates(f, sections)
	for _, r := range f.Runs {
		windows := map[string][]speed.Reading{}
		var names []string
		stackOf := map[string][2]string{}
		for _, sr := range r.Stacks {
			for _, w := range sr.Windows {
				if len(w.Canary) == 0 {
					continue
				}
				n := sr.Stack + "/" + w.Case
				windows[n], names, stackOf[n] = w.Canary, append(names, n), [2]string{sr.Stack, w.Case}
				c.Windows++
				c.Readings += len(w.Canary)
				for _, rd := range w.Canary {
					if rd.Contended() {
						c.Contended++
						continue
					}
					all[speed.Set(rd.Label)] = append(all[speed.Set(rd.Label)], float64(rd.BestNs))
				}
			}
		}
		flags, _ := speed.Judge(windows, names, CanaryThreshold)
		for _, fl := range flags {
			sc := stackOf[fl.Window]
			cf := CanaryFlag{Run: r.N, Stack: sc[0], Case: sc[1], Reading: fl.Reading, Off: fl.Off}
			ro, known := rate(r.N, sc[0], sc[1])
			if known {
				cf.RateOff = &ro
			}
			switch {
			case fl.Flagged:
				c.Flagged = append(c.Flagged, cf)
				if known {
					c.FlaggedKnown++
					if math.Abs(ro) > OutlierThreshold {
						c.OutliersFlagged++
					}
				}
			case known:
				c.Other++
				if math.Abs(ro) > OutlierThreshold {
					c.OutliersOther++
				}
			}
		}
	}
	if c.Windows == 0 {
		return nil
	}
	for _, set := range sortedKeys(all) {
		c.Spread = append(c.Spread, CanarySpread{set, stat.Of(all[set]).Spread()})
	}
	sort.SliceStable(c.Flagged, func(i, j int) bool { return math.Abs(c.Flagged[i].Off) > math.Abs(c.Flagged[j].Off) })
	return c
}

// rowRates gives, for a run, stack and case, the window's req/s off its
// row's median over runs; false when the row has fewer than two runs.
func rowRates(f *results.Folder, sections []Section) func(run int, stack, c string) (float64, bool) {
	idx := map[int]int{}
	for i, r := range f.Runs {
		idx[r.N] = i
	}
	rows, _ := caseRows(sections)
	return func(run int, stack, c string) (float64, bool) {
		row := rows[rowKey{stack, c}]
		if row == nil || row.ReqPerSec.N < 2 {
			return 0, false
		}
		i, ok := idx[run]
		if !ok || i >= len(row.PerRun) || row.PerRun[i] == nil || row.ReqPerSec.Median == 0 {
			return 0, false
		}
		return *row.PerRun[i]/row.ReqPerSec.Median - 1, true
	}
}
