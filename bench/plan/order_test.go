package main

import (
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
	t.Logf("seed 3: %v", sliceOrder(3, rows))
}

// Runs alternate the study's order; in run 1 the late-built rows go last.
func TestRunOrder(t *testing.T) {
	rows := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		run  int
		late string
		want string
	}{
		{1, "", "a b c d"},
		{2, "", "d c b a"},
		{3, "", "a b c d"},
		{1, "b c", "a d b c"},
		{2, "b c", "d c b a"},
	} {
		late := map[string]bool{}
		for _, r := range strings.Fields(c.late) {
			late[r] = true
		}
		if got := strings.Join(runOrder(c.run, rows, late), " "); got != c.want {
			t.Errorf("run %d, late %q: %q, want %q", c.run, c.late, got, c.want)
		}
	}
}

// The size study's time left: unknown in run 1, then what run 1 took from
// this row on, through the later runs in their own orders.
func TestSizeLeft(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"1", "a", "--runs", "3", "--took", "a=10", "a", "b"}, "time left known after run 1\n"},
		{[]string{"2", "b", "--runs", "3", "--took", "a=10,b=50", "a", "b"}, "about 2m00s left\n"}, // run 2 is b a: b 50 + a 10, then run 3 a b: 60
		{[]string{"2", "a", "--runs", "2", "--took", "a=10,b=50", "a", "b"}, "about 0m10s left\n"},
	} {
		if got := plan(t, append([]string{"size-left"}, c.args...)...); got != c.want {
			t.Errorf("size-left %v: %q, want %q", c.args, got, c.want)
		}
	}
}
