package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// The order of a slice is a function of its seed alone: fixed here, so a
// change of generator or of arithmetic fails the test (and would change
// the order of runs to come; the manifest records each slice's order).
func TestSliceOrderIsFixed(t *testing.T) {
	rows := []string{"a", "b", "c", "d", "e"}
	seen := map[string]bool{}
	for k := uint64(1); k <= 20; k++ {
		o := sliceOrder(k, rows)
		if o2 := sliceOrder(k, rows); !reflect.DeepEqual(o, o2) {
			t.Fatalf("seed %d: %v then %v", k, o, o2)
		}
		seen[strings.Join(o, "")] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 seeds gave %d orders: not shuffled", len(seen))
	}
	var b bytes.Buffer
	if code := run([]string{"order", "3", "a", "b", "c", "d", "e"}, &b, &b); code != 0 {
		t.Fatalf("exit %d: %s", code, b.String())
	}
	if got, want := b.String(), strings.Join(sliceOrder(3, rows), "\n")+"\n"; got != want {
		t.Errorf("plan order 3: %q, want %q", got, want)
	}
	t.Logf("seed 3: %v", sliceOrder(3, rows))
	var e bytes.Buffer
	if code := run([]string{"order", "x", "a"}, &e, &e); code != 2 || strings.Count(e.String(), "\n") != 1 {
		t.Errorf("bad seed: exit %d, %q", code, e.String())
	}
}
