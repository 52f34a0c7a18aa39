package latencyline

import (
	"bytes"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"stacklab/formats/golden"
)

const t0 = 1_767_225_600_000_000_000 // 2026-01-01T00:00:00Z, a timeline's clock

// A small closed-loop window with a planted 300 ms stall, as the file the
// lab keeps; Read gives back what Build made.
func TestGoldenStall(t *testing.T) {
	reqs := closedLoop(4, 2*time.Millisecond, time.Second, stall{400 * time.Millisecond, 300 * time.Millisecond})
	tl := Build(t0, SourceOha, reqs, 0)
	var buf bytes.Buffer
	if err := Write(&buf, tl); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/golden/stall.jsonl", buf.Bytes())

	h := tl.Header
	if h.AnswerGapMs < 298 || h.AnswerGapMs > 304 || h.AnswerGapAtMs < 397 || h.AnswerGapAtMs > 400 {
		t.Errorf("answer gap %d ms at %d ms, want the 300 ms stall at 400 ms", h.AnswerGapMs, h.AnswerGapAtMs)
	}
	if h.GapCount != 1 || len(h.Gaps) != 1 || h.Gaps[0].InFlight != 4 {
		t.Errorf("gaps %d %+v, want the one stall with the 4 connections waiting", h.GapCount, h.Gaps)
	}
	// The buckets of the stall answer nothing; the one after answers them all.
	for _, b := range tl.Buckets[5:7] {
		if b.Answers != 0 || b.P99Us != nil {
			t.Errorf("bucket at %d ms: %d answers during the stall", b.TMs, b.Answers)
		}
	}
	if b := tl.Buckets[7]; b.MaxUs == nil || *b.MaxUs < 290_000 {
		t.Errorf("bucket at 700 ms: max %v µs, want the stalled requests' ~300 ms", b.MaxUs)
	}

	back, err := Read("testdata/golden/stall.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, tl) {
		t.Errorf("Read(Write(t)) differs from t:\n%+v\n%+v", back.Header, tl.Header)
	}
	var again bytes.Buffer
	Write(&again, Build(t0, SourceOha, reqs, 0))
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("the same requests gave other bytes")
	}
}

// A closed loop whose app stops: every connection waits, the gap is the
// stall, and the stretch is counted from the last answer before it.
func TestAnswerGapClosedLoop(t *testing.T) {
	reqs := closedLoop(32, time.Millisecond, 3*time.Second, stall{1200 * time.Millisecond, 300 * time.Millisecond})
	h := Build(t0, SourceOha, reqs, 0).Header
	if h.AnswerGapMs < 299 || h.AnswerGapMs > 303 {
		t.Errorf("answer_gap_ms %d, want ~300", h.AnswerGapMs)
	}
	if h.AnswerGapAtMs < 1198 || h.AnswerGapAtMs > 1200 {
		t.Errorf("answer_gap_at_ms %d, want ~1200", h.AnswerGapAtMs)
	}
	if len(h.Gaps) != 1 || h.Gaps[0].InFlight != 32 {
		t.Errorf("gaps %+v, want one with all 32 connections in flight", h.Gaps)
	}
	// Without the stall nothing reaches 50 ms.
	if h := Build(t0, SourceOha, closedLoop(32, time.Millisecond, 3*time.Second), 0).Header; h.GapCount != 0 || h.AnswerGapMs > 2 {
		t.Errorf("no stall: answer gap %d ms, %d gaps", h.AnswerGapMs, h.GapCount)
	}
}

// An open loop at a low rate is idle between sends, and a generator that
// stops sending leaves the app nothing to answer: neither is an answer
// gap. An app that stops while requests keep coming is one, with the
// pile-up in flight.
func TestAnswerGapOpenLoop(t *testing.T) {
	pause := []stall{{2 * time.Second, 500 * time.Millisecond}}
	h := Build(t0, SourceVegeta, openLoop(10, time.Millisecond, 5*time.Second, pause), 0).Header
	if h.GapCount != 0 || h.AnswerGapMs > 1 {
		t.Errorf("idle open loop and a 500 ms pause in sending: answer gap %d ms, %d gaps; want none", h.AnswerGapMs, h.GapCount)
	}
	h = Build(t0, SourceVegeta, openLoop(1000, time.Millisecond, 5*time.Second, nil, stall{2 * time.Second, 300 * time.Millisecond}), 0).Header
	if h.GapCount != 1 || h.AnswerGapMs < 299 || h.AnswerGapMs > 302 {
		t.Fatalf("app stall under 1000 req/s: %d gaps, longest %d ms; want one of ~300", h.GapCount, h.AnswerGapMs)
	}
	if n := h.Gaps[0].InFlight; n < 295 || n > 305 {
		t.Errorf("in_flight %d, want the ~300 requests sent during the stall", n)
	}
}

// Before the first answer counts too; a wait that ends in errors only
// (every request timed out) is a gap up to the last error.
func TestAnswerGapStartAndErrors(t *testing.T) {
	ms := int64(time.Millisecond)
	reqs := []Request{
		{StartNs: 0, EndNs: 200 * ms, Status: 200},
		{StartNs: 1 * ms, EndNs: 201 * ms, Status: 200},
		{StartNs: 300 * ms, EndNs: 1300 * ms, Err: true},
		{StartNs: 400 * ms, EndNs: 1400 * ms, Err: true},
		{StartNs: 2000 * ms, EndNs: 2001 * ms, Status: 500},
	}
	tl := Build(t0, SourceVegeta, reqs, 0)
	h := tl.Header
	want := []Gap{{AtMs: 0, Ms: 200, InFlight: 2}, {AtMs: 300, Ms: 1100, InFlight: 2}}
	if !reflect.DeepEqual(h.Gaps, want) || h.AnswerGapMs != 1100 || h.AnswerGapAtMs != 300 {
		t.Errorf("gaps %+v, longest %d at %d; want %+v", h.Gaps, h.AnswerGapMs, h.AnswerGapAtMs, want)
	}
	if h.Requests != 5 || h.Answers != 3 || h.Errors != 2 {
		t.Errorf("totals %d %d %d", h.Requests, h.Answers, h.Errors)
	}
	// Errors count where they completed, and carry no latency.
	if b := tl.Buckets[13]; b.Errors != 1 || b.Answers != 0 || b.MaxUs != nil {
		t.Errorf("bucket at 1300 ms: %+v", b)
	}
}

// The list keeps the MaxGaps longest, in time order, and counts them all.
func TestGapListBounded(t *testing.T) {
	var reqs []Request
	var lengths []int64
	ms := int64(time.Millisecond)
	for i := int64(0); i < MaxGaps+50; i++ {
		start := i * 1000 * ms
		length := 60 + (i*37)%200 // 60..259 ms: every one a listed gap
		reqs = append(reqs, Request{StartNs: start, EndNs: start + length*ms, Status: 200})
		lengths = append(lengths, length)
	}
	slices.Sort(lengths)
	cut := lengths[len(lengths)-MaxGaps] // the shortest of the MaxGaps longest
	h := Build(t0, SourceOha, reqs, 0).Header
	if h.GapCount != MaxGaps+50 || len(h.Gaps) != MaxGaps {
		t.Fatalf("gap_count %d, %d listed; want %d, %d", h.GapCount, len(h.Gaps), MaxGaps+50, MaxGaps)
	}
	shortest := h.Gaps[0].Ms
	for i, g := range h.Gaps {
		if i > 0 && g.AtMs <= h.Gaps[i-1].AtMs {
			t.Fatalf("gaps[%d] not in time order", i)
		}
		shortest = min(shortest, g.Ms)
	}
	if shortest < cut {
		t.Errorf("a %d ms gap kept while gaps of up to %d ms were dropped", shortest, cut)
	}
	var buf bytes.Buffer
	if err := Write(&buf, Build(t0, SourceOha, reqs, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(&buf, "bounded"); err != nil {
		t.Errorf("a bounded list does not read back: %v", err)
	}
}

// The self-test row blocks every request for 300 ms every 2 s: Periodic
// names it within 20%.
func TestPeriodic(t *testing.T) {
	var stalls []stall
	for at := time.Second; at < 10*time.Second; at += 2 * time.Second {
		stalls = append(stalls, stall{at, 300 * time.Millisecond})
	}
	tl := Build(t0, SourceOha, closedLoop(16, time.Millisecond, 10*time.Second, stalls...), 0)
	period, length, n, ok := tl.Periodic()
	if !ok || n != 5 {
		t.Fatalf("Periodic() = %v %v %d %v on 5 stalls of 300 ms every 2 s; gaps %+v", period, length, n, ok, tl.Header.Gaps)
	}
	if period < 1600*time.Millisecond || period > 2400*time.Millisecond || length < 240*time.Millisecond || length > 360*time.Millisecond {
		t.Errorf("period %v, length %v; want 2 s and 300 ms within 20%%", period, length)
	}

	// Stalls at random times and of random lengths are not periodic.
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 20; trial++ {
		var random []stall
		for at := 500 * time.Millisecond; at < 20*time.Second; at += time.Duration(300+rng.Intn(3000)) * time.Millisecond {
			l := time.Duration(60+rng.Intn(400)) * time.Millisecond
			random = append(random, stall{at, l})
			at += l
		}
		tl := Build(t0, SourceOha, closedLoop(4, time.Millisecond, 20*time.Second, random...), 0)
		if p, l, n, ok := tl.Periodic(); ok {
			t.Errorf("trial %d: random stalls called periodic: %v every %v (%d gaps)", trial, l, p, n)
		}
	}
	// Two are not enough to show a period.
	two := Build(t0, SourceOha, closedLoop(4, time.Millisecond, 5*time.Second, stalls[:2]...), 0)
	if _, _, _, ok := two.Periodic(); ok {
		t.Error("two gaps called periodic")
	}
}

func TestTrend(t *testing.T) {
	answers := func(per ...int64) Timeline {
		tl := Timeline{Header: Header{Format: Format, Source: SourceOha, BucketMs: 100}}
		for i, n := range per {
			tl.Buckets = append(tl.Buckets, Bucket{TMs: int64(i) * 100, Answers: n})
		}
		return tl
	}
	steady := answers(3, 100, 102, 99, 101, 100, 98, 100, 101, 99, 40)
	warming := answers(3, 50, 60, 70, 80, 90, 100, 110, 120, 130, 40)
	falling := answers(3, 130, 120, 110, 100, 90, 80, 70, 60, 50, 40)
	for name, c := range map[string]struct {
		tl               Timeline
		warming, falling bool
	}{
		"steady": {steady, false, false}, "warming": {warming, true, false}, "falling": {falling, false, true},
	} {
		r := c.tl.Trend()
		if !r.OK || r.Warming != c.warming || r.Falling != c.falling {
			t.Errorf("%s: %+v", name, r)
		}
	}
	// The partial first and last bucket are left out: a window that started
	// slowly inside its first bucket is not warming.
	if r := answers(1, 100, 100, 100, 100, 100, 100, 1).Trend(); r.Warming || r.Falling || r.Ratio != 1 {
		t.Errorf("partial ends counted: %+v", r)
	}
	if r := warming.Trend(); r.First != 60 || r.Last != 120 || r.Ratio != 2 {
		t.Errorf("warming: first %v last %v ratio %v; want 60, 120, 2", r.First, r.Last, r.Ratio)
	}
	if r := answers(1, 100, 100, 1).Trend(); r.OK {
		t.Errorf("two whole buckets cannot show a trend: %+v", r)
	}
}

// A stall seen on another timeline's clock finds the gap it explains.
func TestGapsDuring(t *testing.T) {
	tl := Build(t0, SourceOha, closedLoop(4, time.Millisecond, 3*time.Second, stall{time.Second, 300 * time.Millisecond}), 0)
	g := tl.Header.Gaps[0]
	from, to := tl.Span(g)
	if from != t0+g.AtMs*1e6 || to-from != g.Ms*1e6 {
		t.Errorf("Span %d..%d for %+v", from, to, g)
	}
	hiccup := t0 + int64(1100*time.Millisecond) // a host stall of 50 ms inside it
	if got := tl.GapsDuring(hiccup, hiccup+50e6); len(got) != 1 || got[0] != g {
		t.Errorf("GapsDuring the hiccup = %+v", got)
	}
	if got := tl.GapsDuring(t0, t0+500e6); len(got) != 0 {
		t.Errorf("GapsDuring the first 500 ms = %+v", got)
	}
	if Overlap(0, 10, 5, 20) != 5 || Overlap(0, 10, 10, 20) != 0 || Overlap(0, 10, 20, 30) != 0 {
		t.Error("Overlap")
	}
}

// Each bad file is a *LineError on its line; the truncated one says so.
// They are good.jsonl with one fault each.
func TestReadRefuses(t *testing.T) {
	good, err := Read("testdata/good.jsonl")
	if err != nil || good.Header.Gaps[0] != (Gap{AtMs: 110, Ms: 120, InFlight: 2}) || len(good.Buckets) != 4 || good.Buckets[1].P50Us != nil {
		t.Fatalf("good.jsonl: %+v, %v", good, err)
	}
	for _, c := range []struct {
		file      string
		line      int
		truncated bool
	}{
		{"empty.jsonl", 1, false},
		{"corrupt.jsonl", 3, false},
		{"truncated.jsonl", 5, true},
		{"outoforder.jsonl", 4, false},
		{"unknownfield.jsonl", 2, false},
		{"badformat.jsonl", 1, false},
		{"missingfield.jsonl", 3, false},
		{"lostlines.jsonl", 1, false},
		{"latencynoanswer.jsonl", 2, false},
	} {
		path := "testdata/" + c.file
		_, err := Read(path)
		le, ok := err.(*LineError)
		if !ok {
			t.Errorf("%s: %v, want a *LineError", c.file, err)
			continue
		}
		if le.File != path || le.Line != c.line || (le.Truncated != "") != c.truncated {
			t.Errorf("%s: %v (line %d, truncated %v); want line %d, truncated %v", c.file, err, le.Line, le.Truncated, c.line, c.truncated)
		}
	}
	if _, err := Read("testdata/nosuch.jsonl"); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// The README's example is a timeline Read accepts, and says what its
// prose says of it.
func TestREADMEExample(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := bytes.Cut(b, []byte("```jsonl\n"))
	block, _, ok2 := bytes.Cut(block, []byte("```"))
	if !ok || !ok2 {
		t.Fatal("README.md has no ```jsonl block")
	}
	tl, err := Decode(bytes.NewReader(block), "README.md example")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	Write(&buf, tl)
	if !bytes.Equal(buf.Bytes(), block) {
		t.Errorf("the example is not what Write writes; %s", golden.FirstDiff(block, buf.Bytes()))
	}
	h := tl.Header
	if h.AnswerGapMs != 301 || len(h.Gaps) != 1 || h.Gaps[0].InFlight != 2 || buf.Len() != 1225 {
		t.Errorf("the README says a 301 ms gap with 2 in flight, in 1,225 bytes: %+v, %d bytes", h, buf.Len())
	}
	if s := tl.Buckets[6]; s.TMs != 600 || *s.MaxUs != 300792 {
		t.Errorf("the README says the stalled answers come in the 600 ms bucket: %+v", s)
	}
}

// The first answers' own wait is no stall: a gap at the window's start no
// longer than twice the median; later, or longer, it is one.
func TestFirstAnswers(t *testing.T) {
	for _, c := range []struct {
		at, ms int64
		p50    time.Duration
		want   bool
	}{{0, 180, 100 * time.Millisecond, true}, {0, 250, 100 * time.Millisecond, false}, {300, 180, 100 * time.Millisecond, false}} {
		if got := (Header{AnswerGapAtMs: c.at, AnswerGapMs: c.ms}).FirstAnswers(c.p50); got != c.want {
			t.Errorf("gap %d ms at +%d ms, p50 %v: %v, want %v", c.ms, c.at, c.p50, got, c.want)
		}
	}
}

// A step at 7,200 req/s whose answers all but stopped for 200 ms (51 and
// 91 of 720) is one slump; the buckets after the planned 1 s, where the
// generator stopped sending, are not; at 50 req/s (5 a bucket) nothing
// can be told.
func TestSlumps(t *testing.T) {
	b := func(tms, sent, answers int64) Bucket { return Bucket{TMs: tms, Sent: sent, Answers: answers} }
	tl := Timeline{Header: Header{BucketMs: 100}, Buckets: []Bucket{
		b(0, 716, 680), b(100, 724, 706), b(200, 540, 51), b(300, 881, 91), b(400, 763, 1369),
		b(500, 720, 300), b(600, 720, 720), b(700, 720, 720), b(800, 720, 720), b(900, 720, 720),
		b(1000, 0, 113), b(1100, 0, 2),
	}}
	got := tl.Slumps(7200, 1000)
	want := []Slump{{AtMs: 200, Ms: 200, Answers: 142, Sent: 1421}, {AtMs: 500, Ms: 100, Answers: 300, Sent: 720}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("slumps %+v, want %+v", got, want)
	}
	if got := tl.Slumps(50, 1000); got != nil {
		t.Errorf("at 5 answers a bucket: %+v, want none", got)
	}
}
