package summary

import (
	"sort"

	"stacklab/analysis/stat"
	"stacklab/analysis/study"
)

// The A/A self-test (a study with [selftest], studies/selftest.toml): A
// and its twin are one image under two names, so every difference the U
// test flags between them is a false positive; each planted row is A with
// a known amount of extra CPU work per request, which the test should
// flag. Cells compare the per-run values of a row's case with A's, as
// `compare` does between two folders.

// SelfTest is the self-test's reading.
type SelfTest struct {
	A    string `json:"a"`
	Twin string `json:"twin"`
	// Pairs compares A with the twin first, then with each planted row.
	Pairs []SelfTestPair `json:"pairs"`
	// FalsePositives of Comparisons: the A-against-twin cells flagged.
	FalsePositives int `json:"false_positives"`
	Comparisons    int `json:"comparisons"`
	// Smallest is, per case and metric, the planted row with the smallest
	// measured slowdown that was flagged in the slower direction.
	Smallest []SelfTestSmallest `json:"smallest"`
	// TooFew is set when the runs are too few for the U test ever to
	// reach its level: then nothing can be flagged.
	TooFew string `json:"too_few,omitempty"`
	// Pause is the planted pause's reading (explain.go), nil when the
	// study plants none.
	Pause *SelfTestPause `json:"pause,omitempty"`
}

// SelfTestPair is one row against A, case by case.
type SelfTestPair struct {
	Row     string         `json:"row"`
	Planted bool           `json:"planted"`
	Cells   []SelfTestCell `json:"cells"`
}

// Self-test metrics, in their column order.
const (
	MetricRate = "req_per_sec"
	MetricP99  = "p99_ms"
	MetricCPU  = "cpu_us_per_request"
)

// SelfTestMetrics are the metrics compared, in column order.
var SelfTestMetrics = []string{MetricRate, MetricP99, MetricCPU}

// SelfTestCell is one case and metric of a pair.
type SelfTestCell struct {
	Case   string  `json:"case"`
	Metric string  `json:"metric"`
	A      float64 `json:"median_a"`
	B      float64 `json:"median_b"`
	Change float64 `json:"change"` // B ÷ A − 1 of the medians
	P      float64 `json:"p"`
	// Flagged: the U test found the difference significant; Slower: in
	// the direction a slowdown moves the metric (req/s down, p99 and CPU
	// time up).
	Flagged bool   `json:"flagged"`
	Slower  bool   `json:"slower"`
	Delta   string `json:"delta"`
}

// SelfTestSmallest is the smallest planted slowdown one metric saw in one
// case ("" Row when it saw none).
type SelfTestSmallest struct {
	Case   string `json:"case"`
	Metric string `json:"metric"`
	Row    string `json:"row,omitempty"`
	// CPUChange is that row's measured CPU time per request against A's.
	CPUChange float64 `json:"cpu_change,omitempty"`
}

// Cell finds a pair's cell (nil when the case or metric is missing).
func (p *SelfTestPair) Cell(c, metric string) *SelfTestCell {
	for i := range p.Cells {
		if p.Cells[i].Case == c && p.Cells[i].Metric == metric {
			return &p.Cells[i]
		}
	}
	return nil
}

func selfTest(st *study.SelfTest, sections []Section) *SelfTest {
	if st == nil {
		return nil
	}
	out := &SelfTest{A: st.A, Twin: st.Twin}
	rows, cases := caseRows(sections)
	// the runs a row was measured in (the U test takes no missing run)
	perRun := func(r *Row, metric string) []float64 { return measured(r.values(metric)) }
	for _, name := range append([]string{st.Twin}, st.Planted...) {
		pair := SelfTestPair{Row: name, Planted: name != st.Twin}
		for _, c := range cases {
			a, b := rows[rowKey{st.A, c}], rows[rowKey{name, c}]
			if a == nil || b == nil {
				continue
			}
			for _, m := range SelfTestMetrics {
				t, ok := stat.UTest(perRun(a, m), perRun(b, m))
				if !ok {
					continue
				}
				if t.TooFew != "" {
					out.TooFew = t.TooFew
				}
				cell := SelfTestCell{Case: c, Metric: m, A: t.MedianA, B: t.MedianB, P: t.P, Flagged: t.Significant, Delta: t.Delta}
				if t.MedianA != 0 {
					cell.Change = t.MedianB/t.MedianA - 1
				}
				cell.Slower = (m == MetricRate && cell.Change < 0) || (m != MetricRate && cell.Change > 0)
				pair.Cells = append(pair.Cells, cell)
				if !pair.Planted {
					out.Comparisons++
					if cell.Flagged {
						out.FalsePositives++
					}
				}
			}
		}
		out.Pairs = append(out.Pairs, pair)
	}
	for _, c := range cases {
		// The planted rows by their measured slowdown in this case.
		planted := []*SelfTestPair{}
		for i := range out.Pairs {
			if out.Pairs[i].Planted && out.Pairs[i].Cell(c, MetricCPU) != nil {
				planted = append(planted, &out.Pairs[i])
			}
		}
		sort.SliceStable(planted, func(i, j int) bool {
			return planted[i].Cell(c, MetricCPU).Change < planted[j].Cell(c, MetricCPU).Change
		})
		for _, m := range SelfTestMetrics {
			sm := SelfTestSmallest{Case: c, Metric: m}
			for _, p := range planted {
				if cell := p.Cell(c, m); cell != nil && cell.Flagged && cell.Slower {
					sm.Row, sm.CPUChange = p.Row, p.Cell(c, MetricCPU).Change
					break
				}
			}
			out.Smallest = append(out.Smallest, sm)
		}
	}
	return out
}

// rowKey names a row of a case table that does not sweep: its stack (or
// variant) and case.
type rowKey struct{ stack, c string }

// caseRows indexes the rows of every case that does not sweep, and lists
// the cases in the summary's order.
func caseRows(sections []Section) (map[rowKey]*Row, []string) {
	rows := map[rowKey]*Row{}
	var cases []string
	seen := map[string]bool{}
	for i := range sections {
		for j := range sections[i].Cases {
			ct := &sections[i].Cases[j]
			if !seen[ct.Case] {
				seen[ct.Case] = true
				cases = append(cases, ct.Case)
			}
			for k := range ct.Rows {
				if ct.Rows[k].Window == "" {
					rows[rowKey{ct.Rows[k].Stack, ct.Case}] = &ct.Rows[k]
				}
			}
		}
	}
	return rows, cases
}
