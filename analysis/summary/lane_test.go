package summary

import (
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/analysis/vegeta"
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
	got := upstreamLaneWords(c, st)
	if !strings.Contains(got, "only the requests that wait 100 ms on the upstream missed: the others' p99 was 12.7 ms and their slowest answer 333 ms") ||
		!strings.Contains(got, "rests on its 2 slowest of 150 answers") {
		t.Errorf("upstream lane alone: %q", got)
	}
	st.Lanes[0].Report = rep(2850, 140, 333)
	if got := upstreamLaneWords(c, st); got != "" {
		t.Errorf("main lane failed too: %q", got)
	}
	st.Lanes[0].Report, st.Lanes[1].Report = rep(2850, 12.7, 333), rep(60, 278.6, 331)
	if got := upstreamLaneWords(c, st); got != "" {
		t.Errorf("a lane too thin to judge: %q", got)
	}
}
