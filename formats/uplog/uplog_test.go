package uplog

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

var t0 = time.UnixMilli(1764650000000)

// What the upstream writes reads back: buckets on the grid, in order, the
// header their sum, and In adds up the ones a span overlaps.
func TestRecorderWritesWhatParseReads(t *testing.T) {
	r := NewRecorder()
	r.Add(t0.Add(10*time.Millisecond), 300*time.Microsecond)
	r.Add(t0.Add(20*time.Millisecond), 6*time.Millisecond)
	r.Add(t0.Add(250*time.Millisecond), 61*time.Millisecond)
	r.Add(t0.Add(990*time.Millisecond), -time.Millisecond) // a clock step back reads as on time
	var b bytes.Buffer
	if err := r.Write(&b, t0, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(&b, "up.jsonl")
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := Counts{Answers: 4, Late5ms: 2, Late50ms: 1, MaxLateUs: 61000}
	if f.Header.Counts != want || len(f.Buckets) != 3 {
		t.Fatalf("header %+v with %d buckets, want %+v with 3", f.Header.Counts, len(f.Buckets), want)
	}
	if f.Buckets[0].Answers != 2 || f.Buckets[0].MaxLateUs != 6000 || f.Buckets[1].TUnixMs != t0.UnixMilli()+200 {
		t.Errorf("buckets %+v", f.Buckets)
	}
	if c := f.In(t0.Add(200*time.Millisecond).UnixNano(), t0.Add(300*time.Millisecond).UnixNano()); c.Answers != 1 || c.MaxLate() != 61*time.Millisecond {
		t.Errorf("in 200..300 ms: %+v", c)
	}
	if c := f.In(t0.Add(300*time.Millisecond).UnixNano(), t0.Add(900*time.Millisecond).UnixNano()); c.Answers != 0 {
		t.Errorf("in 300..900 ms: %+v, want nothing", c)
	}
}

// The ring forgets what is older than Keep: a bucket reused by a later
// time starts again from nothing, and an old span reads as empty.
func TestRecorderForgetsPastKeep(t *testing.T) {
	r := NewRecorder()
	r.Add(t0, 70*time.Millisecond)
	r.Add(t0.Add(Keep), time.Millisecond)
	var b bytes.Buffer
	if err := r.Write(&b, t0.Add(Keep), t0.Add(Keep+time.Second)); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(&b, "up")
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Answers != 1 || f.Header.Late50ms != 0 {
		t.Errorf("the reused bucket: %+v", f.Header.Counts)
	}
	b.Reset()
	if err := r.Write(&b, t0, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if f, _ := Parse(&b, "up"); f.Header.Answers != 0 || len(f.Buckets) != 0 {
		t.Errorf("the forgotten span: %+v", f)
	}
	if err := r.Write(&b, t0, t0.Add(Keep+time.Second)); err == nil {
		t.Error("a span longer than Keep was not refused")
	}
	if err := r.Write(&b, t0, t0); err == nil {
		t.Error("an empty span was not refused")
	}
}

// A corrupt, truncated, foreign or inconsistent record is named by file
// and line.
func TestParseRefusesBadRecords(t *testing.T) {
	const h = `{"format":"stacklab-upstream/1","bucket_ms":100,"from_unix_ms":1000,"to_unix_ms":2000,"answers":3,"late_5ms":1,"late_50ms":0,"max_late_us":6000}`
	const b1 = `{"t_unix_ms":1000,"answers":2,"late_5ms":1,"late_50ms":0,"max_late_us":6000}`
	const b2 = `{"t_unix_ms":1100,"answers":1,"late_5ms":0,"late_50ms":0,"max_late_us":100}`
	if _, err := Parse(strings.NewReader(h+"\n"+b1+"\n"+b2+"\n"), "u"); err != nil {
		t.Fatalf("the good record: %v", err)
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "u: empty"},
		{"not json", "{no\n", "u:1:"},
		{"foreign", strings.Replace(h, "upstream/1", "upstream/9", 1) + "\n", `u:1: format is "stacklab-upstream/9"`},
		{"unknown field", strings.Replace(h, `"answers"`, `"extra":1,"answers"`, 1) + "\n", `u:1: json: unknown field "extra"`},
		{"truncated", h + "\n" + b1 + "\n", "buckets add up to"},
		{"cut mid-line", h + "\n" + b1 + "\n" + b2[:20], "u:3:"},
		{"off the grid", h + "\n" + strings.Replace(b1, "1000", "1050", 1) + "\n" + b2 + "\n", "not a multiple"},
		{"out of order", h + "\n" + b2 + "\n" + b1 + "\n", "u:3: bucket 1000 is not after"},
		{"outside the span", h + "\n" + strings.Replace(b1, "1000", "2000", 1) + "\n", "outside the span"},
		{"late counts disagree", h + "\n" + strings.Replace(b1, `"max_late_us":6000`, `"max_late_us":60000`, 1) + "\n" + b2 + "\n", "does not agree"},
		{"empty bucket", h + "\n" + `{"t_unix_ms":1000,"answers":0,"late_5ms":0,"late_50ms":0,"max_late_us":0}` + "\n", "no answers"},
	} {
		if _, err := Parse(strings.NewReader(c.in), "u"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
