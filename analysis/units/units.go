// Package units formats the lab's numbers the same way everywhere, with
// fixed rules and no locale: durations, byte counts, request rates, ratios.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Seconds formats a duration given in seconds with three significant
// digits: "850 µs", "3.10 ms", "2.10 s".
func Seconds(s float64) string {
	switch {
	case s < 0.001:
		return sig3(s*1e6) + " µs"
	case s < 1:
		return sig3(s*1e3) + " ms"
	default:
		return sig3(s) + " s"
	}
}

// Bytes formats a byte count in binary units: "245 MiB", "3.51 GiB".
func Bytes(b float64) string {
	switch {
	case b >= 1<<30:
		return sig3(b/(1<<30)) + " GiB"
	case b >= 1<<20:
		return sig3(b/(1<<20)) + " MiB"
	case b >= 1<<10:
		return sig3(b/(1<<10)) + " KiB"
	default:
		return fmt.Sprintf("%.0f B", b)
	}
}

// sig3 prints v with three significant digits (at least the integer part).
func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// Sig formats v with three significant digits ("412", "57.3", "4.25").
func Sig(v float64) string { return sig3(v) }

// Rate formats a request rate: thousands grouped with a comma above 100
// ("48,213"), one or two decimals below ("57.3", "4.25").
func Rate(v float64) string {
	if math.Abs(v) < 100 {
		return sig3(v)
	}
	return Group(int64(math.Round(v)))
}

// Amount writes a step's load: a whole count of users as a whole number
// ("38", "3,200"), anything else as a rate.
func Amount(v float64, users bool) string {
	if users && v == math.Trunc(v) {
		return Group(int64(v))
	}
	return Rate(v)
}

// Group writes n with its thousands separated by commas.
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Ms formats milliseconds with three significant digits ("0.412", "12.3").
func Ms(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.3f", v)
	}
	if v >= 1000 {
		return Group(int64(math.Round(v)))
	}
	return sig3(v)
}

// Ratio formats a ratio to the baseline: "1.00×", "0.37×".
func Ratio(v float64) string { return fmt.Sprintf("%.2f×", v) }

// Percent formats a share (0.731) as "73%".
func Percent(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

// SecondsRange formats two durations given in seconds as a range, naming
// the unit once when both share it: "2.10–4.00 s", "850 µs–1.20 ms".
func SecondsRange(lo, hi float64) string {
	a, b := Seconds(lo), Seconds(hi)
	ua, ub := a[strings.LastIndexByte(a, ' '):], b[strings.LastIndexByte(b, ' '):]
	if ua == ub {
		return strings.TrimSuffix(a, ua) + "–" + b
	}
	return a + "–" + b
}
