package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"stacklab/analysis/results"
	"stacklab/analysis/units"
	"stacklab/formats/oha"
	"stacklab/formats/timeline"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Annotation ties one window's latency outliers to what its cgroup timeline
// shows at the same time, in one sentence.
type Annotation struct {
	Run      int    `json:"run"`
	Stack    string `json:"stack"`
	Case     string `json:"case"`
	Sentence string `json:"sentence"`
}

// Thresholds of the annotations. A tail is an outlier when p99.9 is at
// least tailFactor × p50 and at least tailFloorS (a stall a reader would
// feel); a signal counts when it crosses the level below.
const (
	tailFactor     = 10.0
	tailFloorS     = 0.010
	throttledShare = 0.01 // cpu throttled in ≥ 1% of periods
	dirtyNear      = 0.8  // dirty+writeback ≥ 80% of the dirty limit
	pressureLevel  = 10.0 // a PSI avg10 ≥ 10%
)

func annotate(f *results.Folder) ([]Annotation, error) {
	vm := f.Manifest.Host.Fingerprint.VM
	var tails []*results.Window
	for ri := range f.Runs {
		for si := range f.Runs[ri].Stacks {
			for wi := range f.Runs[ri].Stacks[si].Windows {
				w := &f.Runs[ri].Stacks[si].Windows[wi]
				if w.Result != nil && w.TimelinePath != "" && outlier(w.Result) {
					tails = append(tails, w)
				}
			}
		}
	}
	out := []Annotation{}
	for _, w := range tails {
		ts, err := w.Samples()
		if err != nil {
			return nil, err
		}
		if len(ts) < 2 {
			continue
		}
		if s := sentence(w, ts, vm.DirtyRatio, vm.DirtyBytes); s != "" {
			out = append(out, Annotation{w.Run, w.Stack, w.Case, s})
		}
	}
	return out, nil
}

// outlier tells whether a window's slowest 0.1% stand out from its median.
func outlier(res *oha.Result) bool {
	p50, _ := res.Percentile("p50")
	p999, ok := res.Percentile("p99.9")
	return ok && p999 >= tailFloorS && p999 >= tailFactor*p50
}

// sentence returns the window's annotation, "" when its tail is not an
// outlier or nothing in the timeline coincides with it.
func sentence(w *results.Window, ts []timeline.Sample, dirtyRatio, dirtyBytes int64) string {
	res := w.Result
	p50, _ := res.Percentile("p50")
	p999, _ := res.Percentile("p99.9")
	signals := Signals(ts, dirtyRatio, dirtyBytes)
	if len(signals) == 0 {
		return ""
	}
	return fmt.Sprintf("run %d, %s, %s: slowest 0.1%% took %s (p50 %s) while %s.",
		w.Run, w.Stack, w.Case, units.SecondsRange(p999, res.Summary.Slowest), units.Seconds(p50), strings.Join(signals, "; "))
}

// Signals lists, in words, what the timeline shows past the thresholds:
// CPU throttling, dirty+writeback near the dirty limit, memory or I/O
// pressure.
func Signals(ts []timeline.Sample, dirtyRatio, dirtyBytes int64) []string {
	var out []string
	first, last := ts[0], ts[len(ts)-1]
	if d := delta(first.CPUPeriods, last.CPUPeriods); d > 0 {
		th := delta(first.CPUThrottledPeriods, last.CPUThrottledPeriods)
		if share := float64(th) / float64(d); share >= throttledShare {
			out = append(out, fmt.Sprintf("cpu throttled in %.0f%% of periods (%s)", 100*share,
				units.Seconds(float64(delta(first.CPUThrottledNs, last.CPUThrottledNs))/1e9)))
		}
	}
	if s := dirtySignal(ts, dirtyRatio, dirtyBytes); s != "" {
		out = append(out, s)
	}
	for _, p := range []struct {
		name string
		get  func(timeline.Sample) *float64
	}{
		{"memory pressure some", func(s timeline.Sample) *float64 { return s.PSIMemSomeAvg10 }},
		{"memory pressure full", func(s timeline.Sample) *float64 { return s.PSIMemFullAvg10 }},
		{"io pressure some", func(s timeline.Sample) *float64 { return s.PSIIOSomeAvg10 }},
		{"io pressure full", func(s timeline.Sample) *float64 { return s.PSIIOFullAvg10 }},
	} {
		peak, scope := math.Inf(-1), ""
		for _, s := range ts {
			if v := p.get(s); v != nil && *v > peak {
				peak, scope = *v, s.PSIScope
			}
		}
		if peak >= pressureLevel {
			where := ""
			if scope == timeline.PSIHost {
				where = " (host-wide)"
			}
			out = append(out, fmt.Sprintf("%s %.0f%%%s", p.name, peak, where))
		}
	}
	return out
}

// dirtySignal reports dirty+writeback held near the limit that throttles
// the cgroup's writers: dirty_bytes when set, else dirty_ratio of the
// cgroup's memory limit, and never above the host's own threshold.
func dirtySignal(ts []timeline.Sample, dirtyRatio, dirtyBytes int64) string {
	var limit float64
	for _, s := range ts {
		l := math.Inf(1)
		if dirtyBytes > 0 {
			l = float64(dirtyBytes)
		} else if s.MemLimitBytes != nil && dirtyRatio > 0 {
			l = float64(*s.MemLimitBytes) * float64(dirtyRatio) / 100
		}
		if s.HostDirtyThresholdBytes != nil {
			l = math.Min(l, float64(*s.HostDirtyThresholdBytes))
		}
		if !math.IsInf(l, 1) {
			limit = l
		}
	}
	if limit <= 0 {
		return ""
	}
	var peak float64
	episodes, inEpisode := []int64{}, false
	for _, s := range ts {
		if s.DirtyBytes == nil || s.WritebackBytes == nil {
			continue
		}
		v := float64(*s.DirtyBytes + *s.WritebackBytes)
		peak = math.Max(peak, v)
		near := v >= dirtyNear*limit
		if near && !inEpisode {
			episodes = append(episodes, s.TMs)
		}
		inEpisode = near
	}
	if peak < dirtyNear*limit {
		return ""
	}
	s := fmt.Sprintf("dirty+writeback held at %s (limit %s)", units.Bytes(peak), units.Bytes(limit))
	if n := len(episodes); n > 1 {
		every := float64(episodes[n-1]-episodes[0]) / float64(n-1) / 1000
		s += fmt.Sprintf(", %d times, every ~%s", n, units.Seconds(every))
	}
	return s
}

func delta(a, b *uint64) uint64 {
	if a == nil || b == nil || *b < *a {
		return 0
	}
	return *b - *a
}
