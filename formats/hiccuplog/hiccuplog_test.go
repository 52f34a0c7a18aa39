package hiccuplog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const start = 1764625000000000000

func TestReadGoodLog(t *testing.T) {
	l, err := Read("testdata/good.hiccup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if l.Header.Label != "loadgen" || l.Header.CPUs != "1" || l.Header.Threshold() != 5*time.Millisecond || l.Header.Interval() != time.Millisecond {
		t.Errorf("header read wrong: %+v", l.Header)
	}
	if len(l.Gaps) != 3 || l.Gaps[1] != (Gap{AtUnixNs: start + 4_310_000_000, GapUs: 212_000}) {
		t.Errorf("gaps read wrong: %+v", l.Gaps)
	}
	if l.End == nil || l.End.Loops != 11623 || l.End.CPUNs != 48_000_000 || l.End.Hist[8] != 1 || l.Truncated != "" {
		t.Errorf("end read wrong: %+v truncated %q", l.End, l.Truncated)
	}
	if l.Max() != 212*time.Millisecond {
		t.Errorf("Max %v, want 212ms", l.Max())
	}
	if g, ok := l.Longest(); !ok || g.AtUnixNs != start+4_310_000_000 {
		t.Errorf("Longest %+v %v", g, ok)
	}
}

// A log without gaps still knows its longest oversleep, from the end line.
func TestReadLogWithoutGaps(t *testing.T) {
	l, err := Read("testdata/none.hiccup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Gaps) != 0 || l.Max() != 1800*time.Microsecond {
		t.Errorf("%d gaps, max %v; want none and 1.8ms", len(l.Gaps), l.Max())
	}
	if _, ok := l.Longest(); ok {
		t.Error("Longest found a gap in a log without one")
	}
}

func TestGapsBetween(t *testing.T) {
	l, err := Read("testdata/good.hiccup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := int64(start)
	cases := []struct {
		name     string
		from, to int64
		min      time.Duration
		want     []int64 // gap_us of the gaps returned
	}{
		{"whole log", s, s + 12e9, 0, []int64{6100, 212000, 51000}},
		{"only the long ones", s, s + 12e9, 50 * time.Millisecond, []int64{212000, 51000}},
		{"a window after the first", s + 1e9, s + 12e9, 0, []int64{212000, 51000}},
		// the 212 ms stall began at +4.31 s and ran to +4.522 s
		{"a window the stall ran into", s + 4_400_000_000, s + 5e9, 0, []int64{212000}},
		{"a window ending as the stall begins", s + 4e9, s + 4_310_000_000, 0, nil},
		{"a window just after it", s + 4_522_000_000, s + 5e9, 0, nil},
	}
	for _, c := range cases {
		var got []int64
		for _, g := range l.GapsBetween(c.from, c.to, c.min) {
			got = append(got, g.GapUs)
		}
		if !equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A truncated log keeps its header and the gaps before the cut, says how
// it was cut, and is told apart from a corrupt one by errors.Is.
func TestTruncatedLogsKeepTheirGaps(t *testing.T) {
	cases := []struct {
		file, how  string
		line, gaps int
	}{
		{"truncated.hiccup.jsonl", CutOff, 3, 1},
		{"no-end.hiccup.jsonl", NoEnd, 3, 2},
	}
	for _, c := range cases {
		path := filepath.Join("testdata", c.file)
		l, err := Read(path)
		var le *LineError
		if !errors.Is(err, ErrTruncated) || !errors.As(err, &le) {
			t.Errorf("%s: error %v, want a truncated *LineError", c.file, err)
			continue
		}
		if le.Line != c.line || le.Truncated != c.how || l.Truncated != c.how {
			t.Errorf("%s: line %d, %q (log says %q); want line %d, %q", c.file, le.Line, le.Truncated, l.Truncated, c.line, c.how)
		}
		if !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), c.how) {
			t.Errorf("%s: message %q does not name the file and say %q", c.file, err, c.how)
		}
		if len(l.Gaps) != c.gaps || l.End != nil || l.Header.Label != "loadgen" {
			t.Errorf("%s: kept %d gaps (end %v, label %q), want %d and the header", c.file, len(l.Gaps), l.End, l.Header.Label, c.gaps)
		}
	}
	// the longest gap before the cut is the best known maximum
	if l, _ := Read("testdata/no-end.hiccup.jsonl"); l.Max() != 212*time.Millisecond {
		t.Errorf("Max of a log without an end: %v, want the longest gap, 212ms", l.Max())
	}
}

func TestCorruptLogsNameFileAndLine(t *testing.T) {
	cases := []struct {
		file string
		line int
		msg  string
	}{
		{"corrupt.hiccup.jsonl", 3, "corrupt line"},
		{"unknown-field.hiccup.jsonl", 3, `unknown field "gap_ms"`},
		{"out-of-order.hiccup.jsonl", 3, "before the previous gap ended"},
		{"below-threshold.hiccup.jsonl", 2, "not over the threshold"},
		{"short-hist.hiccup.jsonl", 5, "oversleep_hist has 9 counts"},
		{"after-end.hiccup.jsonl", 6, "a line after the end line"},
		{"wrong-format.hiccup.jsonl", 1, `format is "stacklab-cgroup/1"`},
		{"empty.hiccup.jsonl", 1, "no header line"},
	}
	for _, c := range cases {
		path := filepath.Join("testdata", c.file)
		_, err := Read(path)
		var le *LineError
		if !errors.As(err, &le) || errors.Is(err, ErrTruncated) {
			t.Errorf("%s: error %v, want a corrupt-line *LineError", c.file, err)
			continue
		}
		if le.File != path || le.Line != c.line {
			t.Errorf("%s: %s:%d, want line %d", c.file, le.File, le.Line, c.line)
		}
		if !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: message %q does not start with the file and mention %q", c.file, err, c.msg)
		}
	}
}

// Edits of a good log that the reader must refuse: each names what is wrong.
func TestReaderRefusesInconsistentLines(t *testing.T) {
	good, err := os.ReadFile("testdata/good.hiccup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ old, new, msg string }{
		{`"label":"loadgen",`, ``, "field label is missing"},
		{`"gap_us":6100}`, `"gap_us":6100,"cpu":1}`, `unknown field "cpu"`},
		{`"loops":11623`, `"loops":11624`, "counts 11623 loops, loops is 11624"},
		{`"max_gap_us":212000`, `"max_gap_us":51000`, "shorter than a gap of 212000"},
		{`[11580,30,10,1,0,0,1,0,1,0]`, `[11580,30,11,0,0,0,1,0,1,0]`, "3 gap lines, but oversleep_hist counts 2 to 2 loops over"},
		{`"gap_us":6100}`, `"gap_us":6100,"end_unix_ns":1}`, "neither a gap line"},
		{`{"at_unix_ns":1764625000500000000,"gap_us":6100}`, `{"at_unix_ns":1764624000000000000,"gap_us":6100}`, "before the start"},
		{`"interval_us":1000`, `"interval_us":0`, "interval_us 0 must be positive"},
		{`"end_unix_ns":1764625012000000000`, `"end_unix_ns":1764625009000000000`, "before the last gap ended"},
		{`"gap_us":6100}`, `"gap_us":6100}{}`, "after top-level value"},
	}
	for _, c := range cases {
		bad := bytes.Replace(good, []byte(c.old), []byte(c.new), 1)
		if bytes.Equal(bad, good) {
			t.Fatalf("edit %q changed nothing", c.old)
		}
		_, err := NewReader(bytes.NewReader(bad), "x.jsonl").Read()
		if err == nil || !strings.Contains(err.Error(), c.msg) || errors.Is(err, ErrTruncated) {
			t.Errorf("%q → %q: %v, want a corrupt line saying %q", c.old, c.new, err, c.msg)
		}
	}
}

func TestWriterRoundTripsTheFixture(t *testing.T) {
	want, err := Read("testdata/good.hiccup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var buf countingWriter
	w := NewWriter(&buf)
	h := want.Header
	h.Format = "" // the writer sets it
	if err := w.Header(h); err != nil {
		t.Fatal(err)
	}
	for _, g := range want.Gaps {
		if err := w.Gap(g); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.End(*want.End); err != nil {
		t.Fatal(err)
	}
	fixture, _ := os.ReadFile("testdata/good.hiccup.jsonl")
	if !bytes.Equal(buf.Bytes(), fixture) {
		t.Errorf("wrote\n%s\nwant the fixture's bytes\n%s", buf.Bytes(), fixture)
	}
	if buf.writes != 5 {
		t.Errorf("%d writes for 5 lines, want one each", buf.writes)
	}
}

type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

func TestWriterRefusesWhatTheReaderWould(t *testing.T) {
	h := Header{Label: "app", CPUs: "0", StartUnixNs: start, IntervalUs: 1000, ThresholdUs: 5000}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Gap(Gap{AtUnixNs: start + 1e6, GapUs: 6000}); err == nil {
		t.Error("a gap before the header was written")
	}
	if err := w.Header(h); err != nil {
		t.Fatal(err)
	}
	if err := w.Gap(Gap{AtUnixNs: start + 1e6, GapUs: 5000}); err == nil {
		t.Error("a gap at the threshold, not over it, was written")
	}
	if err := w.Gap(Gap{AtUnixNs: start + 1e6, GapUs: 6000}); err != nil {
		t.Fatal(err)
	}
	if err := w.Gap(Gap{AtUnixNs: start + 2e6, GapUs: 6000}); err == nil {
		t.Error("a gap that began before the previous one ended was written")
	}
	if err := w.End(End{EndUnixNs: start + 1e9, Loops: 3, MaxGapUs: 6000, Hist: Histogram{2}}); err == nil {
		t.Error("an end whose histogram does not count its loops was written")
	}
	if err := w.End(End{EndUnixNs: start + 1e9, Loops: 3, MaxGapUs: 6000, Hist: Histogram{2, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Gap(Gap{AtUnixNs: start + 2e9, GapUs: 6000}); err == nil {
		t.Error("a gap after the end was written")
	}
	if _, err := NewReader(&buf, "w").Read(); err != nil {
		t.Errorf("what the writer accepted does not read back: %v", err)
	}
}

func TestBucket(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {time.Millisecond, 0}, {time.Millisecond + time.Microsecond, 1},
		{5 * time.Millisecond, 2}, {212 * time.Millisecond, 8}, {500 * time.Millisecond, 8}, {2 * time.Second, 9},
	} {
		if got := Bucket(c.d); got != c.want {
			t.Errorf("Bucket(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}
