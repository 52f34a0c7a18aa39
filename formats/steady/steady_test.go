package steady

import (
	"path/filepath"
	"testing"
)

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		rps  []float64
		want string
	}{
		{"one slice is never enough", []float64{1000}, "again"},
		{"flat from the start", []float64{1000, 1020}, "steady"},
		{"a JIT still climbing", []float64{4000, 8000, 11000}, "again"},
		{"the climb flattens", []float64{4000, 8000, 11000, 16000, 16500}, "steady"},
		{"falling is not steady either", []float64{10000, 8000}, "again"},
		{"out of slices", []float64{1, 2, 3, 4, 5, 6}, "unsteady"},
		{"no answers is not steady", []float64{0, 0}, "again"},
	} {
		if got := Decide(1, tc.rps, 2, 6).Word(); got != tc.want {
			t.Errorf("%s: %v gives %q, want %q", tc.name, tc.rps, got, tc.want)
		}
	}
	// The full profile's minimum keeps its warm-up at least that long.
	if got := Decide(1, []float64{1000, 1000}, 3, 30).Word(); got != "again" {
		t.Errorf("two slices with a minimum of three: %q, want again", got)
	}
}

func TestRoundTripAndBadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "up.warmup.json")
	w := Decide(1, []float64{900, 1000, 1010}, 2, 15)
	if err := Write(p, w); err != nil {
		t.Fatal(err)
	}
	got, err := Read(p)
	if err != nil || !got.Steady || got.Seconds != 3 {
		t.Fatalf("read %+v, %v", got, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.warmup.json")
	if err := Write(bad, Warmup{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad); err == nil {
		t.Error("a record without slices was read")
	}
}
