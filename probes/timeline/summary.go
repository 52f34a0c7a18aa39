package timeline

// Summary condenses a timeline into the figures a reader checks first. A
// field is nil when no sample carried it (or, for deltas, fewer than two did).
type Summary struct {
	Samples   int
	DurationS float64 // from the first sample to the last

	CPUCores            *float64 // mean CPUs used over the timeline
	CPUThrottledS       *float64 // throttled time added over the timeline
	CPUPeriods          *uint64  // CFS periods added
	CPUThrottledPeriods *uint64  // of which throttled

	MemPeakBytes          *uint64
	MemLimitBytes         *uint64 // the last sample's limit
	DirtyPeakBytes        *uint64
	WritebackPeakBytes    *uint64
	DirtyWritebackPeak    *uint64 // peak of dirty+writeback in one sample
	PgMajFaults           *uint64 // major faults added
	PSIScope              string  // of the last sample
	PSIIOSomeAvg10Max     *float64
	HostDirtyThresholdMax *uint64
}

// Summarize computes the Summary of samples (in time order, as read).
func Summarize(samples []Sample) Summary {
	var s Summary
	s.Samples = len(samples)
	if len(samples) == 0 {
		return s
	}
	first, last := samples[0], samples[len(samples)-1]
	s.DurationS = float64(last.TMs-first.TMs) / 1000
	s.PSIScope = last.PSIScope
	s.MemLimitBytes = last.MemLimitBytes
	delta := func(get func(Sample) *uint64) *uint64 {
		a, b := get(first), get(last)
		if len(samples) < 2 || a == nil || b == nil || *b < *a {
			return nil
		}
		return U64(*b - *a)
	}
	if d := delta(func(x Sample) *uint64 { return x.CPUUsageNs }); d != nil && s.DurationS > 0 {
		s.CPUCores = F64(float64(*d) / 1e9 / s.DurationS)
	}
	if d := delta(func(x Sample) *uint64 { return x.CPUThrottledNs }); d != nil {
		s.CPUThrottledS = F64(float64(*d) / 1e9)
	}
	s.CPUPeriods = delta(func(x Sample) *uint64 { return x.CPUPeriods })
	s.CPUThrottledPeriods = delta(func(x Sample) *uint64 { return x.CPUThrottledPeriods })
	s.PgMajFaults = delta(func(x Sample) *uint64 { return x.PgMajFault })
	for _, x := range samples {
		s.MemPeakBytes = maxU(s.MemPeakBytes, x.MemUsageBytes)
		s.DirtyPeakBytes = maxU(s.DirtyPeakBytes, x.DirtyBytes)
		s.WritebackPeakBytes = maxU(s.WritebackPeakBytes, x.WritebackBytes)
		if x.DirtyBytes != nil && x.WritebackBytes != nil {
			s.DirtyWritebackPeak = maxU(s.DirtyWritebackPeak, U64(*x.DirtyBytes+*x.WritebackBytes))
		}
		s.HostDirtyThresholdMax = maxU(s.HostDirtyThresholdMax, x.HostDirtyThresholdBytes)
		if x.PSIIOSomeAvg10 != nil && (s.PSIIOSomeAvg10Max == nil || *x.PSIIOSomeAvg10 > *s.PSIIOSomeAvg10Max) {
			s.PSIIOSomeAvg10Max = F64(*x.PSIIOSomeAvg10)
		}
	}
	return s
}

func maxU(cur, v *uint64) *uint64 {
	if v == nil {
		return cur
	}
	if cur == nil || *v > *cur {
		return U64(*v)
	}
	return cur
}
