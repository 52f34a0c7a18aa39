// Package linediff finds the first line where two texts differ: what the
// lab's byte-for-byte checks (golden files, reproduce, the results index,
// the docs' examples) show when an output is not the one committed.
package linediff

import "strings"

// First is the first line, from 1, where a and b differ, with each side's
// text of it ("" past its end); ok is false when a == b. A text one line
// longer than the other differs at that line even when it is empty.
func First(a, b string) (line int, x, y string, ok bool) {
	if a == b {
		return 0, "", "", false
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		x, y = "", ""
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y || i >= len(la) || i >= len(lb) {
			return i + 1, x, y, true
		}
	}
	return 0, "", "", false // unreachable: equal line lists are equal texts
}
