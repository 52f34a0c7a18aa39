// Package latencyline owns the lab's per-request latency timeline: the
// `<window>.latency.jsonl` file kept in the raw folder beside each
// closed-loop window (oha) and open-loop capacity step (vegeta). It says
// when answers were sent and how long they took, compacted into short
// buckets, and where the answers stopped while requests were waiting
// (the answer gaps). README.md in this folder documents the format.
//
// Reading the generators' per-request output (ReadOhaDB, ReadVegetaCSV),
// compacting it (Build), the file (Write, Read) and the analysis the
// summary names causes with (Periodic, Trend, GapsDuring) are kept apart;
// all but the readers are pure.
package latencyline

import (
	"cmp"
	"slices"
	"time"

	"stacklab/formats/latency"
)

// Format is the id on a timeline's first line; Read refuses any other.
const Format = "stacklab-latency/1"

// Sources: the generator whose output a timeline was built from.
const (
	SourceOha    = "oha"    // closed loop: a window
	SourceVegeta = "vegeta" // open loop: a capacity step
)

const (
	// DefaultBucket is the bucket Build uses when given none.
	DefaultBucket = 100 * time.Millisecond
	// GapMin is the shortest answer gap the header lists one by one.
	GapMin = 50 * time.Millisecond
	// MaxGaps bounds that list: the longest are kept (a window that
	// stalls every few ms would otherwise write a header of megabytes).
	MaxGaps = 200
)

// Request is one request a generator sent. Times are nanoseconds from the
// timeline's start; EndNs is when the answer (or the error) came.
type Request struct {
	StartNs, EndNs int64
	Status         int  // HTTP status; 0 when Err
	Err            bool // no HTTP answer: a connection error or a timeout
}

// Timeline is a whole .latency.jsonl file: its header and its buckets.
type Timeline struct {
	Header  Header
	Buckets []Bucket
}

// Header is the file's first line.
type Header struct {
	Format string `json:"format"`
	Source string `json:"source"`
	// StartUnixNs is the clock's zero: every *_ms offset in the file counts
	// from it, so that a stall can be lined up with the cgroup timeline and
	// the hiccup record of the same window.
	StartUnixNs int64 `json:"start_unix_ns"`
	BucketMs    int64 `json:"bucket_ms"`

	Requests int64 `json:"requests"` // answers + errors
	Answers  int64 `json:"answers"`  // requests with an HTTP answer, any status
	Errors   int64 `json:"errors"`   // requests without one

	// AnswerGapMs is the longest stretch in which no answer came while at
	// least one request was in flight; AnswerGapAtMs is when it began.
	AnswerGapMs   int64 `json:"answer_gap_ms"`
	AnswerGapAtMs int64 `json:"answer_gap_at_ms"`
	// GapCount counts the answer gaps of GapMin or more; Gaps lists them,
	// the MaxGaps longest when there are more, in time order.
	GapCount int64 `json:"gap_count"`
	Gaps     []Gap `json:"gaps"`
}

// Gap is one answer gap.
type Gap struct {
	AtMs int64 `json:"at_ms"` // when it began
	Ms   int64 `json:"ms"`    // how long it lasted
	// InFlight counts the requests that were waiting at some time during
	// it: a closed loop's stalled connections, or an open loop's pile-up.
	InFlight int64 `json:"in_flight"`
}

// Bucket is BucketMs of the window, from TMs. Sent counts the requests
// that started in it; the others count by completion.
type Bucket struct {
	TMs     int64 `json:"t_ms"`
	Sent    int64 `json:"sent"`
	Answers int64 `json:"answers"`
	Errors  int64 `json:"errors"`
	// Latencies of the answers that completed in the bucket, in µs,
	// nearest-rank (as formats/latency); nil when Answers is 0. An error's
	// time (a timeout) is not a latency and is not among them.
	P50Us *int64 `json:"p50_us"`
	P99Us *int64 `json:"p99_us"`
	MaxUs *int64 `json:"max_us"`
}

// Build compacts reqs into a timeline whose clock starts at startUnixNs.
// bucket is cut to whole milliseconds (DefaultBucket when under 1 ms).
// A request's EndNs before its StartNs is taken as StartNs, and times
// before 0 fall in the first bucket; the readers refuse both.
func Build(startUnixNs int64, source string, reqs []Request, bucket time.Duration) Timeline {
	bms := bucket.Milliseconds()
	if bms < 1 {
		bms = DefaultBucket.Milliseconds()
	}
	bns := bms * 1e6
	h := Header{Format: Format, Source: source, StartUnixNs: startUnixNs, BucketMs: bms, Gaps: []Gap{}}
	var last int64
	for _, r := range reqs {
		last = max(last, r.StartNs, r.EndNs)
	}
	n := 0
	if len(reqs) > 0 {
		n = int(last/bns) + 1
	}
	buckets := make([]Bucket, n)
	lat := make([][]time.Duration, n)
	at := func(t int64) int { return int(max(t, 0) / bns) }
	for _, r := range reqs {
		end := max(r.EndNs, r.StartNs)
		buckets[at(r.StartNs)].Sent++
		b := at(end)
		if r.Err {
			buckets[b].Errors++
			h.Errors++
			continue
		}
		buckets[b].Answers++
		h.Answers++
		lat[b] = append(lat[b], time.Duration(end-max(r.StartNs, 0)))
	}
	h.Requests = h.Answers + h.Errors
	for i := range buckets {
		buckets[i].TMs = int64(i) * bms
		if len(lat[i]) == 0 {
			continue
		}
		d := latency.Of(lat[i])
		buckets[i].P50Us, buckets[i].P99Us, buckets[i].MaxUs = us(d.P50), us(d.P99), us(d.Max)
	}
	h.AnswerGapMs, h.AnswerGapAtMs, h.GapCount, h.Gaps = answerGaps(reqs)
	return Timeline{Header: h, Buckets: buckets}
}

func us(d time.Duration) *int64 {
	v := (d.Nanoseconds() + 500) / 1000
	return &v
}

// stretch is an answer gap in ns, before rounding.
type stretch struct {
	from, to, inFlight int64
}

// answerGaps sweeps the requests' starts and ends in time order. A
// stretch opens when a request starts with none in flight, or at an
// answer with others still waiting; it closes at the next answer, or
// when the last waiting request fails (a timeout ends the wait without
// an answer). Without errors this is "from the later of the previous
// answer and the earliest start still in flight, to the next answer".
// A pause with nothing in flight (an open loop between two sends, a
// generator that stopped sending) is not a gap: the app was not asked.
func answerGaps(reqs []Request) (longestMs, longestAtMs, count int64, list []Gap) {
	type event struct {
		t    int64
		kind int // 0 an answer, 1 an error, 2 a start: ends before starts at the same ns
	}
	ev := make([]event, 0, 2*len(reqs))
	for _, r := range reqs {
		s := max(r.StartNs, 0)
		k := 0
		if r.Err {
			k = 1
		}
		ev = append(ev, event{s, 2}, event{max(r.EndNs, s), k})
	}
	slices.SortFunc(ev, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.kind, b.kind))
	})
	var (
		inFlight int64
		cur      stretch
		longest  stretch
		found    bool
		gaps     []stretch
	)
	closeAt := func(t int64) {
		s := stretch{cur.from, t, cur.inFlight}
		if !found || s.to-s.from > longest.to-longest.from {
			longest, found = s, true
		}
		if s.to-s.from >= GapMin.Nanoseconds() {
			gaps = append(gaps, s)
		}
	}
	for _, e := range ev {
		switch e.kind {
		case 2:
			if inFlight == 0 {
				cur = stretch{from: e.t}
			}
			inFlight++
			cur.inFlight++
		case 0:
			closeAt(e.t)
			inFlight--
			cur = stretch{from: e.t, inFlight: inFlight}
		case 1:
			inFlight--
			if inFlight == 0 {
				closeAt(e.t)
			}
		}
	}
	count = int64(len(gaps))
	if len(gaps) > MaxGaps {
		// Keep the longest (the earlier of equals), then put them back in time order.
		slices.SortStableFunc(gaps, func(a, b stretch) int { return cmp.Compare(b.to-b.from, a.to-a.from) })
		gaps = gaps[:MaxGaps]
		slices.SortFunc(gaps, func(a, b stretch) int { return cmp.Compare(a.from, b.from) })
	}
	list = make([]Gap, len(gaps))
	for i, g := range gaps {
		list[i] = Gap{AtMs: g.from / 1e6, Ms: roundMs(g.to - g.from), InFlight: g.inFlight}
	}
	if found {
		longestMs, longestAtMs = roundMs(longest.to-longest.from), longest.from/1e6
	}
	return longestMs, longestAtMs, count, list
}

func roundMs(ns int64) int64 { return (ns + 5e5) / 1e6 }
