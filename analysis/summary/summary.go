// Package summary computes what a reader sees from a results folder that
// package results has read: per study and case, each stack's cells as
// median (min–max) over runs, ratios to a baseline taken within each run,
// the I/O and resource tables, generator saturation, annotations, and the
// correctness gates. It is pure: the same folder gives the same Summary.
package summary

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/oha"
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
)

// Summary is everything summary.md, summary.json and report.html show.
type Summary struct {
	Folder           string               `json:"folder"`
	Study            string               `json:"study"`
	Profile          string               `json:"profile"`
	Label            string               `json:"label,omitempty"`
	HostProfile      string               `json:"host_profile"`
	Host             manifest.Fingerprint `json:"host"`
	LabCommit        string               `json:"lab_commit"`
	StartedAt        string               `json:"started_at"`
	EndedAt          string               `json:"ended_at"`
	Complete         bool                 `json:"complete"`
	IncompleteReason string               `json:"incomplete_reason,omitempty"`
	Tools            []KV                 `json:"tools"`
	Parameters       manifest.Parameters  `json:"parameters"`
	Runs             []int                `json:"runs"`
	Discarded        []string             `json:"discarded"`
	Options          Options              `json:"options"`
	Sections         []Section            `json:"sections"`
	// UpstreamCeiling is oha straight against the mock upstream, shown as
	// a row of the upstream table; GeneratorCeiling is oha's own limit,
	// shown as a row of the up table. Their Stack names what they are.
	UpstreamCeiling  *Row          `json:"upstream_ceiling,omitempty"`
	GeneratorCeiling *Row          `json:"generator_ceiling,omitempty"`
	Resources        []ResourceRow `json:"resources"`
	// SamplerCost compares a case measured with and without the cgroup
	// sampler in the same run and container; empty when not measured.
	SamplerCost []SamplerPair `json:"sampler_cost"`
	Annotations []Annotation  `json:"annotations"`
	Failures    []Failure     `json:"failures"`
}

// Options are the choices a reader made on the command line; reproduce
// reads them back from summary.json to derive the same bytes.
type Options struct {
	Baseline string `json:"baseline"`
}

// KV is one name and value, kept as a list so the order is fixed.
type KV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Section is one study's cases.
type Section struct {
	Study string      `json:"study"`
	Cases []CaseTable `json:"cases"`
}

// CaseTable is one case: a row per stack.
type CaseTable struct {
	Case string `json:"case"`
	Rows []Row  `json:"rows"`
}

// Row is one stack in one case. Per-run slices are indexed like
// Summary.Runs; NaN never appears (a run without a value is left out of
// the ranges and shown as null in PerRun).
type Row struct {
	Stack string `json:"stack"`
	// ReqPerSec counts 2xx answers only, per second of the window.
	ReqPerSec stat.Range   `json:"req_per_sec"`
	PerRun    []*float64   `json:"req_per_sec_per_run"`
	Ratio     *stat.Range  `json:"ratio_to_baseline,omitempty"`
	P50Ms     stat.Range   `json:"p50_ms"`
	P99Ms     stat.Range   `json:"p99_ms"`
	P99PerRun []*float64   `json:"p99_ms_per_run"`
	Errors    int64        `json:"errors"`          // non-2xx answers and connection errors, all runs
	Cut       int64        `json:"deadline_aborts"` // requests cut by the window's end: allowed
	Generator GeneratorUse `json:"generator"`
	// RowsMatch holds, per run, "rows = 2xx" for write cases: the row count
	// the database gained against the 2xx answers.
	RowsCheck []RowsCheck `json:"rows_check,omitempty"`
	// Writers is the capped writers' 2xx rate (read-under-writes).
	Writers *stat.Range `json:"writers_req_per_sec,omitempty"`
	// VsAlone is, for read-under-writes, the ratio of this rate to the same
	// stack's read alone, taken within each run.
	VsAlone *stat.Range `json:"vs_read_alone,omitempty"`
	// Failed lists the runs whose window failed a gate or was not measured.
	Failed []int `json:"failed_runs,omitempty"`
}

// GeneratorUse says whether oha itself was the limit.
type GeneratorUse struct {
	Known          bool    `json:"known"`
	MaxShare       float64 `json:"max_cpu_share"`
	SaturatedRuns  []int   `json:"saturated_runs,omitempty"`
	UnmeasuredRuns []int   `json:"unmeasured_runs,omitempty"`
}

// RowsCheck is one run's row count against its 2xx count.
type RowsCheck struct {
	Run  int   `json:"run"`
	Rows int64 `json:"rows"`
	Good int64 `json:"good"`
	// Cut is the writes oha abandoned at the deadline: the server may
	// still have committed them, so up to Cut extra rows are allowed.
	Cut int64 `json:"deadline_aborts"`
}

// OK tells whether the row count agrees with the 2xx answers.
func (rc RowsCheck) OK() bool { return rc.Rows >= rc.Good && rc.Rows <= rc.Good+rc.Cut }

// ResourceRow is one stack's footprint.
type ResourceRow struct {
	Stack          string      `json:"stack"`
	BootMs         *stat.Range `json:"boot_ms,omitempty"`
	MemIdleBytes   *stat.Range `json:"memory_idle_bytes,omitempty"`
	MemAfterBytes  *stat.Range `json:"memory_after_bytes,omitempty"`
	ImageSizeBytes int64       `json:"image_size_bytes"`
}

// SamplerPair is one run's req/s of a case with the sampler and without.
type SamplerPair struct {
	Run     int     `json:"run"`
	Stack   string  `json:"stack"`
	Case    string  `json:"case"`
	With    float64 `json:"with_sampler_req_per_sec"`
	Without float64 `json:"without_sampler_req_per_sec"`
}

// Change is the sampler's effect on req/s: -0.02 means 2% fewer with it.
func (sp SamplerPair) Change() float64 { return sp.With/sp.Without - 1 }

func samplerCost(f *results.Folder) []SamplerPair {
	out := []SamplerPair{}
	for _, r := range f.Runs {
		for _, sr := range r.Stacks {
			for _, w := range sr.Windows {
				if w.Result == nil || w.NoSampler == nil || w.NoSampler.GoodPerSec() <= 0 {
					continue
				}
				out = append(out, SamplerPair{Run: r.N, Stack: sr.Stack, Case: w.Case,
					With: w.Result.GoodPerSec(), Without: w.NoSampler.GoodPerSec()})
			}
		}
	}
	return out
}

// Failure is one correctness gate that failed.
type Failure struct {
	Run   int    `json:"run"`
	Stack string `json:"stack"`
	Case  string `json:"case"`
	Cause string `json:"cause"`
}

func (f Failure) String() string {
	return fmt.Sprintf("run %d, %s, %s: %s", f.Run, f.Stack, f.Case, f.Cause)
}

// Study names and their cases, in the order tables show them.
var studyCases = []struct {
	study string
	cases []string
}{
	{"pages", []string{"up", "json", "items", "page"}},
	{"io", []string{"upstream", "write", "read", "read-under-writes"}},
}

// StudyOf names the study a case belongs to ("other" for a case the lab
// does not know, which is still shown).
func StudyOf(c string) string {
	for _, s := range studyCases {
		for _, k := range s.cases {
			if k == c {
				return s.study
			}
		}
	}
	return "other"
}

// Compute derives the Summary of f. baseline "" means the first stack.
func Compute(f *results.Folder, opt Options) (*Summary, error) {
	m := f.Manifest
	if len(m.Parameters.Stacks) == 0 {
		return nil, &results.Error{Path: f.Dir + "/" + manifest.FileName, Msg: "parameters.stacks is empty"}
	}
	if opt.Baseline == "" {
		opt.Baseline = m.Parameters.Stacks[0]
	}
	if !contains(m.Parameters.Stacks, opt.Baseline) {
		return nil, fmt.Errorf("--baseline %s: not a stack of this run (stacks: %s)", opt.Baseline, strings.Join(m.Parameters.Stacks, ", "))
	}
	s := &Summary{
		Folder: f.Name, Study: m.Study, Profile: m.Profile, Label: m.Label,
		HostProfile: m.Host.Profile, Host: m.Host.Fingerprint,
		LabCommit: m.LabCommit, StartedAt: m.StartedAt, EndedAt: m.EndedAt,
		Complete: m.Complete, IncompleteReason: m.IncompleteReason,
		Parameters: m.Parameters, Options: opt,
		Discarded: []string{}, Annotations: []Annotation{}, Failures: []Failure{},
	}
	for _, name := range sortedKeys(m.Tools) {
		s.Tools = append(s.Tools, KV{name, m.Tools[name]})
	}
	for _, r := range f.Runs {
		s.Runs = append(s.Runs, r.N)
	}
	for _, r := range m.Runs {
		for _, d := range r.Discarded {
			s.Discarded = append(s.Discarded, fmt.Sprintf("run %d: %s", r.Run, discardReason(d)))
		}
	}
	s.UpstreamCeiling = ceiling(f, "ceiling: oha → mock upstream", func(r results.Run) (*oha.Result, *results.Loadgen) {
		return r.UpstreamCeiling, r.UpstreamCeilingLoadgen
	})
	s.GeneratorCeiling = ceiling(f, "ceiling: oha alone", func(r results.Run) (*oha.Result, *results.Loadgen) {
		return r.GeneratorCeiling, r.GeneratorCeilingLoadgen
	})

	for _, sc := range studyCases {
		sec := Section{Study: sc.study}
		for _, c := range orderedCases(m.Parameters.Cases, sc.study) {
			sec.Cases = append(sec.Cases, s.caseTable(f, c, opt.Baseline))
		}
		if len(sec.Cases) > 0 {
			s.Sections = append(s.Sections, sec)
		}
	}
	if other := orderedCases(m.Parameters.Cases, "other"); len(other) > 0 {
		sec := Section{Study: "other"}
		for _, c := range other {
			sec.Cases = append(sec.Cases, s.caseTable(f, c, opt.Baseline))
		}
		s.Sections = append(s.Sections, sec)
	}
	s.sortFailures()
	s.relateReads()
	s.Resources = resources(f)
	s.SamplerCost = samplerCost(f)
	var err error
	if s.Annotations, err = annotate(f); err != nil {
		return nil, err
	}
	return s, nil
}

// orderedCases lists the cases of study present in cases, in the lab's
// order for known studies and the manifest's for the rest.
func orderedCases(cases []string, study string) []string {
	var out []string
	if study == "other" {
		for _, c := range cases {
			if StudyOf(c) == "other" {
				out = append(out, c)
			}
		}
		return out
	}
	for _, sc := range studyCases {
		if sc.study != study {
			continue
		}
		for _, c := range sc.cases {
			if contains(cases, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func (s *Summary) caseTable(f *results.Folder, c, baseline string) CaseTable {
	t := CaseTable{Case: c}
	perStack := map[string][]float64{} // NaN where a run has no value
	for _, stack := range f.Manifest.Parameters.Stacks {
		row := Row{Stack: stack}
		var rps, p50, p99, writers []float64
		var vals []float64
		for _, r := range f.Runs {
			w := window(r, stack, c)
			v := math.NaN()
			if w == nil || w.Result == nil {
				cause := "not measured (no window in raw/)"
				if w != nil {
					cause = "not measured: " + w.Failed
				}
				s.fail(&row, Failure{r.N, stack, c, cause})
				row.PerRun = append(row.PerRun, nil)
				row.P99PerRun = append(row.P99PerRun, nil)
				vals = append(vals, v)
				row.Generator.UnmeasuredRuns = append(row.Generator.UnmeasuredRuns, r.N)
				continue
			}
			res := w.Result
			v = res.GoodPerSec()
			rps = append(rps, v)
			row.PerRun = append(row.PerRun, ptr(v))
			vals = append(vals, v)
			if x, ok := res.Percentile("p50"); ok {
				p50 = append(p50, x*1000)
			}
			if x, ok := res.Percentile("p99"); ok {
				p99 = append(p99, x*1000)
				row.P99PerRun = append(row.P99PerRun, ptr(x*1000))
			} else {
				row.P99PerRun = append(row.P99PerRun, nil)
			}
			row.Cut += res.DeadlineAborts()
			s.gate(&row, w, res, "")
			if w.Writers != nil {
				writers = append(writers, w.Writers.GoodPerSec())
				s.gate(&row, w, w.Writers, "writers: ")
			}
			if w.Rows != nil {
				writes := res
				if w.Writers != nil {
					writes = w.Writers
				}
				rc := RowsCheck{Run: r.N, Rows: w.Rows.After - w.Rows.Before, Good: writes.Good(), Cut: writes.DeadlineAborts()}
				row.RowsCheck = append(row.RowsCheck, rc)
				if !rc.OK() {
					cause := fmt.Sprintf("the database gained %d rows but %d writes answered 2xx", rc.Rows, rc.Good)
					if rc.Cut > 0 {
						cause += fmt.Sprintf(", %d cut at the deadline", rc.Cut)
					}
					s.fail(&row, Failure{r.N, stack, c, cause + " (" + w.RelPath + ")"})
				}
			}
			if lg := w.Loadgen; lg != nil {
				row.Generator.Known = true
				row.Generator.MaxShare = math.Max(row.Generator.MaxShare, lg.Share())
				if lg.Saturated {
					row.Generator.SaturatedRuns = append(row.Generator.SaturatedRuns, r.N)
				}
			} else {
				row.Generator.UnmeasuredRuns = append(row.Generator.UnmeasuredRuns, r.N)
			}
		}
		row.ReqPerSec, row.P50Ms, row.P99Ms = stat.Of(rps), stat.Of(p50), stat.Of(p99)
		if len(writers) > 0 {
			w := stat.Of(writers)
			row.Writers = &w
		}
		perStack[stack] = vals
		t.Rows = append(t.Rows, row)
	}
	for i := range t.Rows {
		if ratios := stat.Ratios(perStack[t.Rows[i].Stack], perStack[baseline]); len(ratios) > 0 {
			r := stat.Of(ratios)
			t.Rows[i].Ratio = &r
		}
	}
	return t
}

// gate applies the correctness gates to one oha result of a window.
func (s *Summary) gate(row *Row, w *results.Window, res *oha.Result, prefix string) {
	for _, b := range res.Bad() {
		row.Errors += b.Count
		s.fail(row, Failure{w.Run, w.Stack, w.Case, fmt.Sprintf("%s%d answers with status %d", prefix, b.Count, b.Code)})
	}
	for _, e := range res.ConnErrors() {
		row.Errors += e.Count
		s.fail(row, Failure{w.Run, w.Stack, w.Case, fmt.Sprintf("%s%d connection errors: %s", prefix, e.Count, e.Message)})
	}
}

func (s *Summary) fail(row *Row, f Failure) {
	s.Failures = append(s.Failures, f)
	if n := len(row.Failed); n == 0 || row.Failed[n-1] != f.Run {
		row.Failed = append(row.Failed, f.Run)
	}
}

func window(r results.Run, stack, c string) *results.Window {
	for i := range r.Stacks {
		if r.Stacks[i].Stack != stack {
			continue
		}
		for j := range r.Stacks[i].Windows {
			if r.Stacks[i].Windows[j].Case == c {
				return &r.Stacks[i].Windows[j]
			}
		}
	}
	return nil
}

// ceiling builds the row of a ceiling measurement. Its errors are shown
// but fail no gate: they are the generator's or the mock's, not a stack's.
func ceiling(f *results.Folder, label string, pick func(results.Run) (*oha.Result, *results.Loadgen)) *Row {
	row := Row{Stack: label}
	var rps, p50, p99 []float64
	for _, r := range f.Runs {
		res, lg := pick(r)
		if res == nil {
			row.PerRun, row.P99PerRun = append(row.PerRun, nil), append(row.P99PerRun, nil)
			continue
		}
		v := res.GoodPerSec()
		rps = append(rps, v)
		row.PerRun = append(row.PerRun, ptr(v))
		if x, ok := res.Percentile("p50"); ok {
			p50 = append(p50, x*1000)
		}
		if x, ok := res.Percentile("p99"); ok {
			p99 = append(p99, x*1000)
			row.P99PerRun = append(row.P99PerRun, ptr(x*1000))
		} else {
			row.P99PerRun = append(row.P99PerRun, nil)
		}
		for _, b := range res.Bad() {
			row.Errors += b.Count
		}
		for _, e := range res.ConnErrors() {
			row.Errors += e.Count
		}
		row.Cut += res.DeadlineAborts()
		if lg != nil {
			row.Generator.Known = true
			row.Generator.MaxShare = math.Max(row.Generator.MaxShare, lg.Share())
			if lg.Saturated {
				row.Generator.SaturatedRuns = append(row.Generator.SaturatedRuns, r.N)
			}
		}
	}
	if len(rps) == 0 {
		return nil
	}
	row.ReqPerSec, row.P50Ms, row.P99Ms = stat.Of(rps), stat.Of(p50), stat.Of(p99)
	return &row
}

func resources(f *results.Folder) []ResourceRow {
	var out []ResourceRow
	for _, stack := range f.Manifest.Parameters.Stacks {
		row := ResourceRow{Stack: stack, ImageSizeBytes: f.Manifest.Images[stack].SizeBytes}
		var boot, idle, after []float64
		for _, r := range f.Runs {
			for _, sr := range r.Stacks {
				if sr.Stack == stack && sr.Resources != nil {
					boot = append(boot, sr.Resources.BootMs)
					idle = append(idle, float64(sr.Resources.MemoryIdleBytes))
					after = append(after, float64(sr.Resources.MemoryAfterBytes))
				}
			}
		}
		if len(boot) > 0 {
			b, i, a := stat.Of(boot), stat.Of(idle), stat.Of(after)
			row.BootMs, row.MemIdleBytes, row.MemAfterBytes = &b, &i, &a
		}
		out = append(out, row)
	}
	return out
}

// discardReason picks a readable reason out of a discarded-run record,
// whose shape the bench owns: its "reason" field when it has one, else the
// quiet probe's evidence (CPU used outside the lab, the busiest process).
func discardReason(raw []byte) string {
	var v struct {
		Reason  string   `json:"reason"`
		Share   *float64 `json:"share"`
		WindowS float64  `json:"window_s"`
		Busiest []struct {
			Comm     string  `json:"comm"`
			CPUShare float64 `json:"cpu_share"`
		} `json:"busiest"`
	}
	if err := jsonUnmarshal(raw, &v); err == nil {
		if v.Reason != "" {
			return v.Reason
		}
		if v.Share != nil {
			// share is the gate's threshold: the evidence is the busiest process.
			s := fmt.Sprintf("a process outside the lab used more than %.2f of a CPU over the %g s run", *v.Share, v.WindowS)
			if len(v.Busiest) > 0 {
				s += fmt.Sprintf(" (busiest: %s, %.2f CPU)", v.Busiest[0].Comm, v.Busiest[0].CPUShare)
			}
			return s
		}
	}
	return strings.TrimSpace(string(raw))
}

func ptr(v float64) *float64 { return &v }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// relateReads sets read-under-writes' VsAlone from the read case.
func (s *Summary) relateReads() {
	var alone, under *CaseTable
	for i := range s.Sections {
		for j := range s.Sections[i].Cases {
			switch c := &s.Sections[i].Cases[j]; c.Case {
			case "read":
				alone = c
			case "read-under-writes":
				under = c
			}
		}
	}
	if alone == nil || under == nil {
		return
	}
	for i := range under.Rows {
		for _, a := range alone.Rows {
			if a.Stack != under.Rows[i].Stack {
				continue
			}
			if r := stat.Ratios(values(under.Rows[i].PerRun), values(a.PerRun)); len(r) > 0 {
				rg := stat.Of(r)
				under.Rows[i].VsAlone = &rg
			}
		}
	}
}

// values turns per-run pointers into floats, NaN for a missing run.
func values(p []*float64) []float64 {
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = math.NaN()
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

// sortFailures orders the failures by run, then stack and case in the
// manifest's order, so that stderr reads run by run.
func (s *Summary) sortFailures() {
	idx := func(list []string, x string) int {
		for i, v := range list {
			if v == x {
				return i
			}
		}
		return len(list)
	}
	sort.SliceStable(s.Failures, func(i, j int) bool {
		a, b := s.Failures[i], s.Failures[j]
		if a.Run != b.Run {
			return a.Run < b.Run
		}
		if sa, sb := idx(s.Parameters.Stacks, a.Stack), idx(s.Parameters.Stacks, b.Stack); sa != sb {
			return sa < sb
		}
		return idx(s.Parameters.Cases, a.Case) < idx(s.Parameters.Cases, b.Case)
	})
}
