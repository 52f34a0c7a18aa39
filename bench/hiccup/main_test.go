package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stacklab/formats/hiccuplog"
)

func readFixture(t *testing.T, name string) hiccuplog.Log {
	t.Helper()
	l, err := hiccuplog.Read(filepath.Join("../../formats/hiccuplog/testdata", name))
	if err != nil && !errors.Is(err, hiccuplog.ErrTruncated) {
		t.Fatal(err)
	}
	return l
}

func TestReportOfALogWithGaps(t *testing.T) {
	got := Report(readFixture(t, "good.hiccup.jsonl"))
	want := []string{
		"hiccups on CPUs 1 (loadgen): YES, 3 over 5ms, longest 212ms at +4.31 s",
		"  gaps over 5ms: 212ms at +4.31 s, 51ms at +9.02 s, 6.1ms at +0.50 s; 269ms stalled in all (2.2% of 12.0 s)",
		"  11,623 loops of 1ms sleeps in 12.0 s, longest oversleep 212ms; oversleeps by size: ≤1ms 11,580, ≤2ms 30, ≤5ms 10, ≤10ms 1, ≤20ms 0, ≤50ms 0, ≤100ms 1, ≤200ms 0, ≤500ms 1",
		"  the meter's own CPU time: 48ms (0.40% of one CPU)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReportOfAQuietLog(t *testing.T) {
	got := Report(readFixture(t, "none.hiccup.jsonl"))
	if got[0] != "hiccups on CPUs 0 (app): none over 5ms in 12.0 s (max 1.8ms, 11,623 loops)" {
		t.Errorf("verdict %q", got[0])
	}
	if len(got) != 3 || !strings.HasSuffix(got[1], "oversleeps by size: ≤1ms 11,600, ≤2ms 23") {
		t.Errorf("numbers %q", got[1:])
	}
}

// A log cut before its end line still gives its gaps, and says it was cut.
func TestReportOfATruncatedLog(t *testing.T) {
	got := Report(readFixture(t, "no-end.hiccup.jsonl"))
	want := "hiccups on CPUs 1 (loadgen): YES, 2 over 5ms, longest 212ms at +4.31 s (log truncated: no end line; later gaps are not on record)"
	if got[0] != want {
		t.Errorf("verdict %q\nwant    %q", got[0], want)
	}
	if len(got) != 2 {
		t.Errorf("a log without an end line has no loop counts to print: %q", got)
	}
}

func TestDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		850 * time.Microsecond: "850µs", 5 * time.Millisecond: "5ms", 1800 * time.Microsecond: "1.8ms",
		212_400 * time.Microsecond: "212ms", 1250 * time.Millisecond: "1.25 s",
	} {
		if got := dur(d); got != want {
			t.Errorf("dur(%v) = %q, want %q", d, got, want)
		}
	}
	if commas(11623) != "11,623" || commas(999) != "999" || commas(1234567) != "1,234,567" {
		t.Error("commas")
	}
}

func TestOptions(t *testing.T) {
	good := options{interval: time.Millisecond, threshold: 5 * time.Millisecond}
	if err := good.check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*options)
		want string
	}{
		{func(o *options) { o.interval = 10 * time.Microsecond }, "--interval 10µs: must be from 100µs to 1s"},
		{func(o *options) { o.threshold = 0 }, "--threshold 0s"},
		{func(o *options) { o.dur = -time.Second }, "--for -1s"},
		{func(o *options) { o.cpus = "0-" }, `--cpus "0-"`},
		{func(o *options) { o.cpus = "one" }, `--cpus "one"`},
	} {
		o := good
		c.edit(&o)
		if err := o.check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", o, err, c.want)
		}
	}
}

func TestCPULists(t *testing.T) {
	if s, err := affinity(); err != nil || s == "" {
		t.Errorf("affinity: %q %v", s, err)
	}
}

// The live loop, briefly: it writes a header and an end line that read
// back, with the loops a 1 ms sleep gives in 300 ms, and it stops promptly.
func TestMeterWritesALogThatReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.hiccup.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// a threshold of 1µs makes every loop a gap line, so the writer's
	// checks run on real lines, not only on the fixtures'
	o := options{label: "app", cpus: "0", interval: time.Millisecond, threshold: time.Microsecond}
	before := time.Now()
	got, err := meter(ctx, o, hiccuplog.NewWriter(f))
	if err != nil {
		t.Fatal(err)
	}
	if late := time.Since(before) - 300*time.Millisecond; late > 100*time.Millisecond {
		t.Errorf("stopped %v after its context ended", late)
	}
	back, err := hiccuplog.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Header.Label != "app" || back.Header.IntervalUs != 1000 || back.End == nil {
		t.Fatalf("read back header %+v, end %v", back.Header, back.End)
	}
	if back.End.Loops <= 100 || back.End.Loops != got.End.Loops || back.End.CPUNs <= 0 {
		t.Errorf("loops %d (returned %d), cpu_ns %d; want over 100 in 300 ms and the meter's CPU time", back.End.Loops, got.End.Loops, back.End.CPUNs)
	}
	if int64(len(back.Gaps)) > back.End.Loops || len(back.Gaps) == 0 {
		t.Errorf("%d gap lines of %d loops at a 1µs threshold", len(back.Gaps), back.End.Loops)
	}
	// The wall-clock stamps are read apart from the monotonic timer that
	// ends the run, so the span may fall a few µs short of 300 ms.
	if d := back.End.EndUnixNs - back.Header.StartUnixNs; d < 290e6 || d > 1e9 {
		t.Errorf("log spans %d ns, want about 300 ms", d)
	}
}

// The README's real output is what Report prints for the logs it came from.
func TestREADMEShowsTheRecordedLogs(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"host-app", "host-loadgen", "host-term"} {
		l, err := hiccuplog.Read(filepath.Join("testdata", name+".hiccup.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if out := strings.Join(Report(l), "\n"); !strings.Contains(string(readme), out) {
			t.Errorf("README.md lacks the report of %s:\n%s", name, out)
		}
	}
}
