package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"stacklab/formats/hiccuplog"
)

// Report is what the meter prints: the verdict line, then its numbers.
func Report(l hiccuplog.Log) []string {
	h := l.Header
	where := "hiccups on CPUs " + cmp.Or(h.CPUs, "?")
	if h.Label != "" {
		where += " (" + h.Label + ")"
	}
	thr := dur(h.Threshold())
	var stalled time.Duration
	for _, g := range l.Gaps {
		stalled += g.Duration()
	}
	longest, found := l.Longest()

	var verdict string
	switch {
	case l.End != nil && l.End.Loops == 0:
		return []string{where + ": no measurement: the meter stopped before its first loop"}
	case found:
		verdict = fmt.Sprintf("%s: YES, %d over %s, longest %s at %s", where, len(l.Gaps), thr, dur(longest.Duration()), at(h, longest.AtUnixNs))
	case l.End != nil:
		verdict = fmt.Sprintf("%s: none over %s in %.1f s (max %s, %s loops)", where, thr, seconds(h, l.End.EndUnixNs), dur(l.Max()), commas(l.End.Loops))
	default:
		verdict = fmt.Sprintf("%s: none over %s before the log ends", where, thr)
	}
	if l.Truncated != "" {
		verdict += fmt.Sprintf(" (log truncated: %s; later gaps are not on record)", l.Truncated)
	}
	out := []string{verdict}

	if found {
		gaps := slices.Clone(l.Gaps)
		slices.SortStableFunc(gaps, func(a, b hiccuplog.Gap) int { return cmp.Compare(b.GapUs, a.GapUs) })
		var s []string
		for _, g := range gaps[:min(5, len(gaps))] {
			s = append(s, dur(g.Duration())+" at "+at(h, g.AtUnixNs))
		}
		more := ""
		if len(gaps) > 5 {
			more = fmt.Sprintf(", and %d more", len(gaps)-5)
		}
		line := fmt.Sprintf("  gaps over %s: %s%s; %s stalled in all", thr, strings.Join(s, ", "), more, dur(stalled))
		if l.End != nil {
			line += fmt.Sprintf(" (%s of %.1f s)", pct(stalled.Seconds()/seconds(h, l.End.EndUnixNs)), seconds(h, l.End.EndUnixNs))
		}
		out = append(out, line)
	}
	if e := l.End; e != nil {
		out = append(out, fmt.Sprintf("  %s loops of %s sleeps in %.1f s, longest oversleep %s; oversleeps by size: %s",
			commas(e.Loops), dur(h.Interval()), seconds(h, e.EndUnixNs), dur(l.Max()), hist(e.Hist)))
		cpu := time.Duration(e.CPUNs)
		out = append(out, fmt.Sprintf("  the meter's own CPU time: %s (%.2f%% of one CPU)", dur(cpu), 100*cpu.Seconds()/seconds(h, e.EndUnixNs)))
	}
	return out
}

// hist lists the histogram's buckets up to the last one that counted a loop.
func hist(h hiccuplog.Histogram) string {
	last := 0
	for i, c := range h {
		if c > 0 {
			last = i
		}
	}
	var s []string
	for i, c := range h[:last+1] {
		name := ">500ms"
		if i < len(hiccuplog.HistBoundsMs) {
			name = fmt.Sprintf("≤%dms", hiccuplog.HistBoundsMs[i])
		}
		s = append(s, name+" "+commas(c))
	}
	return strings.Join(s, ", ")
}

// pct prints a share as a percentage, never a small one as 0.0%.
func pct(x float64) string {
	if x > 0 && x < 0.001 {
		return "<0.1%"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// at is a time as seconds from the meter's start: "+4.31 s".
func at(h hiccuplog.Header, unixNs int64) string {
	return fmt.Sprintf("+%.2f s", seconds(h, unixNs))
}

func seconds(h hiccuplog.Header, unixNs int64) float64 {
	return float64(unixNs-h.StartUnixNs) / 1e9
}

// dur prints a stall the way one reads it: "850µs", "1.8ms", "212ms", "1.25 s".
func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d%time.Millisecond == 0 && d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.0fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// commas writes n with thousands separators: 11,623.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
