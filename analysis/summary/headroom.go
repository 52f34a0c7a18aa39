package summary

import (
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
)

// Headroom is the load generator's: what oha drove, once a run, at the
// mock upstream's stub (every request answered at once) standing in the
// app's place (its CPUs, address and port: bench/plan, headroom.go),
// and how near each row's fastest case came to it. When the generator was
// not at its limit during the headroom window, the stub was, and the
// generator's own limit is higher than the figure: Limited says which.
type Headroom struct {
	ReqPerSec stat.Range `json:"req_per_sec"`
	PerRun    []*float64 `json:"req_per_sec_per_run"`
	// Connections are the headroom's: the bench's default.
	Connections int `json:"connections"`
	// GeneratorShare is the smallest share of its CPUs the generator used
	// in a run's headroom window; Limited is set when that share was over
	// results.SaturatedShare, i.e. in every run the generator was the limit.
	GeneratorShare float64 `json:"generator_share"`
	Limited        bool    `json:"generator_limited"`
	Threshold      float64 `json:"saturated_share"`
	// Errors are non-2xx answers and connection errors, all runs.
	Errors int64         `json:"errors"`
	Rows   []HeadroomRow `json:"rows"`
	// NetPath is the raw network path check beside it; nil when no run
	// made one.
	NetPath *NetPath `json:"net_path,omitempty"`
}

// NetPath is the raw network path from the generator's CPUs to the app's
// address (bench/netpath, an echo in the app's place), over the runs that
// checked it: a one-byte round trip's median and p99, and what one
// connection streamed each way.
type NetPath struct {
	Addr            string     `json:"addr"`
	RTTP50Us        stat.Range `json:"rtt_p50_us"`
	RTTP99Us        stat.Range `json:"rtt_p99_us"`
	StreamBytesPerS stat.Range `json:"stream_bytes_per_s"`
}

// netPath is the runs' network path checks; nil when none made one.
func netPath(f *results.Folder) *NetPath {
	var p50, p99, stream []float64
	np := &NetPath{}
	for _, r := range f.Runs {
		if c := r.NetPath; c != nil {
			np.Addr = c.Addr
			p50, p99, stream = append(p50, c.RTTP50Us), append(p99, c.RTTP99Us), append(stream, c.StreamBytesPerS)
		}
	}
	if len(p50) == 0 {
		return nil
	}
	np.RTTP50Us, np.RTTP99Us, np.StreamBytesPerS = stat.Of(p50), stat.Of(p99), stat.Of(stream)
	return np
}

// HeadroomRow is one row's fastest window of the case tables, against the
// headroom.
type HeadroomRow struct {
	Stack string `json:"stack"`
	// Case is the window: the case's name, or its window id in a sweep.
	Case      string  `json:"case"`
	ReqPerSec float64 `json:"req_per_sec"` // that window's median over runs
	Share     float64 `json:"share"`       // ÷ the headroom's median
	// GeneratorShare is the most of its CPUs the generator used in that
	// window, over runs (0 when not measured).
	GeneratorShare float64 `json:"generator_share"`
}

// headroom reads the runs' headroom windows against the case tables; nil
// when no run measured one (a capacity or size study, an older folder).
func headroom(f *results.Folder, sections []Section) *Headroom {
	h := &Headroom{Connections: f.Manifest.Parameters.Connections, Threshold: results.SaturatedShare}
	var rps, shares []float64
	for _, r := range f.Runs {
		c := r.Headroom
		if c == nil {
			h.PerRun = append(h.PerRun, nil)
			continue
		}
		v := c.Result.GoodPerSec()
		rps = append(rps, v)
		h.PerRun = append(h.PerRun, ptr(v))
		for _, b := range c.Result.Bad() {
			h.Errors += b.Count
		}
		for _, e := range c.Result.ConnErrors() {
			h.Errors += e.Count
		}
		if c.Loadgen != nil {
			shares = append(shares, c.Loadgen.Share())
		}
	}
	if len(rps) == 0 {
		return nil
	}
	h.ReqPerSec = stat.Of(rps)
	h.NetPath = netPath(f)
	// The generator's share is known only when every run recorded it.
	if len(shares) == len(rps) {
		h.GeneratorShare = stat.Of(shares).Min
		h.Limited = h.GeneratorShare > results.SaturatedShare
	}
	for _, stack := range f.Manifest.Parameters.Stacks {
		best := HeadroomRow{Stack: stack}
		for _, sec := range sections {
			for _, t := range sec.Cases {
				for _, row := range t.Rows {
					if row.Stack != stack || row.ReqPerSec.N == 0 || row.ReqPerSec.Median <= best.ReqPerSec {
						continue
					}
					best.Case, best.ReqPerSec, best.GeneratorShare = t.Case, row.ReqPerSec.Median, row.Generator.MaxShare
					if row.Window != "" {
						best.Case = row.Window
					}
				}
			}
		}
		if best.Case == "" {
			continue
		}
		if h.ReqPerSec.Median > 0 {
			best.Share = best.ReqPerSec / h.ReqPerSec.Median
		}
		h.Rows = append(h.Rows, best)
	}
	return h
}
