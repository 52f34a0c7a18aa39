package latency

import (
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	ds[0], ds[99] = ds[99], ds[0] // order must not matter
	d := Of(ds)
	if d.N != 100 || d.P50 != 50*time.Millisecond || d.P99 != 99*time.Millisecond || d.Max != 100*time.Millisecond {
		t.Errorf("%+v", d)
	}
	if Of(nil).String() != "no samples" {
		t.Error("empty distribution")
	}
	if one := Of([]time.Duration{7}); one.P50 != 7 || one.P99 != 7 {
		t.Errorf("one sample: %+v", one)
	}
}

func TestShort(t *testing.T) {
	for d, want := range map[time.Duration]string{96 * time.Microsecond: "96µs", 2020 * time.Microsecond: "2.02ms", 1350 * time.Millisecond: "1.35s", 500 * time.Millisecond: "500ms", 12345 * time.Microsecond: "12.3ms"} {
		if got := Short(d); got != want {
			t.Errorf("Short(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestGaps(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	got := Gaps([]time.Duration{ms(100), ms(50), ms(1600), ms(1700)}, 0, ms(4000), ms(1000))
	if len(got) != 2 || got[0] != (Gap{ms(100), ms(1600)}) || got[1] != (Gap{ms(1700), ms(4000)}) {
		t.Errorf("%+v", got)
	}
	if g := Gaps(nil, 0, ms(500), ms(1000)); len(g) != 0 {
		t.Errorf("short empty run: %+v", g)
	}
}
