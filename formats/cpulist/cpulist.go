// Package cpulist is the one reader and writer of a CPU list, the form
// taskset, cpusets, the kernel's online file and the lab's host profiles
// share: CPU numbers and LOW-HIGH ranges joined by commas ("0", "0-3,6").
package cpulist

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrNotAList is what Parse says of anything else.
var ErrNotAList = errors.New("not a CPU list like 0-3,6")

// Parse reads a list into its CPU numbers, sorted, each once. White space
// around the whole (the kernel's files end in a newline) is allowed, inside
// it none.
func Parse(list string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(strings.TrimSpace(list), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || lo != strconv.Itoa(a) {
			return nil, ErrNotAList
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || hi != strconv.Itoa(b) {
				return nil, ErrNotAList
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// Count is how many CPUs list names, 0 when it is not a list.
func Count(list string) int {
	cpus, err := Parse(list)
	if err != nil {
		return 0
	}
	return len(cpus)
}

// Format writes CPU numbers (sorted, each once) as a list with ranges.
func Format(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
