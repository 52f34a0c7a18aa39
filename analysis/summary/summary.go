// Package summary computes what a reader sees from a results folder that
// package results has read: per study and case, each stack's cells as
// median (min–max) over runs, ratios to a baseline taken within each run,
// the I/O and resource tables, generator saturation, annotations, and the
// correctness gates. It is pure: the same folder gives the same Summary.
package summary

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/profile"
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
	"stacklab/analysis/study"
	"stacklab/formats/oha"
	"stacklab/formats/quietlog"
)

// Summary is everything summary.md, summary.json and report.html show.
type Summary struct {
	Folder    string `json:"folder"`
	Study     string `json:"study"`
	StudyHash string `json:"study_hash,omitempty"`
	Profile   string `json:"profile"`
	// ProfileTable is the profile's whole table (manifest profile_table);
	// nil for a folder from before the table.
	ProfileTable *profile.Profile     `json:"profile_table,omitempty"`
	Label        string               `json:"label,omitempty"`
	SharedHost   string               `json:"shared_host,omitempty"`
	HostProfile  string               `json:"host_profile"`
	Host         manifest.Fingerprint `json:"host"`
	// Engines: each role's Docker engine, when the host profile named
	// engines (manifest.Engine); absent for one local engine.
	Engines          map[string]manifest.Engine `json:"engines,omitempty"`
	LabCommit        string                     `json:"lab_commit"`
	StartedAt        string                     `json:"started_at"`
	EndedAt          string                     `json:"ended_at"`
	Complete         bool                       `json:"complete"`
	IncompleteReason string                     `json:"incomplete_reason,omitempty"`
	Tools            []KV                       `json:"tools"`
	Parameters       manifest.Parameters        `json:"parameters"`
	Runs             []int                      `json:"runs"`
	Discarded        []string                   `json:"discarded"`
	Options          Options                    `json:"options"`
	Sections         []Section                  `json:"sections"`
	Resources        []ResourceRow              `json:"resources"`
	// CPUMode is "quota" when the app ran under a CPU quota (its CPUs in
	// CPUQuota), and every table has a throttled % column; empty in cpuset
	// mode. Capacity holds the capacity cases (capacity.go).
	CPUMode  string          `json:"app_cpu_mode,omitempty"`
	CPUQuota string          `json:"app_cpu_quota,omitempty"`
	Capacity []CapacityTable `json:"capacity,omitempty"`
	// SelfTest is the A/A self-test's reading, for a study with a
	// [selftest] table (selftest.go).
	SelfTest *SelfTest `json:"selftest,omitempty"`
	// Canary is the CPU-speed canary's reading of the run (canary.go), nil
	// for runs measured without one.
	Canary *Canary `json:"cpu_canary,omitempty"`
	// Within is a paired run's per-slice ratios (within.go), nil for
	// another profile.
	Within  *Within `json:"paired,omitempty"`
	readErr error
	// SamplerCost compares a case measured with and without the cgroup
	// sampler in the same run and container; empty when not measured.
	SamplerCost []SamplerPair `json:"sampler_cost"`
	Annotations []Annotation  `json:"annotations"`
	Failures    []Failure     `json:"failures"`
	// Verify is the line of the run's verify and parity record
	// (formats/verdict: "verify: 9/9 PASS, parity: N identical"); empty for
	// a folder measured before the bench kept one.
	Verify string `json:"verify,omitempty"`
	// Spread sets each row's run-to-run spread in req/s beside its spread
	// in CPU time per request (cpu.go); empty with one run.
	Spread []SpreadRow `json:"spread,omitempty"`
	// SamplerCPU is the sampler's own CPU time as a share of the load
	// generator's CPUs over the windows that recorded it (cpu.go).
	SamplerCPU *SamplerCPU `json:"sampler_cpu,omitempty"`
	// Explanations name the cause of every outlier tail, answer gap of
	// GapMs or more and failed capacity step (explain.go); Explained says
	// the run kept latency timelines at all (older runs did not, and show
	// no explanations section).
	Explanations []Explanation `json:"explanations,omitempty"`
	Explained    bool          `json:"explained,omitempty"`
	// TimelineCost compares a case measured with and without the latency
	// timeline and hiccup meters in the same run and container.
	TimelineCost []SamplerPair `json:"timeline_cost,omitempty"`
	// HiccupCost compares a case measured with and without the hiccup
	// meters alone (the paired profile's paired_check = "hiccup").
	HiccupCost []SamplerPair `json:"hiccup_cost,omitempty"`
	// HiccupCPU is the hiccup meters' own CPU time, per role.
	HiccupCPU []HiccupCPU `json:"hiccup_cpu,omitempty"`
	// NotQuiet lists each kept run that was not measured on a quiet host,
	// with the gate's reasons (manifest.NotQuiet); absent when every
	// kept run was quiet or has no evidence.
	NotQuiet []NotQuiet `json:"not_quiet,omitempty"`
	// Headroom is the load generator's, measured once a run against the
	// stub in the app's place (headroom.go); nil when not measured.
	Headroom *Headroom `json:"headroom,omitempty"`
}

// NotQuiet is one kept run whose host was not quiet, and why.
type NotQuiet struct {
	Run int      `json:"run"`
	Why []string `json:"why"`
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

// CaseTable is one case: a row per stack and window (a case that sweeps
// connections or rates has several windows).
type CaseTable struct {
	Case string `json:"case"`
	Rows []Row  `json:"rows"`
	// Ceilings are oha straight against the mock upstream, one per window,
	// when the case asks for them; their Stack names what they are.
	Ceilings []Row `json:"ceilings,omitempty"`
	// Swept is set when the case has more than one window.
	Swept bool `json:"swept,omitempty"`
	// Alone names the case this one is read against.
	Alone string `json:"alone,omitempty"`
	// ErrorsReported: errors are a result column, not a gate.
	ErrorsReported bool `json:"errors_reported,omitempty"`
	// GoodStatus lists the statuses that count as good, when the case
	// names its own (else any 2xx).
	GoodStatus []int `json:"good_status,omitempty"`
}

// Row is one stack in one case. Per-run slices are indexed like
// Summary.Runs; NaN never appears (a run without a value is left out of
// the ranges and shown as null in PerRun).
type Row struct {
	Stack string `json:"stack"`
	// Window and Setting name the window of a case that sweeps.
	Window  string `json:"window,omitempty"`
	Setting string `json:"setting,omitempty"`
	// LittlesLaw is the ceiling a case waiting on the upstream has:
	// min(connections, the row's request slots) ÷ the delay, in req/s.
	LittlesLaw *float64 `json:"littles_law_req_per_sec,omitempty"`
	// ErrorRate is errors ÷ answers over all runs, for a case whose
	// errors are reported rather than gated.
	ErrorRate *float64 `json:"error_rate,omitempty"`
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
	// CPUPerReq is the app's CPU time per good answer in µs (cpu.go);
	// nil when no run has a timeline with CPU figures.
	CPUPerReq *stat.Range `json:"cpu_us_per_request,omitempty"`
	// BytesPerAnswer is the bytes one answer puts on the wire: its head and
	// chunk framing as verify captured them (answers.json) plus the body
	// bytes per answer oha counted, median over runs; nil when no run
	// captured this case's route.
	BytesPerAnswer *stat.Range `json:"bytes_per_answer,omitempty"`
	// cpuAt is CPU time per request at each run's index (NaN: not
	// measured), for comparisons within a run and between rows (not
	// written: the summary shows its range).
	cpuAt []float64
	// RowsCheck holds, per run, for a case with a rows check: the rows its
	// table gained against the good answers.
	RowsCheck []RowsCheck `json:"rows_check,omitempty"`
	// JobPace holds, per run, for a case whose job pace is measured: what
	// the app's worker wrote and left (docs/app.md, "The background worker").
	JobPace []JobPace `json:"job_pace,omitempty"`
	// Writers is the case's companion load's 2xx rate.
	Writers *stat.Range `json:"writers_req_per_sec,omitempty"`
	// Throttled is throttled periods ÷ periods over the window (quota mode).
	Throttled *stat.Range `json:"throttled_share,omitempty"`
	// VsAlone is, for a case read against another (its Alone), the ratio of
	// this rate to the same stack's rate in that case, within each run.
	VsAlone *stat.Range `json:"vs_alone,omitempty"`
	// Failed lists the runs whose window failed a gate or was not measured.
	Failed []int `json:"failed_runs,omitempty"`
	// AnswerGapMs is the longest stretch with requests in flight and no
	// answer (the latency timeline), over runs; nil for windows measured
	// without a timeline. Warming lists the runs whose window was still
	// warming up (a rising trend, a warm-up that never got steady, or a
	// JIT still compiling at its top tier). Falling lists the runs whose
	// window's answers fell through it (latencyline.FallingRatio).
	AnswerGapMs *stat.Range `json:"answer_gap_ms,omitempty"`
	Warming     []int       `json:"warming_runs,omitempty"`
	Falling     []int       `json:"falling_runs,omitempty"`
}

// GeneratorUse says whether oha itself was the limit.
type GeneratorUse struct {
	Known          bool    `json:"known"`
	MaxShare       float64 `json:"max_cpu_share"`
	SaturatedRuns  []int   `json:"saturated_runs,omitempty"`
	UnmeasuredRuns []int   `json:"unmeasured_runs,omitempty"`
}

// JobPace is one run's audit rows written from the window's start to
// AfterS after its end, their rate over that time, and the jobs left.
type JobPace struct {
	Run     int     `json:"run"`
	Done    int64   `json:"done"`
	PerSec  float64 `json:"per_sec"`
	Backlog int64   `json:"backlog"`
	AfterS  float64 `json:"after_s"`
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
	// Memory splits RSS from page cache (memory.go), when measured.
	Memory *MemorySplit `json:"memory,omitempty"`
}

// SamplerPair is one run's req/s of a case with the sampler and without.
type SamplerPair struct {
	Run     int     `json:"run"`
	Stack   string  `json:"stack"`
	Case    string  `json:"case"`
	With    float64 `json:"with_sampler_req_per_sec"`
	Without float64 `json:"without_sampler_req_per_sec"`
	// Rechecked: With is the mean of the measured window and its recheck.
	Rechecked bool `json:"rechecked,omitempty"`
	// AllInstruments: the slice without the sampler ran without the
	// latency timeline and the hiccup meters too, and the measured one
	// with all three (the paired profile's pair, scripts/lib/bench-paired.sh):
	// the pair is what every instrument costs together.
	AllInstruments bool `json:"all_instruments,omitempty"`
}

// Change is the sampler's effect on req/s: -0.02 means 2% fewer with it.
func (sp SamplerPair) Change() float64 { return sp.With/sp.Without - 1 }

// timelineCost pairs each window measured again without the latency
// timeline and the hiccup meters with its measured self.
func timelineCost(f *results.Folder) []SamplerPair {
	return costPairs(f, func(w *results.Window) *oha.Result { return w.NoTimeline })
}

// costPairs pairs each window with the same case measured again without
// one kind of watching (without picks that window; nil: not measured).
func costPairs(f *results.Folder, without func(*results.Window) *oha.Result) []SamplerPair {
	out := []SamplerPair{}
	for _, r := range f.Runs {
		for _, sr := range r.Stacks {
			for _, w := range sr.Windows {
				wo := without(&w)
				if w.Result == nil || wo == nil || wo.GoodPerSec() <= 0 {
					continue
				}
				out = append(out, SamplerPair{Run: r.N, Stack: sr.Stack, Case: w.Case,
					With: withRate(&w), Without: wo.GoodPerSec(), Rechecked: w.Recheck != nil})
			}
		}
	}
	return out
}

// withRate is a window's req/s with every instrument on: the mean of the
// measured window and its recheck where the run kept one.
func withRate(w *results.Window) float64 {
	if w.Recheck != nil && w.Recheck.GoodPerSec() > 0 {
		return (w.Result.GoodPerSec() + w.Recheck.GoodPerSec()) / 2
	}
	return w.Result.GoodPerSec()
}

// markFindings puts each row's answer gaps and warming runs in its cells.
// The findings of a row are in run order (explainWindows walks the runs).
func (s *Summary) markFindings(found map[string][]windowFinding) {
	for si := range s.Sections {
		for ci := range s.Sections[si].Cases {
			ct := &s.Sections[si].Cases[ci]
			for ri := range ct.Rows {
				r := &ct.Rows[ri]
				id := ct.Case
				if r.Window != "" {
					id = r.Window
				}
				fs := found[r.Stack+"\x00"+id]
				if len(fs) == 0 {
					continue
				}
				var gaps []float64
				for _, x := range fs {
					gaps = append(gaps, x.gapMs)
					if x.warming {
						r.Warming = append(r.Warming, x.run)
					} else if x.falling {
						r.Falling = append(r.Falling, x.run)
					}
				}
				r.AnswerGapMs = rangeOrNil(gaps)
			}
		}
	}
}

func samplerCost(f *results.Folder) []SamplerPair {
	pairs := costPairs(f, func(w *results.Window) *oha.Result { return w.NoSampler })
	m := f.Manifest
	if m == nil || !(m.Profile == "paired" || m.ProfileTable != nil && m.ProfileTable.Paired) {
		return pairs
	}
	// The paired profile's slice without the sampler has no oha store and
	// no hiccup meters either; the measured slice had them when it kept
	// their records.
	for i := range pairs {
		sp := &pairs[i]
		for _, r := range f.Runs {
			if w := r.Window(sp.Stack, sp.Case); r.N == sp.Run && w != nil && w.LatencyPath != "" && len(w.Hiccups) > 0 {
				sp.AllInstruments = true
			}
		}
	}
	return pairs
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
		Folder: f.Name, Study: m.Study, StudyHash: m.StudyHash, Profile: m.Profile, ProfileTable: m.ProfileTable, Label: m.Label, SharedHost: m.SharedHost,
		HostProfile: m.Host.Profile, Host: m.Host.Fingerprint, Engines: m.Host.Engines,
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
		if slices.Contains(s.Runs, r.Run) {
			if why := notQuiet(m, r); len(why) > 0 {
				s.NotQuiet = append(s.NotQuiet, NotQuiet{Run: r.Run, Why: why})
			}
		}
	}
	s.CPUMode, s.CPUQuota = quotaOf(f)
	for _, sec := range f.Study.Sections {
		out := Section{Study: sec.Name}
		for _, c := range sec.Cases {
			if c.Ramp != nil {
				continue // a capacity table (capacity.go)
			}
			if ct, ok := s.caseTable(f, c, opt.Baseline); ok {
				out.Cases = append(out.Cases, ct)
			}
		}
		if len(out.Cases) > 0 {
			s.Sections = append(s.Sections, out)
		}
	}
	s.sortFailures()
	s.relateAlone()
	s.Resources = resources(f)
	s.SamplerCost = samplerCost(f)
	s.Spread = spreads(s.Sections)
	s.Headroom = headroom(f, s.Sections)
	s.SamplerCPU = samplerCPU(f)
	var err error
	if s.Annotations, err = annotate(f); err != nil {
		return nil, err
	}
	ex, found, err := explainWindows(f)
	if err != nil {
		return nil, err
	}
	s.Explanations, s.Explained = ex, len(found) > 0
	s.markFindings(found)
	s.TimelineCost = timelineCost(f)
	s.HiccupCost = costPairs(f, func(w *results.Window) *oha.Result { return w.NoHiccup })
	s.HiccupCPU = hiccupCPU(f)
	s.SelfTest = selfTest(f.Study.SelfTest, s.Sections)
	selfTestPause(f, s.SelfTest, s.Explanations, found)
	s.Canary = canary(f, s.Sections)
	if f.VerifyErr != nil {
		return nil, f.VerifyErr
	}
	if rec := f.Verify; rec != nil {
		s.Verify = rec.Header()
	}
	if m.Profile == "paired" {
		s.Within = WithinRun(s, "")
	}
	return s, s.capacity(f)
}

// caseTable builds case c's table from the windows the manifest lists;
// false when none of them was part of this run.
func (s *Summary) caseTable(f *results.Folder, c *study.Case, baseline string) (CaseTable, bool) {
	m := f.Manifest
	var wins []study.Window
	for _, w := range c.Windows(m.Parameters.Connections) {
		if contains(m.Parameters.Cases, w.ID) {
			wins = append(wins, w)
		}
	}
	if len(wins) == 0 {
		return CaseTable{}, false
	}
	t := CaseTable{Case: c.Name, Swept: len(c.Windows(1)) > 1, Alone: c.Alone, ErrorsReported: c.Errors == "report", GoodStatus: c.Status}
	for _, w := range wins {
		if c.Ceiling {
			if row := s.ceiling(f, w); row != nil {
				t.Ceilings = append(t.Ceilings, *row)
			}
		}
	}
	perRow := map[string][]float64{} // by stack and window; NaN where a run has no value
	for _, stack := range m.Parameters.Stacks {
		for _, w := range wins {
			row, vals := s.row(f, stack, w)
			perRow[stack+"\x00"+w.ID] = vals
			t.Rows = append(t.Rows, row)
		}
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		id := c.Name
		if r.Window != "" {
			id = r.Window
		}
		if ratios := stat.Ratios(perRow[r.Stack+"\x00"+id], perRow[baseline+"\x00"+id]); len(ratios) > 0 {
			rg := stat.Of(ratios)
			r.Ratio = &rg
		}
	}
	return t, true
}

// row is one stack in one window, over the runs; vals are its req/s per
// run, NaN where a run has none.
func (s *Summary) row(f *results.Folder, stack string, w study.Window) (Row, []float64) {
	c := w.Case
	row := Row{Stack: stack}
	row.Throttled = s.throttledOver(f, stack, w.ID)
	if w.ID != c.Name {
		row.Window, row.Setting = w.ID, w.Setting
	}
	if c.UpstreamDelayMs > 0 {
		if info, ok := f.Manifest.Rows[stack]; ok {
			n := w.Connections
			if info.RequestSlots > 0 && info.RequestSlots < n {
				n = info.RequestSlots
			}
			row.LittlesLaw = ptr(float64(n) * 1000 / float64(c.UpstreamDelayMs))
		}
	}
	var rps, p50, p99, writers, vals, cpu, wire []float64
	var answers int64
	for _, r := range f.Runs {
		win := r.Window(stack, w.ID)
		if win == nil || win.Result == nil {
			cause := "not measured (no window in raw/)"
			if win != nil {
				cause = "not measured: " + win.Failed
			}
			s.fail(&row, Failure{r.N, stack, w.ID, cause})
			row.PerRun = append(row.PerRun, nil)
			row.P99PerRun = append(row.P99PerRun, nil)
			row.cpuAt = append(row.cpuAt, math.NaN())
			vals = append(vals, math.NaN())
			row.Generator.UnmeasuredRuns = append(row.Generator.UnmeasuredRuns, r.N)
			continue
		}
		res := win.Result
		v := res.GoodPerSecWith(c.Good)
		rps = append(rps, v)
		row.PerRun = append(row.PerRun, ptr(v))
		vals = append(vals, v)
		row.addLatency(res, &p50, &p99)
		row.Cut += res.DeadlineAborts()
		answers += res.GoodWith(c.Good)
		if b, ok := bytesPerAnswer(r, stack, c, res); ok {
			wire = append(wire, b)
		}
		if us, ok := CPUPerRequest(win, res.GoodWith(c.Good)); ok {
			cpu = append(cpu, us)
			row.cpuAt = append(row.cpuAt, us)
		} else {
			row.cpuAt = append(row.cpuAt, math.NaN())
		}
		s.gate(&row, win, res, c.Good, c.Errors == "report", "")
		if win.Writers != nil {
			writers = append(writers, win.Writers.GoodPerSec())
			s.gate(&row, win, win.Writers, oha.Is2xx, c.Errors == "report", "writers: ")
		}
		if win.Jobs != nil {
			row.JobPace = append(row.JobPace, JobPace{Run: r.N, Done: win.Jobs.Done, PerSec: win.Jobs.PerSec(), Backlog: win.Jobs.Backlog, AfterS: win.Jobs.AfterS})
		}
		if win.Rows != nil && c.Rows != "" {
			rc := RowsCheck{Run: r.N, Rows: win.Rows.After - win.Rows.Before, Good: res.GoodWith(c.Good), Cut: res.DeadlineAborts()}
			row.RowsCheck = append(row.RowsCheck, rc)
			if !rc.OK() {
				cause := fmt.Sprintf("the database gained %d rows but %d writes answered 2xx", rc.Rows, rc.Good)
				if rc.Cut > 0 {
					cause += fmt.Sprintf(", %d cut at the deadline", rc.Cut)
				}
				s.fail(&row, Failure{r.N, stack, w.ID, cause + " (" + win.RelPath + ")"})
			}
		}
		if lg := win.Loadgen; lg != nil {
			row.Generator.Known = true
			row.Generator.MaxShare = math.Max(row.Generator.MaxShare, lg.Share())
			if lg.Saturated {
				row.Generator.SaturatedRuns = append(row.Generator.SaturatedRuns, r.N)
			}
		} else {
			row.Generator.UnmeasuredRuns = append(row.Generator.UnmeasuredRuns, r.N)
		}
	}
	if c.Errors == "report" && answers+row.Errors > 0 {
		row.ErrorRate = ptr(float64(row.Errors) / float64(answers+row.Errors))
	}
	row.ReqPerSec, row.P50Ms, row.P99Ms = stat.Of(rps), stat.Of(p50), stat.Of(p99)
	row.CPUPerReq = rangeOrNil(cpu)
	row.BytesPerAnswer = rangeOrNil(wire)
	if len(writers) > 0 {
		wr := stat.Of(writers)
		row.Writers = &wr
	}
	return row, vals
}

// addLatency adds one run's p50 and p99 (ms) to the lists the row's cells
// are taken from, and its p99 to the row's per-run values (nil when oha
// wrote none).
func (row *Row) addLatency(res *oha.Result, p50, p99 *[]float64) {
	if x, ok := res.Percentile("p50"); ok {
		*p50 = append(*p50, x*1000)
	}
	if x, ok := res.Percentile("p99"); ok {
		*p99 = append(*p99, x*1000)
		row.P99PerRun = append(row.P99PerRun, ptr(x*1000))
	} else {
		row.P99PerRun = append(row.P99PerRun, nil)
	}
}

// gate applies the correctness gates to one oha result of a window: an
// answer good does not accept, or a connection error, fails the summary
// unless the case reports its errors instead.
func (s *Summary) gate(row *Row, w *results.Window, res *oha.Result, good func(int) bool, report bool, prefix string) {
	for _, b := range res.BadWith(good) {
		row.Errors += b.Count
		if !report {
			s.fail(row, Failure{w.Run, w.Stack, w.Case, fmt.Sprintf("%s%d answers with status %d", prefix, b.Count, b.Code)})
		}
	}
	for _, e := range res.ConnErrors() {
		row.Errors += e.Count
		if !report {
			s.fail(row, Failure{w.Run, w.Stack, w.Case, fmt.Sprintf("%s%d connection errors: %s", prefix, e.Count, e.Message)})
		}
	}
}

func (s *Summary) fail(row *Row, f Failure) {
	s.Failures = append(s.Failures, f)
	if n := len(row.Failed); n == 0 || row.Failed[n-1] != f.Run {
		row.Failed = append(row.Failed, f.Run)
	}
}

// ceiling builds the row of window w's ceiling measurement (nil when no
// run has one). Its errors fail the gate like a stack's (ceilingGate):
// every stack's row of the case is read against it.
func (s *Summary) ceiling(f *results.Folder, w study.Window) *Row {
	row := Row{Stack: "ceiling: oha → mock upstream"}
	if w.ID != w.Case.Name {
		row.Window, row.Setting = w.ID, w.Setting
	}
	var rps, p50, p99 []float64
	for _, r := range f.Runs {
		cl := r.Ceilings[w.ID]
		if cl == nil {
			row.PerRun, row.P99PerRun = append(row.PerRun, nil), append(row.P99PerRun, nil)
			continue
		}
		res, lg := cl.Result, cl.Loadgen
		v := res.GoodPerSec()
		rps = append(rps, v)
		row.PerRun = append(row.PerRun, ptr(v))
		row.addLatency(res, &p50, &p99)
		s.ceilingGate(&row, r.N, w, res)
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
		row := ResourceRow{Stack: stack, ImageSizeBytes: f.Manifest.Images[f.Study.StackOf(stack)].SizeBytes}
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
		row.Memory = memorySplit(f, stack)
		out = append(out, row)
	}
	return out
}

// discardReason picks a readable reason out of a discarded-run record,
// whose shape the bench owns: its "reason" field when it has one, else the
// quiet watch's report, in formats/quietlog's format (the gate's reasons,
// or CPU used outside the lab and the busiest process).
func discardReason(raw []byte) string {
	var v struct {
		Reason string `json:"reason"`
		quietlog.Report
	}
	if err := jsonUnmarshal(raw, &v); err == nil {
		if v.Reason != "" {
			return v.Reason
		}
		if len(v.Why) > 0 {
			return strings.Join(v.Why, "; ")
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

// notQuiet is why kept run r was not quiet, from its evidence; evidence
// that does not read says so rather than passing for quiet.
func notQuiet(m *manifest.Manifest, r manifest.Run) []string {
	q, err := manifest.ParseQuiet(r.Quiet)
	if err != nil {
		return []string{err.Error()}
	}
	return manifest.NotQuiet(q, m.RunHost(r).QuietLoad())
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

// relateAlone sets VsAlone of each case read against another (its Alone).
func (s *Summary) relateAlone() {
	tables := map[string]*CaseTable{}
	for i := range s.Sections {
		for j := range s.Sections[i].Cases {
			tables[s.Sections[i].Cases[j].Case] = &s.Sections[i].Cases[j]
		}
	}
	for _, under := range tables {
		alone := tables[under.Alone]
		if under.Alone == "" || alone == nil {
			continue
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
