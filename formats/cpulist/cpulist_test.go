package cpulist

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string][]int{
		"0": {0}, "1-3": {1, 2, 3}, "0,2-3": {0, 2, 3}, "1,0": {0, 1}, "2,2,3": {2, 3}, "0-1\n": {0, 1},
	} {
		got, err := Parse(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "0,", "+1", "1-+2", "0x1", "0, 2"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, accepted", bad, got)
		}
	}
}

func TestCountAndFormat(t *testing.T) {
	for in, n := range map[string]int{"1": 1, "0-3": 4, "0,2-3": 3, "x": 0, "": 0} {
		if got := Count(in); got != n {
			t.Errorf("Count(%q) = %d, want %d", in, got, n)
		}
	}
	for in, want := range map[string]string{"0": "0", "1,0": "0-1", "0-3,5,7-8": "0-3,5,7-8", "2,2,3": "2-3"} {
		cpus, _ := Parse(in)
		if got := Format(cpus); got != want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", in, got, want)
		}
	}
}
