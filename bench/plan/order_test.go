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

// Runs alternate the study's order; in run 1 the late-built rows go last.
func TestRunOrder(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"1", "a", "b", "c", "d"}, "a b c d"},
		{[]string{"2", "a", "b", "c", "d"}, "d c b a"},
		{[]string{"3", "a", "b", "c", "d"}, "a b c d"},
		{[]string{"1", "--late", "b,c", "a", "b", "c", "d"}, "a d b c"},
		{[]string{"2", "--late", "b,c", "a", "b", "c", "d"}, "d c b a"},
	} {
		if got := strings.Join(strings.Fields(plan(t, append([]string{"run-order"}, c.args...)...)), " "); got != c.want {
			t.Errorf("run-order %v: %q, want %q", c.args, got, c.want)
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
