package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"stacklab/analysis/results"
	"stacklab/analysis/stat"
	"stacklab/analysis/study"
	"stacklab/analysis/summary"
)

// Verdicts, for a measure and for a route.
const (
	Regressed = "regressed"
	Improved  = "improved"
	Same      = "same"
	Unknown   = "unknown"
	// Failed: the new run's window failed a correctness gate (a wrong
	// answer, a connection error, rows that do not add up).
	Failed = "failed"
)

// measure is one quantity a route is held to.
type measure struct {
	Name string
	// higherBetter: req/s; every other measure is better lower.
	higherBetter bool
	// points: the margin and change are percentage points of a share
	// (the error rate), not percent of the baseline.
	points bool
	margin func(study.Guard) float64
	format func(float64) string
}

// cpuMeasure names the app's CPU per request, the one measure a users
// flow does not have.
const cpuMeasure = "CPU µs/req"

// measures in the order every output shows them.
var measures = []measure{
	{Name: "req/s", higherBetter: true, margin: func(g study.Guard) float64 { return g.ReqPerSec }, format: rate},
	{Name: "p95 ms", margin: func(g study.Guard) float64 { return g.P95 }, format: ms},
	{Name: "p99 ms", margin: func(g study.Guard) float64 { return g.P99 }, format: ms},
	{Name: "errors", points: true, margin: func(g study.Guard) float64 { return g.ErrorRate }, format: share},
	{Name: cpuMeasure, margin: func(g study.Guard) float64 { return g.CPU }, format: sig},
}

// perRun is one row's values of each measure over one folder's runs, in
// the order of measures; a run without a value is left out.
type perRun [5][]float64

// Cell is one measure of one route: the baseline's runs against the new
// ones.
type Cell struct {
	Measure     string
	Base, Now   []float64
	MedBase     float64
	MedNow      float64
	Change      float64 // relative (0.12: +12%), or points for the error rate
	Points      bool
	Margin      float64 // percent, or points
	P           float64
	Significant bool
	Verdict     string
	// Spread is the runs' pooled standard deviation, relative to the
	// baseline's median (points for the error rate).
	Spread        float64
	More          int  // Unknown: runs more the new side needs (see more)
	BaselineThin  bool // Unknown: the baseline has too few runs for any new count to decide
	format        func(float64) string
	higherBetter  bool
	measuredEmpty bool // neither side has a value: the measure is not shown
}

// Route is one row and window of the new run against its baseline row.
type Route struct {
	Stack, BaseStack string
	Window           string
	Request          string // "GET /json"
	Cells            []Cell
	Verdict          string
	FailedRuns       []int
	NBase, NNow      int
	// Together: both rows were measured in one bench (--within).
	Together bool
}

// Name is how outputs name the route: the row, "as" the baseline's row
// when they differ, and the window.
func (r *Route) Name() string {
	s := r.Stack
	if r.BaseStack != r.Stack {
		s += " as " + r.BaseStack
	}
	return s + " " + r.Window
}

// values reads one row's per-run values of each measure from a folder.
func values(f *results.Folder, stack string, w study.Window) perRun {
	var out perRun
	c := w.Case
	for _, r := range f.Runs {
		win := r.Window(stack, w.ID)
		if win == nil || win.Result == nil {
			continue
		}
		res := win.Result
		good := res.GoodWith(c.Good)
		out[0] = append(out[0], res.GoodPerSecWith(c.Good))
		if v, ok := res.Percentile("p95"); ok {
			out[1] = append(out[1], v*1000)
		}
		if v, ok := res.Percentile("p99"); ok {
			out[2] = append(out[2], v*1000)
		}
		// Errors as the summary's gate counts them: answers the case does
		// not take as good, and connection errors (a cut at the deadline
		// is neither).
		var bad int64
		for _, b := range res.BadWith(c.Good) {
			bad += b.Count
		}
		for _, e := range res.ConnErrors() {
			bad += e.Count
		}
		if good+bad > 0 {
			out[3] = append(out[3], float64(bad)/float64(good+bad))
		}
		if us, ok := summary.CPUPerRequest(win, good); ok {
			out[4] = append(out[4], us)
		}
	}
	return out
}

// measuredWindows are the windows of f's study that its run measured,
// capacity cases left out (they have a table of their own and no route).
func measuredWindows(f *results.Folder) (wins []study.Window, capacity []string) {
	for _, w := range f.Study.Windows(f.Manifest.Parameters.Connections) {
		if !slices.Contains(f.Manifest.Parameters.Cases, w.ID) {
			continue
		}
		if w.Case.Ramp != nil {
			capacity = append(capacity, w.ID)
			continue
		}
		wins = append(wins, w)
	}
	return wins, capacity
}

// sameRequest tells whether two windows send the same load: a baseline
// measured with another version of the study is comparable route by route
// only where the case did not change.
func sameRequest(a, b study.Window) bool {
	ja, _ := json.Marshal(struct {
		C    *study.Case
		N    int
		Rate float64
	}{a.Case, a.Connections, a.Rate})
	jb, _ := json.Marshal(struct {
		C    *study.Case
		N    int
		Rate float64
	}{b.Case, b.Connections, b.Rate})
	return string(ja) == string(jb)
}

// compareCell decides one measure: beyond its margin and significant is a
// regression or an improvement; inside the margin, or a difference the
// U test finds but too small to count, is the same; anything else cannot
// be told from these runs.
//
// together says both sides come from one bench (relative mode): more runs
// would add to both, not to the new side alone.
func compareCell(m measure, g study.Guard, base, now []float64, together bool) Cell {
	c := Cell{Measure: m.Name, Base: base, Now: now, Points: m.points, Margin: m.margin(g), format: m.format, higherBetter: m.higherBetter}
	if len(base) == 0 && len(now) == 0 {
		c.measuredEmpty = true
		return c
	}
	if len(base) == 0 || len(now) == 0 {
		c.Verdict, c.More = Unknown, 0
		c.BaselineThin = len(base) == 0
		if len(base) > 0 {
			c.MedBase = stat.Median(base)
		}
		if len(now) > 0 {
			c.MedNow = stat.Median(now)
		}
		return c
	}
	c.MedBase, c.MedNow = stat.Median(base), stat.Median(now)
	scale := math.Abs(c.MedBase)
	if m.points {
		scale = 0.01 // a point
	}
	if scale == 0 {
		scale = math.Max(math.Abs(c.MedNow), math.SmallestNonzeroFloat64)
	}
	c.Change = (c.MedNow - c.MedBase) / scale
	if m.points {
		c.Change = (c.MedNow - c.MedBase) * 100
	}
	margin := c.Margin
	if !m.points {
		margin /= 100
	}
	if t, ok := stat.UTest(base, now); ok {
		c.P, c.Significant = t.P, t.Significant && c.MedBase != c.MedNow
	}
	c.Spread = spread(base, now) / scale
	if m.points {
		c.Spread = spread(base, now) * 100
	}
	worse := c.Change > margin
	better := c.Change < -margin
	if m.higherBetter {
		worse, better = c.Change < -margin, c.Change > margin
	}
	switch {
	case c.Significant && worse:
		c.Verdict = Regressed
	case c.Significant && better:
		c.Verdict = Improved
	case c.Significant:
		c.Verdict = Same
	default:
		// Not significant: the same only if these runs could have found a
		// change as large as the margin and the medians are inside it.
		sd := c.Spread
		nb, nn := float64(len(base)), float64(len(now))
		detectable := detect * sd * math.Sqrt(1/nb+1/nn)
		if canReach(len(base), len(now)) && !worse && !better && detectable <= margin {
			c.Verdict = Same
			return c
		}
		c.Verdict = Unknown
		if together {
			c.More = moreTogether(len(now), sd, margin)
		} else {
			c.More, c.BaselineThin = more(len(base), len(now), sd, margin)
		}
	}
	return c
}

// detect is how many standard deviations of the difference of two means a
// change must be for a test at α = 0.05 (two-sided) to find it four times
// in five (1.96 + 0.84), over √0.955: the U test needs about 1/0.955 as
// many runs as a t-test on normal data (its asymptotic relative
// efficiency).
var detect = (1.96 + 0.84) / math.Sqrt(0.955)

// more is how many runs more the new side needs for a change the size of
// the margin to be found, from the spread seen (sd, in the margin's
// units), the baseline keeping its nb runs; thin is true when no number of
// new runs would do, the baseline's own runs being too few.
func more(nb, nn int, sd, margin float64) (n int, thin bool) {
	need := minRuns(nb)
	if sd > 0 {
		// detect·sd·√(1/nb + 1/nNew) ≤ margin
		rhs := math.Pow(margin/(detect*sd), 2) - 1/float64(nb)
		if rhs <= 0 {
			return 0, true
		}
		if k := int(math.Ceil(1 / rhs)); k > need {
			need = k
		}
	}
	if need < 0 {
		return 0, true
	}
	if need <= nn {
		// Enough runs for the margin, and still undecided (the medians
		// differ by about the margin): twice as many.
		need = 2 * nn
	}
	return need - nn, false
}

// moreTogether is how many runs more a side needs when both sides grow
// (one bench measures both): detect·sd·√(2/n) ≤ margin, 4 at least (the U
// test's fewest for α), twice nn when nn is already enough.
func moreTogether(nn int, sd, margin float64) int {
	need := 4
	if sd > 0 {
		if k := int(math.Ceil(2 * math.Pow(detect*sd/margin, 2))); k > need {
			need = k
		}
	}
	if need <= nn {
		need = 2 * nn
	}
	return need - nn
}

// canReach tells whether the U test can reach α at all with samples of
// nb and nn: its smallest two-sided p-value is 2 ÷ C(nb+nn, nb).
func canReach(nb, nn int) bool {
	if nb == 0 || nn == 0 {
		return false
	}
	return 2/binomial(nb+nn, nb) < stat.Alpha
}

// minRuns is the fewest new runs against a baseline of nb with which the
// U test can reach α; -1 when none can (nb too small), up to 100.
func minRuns(nb int) int {
	for n := 1; n <= 100; n++ {
		if canReach(nb, n) {
			return n
		}
	}
	return -1
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// spread is the runs' standard deviation for the power the U test has: a
// robust one, 1.4826 × the median absolute deviation of each sample about
// its median, pooled, so that one run on a stalled host (a rank is all the
// U test takes from it) does not make every change look undecidable; the
// plain standard deviation when that is 0 (most runs alike, a few not).
func spread(a, b []float64) float64 {
	ss, df := 0.0, 0
	for _, s := range [][]float64{a, b} {
		if len(s) < 2 {
			continue
		}
		m := stat.Median(s)
		dev := make([]float64, len(s))
		for i, v := range s {
			dev[i] = math.Abs(v - m)
		}
		mad := 1.4826 * stat.Median(dev)
		ss += mad * mad * float64(len(s)-1)
		df += len(s) - 1
	}
	if df == 0 || ss == 0 {
		return pooledSD(a, b)
	}
	return math.Sqrt(ss / float64(df))
}

// pooledSD is the standard deviation of both samples about their own
// means, pooled.
func pooledSD(a, b []float64) float64 {
	ss, df := 0.0, 0
	for _, s := range [][]float64{a, b} {
		if len(s) < 2 {
			continue
		}
		mean := 0.0
		for _, v := range s {
			mean += v
		}
		mean /= float64(len(s))
		for _, v := range s {
			ss += (v - mean) * (v - mean)
		}
		df += len(s) - 1
	}
	if df == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(df))
}

// routeVerdict: any regression; else a failed gate; else anything
// undecided; else any improvement; else the same.
func routeVerdict(r *Route) string {
	if len(r.FailedRuns) > 0 {
		return Failed
	}
	has := map[string]bool{}
	for _, c := range r.Cells {
		if !c.measuredEmpty {
			has[c.Verdict] = true
		}
	}
	for _, v := range []string{Regressed, Unknown, Improved} {
		if has[v] {
			return v
		}
	}
	return Same
}

// routeMore is the most runs any undecided measure of the route asks for
// (thin: some measure needs a larger baseline instead).
func routeMore(r *Route) (n int, thin bool) {
	for _, c := range r.Cells {
		if c.Verdict != Unknown || c.measuredEmpty {
			continue
		}
		thin = thin || c.BaselineThin
		if c.More > n {
			n = c.More
		}
	}
	return n, thin
}

// failedRuns lists the runs in which the new folder's window of this row
// failed a gate, from the summary's failures.
func failedRuns(fs []summary.Failure, stack, window string) []int {
	seen := map[int]bool{}
	var out []int
	for _, f := range fs {
		if f.Stack == stack && f.Case == window && !seen[f.Run] {
			seen[f.Run] = true
			out = append(out, f.Run)
		}
	}
	sort.Ints(out)
	return out
}

// request is a window's request in a phrase: "GET /json", "POST /items at 500 req/s".
func request(w study.Window) string {
	s := w.Case.Method + " " + w.Case.Path
	if w.Case.Method == "" {
		s = "GET " + w.Case.Path
	}
	if w.Rate > 0 {
		s += fmt.Sprintf(" at %s req/s", rate(w.Rate))
	}
	return strings.TrimSpace(s)
}
