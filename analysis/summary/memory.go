package summary

import (
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
)

// MemorySplit is a row's RSS (anonymous memory) apart from its page cache,
// idle and after the full set of its cases, median (min–max) over the runs
// whose resources.json has the split (older folders have none: the field
// is then absent and the table as it was).
type MemorySplit struct {
	IdleAnonBytes  stat.Range `json:"idle_anon_bytes"`
	IdleFileBytes  stat.Range `json:"idle_file_bytes"`
	AfterAnonBytes stat.Range `json:"after_anon_bytes"`
	AfterFileBytes stat.Range `json:"after_file_bytes"`
}

// memorySplit is stack's split over the runs, nil when no run has one.
func memorySplit(f *results.Folder, stack string) *MemorySplit {
	var ia, ifl, aa, af []float64
	for _, r := range f.Runs {
		for _, sr := range r.Stacks {
			if sr.Stack != stack || sr.Resources == nil || sr.Resources.Memory == nil {
				continue
			}
			m := sr.Resources.Memory
			ia, ifl = append(ia, float64(m.IdleAnonBytes)), append(ifl, float64(m.IdleFileBytes))
			aa, af = append(aa, float64(m.AfterAnonBytes)), append(af, float64(m.AfterFileBytes))
		}
	}
	if len(ia) == 0 {
		return nil
	}
	return &MemorySplit{stat.Of(ia), stat.Of(ifl), stat.Of(aa), stat.Of(af)}
}
