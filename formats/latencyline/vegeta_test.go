package latencyline

import (
	"os"
	"reflect"
	"testing"
	"time"
)

// The vegeta fixtures are the output of vegeta 12.13.0's own encoder
// (`vegeta encode -to csv`, testdata/versions.txt) on results written as
// vegeta's JSON (testdata/vegeta-lane*.json): no load was sent for them.

func readLane(t *testing.T, path string) ([]Request, time.Time, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ReadVegetaCSV(f, path)
}

func TestReadVegetaCSV(t *testing.T) {
	reqs, start, err := readLane(t, "testdata/vegeta-lane1.csv")
	if err != nil {
		t.Fatal(err)
	}
	if start.UnixNano() != t0 {
		t.Errorf("start %v, want the earliest send", start)
	}
	ms := int64(time.Millisecond)
	// In the file's order: as the answers came.
	want := []Request{
		{StartNs: 0, EndNs: 900_000, Status: 200},
		{StartNs: 5 * ms, EndNs: 5*ms + 1_200_000, Status: 200},
		{StartNs: 10 * ms, EndNs: 12 * ms, Status: 500},       // an answer, though vegeta fills its error column
		{StartNs: 20 * ms, EndNs: 20*ms + 300_000, Err: true}, // connection refused
		{StartNs: 25 * ms, EndNs: 26 * ms, Status: 200},
		{StartNs: 15 * ms, EndNs: 15*ms + 2_000_000_000, Err: true}, // the client's timeout
	}
	if !reflect.DeepEqual(reqs, want) {
		t.Errorf("got  %+v\nwant %+v", reqs, want)
	}
	h := Build(start.UnixNano(), SourceVegeta, reqs, 0).Header
	if h.Requests != 6 || h.Answers != 4 || h.Errors != 2 {
		t.Errorf("totals %d requests, %d answers, %d errors; want 6, 4, 2", h.Requests, h.Answers, h.Errors)
	}
	// The timed-out request waited 2 s with no answer after 26 ms.
	if h.AnswerGapMs != 1989 || h.AnswerGapAtMs != 26 || h.GapCount != 1 {
		t.Errorf("answer gap %d ms at %d ms (%d gaps); want 1989 at 26", h.AnswerGapMs, h.AnswerGapAtMs, h.GapCount)
	}
}

func TestReadVegetaCSVRefuses(t *testing.T) {
	for _, c := range []struct {
		file      string
		line      int
		truncated bool
	}{
		{"vegeta-columns.csv", 2, false},
		{"vegeta-badcode.csv", 3, false},
		{"vegeta-truncated.csv", 6, true},
		{"empty.jsonl", 1, false},
	} {
		path := "testdata/" + c.file
		_, _, err := readLane(t, path)
		le, ok := err.(*LineError)
		if !ok || le.File != path || le.Line != c.line || (le.Truncated != "") != c.truncated {
			t.Errorf("%s: %v; want a *LineError at line %d, truncated %v", c.file, err, c.line, c.truncated)
		}
	}
}

// Two lanes of one step go on the clock of the one that started first.
func TestMerge(t *testing.T) {
	a, sa, err := readLane(t, "testdata/vegeta-lane1.csv")
	if err != nil {
		t.Fatal(err)
	}
	b, sb, err := readLane(t, "testdata/vegeta-lane2.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.Sub(sa); got != 2500*time.Microsecond {
		t.Fatalf("lane 2 starts %v after lane 1, want 2.5ms", got)
	}
	reqs, start := Merge(Lane{b, sb}, Lane{a, sa})
	if !start.Equal(sa) || len(reqs) != len(a)+len(b) {
		t.Fatalf("start %v, %d requests", start, len(reqs))
	}
	var starts []int64
	for _, r := range reqs {
		starts = append(starts, r.StartNs/1000)
	}
	want := []int64{0, 2500, 5000, 7500, 10000, 12500, 15000, 20000, 25000} // µs
	if !reflect.DeepEqual(starts, want) {
		t.Errorf("merged starts %v µs, want %v", starts, want)
	}
	if reqs[1].EndNs-reqs[1].StartNs != 800_000 {
		t.Errorf("lane 2's first request lasted %d ns, want 800000: shifting moved its end apart", reqs[1].EndNs-reqs[1].StartNs)
	}
	if r, s := Merge(); r != nil || !s.IsZero() {
		t.Error("Merge of nothing")
	}
}
