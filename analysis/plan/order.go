package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// sliceOrder is the paired profile's order of rows in slice seed: a
// Fisher–Yates shuffle driven by PCG seeded with the slice's number, so
// the same seed gives the same order on every host and Go release (PCG's
// output is fixed by its definition; the index comes from it by our own
// arithmetic, not by a library shuffle that may change).
func sliceOrder(seed uint64, rows []string) []string {
	out := append([]string(nil), rows...)
	r := rand.NewPCG(seed, 0x5ac1e)
	for i := len(out) - 1; i > 0; i-- {
		j := int(r.Uint64() % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// order prints sliceOrder's rows, one a line: plan order SEED ROW...
func order(seed string, rows []string, out io.Writer) error {
	k, err := strconv.ParseUint(seed, 10, 64)
	if err != nil {
		return &usageError{fmt.Sprintf("seed %q: want a whole number (the slice's)", seed)}
	}
	if len(rows) == 0 {
		return &usageError{"want the rows to order"}
	}
	for _, r := range sliceOrder(k, rows) {
		fmt.Fprintln(out, r)
	}
	return nil
}
