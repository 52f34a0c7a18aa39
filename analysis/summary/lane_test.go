package summary

import (
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/formats/uplog"
	"stacklab/formats/vegeta"
)

// An unexplained step that failed on the upstream lane alone says so, and
// how few answers that lane's p99 rests on; a step the main lane failed
// gets nothing added.
func TestLaneWordsNarrowAnUpstreamLaneFail(t *testing.T) {
	c := &study.Case{Name: "capacity", Ramp: &study.Ramp{P99Ms: 100},
		Mix: []study.MixEntry{{Name: "page", Weight: 95}, {Name: "upstream", Weight: 5, UpstreamDelayMs: 100}}}
	rep := func(n int64, p99, max float64) *vegeta.Report {
		return &vegeta.Report{Requests: n, Latencies: vegeta.Latencies{P99: int64(p99 * 1e6), Max: int64(max * 1e6)}}
	}
	st := &results.Step{Lanes: []results.LaneReport{{Lane: "main", Report: rep(2850, 12.7, 333)}, {Lane: "wait100", Report: rep(150, 278.6, 331)}}}
	got, _ := upstreamLaneWords(c, st, stepUpstream(st, nil))
	if !strings.Contains(got, "only the requests that wait 100 ms on the upstream missed: the others' p99 was 12.7 ms and their slowest answer 333 ms") ||
		!strings.Contains(got, "rests on its 2 slowest of 150 answers") {
		t.Errorf("upstream lane alone: %q", got)
	}
	// with the upstream's own record: on time, or late itself
	st.Upstream = &uplog.File{Header: uplog.Header{Counts: uplog.Counts{Answers: 160, Late5ms: 3, MaxLateUs: 7200}}}
	if got, late := upstreamLaneWords(c, st, stepUpstream(st, nil)); late || !strings.Contains(got, "the mock upstream was on time: the latest of its 160 answers came 7.20 ms after the wait asked (3 of them 5 ms or more), against the lane's p99 179 ms over its wait") {
		t.Errorf("an upstream on time: %q", got)
	}
	st.Upstream.Header.Counts = uplog.Counts{Answers: 160, Late5ms: 4, Late50ms: 2, MaxLateUs: 171000}
	if got, late := upstreamLaneWords(c, st, stepUpstream(st, nil)); !late || !strings.Contains(got, "the mock upstream's own record has 2 of its 160 answers 50 ms or more late, the latest 171 ms: it was late itself") {
		t.Errorf("an upstream late itself: %q", got)
	}
	st.Upstream = nil
	st.Lanes[0].Report = rep(2850, 140, 333)
	if got, _ := upstreamLaneWords(c, st, stepUpstream(st, nil)); got != "" {
		t.Errorf("main lane failed too: %q", got)
	}
	st.Lanes[0].Report, st.Lanes[1].Report = rep(2850, 12.7, 333), rep(60, 278.6, 331)
	if got, _ := upstreamLaneWords(c, st, stepUpstream(st, nil)); got != "" {
		t.Errorf("a lane too thin to judge: %q", got)
	}
}

// A window's slow stretch gets the upstream's own answers in it (and in
// the bucket after, where an answer it held late ends).
func TestUpstreamSpanWords(t *testing.T) {
	u := &uplog.File{Header: uplog.Header{BucketMs: 100}, Buckets: []uplog.Bucket{
		{TUnixMs: 1000, Counts: uplog.Counts{Answers: 40, MaxLateUs: 900}},
		{TUnixMs: 1300, Counts: uplog.Counts{Answers: 12, Late5ms: 3, Late50ms: 2, MaxLateUs: 280000}},
	}}
	ms := func(v int64) int64 { return v * 1e6 }
	for _, c := range []struct {
		sp   span
		want string
	}{
		{span{ms(1000), ms(1100)}, "the mock upstream was on time then: the latest of its 40 answers 900 µs after the wait asked"},
		{span{ms(1100), ms(1250)}, "the mock upstream was late itself: 2 of its 12 answers then 50 ms or more late, the latest 280 ms"},
		{span{ms(1500), ms(1600)}, "the mock upstream answered nothing then"},
	} {
		if got, _ := upstreamSpanWords(u, c.sp); got != c.want {
			t.Errorf("%v: %q, want %q", c.sp, got, c.want)
		}
	}
}
