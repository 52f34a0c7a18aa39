package summary

import (
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
	"stacklab/formats/oha"
)

// CPU time per request: the app cgroup's CPU time over a window ÷ its good
// answers. Unlike req/s it does not move when the load generator is the
// limit (the app just idles more), so it still ranks stacks when oha
// saturates; it does move when the vCPU itself slows down.

// CPUPerRequest is window w's CPU time per good answer in µs: cpu_usage_ns
// from the first to the last sample of its timeline, which brackets the
// measured window, ÷ good plus the companion load's 2xx answers (they ran
// on the same CPU). False when the window has no timeline, the timeline
// has no CPU figure or fewer than two lines, or nothing was answered; a
// timeline whose first or last line does not parse gives no value either
// (corrupt timelines are reported by the figures that use them whole).
func CPUPerRequest(w *results.Window, good int64) (float64, bool) {
	if w.TimelinePath == "" {
		return 0, false
	}
	first, last, several, err := w.Cgroup.First, w.Cgroup.Last, w.Cgroup.Several, w.Cgroup.EndsErr
	if err != nil || !several || first.CPUUsageNs == nil || last.CPUUsageNs == nil || *last.CPUUsageNs < *first.CPUUsageNs {
		return 0, false
	}
	if w.Writers != nil {
		good += w.Writers.GoodWith(oha.Is2xx)
	}
	if good <= 0 {
		return 0, false
	}
	return float64(*last.CPUUsageNs-*first.CPUUsageNs) / 1e3 / float64(good), true
}

// rangeOrNil is the Range of vals, nil when there are none.
func rangeOrNil(vals []float64) *stat.Range {
	if len(vals) == 0 {
		return nil
	}
	r := stat.Of(vals)
	return &r
}

// SpreadRow is how far one row's req/s and CPU time per request moved over
// the runs: (max−min) ÷ median of each.
type SpreadRow struct {
	Case      string   `json:"case"`
	Stack     string   `json:"stack"`
	Window    string   `json:"window,omitempty"`
	ReqPerSec float64  `json:"req_per_sec"`
	CPUPerReq *float64 `json:"cpu_us_per_request,omitempty"`
}

// spreads lists, for every stack row measured in two runs or more, the
// spread of req/s beside that of CPU time per request; nil with one run.
func spreads(sections []Section) []SpreadRow {
	var out []SpreadRow
	for _, sec := range sections {
		for _, ct := range sec.Cases {
			for _, r := range ct.Rows {
				if r.ReqPerSec.N < 2 {
					continue
				}
				sr := SpreadRow{Case: ct.Case, Stack: r.Stack, Window: r.Window, ReqPerSec: r.ReqPerSec.Spread()}
				if r.CPUPerReq != nil && r.CPUPerReq.N >= 2 {
					sr.CPUPerReq = ptr(r.CPUPerReq.Spread())
				}
				out = append(out, sr)
			}
		}
	}
	return out
}

// SamplerCPU is what the cgroup sampler itself cost, measured: its CPU
// time ÷ (its run time × the load generator's CPUs it shares), over every
// window that recorded it (<case>.sampler.json).
type SamplerCPU struct {
	Windows int        `json:"windows"`
	Share   stat.Range `json:"share"`
}

func samplerCPU(f *results.Folder) *SamplerCPU {
	var shares []float64
	for _, r := range f.Runs {
		for _, sr := range r.Stacks {
			for _, w := range sr.Windows {
				if w.Sampler != nil && w.Sampler.WindowS > 0 {
					shares = append(shares, w.Sampler.Share())
				}
			}
		}
	}
	if len(shares) == 0 {
		return nil
	}
	return &SamplerCPU{Windows: len(shares), Share: stat.Of(shares)}
}
