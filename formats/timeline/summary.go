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
	MemLimitBytes         *uint64 // the last limit seen
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
	// a counter's change from the first sample that has it to the last one
	span := func(get func(Sample) *uint64) (d *uint64, seconds float64) {
		i, j := 0, len(samples)-1
		for i < len(samples) && get(samples[i]) == nil {
			i++
		}
		for j > i && get(samples[j]) == nil {
			j--
		}
		if j <= i || *get(samples[j]) < *get(samples[i]) {
			return nil, 0
		}
		return U64(*get(samples[j]) - *get(samples[i])), float64(samples[j].TMs-samples[i].TMs) / 1000
	}
	delta := func(get func(Sample) *uint64) *uint64 { d, _ := span(get); return d }
	if d, secs := span(func(x Sample) *uint64 { return x.CPUUsageNs }); d != nil && secs > 0 {
		s.CPUCores = F64(float64(*d) / 1e9 / secs)
	}
	if d := delta(func(x Sample) *uint64 { return x.CPUThrottledNs }); d != nil {
		s.CPUThrottledS = F64(float64(*d) / 1e9)
	}
	s.CPUPeriods = delta(func(x Sample) *uint64 { return x.CPUPeriods })
	s.CPUThrottledPeriods = delta(func(x Sample) *uint64 { return x.CPUThrottledPeriods })
	s.PgMajFaults = delta(func(x Sample) *uint64 { return x.PgMajFault })
	for _, x := range samples {
		s.MemPeakBytes = maxU(s.MemPeakBytes, x.MemUsageBytes)
		if x.MemLimitBytes != nil {
			s.MemLimitBytes = x.MemLimitBytes
		}
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
