// Package results reads a results folder (docs/results.md) into typed
// values: the manifest, and for every kept run, stack and case the window's
// oha result and the files beside it. It reads and checks; it computes
// nothing (that is package summary's work).
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"stacklab/analysis/manifest"
	"stacklab/analysis/study"
	"stacklab/formats/answer"
	"stacklab/formats/cpulist"
	"stacklab/formats/hiccuplog"
	"stacklab/formats/latencyline"
	"stacklab/formats/netlog"
	"stacklab/formats/oha"
	"stacklab/formats/pauses"
	"stacklab/formats/pglog"
	"stacklab/formats/speed"
	"stacklab/formats/steady"
	"stacklab/formats/timeline"
	"stacklab/formats/uplog"
	"stacklab/formats/verdict"
)

// Error is a fault in a results folder's file, worded for a one-line
// message: the path, then what is wrong.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Folder is one results folder, read.
type Folder struct {
	Dir      string // as given on the command line
	Name     string // the folder's base name, which the outputs show
	Manifest *manifest.Manifest
	// Study is the manifest's copy of the study, parsed: the cases, their
	// windows and how each is read.
	Study *study.Study
	Runs  []Run // the kept runs, by number; raw/discarded is never read
	// Verify is verify's record of the folder (raw/verify.json,
	// formats/verdict), nil when it has none; VerifyErr is why it could not
	// be read (the summary reports it).
	Verify    *verdict.Record
	VerifyErr error
}

// Run is one kept run: raw/run-N.
type Run struct {
	N    int
	Host manifest.Host
	// Ceilings are oha run straight against the mock upstream, keyed by the
	// window whose case asks for one (raw/run-N/<window>-ceiling.json).
	Ceilings map[string]*Ceiling
	// Headroom is the generator's: oha at the mock upstream's stub in the
	// app's place, once a run (raw/run-N/headroom.json; bench/plan,
	// headroom.go); nil when the run has none.
	Headroom *Ceiling
	// NetPath is the raw network path check beside the headroom
	// (raw/run-N/netpath.json, formats/netlog); nil when the run has none.
	NetPath *netlog.Result
	Stacks  []StackRun // in the manifest's order of stacks
}

// Window is the run's window id of stack, nil when the run has none.
func (r Run) Window(stack, id string) *Window {
	for i := range r.Stacks {
		if r.Stacks[i].Stack != stack {
			continue
		}
		for j := range r.Stacks[i].Windows {
			if r.Stacks[i].Windows[j].Case == id {
				return &r.Stacks[i].Windows[j]
			}
		}
	}
	return nil
}

// Ceiling is one ceiling window: oha's result and its CPU use.
type Ceiling struct {
	Result  *oha.Result
	Loadgen *Loadgen
}

// StackRun is one stack within a run: raw/run-N/<stack>.
type StackRun struct {
	Stack     string
	Resources *Resources // nil when resources.json is absent
	Windows   []Window   // in the manifest's order of cases
	// Answers are verify's captures of each route's answer on the wire
	// (answers.json, formats/answer), nil when absent (older folders).
	Answers []answer.Answer
}

// Window is one measured case: raw/run-N/<stack>/<case>.*.
type Window struct {
	Run   int
	Stack string
	Case  string
	// Failed holds the one-line cause from <case>.error: the bench could
	// not measure this case at all. Result is nil then.
	Failed  string
	Result  *oha.Result
	Writers *oha.Result // <case>.writers.json, the capped writers
	// NoSampler is the same case measured again without the cgroup sampler
	// (<case>.nosampler.json), once per run: what watching costs.
	NoSampler *oha.Result
	Rows      *Rows    // <case>.rows.json, write cases
	Jobs      *Jobs    // <case>.jobs.json, a case whose job pace is measured
	Loadgen   *Loadgen // <case>.loadgen.json
	// Sampler is the cgroup sampler's own CPU time during the window
	// (<case>.sampler.json, same format; absent in older folders).
	Sampler *Loadgen
	// TimelinePath is the window's cgroup timeline (<case>.cgroup.jsonl),
	// "" when absent; Load reads it into Cgroup.
	TimelinePath string
	// Cgroup is the cgroup timeline, read whole and by its ends.
	Cgroup Cgroup
	// PGPath is the Postgres server's samples over the window
	// (<case>.pg.jsonl, bench/pgsample: a row on the lab's Postgres),
	// "" when absent; Load reads it into PG.
	PGPath string
	// PG is the Postgres server's samples, nil when absent; PGErr is why
	// they could not be read (reported by the figure that needs them).
	PG    []pglog.Sample
	PGErr error
	// Canary holds the CPU-speed canary's readings around the window
	// (<case>.canary.jsonl, formats/speed; absent in older folders).
	Canary []speed.Reading
	// RelPath is the oha file's path inside the folder, for messages.
	RelPath string
	// Steps are a capacity case's steps (capacity.go): its window is a
	// folder, and Result is nil.
	Steps []Step
	// NoTimeline is the case measured again, once per run, with the
	// sampler but without the latency timeline and the hiccup meters
	// (<case>.notimeline.json): what those cost.
	NoTimeline *oha.Result
	// NoHiccup is the case measured again with every instrument but the
	// hiccup meters (<case>.nohiccup.json: the paired profile's slices of a
	// study whose paired_check is hiccup): what the meters alone cost.
	NoHiccup *oha.Result
	// Recheck is the same case once more with every instrument on, after
	// the two without (<case>.recheck.json): the costs are taken against
	// the mean of it and the measured window, which the order then cannot
	// bias.
	Recheck *oha.Result
	// LatencyPath is the window's latency timeline (<case>.latency.jsonl,
	// package latencyline), "" when absent; Load reads it into Latency.
	LatencyPath string
	// Latency is the latency timeline, nil when absent; LatencyErr is why
	// it could not be read (reported by the figure that needs it).
	Latency    *latencyline.Timeline
	LatencyErr error
	// Hiccups are the hiccup meters' records of the window, the app's CPUs
	// first (<case>.hiccup-app.jsonl, -loadgen), empty when not measured.
	Hiccups []hiccuplog.Log
	// Warmup is the window's warm-up to steady state (<case>.warmup.json),
	// nil for windows warmed for a fixed time (or not at all).
	Warmup *steady.Warmup
	// Pauses are the pauses the app's runtime reported during the window
	// (<case>.pauses.jsonl, package pauses), nil when it keeps none.
	Pauses []pauses.Pause
	// JIT is what the runtime's JIT compiled during the window, nil when
	// it logs no compilations.
	JIT *pauses.JIT
	// Upstream is the mock upstream's record of its own lateness over the
	// window (<case>.upstream.jsonl, formats/uplog), nil when it answered
	// nothing then or kept no record.
	Upstream *uplog.File
}

// Rows is a write case's row count around the window.
type Rows struct {
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// Jobs is a window's job pace (docs/app.md, "The background worker"): the
// audit rows the app's worker wrote from the window's start to AfterS
// seconds after its end, and the jobs still queued then.
type Jobs struct {
	Done    int64   `json:"done"`
	Backlog int64   `json:"backlog"`
	WindowS float64 `json:"window_s"`
	AfterS  float64 `json:"after_s"`
}

// PerSec is the worker's pace over the window and the time after it.
func (j Jobs) PerSec() float64 { return float64(j.Done) / (j.WindowS + j.AfterS) }

// Loadgen is the load generator's CPU use during the window.
type Loadgen struct {
	CPUs       string  `json:"cpus"`
	CPUSeconds float64 `json:"cpu_seconds"`
	WindowS    float64 `json:"window_s"`
	Saturated  bool    `json:"saturated"` // used more than SaturatedShare of its CPUs
}

// SaturatedShare is the share of its CPUs above which a load generator (or
// the lanes of a capacity step together) counts as saturated: its figures
// are then its own limit, not the app's. Written into the raw loadgen.json
// by record and read again by the capacity steps: the one definition.
const SaturatedShare = 0.9

// Share is the generator's CPU time as a fraction of the CPUs it had.
func (l *Loadgen) Share() float64 {
	n := cpulist.Count(l.CPUs)
	if n == 0 || l.WindowS <= 0 {
		return 0
	}
	return l.CPUSeconds / (l.WindowS * float64(n))
}

// Resources is a stack's boot time and memory in one run.
type Resources struct {
	BootMs           float64 `json:"boot_ms"`
	MemoryIdleBytes  int64   `json:"memory_idle_bytes"`
	MemoryAfterBytes int64   `json:"memory_after_bytes"`
	// Memory split (absent in older folders):
	// anonymous memory (RSS) apart from page cache, after boot and verify,
	// and after the full set of the row's cases: the largest over the
	// row's containers, each read when its last case ended (a fresh_db
	// case starts a new container). See record's resources.
	Memory *MemorySplit `json:"memory,omitempty"`
}

// MemorySplit is RSS and page cache of one row in one run, in bytes.
type MemorySplit struct {
	IdleAnonBytes  int64 `json:"idle_anon_bytes"`
	IdleFileBytes  int64 `json:"idle_file_bytes"`
	AfterAnonBytes int64 `json:"after_anon_bytes"`
	AfterFileBytes int64 `json:"after_file_bytes"`
	// Containers is how many containers the after figures are the largest of.
	Containers int `json:"containers"`
}

// Load reads and checks the results folder dir: manifest, checksums, and
// every raw file of every kept run. The first fault found is returned.
func Load(dir string) (*Folder, error) { return load(dir, false) }

// LoadInProgress reads a folder the bench is still writing, for its
// progress lines: there are no checksums yet, and the run in progress has
// only the rows measured so far. Never for a table that is kept.
func LoadInProgress(dir string) (*Folder, error) { return load(dir, true) }

func load(dir string, inProgress bool) (*Folder, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, &Error{dir, "no such results folder"}
	}
	if !st.IsDir() {
		return nil, &Error{dir, "not a folder"}
	}
	m, err := manifest.Read(dir)
	if err != nil {
		if _, e := os.Stat(filepath.Join(dir, manifest.FileName)); errors.Is(e, os.ErrNotExist) {
			if ents, _ := os.ReadDir(dir); len(ents) == 0 {
				return nil, &Error{dir, "empty folder (no manifest.json, no raw/)"}
			}
		}
		return nil, err
	}
	if !inProgress {
		if err := VerifyChecksums(dir); err != nil {
			return nil, err
		}
	}
	mpath := filepath.Join(dir, manifest.FileName)
	sty, err := StudyOf(mpath, m)
	if err != nil {
		return nil, err
	}
	f := &Folder{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), Manifest: m, Study: sty}
	nums, err := runNumbers(dir)
	if err != nil {
		return nil, err
	}
	if len(nums) == 0 {
		return nil, &Error{filepath.Join(dir, "raw"), "no run-N folder: nothing was measured"}
	}
	byNum := map[int]manifest.Run{}
	for _, r := range m.Runs {
		byNum[r.Run] = r
	}
	for _, n := range nums {
		run, err := loadRun(dir, m, n, inProgress)
		if err != nil {
			return nil, err
		}
		run.Host = m.Host
		if mr, ok := byNum[n]; ok {
			run.Host = m.RunHost(mr)
		}
		f.Runs = append(f.Runs, *run)
	}
	if err := checkOneHost(dir, f); err != nil {
		return nil, err
	}
	f.Verify, f.VerifyErr = verdict.Read(dir)
	f.readEvidence()
	return f, nil
}

// StudyOf parses the manifest's copy of its study and checks that it
// holds every window the manifest lists.
func StudyOf(mpath string, m *manifest.Manifest) (*study.Study, error) {
	if len(m.StudyFiles) == 0 {
		return nil, &Error{mpath, "no study_files (written before studies were files; `just adopt-study RUN studies/" + m.Study + ".toml` adds the copy)"}
	}
	files := make([]study.File, len(m.StudyFiles))
	for i, f := range m.StudyFiles {
		files[i] = study.File{Name: f.Name, Text: f.Text}
	}
	if m.StudyHash != "" && study.HashFiles(files) != m.StudyHash {
		return nil, &Error{mpath, "study_files do not match study_hash: the copy of the study was edited"}
	}
	st, err := study.FromFiles(mpath, files)
	if err != nil {
		return nil, &Error{mpath, "study_files: " + err.Error()}
	}
	for _, id := range m.Parameters.Cases {
		if _, ok := st.Window(id, m.Parameters.Connections); !ok {
			return nil, &Error{mpath, fmt.Sprintf("parameters.cases names %q, which is no window of the study it holds", id)}
		}
	}
	return st, nil
}

func checkOneHost(dir string, f *Folder) error {
	first := f.Runs[0]
	for _, r := range f.Runs[1:] {
		if !manifest.SameFingerprint(first.Host, r.Host) {
			return &Error{filepath.Join(dir, manifest.FileName), fmt.Sprintf(
				"holds more than one host: run %d on %s, run %d on %s; a table never mixes hosts",
				first.N, describeHost(first.Host), r.N, describeHost(r.Host))}
		}
	}
	return nil
}

func describeHost(h manifest.Host) string {
	fp := h.Fingerprint
	return fmt.Sprintf("%q (%s, %d cores, %d bytes, kernel %s)", h.Profile, fp.CPUModel, fp.Cores, fp.MemoryBytes, fp.Kernel)
}

// runNumbers lists the N of raw/run-N, in order.
func runNumbers(dir string) ([]int, error) {
	raw := filepath.Join(dir, "raw")
	ents, err := os.ReadDir(raw)
	if err != nil {
		return nil, &Error{raw, "missing (no raw files)"}
	}
	var nums []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "run-")
		if !ok || !e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return nil, &Error{filepath.Join(raw, e.Name()), "not a run folder (want run-N, N ≥ 1)"}
		}
		nums = append(nums, n)
	}
	sort.Ints(nums)
	return nums, nil
}

// NotMeasured is the failure of a window a folder in progress has no file
// for yet (LoadInProgress).
const NotMeasured = "not measured yet"

// loadRun reads run n; inProgress: a window with no file yet is one the
// bench has not come to (failed, "not measured yet"), not a fault.
func loadRun(dir string, m *manifest.Manifest, n int, inProgress bool) (*Run, error) {
	rel := filepath.Join("raw", "run-"+strconv.Itoa(n))
	run := &Run{N: n}
	run.Ceilings = map[string]*Ceiling{}
	for _, id := range m.Parameters.Cases {
		c, err := optionalCeiling(dir, filepath.Join(rel, id+"-ceiling"))
		if err != nil {
			return nil, err
		}
		if c != nil {
			run.Ceilings[id] = c
		}
	}
	var err error
	if run.Headroom, err = optionalCeiling(dir, filepath.Join(rel, "headroom")); err != nil {
		return nil, err
	}
	if p := filepath.Join(dir, rel, "netpath.json"); exists(p) {
		np, err := netlog.Read(p) // its errors begin with the path
		if err != nil {
			return nil, err
		}
		run.NetPath = &np
	}
	for _, stack := range m.Parameters.Stacks {
		sr := StackRun{Stack: stack}
		srel := filepath.Join(rel, stack)
		res := &Resources{}
		ok, err := optionalJSON(dir, filepath.Join(srel, "resources.json"), res)
		if err != nil {
			return nil, err
		}
		if ok {
			sr.Resources = res
		}
		if apath := filepath.Join(dir, srel, "answers.json"); exists(apath) {
			if sr.Answers, err = answer.ReadFile(apath); err != nil {
				return nil, &Error{Path: apath, Msg: strings.TrimPrefix(err.Error(), apath+": ")}
			}
		}
		for _, c := range m.Parameters.Cases {
			w, err := loadWindow(dir, srel, n, stack, c)
			if err != nil && inProgress && !exists(filepath.Join(dir, srel, c+".json")) {
				w, err = &Window{Run: n, Stack: stack, Case: c, RelPath: filepath.Join(srel, c+".json"), Failed: NotMeasured}, nil
			}
			if err != nil {
				return nil, err
			}
			sr.Windows = append(sr.Windows, *w)
		}
		run.Stacks = append(run.Stacks, sr)
	}
	return run, nil
}

func loadWindow(dir, srel string, n int, stack, c string) (*Window, error) {
	base := filepath.Join(srel, c)
	w := &Window{Run: n, Stack: stack, Case: c, RelPath: base + ".json"}
	if b, err := os.ReadFile(filepath.Join(dir, base+".error")); err == nil {
		w.Failed = firstLine(string(b))
		if w.Failed == "" {
			w.Failed = "failed (empty .error file)"
		}
		return w, nil
	}
	if st, err := os.Stat(filepath.Join(dir, base)); err == nil && st.IsDir() {
		return w, loadSteps(dir, base, w)
	}
	r, err := oha.Read(filepath.Join(dir, base+".json"))
	if err != nil {
		return nil, err
	}
	w.Result = r
	if w.Writers, err = optionalOha(dir, base+".writers.json"); err != nil {
		return nil, err
	}
	if w.NoSampler, err = optionalOha(dir, base+".nosampler.json"); err != nil {
		return nil, err
	}
	if w.NoTimeline, err = optionalOha(dir, base+".notimeline.json"); err != nil {
		return nil, err
	}
	if w.Recheck, err = optionalOha(dir, base+".recheck.json"); err != nil {
		return nil, err
	}
	if w.NoHiccup, err = optionalOha(dir, base+".nohiccup.json"); err != nil {
		return nil, err
	}
	if lpath := filepath.Join(dir, base+".latency.jsonl"); exists(lpath) {
		w.LatencyPath = lpath
	}
	if w.Hiccups, err = readHiccups(filepath.Join(dir, base)); err != nil {
		return nil, err
	}
	if w.Pauses, w.JIT, err = readPauses(filepath.Join(dir, base+".pauses.jsonl")); err != nil {
		return nil, err
	}
	if w.Upstream, err = readUpstream(filepath.Join(dir, base+".upstream.jsonl")); err != nil {
		return nil, err
	}
	if wpath := filepath.Join(dir, base+".warmup.json"); exists(wpath) {
		if w.Warmup, err = steady.Read(wpath); err != nil {
			return nil, &Error{Path: wpath, Msg: strings.TrimPrefix(err.Error(), wpath+": ")}
		}
	}
	rows := &Rows{}
	if ok, err := optionalJSON(dir, base+".rows.json", rows); err != nil {
		return nil, err
	} else if ok {
		w.Rows = rows
	}
	jobs := &Jobs{}
	if ok, err := optionalJSON(dir, base+".jobs.json", jobs); err != nil {
		return nil, err
	} else if ok {
		if jobs.Done < 0 || jobs.Backlog < 0 || jobs.WindowS <= 0 || jobs.AfterS < 0 {
			p := filepath.Join(dir, base+".jobs.json")
			return nil, &Error{Path: p, Msg: "done and backlog must be counts, window_s above 0"}
		}
		w.Jobs = jobs
	}
	lg := &Loadgen{}
	if ok, err := optionalJSON(dir, base+".loadgen.json", lg); err != nil {
		return nil, err
	} else if ok {
		w.Loadgen = lg
	}
	sm := &Loadgen{}
	if ok, err := optionalJSON(dir, base+".sampler.json", sm); err != nil {
		return nil, err
	} else if ok {
		w.Sampler = sm
	}
	if tpath := filepath.Join(dir, base+".cgroup.jsonl"); exists(tpath) {
		w.TimelinePath = tpath
	}
	if ppath := filepath.Join(dir, base+".pg.jsonl"); exists(ppath) {
		w.PGPath = ppath
	}
	if cpath := filepath.Join(dir, base+".canary.jsonl"); exists(cpath) {
		if w.Canary, err = speed.ReadFile(cpath); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Samples is the window's cgroup timeline, as Load read it: nil when there
// is none, or the *Error that kept it from being read.
func (w *Window) Samples() ([]timeline.Sample, error) { return w.Cgroup.Samples, w.Cgroup.Err }

// Cgroup is a cgroup timeline as Load read it, whole and by its ends; a
// fault is kept, not returned by Load: the figures that need the timeline
// report it, and those that do not never look (a corrupt timeline fails
// no table that does not read it).
type Cgroup struct {
	// Samples are every line, a last line cut mid-write (the sampler was
	// stopped) dropped and the lines before it kept; Err is any other bad
	// line, an *Error naming file and line (Samples nil then).
	Samples []timeline.Sample
	Err     error
	// First and Last are the first and the last complete line as
	// timeline.ReadEnds reads them (what a counter's change over the
	// window needs); Several is false when there are fewer than two, and
	// EndsErr is a first or last line that does not parse.
	First, Last Sample
	Several     bool
	EndsErr     error
}

// Sample is one line of a cgroup timeline (formats/timeline).
type Sample = timeline.Sample

// readCgroup reads the cgroup timeline at path ("" for none).
func readCgroup(path string) Cgroup {
	var c Cgroup
	if path == "" {
		return c
	}
	c.Samples, c.Err = readTimeline(path)
	c.First, c.Last, c.Several, c.EndsErr = timeline.ReadEnds(path)
	return c
}

// readTimeline reads a cgroup timeline whole: a last line cut mid-write is
// dropped and the lines before it kept; any other bad line is an *Error
// naming file and line.
func readTimeline(path string) ([]timeline.Sample, error) {
	ts, err := timeline.ReadFile(path)
	var le *timeline.LineError
	switch {
	case errors.As(err, &le) && le.Truncated != "":
		return ts, nil
	case errors.As(err, &le):
		return nil, &Error{fmt.Sprintf("%s:%d", path, le.Line), "corrupt cgroup timeline line: " + le.Err.Error()}
	case err != nil:
		return nil, &Error{path, err.Error()}
	}
	return ts, nil
}

// readLatency reads the latency timeline at path ("" for none).
func readLatency(path string) (*latencyline.Timeline, error) {
	if path == "" {
		return nil, nil
	}
	lt, err := latencyline.Read(path)
	if err != nil {
		return nil, err
	}
	return &lt, nil
}

// readEvidence reads every window's timelines and Postgres samples, the
// bulk of what a folder holds, spread over the CPUs; each result goes to
// its own window, so nothing depends on the order they finish in.
func (f *Folder) readEvidence() {
	var jobs []func()
	for ri := range f.Runs {
		for si := range f.Runs[ri].Stacks {
			for wi := range f.Runs[ri].Stacks[si].Windows {
				w := &f.Runs[ri].Stacks[si].Windows[wi]
				jobs = append(jobs, func() {
					w.Cgroup = readCgroup(w.TimelinePath)
					w.Latency, w.LatencyErr = readLatency(w.LatencyPath)
					if w.PGPath != "" {
						w.PG, w.PGErr = pglog.Read(w.PGPath)
					}
				})
			}
		}
	}
	parallel(jobs)
}

// parallel runs jobs over the CPUs and returns when all are done.
func parallel(jobs []func()) {
	next := make(chan func())
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range next {
				job()
			}
		}()
	}
	for _, job := range jobs {
		next <- job
	}
	close(next)
	wg.Wait()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// optionalCeiling reads oha's result at dir/base.json and the generator's
// CPU time beside it (base.loadgen.json); nil when there is no result.
func optionalCeiling(dir, base string) (*Ceiling, error) {
	res, err := optionalOha(dir, base+".json")
	if err != nil || res == nil {
		return nil, err
	}
	c := &Ceiling{Result: res}
	lg := &Loadgen{}
	if ok, err := optionalJSON(dir, base+".loadgen.json", lg); err != nil {
		return nil, err
	} else if ok {
		c.Loadgen = lg
	}
	return c, nil
}

func optionalOha(dir, rel string) (*oha.Result, error) {
	path := filepath.Join(dir, rel)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return oha.Read(path)
}

// optionalJSON decodes dir/rel into v, refusing unknown fields; false when
// the file is absent.
func optionalJSON(dir, rel string, v any) (bool, error) {
	path := filepath.Join(dir, rel)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, &Error{path, err.Error()}
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return false, &Error{path, "truncated or corrupt JSON: " + err.Error()}
	}
	return true, nil
}

// readUpstream reads an upstream lateness record where there is one (nil,
// nil when there is none); a bad one is an error naming its file and line.
func readUpstream(path string) (*uplog.File, error) {
	if !exists(path) {
		return nil, nil
	}
	f, err := uplog.Read(path) // its errors begin with the path
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// readPauses reads a pauses file where there is one (nil, nil, nil when
// not): the pauses, and what the JIT compiled when the runtime logged it.
func readPauses(path string) ([]pauses.Pause, *pauses.JIT, error) {
	if !exists(path) {
		return nil, nil, nil
	}
	h, ps, err := pauses.Read(path)
	if err != nil {
		return nil, nil, &Error{Path: path, Msg: strings.TrimPrefix(err.Error(), path+": ")}
	}
	return ps, h.JIT, nil
}
