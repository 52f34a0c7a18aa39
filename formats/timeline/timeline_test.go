package timeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestReadGoodFile(t *testing.T) {
	got, err := ReadFile("testdata/good.cgroup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("read %d samples, want 3", len(got))
	}
	s := got[1]
	if s.TMs != 200 || *s.DirtyBytes != 8388608 || *s.CPUThrottledNs != 15000000 || s.PSIScope != PSIHost || *s.PSIIOSomeAvg10 != 1.3 {
		t.Errorf("second sample read wrong: %+v", s)
	}
	// null stays "unknown", distinct from zero.
	if got[2].MemLimitBytes != nil || got[2].PSIIOSomeAvg10 != nil || got[2].HostNrDirtyBytes != nil {
		t.Errorf("null fields came back as values: %+v", got[2])
	}
	if got[0].DirtyBytes == nil || *got[0].DirtyBytes != 0 {
		t.Errorf("a measured zero must stay a zero, not null")
	}
}

func TestBadFilesNameFileAndLine(t *testing.T) {
	cases := []struct {
		file      string
		line      int
		truncated bool
		keep      int
		msg       string
	}{
		{"truncated.cgroup.jsonl", 3, true, 2, "truncated last line"},
		{"corrupt.cgroup.jsonl", 2, false, 1, "corrupt line"},
		{"out-of-order.cgroup.jsonl", 2, false, 1, "before the previous line"},
		{"bad-scope.cgroup.jsonl", 2, false, 1, `psi_scope is "v1"`},
		{"unknown-field.cgroup.jsonl", 1, false, 0, "cpu_usage_us"},
	}
	for _, c := range cases {
		path := filepath.Join("testdata", c.file)
		got, err := ReadFile(path)
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("%s: error %v, want a *LineError", c.file, err)
			continue
		}
		if le.File != path || le.Line != c.line || (le.Truncated != "") != c.truncated {
			t.Errorf("%s: got file %s line %d truncated %v, want line %d truncated %v", c.file, le.File, le.Line, le.Truncated, c.line, c.truncated)
		}
		if !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), path+":") {
			t.Errorf("%s: message %q does not start with the file and mention %q", c.file, err, c.msg)
		}
		if len(got) != c.keep {
			t.Errorf("%s: kept %d good samples before the bad line, want %d", c.file, len(got), c.keep)
		}
	}
}

func TestEmptyFileHasNoSamples(t *testing.T) {
	got, err := ReadFile("testdata/empty.cgroup.jsonl")
	if err != nil || len(got) != 0 {
		t.Fatalf("got %d samples, err %v; want none and no error", len(got), err)
	}
}

func TestWriterRoundTripsAndFlushesEachLine(t *testing.T) {
	want, err := ReadFile("testdata/good.cgroup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i, s := range want {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		// each Write leaves a complete line behind: nothing is held back.
		if n := bytes.Count(buf.Bytes(), []byte("\n")); n != i+1 || !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
			t.Fatalf("after %d writes the output holds %d complete lines", i+1, n)
		}
	}
	orig, _ := os.ReadFile("testdata/good.cgroup.jsonl")
	if !bytes.Equal(buf.Bytes(), orig) {
		t.Errorf("round trip changed the bytes:\n%s\nwant\n%s", buf.Bytes(), orig)
	}
}

func TestWriterRefusesImpossibleSamples(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if err := w.Write(Sample{TMs: 100, PSIScope: "maybe"}); err == nil {
		t.Error("wrote a sample with psi_scope maybe")
	}
	if err := w.Write(Sample{TMs: 100, PSIScope: PSINone, PSIIOSomeAvg10: F64(1)}); err == nil {
		t.Error(`wrote a PSI value under psi_scope "none"`)
	}
	if err := w.Write(Sample{TMs: 200, PSIScope: PSINone}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(Sample{TMs: 100, PSIScope: PSINone}); err == nil {
		t.Error("wrote samples out of time order")
	}
}

func TestSummarize(t *testing.T) {
	samples, err := ReadFile("testdata/good.cgroup.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(samples)
	if s.Samples != 3 || s.DurationS != 0.2 {
		t.Errorf("samples %d over %.3f s, want 3 over 0.2 s", s.Samples, s.DurationS)
	}
	// (180 ms - 1.2 ms) of CPU in 0.2 s
	if s.CPUCores == nil || *s.CPUCores < 0.893 || *s.CPUCores > 0.895 {
		t.Errorf("cpu cores %v, want 0.894", s.CPUCores)
	}
	if *s.CPUThrottledS != 0.015 || *s.CPUThrottledPeriods != 2 || *s.CPUPeriods != 20 {
		t.Errorf("throttling %v s in %d/%d periods", *s.CPUThrottledS, *s.CPUThrottledPeriods, *s.CPUPeriods)
	}
	if *s.DirtyPeakBytes != 8388608 || *s.DirtyWritebackPeak != 8388608+4096 || *s.MemPeakBytes != 63000000 || *s.PgMajFaults != 1 {
		t.Errorf("peaks wrong: %+v", s)
	}
	// the last sample has no limit (a gap) and no PSI: the last limit seen is kept.
	if s.MemLimitBytes == nil || *s.MemLimitBytes != 4294967296 || s.PSIScope != PSINone || *s.PSIIOSomeAvg10Max != 1.3 {
		t.Errorf("limit %v scope %s psi max %v", s.MemLimitBytes, s.PSIScope, *s.PSIIOSomeAvg10Max)
	}
	if e := Summarize(nil); e.Samples != 0 || e.CPUCores != nil {
		t.Errorf("an empty timeline summarised to %+v", e)
	}
}

// ReadEnds gives the first and last complete lines: a truncated last line
// is skipped (the one before it is the end), an empty file has no lines, a
// long timeline is read from both ends.
func TestReadEnds(t *testing.T) {
	first, last, several, err := ReadEnds("testdata/good.cgroup.jsonl")
	if err != nil || !several || first.TMs != 100 || last.TMs != 300 {
		t.Fatalf("good: first %d last %d several %v err %v, want 100, 300, true, nil", first.TMs, last.TMs, several, err)
	}
	first, last, several, err = ReadEnds("testdata/truncated.cgroup.jsonl")
	if err != nil || !several || first.TMs != 100 || last.TMs != 200 || *last.CPUUsageNs != 98000000 {
		t.Fatalf("truncated: first %d last %d several %v err %v, want 100, 200, true, nil", first.TMs, last.TMs, several, err)
	}
	if _, _, several, err = ReadEnds("testdata/empty.cgroup.jsonl"); err != nil || several {
		t.Fatalf("empty: several %v err %v, want false, nil", several, err)
	}
	_, _, _, err = ReadEnds("testdata/unknown-field.cgroup.jsonl")
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Fatalf("unknown field: err %v, want a *LineError on line 1", err)
	}
	// 300 lines (~160 KiB): the ends only, as ReadFile sees them.
	b, _ := os.ReadFile("testdata/good.cgroup.jsonl")
	one := bytes.SplitAfter(b, []byte("\n"))[0]
	path := filepath.Join(t.TempDir(), "long.cgroup.jsonl")
	var buf bytes.Buffer
	for i := 1; i <= 300; i++ {
		buf.Write(bytes.Replace(one, []byte(`"t_ms":100`), []byte(`"t_ms":`+strconv.Itoa(i*100)), 1))
	}
	buf.WriteString(`{"t_ms":30100,"cpu_`) // cut mid-write
	os.WriteFile(path, buf.Bytes(), 0o644)
	all, _ := ReadFile(path)
	first, last, several, err = ReadEnds(path)
	if err != nil || !several || first.TMs != all[0].TMs || last.TMs != all[len(all)-1].TMs || last.TMs != 30000 {
		t.Fatalf("long: first %d last %d several %v err %v; ReadFile: %d lines, last %d", first.TMs, last.TMs, several, err, len(all), all[len(all)-1].TMs)
	}
	one = bytes.TrimSuffix(one, []byte("\n"))
	os.WriteFile(path, one, 0o644) // one line, no newline: nothing complete
	if _, _, several, err = ReadEnds(path); err != nil || several {
		t.Fatalf("one unterminated line: several %v err %v", several, err)
	}
	os.WriteFile(path, append(one, '\n'), 0o644) // one complete line
	if _, _, several, err = ReadEnds(path); err != nil || several {
		t.Fatalf("one line: several %v err %v", several, err)
	}
}
