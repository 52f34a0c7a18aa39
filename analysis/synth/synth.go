// Package synth writes synthetic results folders, shaped exactly like the
// bench's (docs/results.md), for the tests and the benchmark of
// analysis/. Its oha files follow oha 1.16.0's --output-format json layout
// (checked against the real output kept in formats/oha/testdata); its
// numbers are made up but deterministic.
package synth

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/formats/answer"
	"stacklab/formats/speed"
	"stacklab/formats/timeline"
)

// Spec describes a folder to write.
type Spec struct {
	// Study is a study file: the lab's studies/<Study>.toml when it has no
	// folder in it, else a path.
	Study  string
	Stacks []string
	Runs   int
	// Rate is each stack's req/s on the study's first window; the others
	// scale it down by their position.
	Rate map[string]float64
	// Timelines adds a <case>.cgroup.jsonl to every window.
	Timelines bool
	// Tails gives every window a long latency tail, so that summarize
	// reads every timeline (its slowest case).
	Tails bool
	Host  manifest.Host
	// Quota marks the run as measured in CPU quota mode, with throttled
	// periods in the timelines; GeneratorMax caps the req/s a capacity
	// ramp's generator can send (0: no cap). For a capacity case, Rate is
	// each stack's capacity (capacity.go).
	Quota        bool
	GeneratorMax float64
	// Canary adds CPU-speed canary readings around every window; in run 2
	// the first stack's first window ran on a CPU 25% slower, and its
	// req/s is 20% lower.
	Canary bool
	// Answers adds verify's answers.json to every stack's run: the second
	// stack's heads are 300 bytes longer and its bodies chunked.
	Answers bool
	// Paired marks the folder as the paired profile's (its runs are
	// slices); every run's rates share one factor (wobble), as a slow
	// stretch of the vCPU would give them.
	Paired bool
	// Extra goes in the manifest's parameters.extra (postgres_settings, say).
	Extra map[string]string
}

// Pages is a small pages-study spec with three runs of two stacks.
func Pages() Spec {
	return Spec{Study: "pages", Stacks: []string{"go-nethttp", "node-fastify"},
		Runs: 3, Rate: map[string]float64{"go-nethttp": 40000, "node-fastify": 15000}, Timelines: true, Host: LocalHost()}
}

// IO is a small io-study spec with three runs of two stacks.
func IO() Spec {
	return Spec{Study: "io", Stacks: []string{"go-nethttp", "node-fastify"},
		Runs: 3, Rate: map[string]float64{"go-nethttp": 40000, "node-fastify": 15000}, Timelines: true, Host: LocalHost()}
}

// LocalHost is the fingerprint of a 2-CPU machine like the lab's own.
func LocalHost() manifest.Host {
	return manifest.Host{Profile: "local",
		Settings: map[string]string{"APP_CPUS": "0", "LOADGEN_CPUS": "1"},
		Fingerprint: manifest.Fingerprint{Hostname: "lab1", CPUModel: "Test CPU @ 2.0GHz", Cores: 2, MemoryBytes: 25000000000,
			Kernel: "6.18.0", CgroupMode: "hybrid", VM: manifest.VM{DirtyRatio: 20, DirtyBackgroundRatio: 10}}}
}

// StudyPath is where a spec's study file is: in the lab's studies/ for a
// bare name.
func StudyPath(name string) string {
	if strings.ContainsRune(name, '/') {
		return name
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "studies", name+".toml")
		}
		up := filepath.Dir(dir)
		if up == dir {
			return filepath.Join("studies", name+".toml")
		}
		dir = up
	}
}

// Temp writes sp into a folder named name under the test's temporary
// folder and returns its path; a failure ends the test.
func Temp(t testing.TB, name string, sp Spec) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	return dir
}

// File writes text to path, its folders made as needed; a failure ends
// the test.
func File(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Write creates dir (which must not exist) and fills it.
func Write(dir string, sp Spec) error {
	st, err := study.Load(StudyPath(sp.Study))
	if err != nil {
		return err
	}
	wins := st.Windows(32)
	var ids []string
	for _, w := range wins {
		ids = append(ids, w.ID)
	}
	var files []manifest.StudyFile
	for _, f := range st.Files {
		files = append(files, manifest.StudyFile{Name: f.Name, Text: f.Text})
	}
	m := &manifest.Manifest{ManifestVersion: manifest.Version, Complete: true, LabCommit: "0123456789abcdef0123456789abcdef01234567",
		StartedAt: "2026-11-29T20:00:00Z", EndedAt: "2026-11-29T20:30:00Z", Study: st.Name, StudyFiles: files, StudyHash: st.Hash(),
		Profile: "full", Host: sp.Host,
		Parameters: manifest.Parameters{Runs: sp.Runs, WarmupS: 3, DurationS: 15, Connections: 32, Cases: ids, Stacks: sp.Stacks},
		Tools:      map[string]string{"oha": "1.16.0", "docker": "20.10.24+dfsg1", "go": "1.26.8"},
		Images:     map[string]manifest.Image{}, Failures: []manifest.Failure{}}
	if sp.Paired {
		m.Profile, m.Parameters.DurationS = "paired", 2
	}
	if sp.Quota {
		m.Parameters.Extra = map[string]string{"app_cpu_mode": "quota", "app_cpu_quota": "1"}
	}
	for k, v := range sp.Extra {
		if m.Parameters.Extra == nil {
			m.Parameters.Extra = map[string]string{}
		}
		m.Parameters.Extra[k] = v
	}
	for i, s := range sp.Stacks {
		m.Images[s] = manifest.Image{Tag: "stacklab/" + s + ":test", ID: "sha256:" + fmt.Sprint(i), SizeBytes: int64(20+60*i) << 20}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for run := 1; run <= sp.Runs; run++ {
		order := append([]string(nil), sp.Stacks...)
		if run%2 == 0 {
			for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
				order[i], order[j] = order[j], order[i]
			}
		}
		m.Runs = append(m.Runs, manifest.Run{Run: run, Order: order, Discarded: []json.RawMessage{}})
		rdir := filepath.Join(dir, "raw", "run-"+strconv.Itoa(run))
		wobble := 1 + 0.02*float64((run*7)%5-2) // ±4%, fixed per run
		for _, w := range wins {
			if !w.Case.Ceiling {
				continue
			}
			ceil := float64(w.Connections) * 1000 / float64(w.Case.UpstreamDelayMs) * 0.996
			if err := writeJSON(filepath.Join(rdir, w.ID+"-ceiling.json"), Oha(Window{Seconds: 15, OK: int64(ceil * 15 * wobble), P50: 0.1005, P99: 0.104})); err != nil {
				return err
			}
		}
		for si, stack := range sp.Stacks {
			sdir := filepath.Join(rdir, stack)
			res := map[string]int64{"boot_ms": int64(300 + 400*si + 10*run), "memory_idle_bytes": int64(12+30*si) << 20, "memory_after_bytes": int64(20+60*si+run) << 20}
			if err := writeJSON(filepath.Join(sdir, "resources.json"), res); err != nil {
				return err
			}
			if sp.Answers {
				var as []answer.Answer
				for _, w := range wins {
					a := answer.Answer{Method: "GET", Path: w.Case.Path, Status: 200, HeadBytes: 100 + 300*si, BodyBytes: 2, ContentBytes: 2,
						Framing: "content-length", Headers: []string{"content-length", "content-type", "date"}}
					if si == 1 {
						a.BodyBytes, a.Framing, a.Headers = 12, "chunked", []string{"content-type", "date", "etag", "transfer-encoding", "x-runtime"}
					}
					as = append(as, a)
				}
				if err := answer.WriteFile(filepath.Join(sdir, "answers.json"), as); err != nil {
					return err
				}
			}
			for wi, win := range wins {
				c := win.ID
				if win.Case.Ramp != nil {
					if err := writeRamp(filepath.Join(sdir, c), win.Case, sp.Rate[stack], sp, run); err != nil {
						return err
					}
					continue
				}
				rate := sp.Rate[stack] * scale(wi) * wobble
				slow := sp.Canary && run == 2 && si == 0 && wi == 0
				if slow {
					rate *= 0.8
				}
				if d := win.Case.UpstreamDelayMs; d > 0 {
					rate = float64(win.Connections) * 1000 / float64(d) * 0.957 * wobble / float64(si+1)
				}
				n := int64(rate * 15)
				p50 := 32 / rate
				w := Window{Seconds: 15, OK: n, P50: p50, P99: p50 * 4, Cut: 3}
				if sp.Tails {
					w.P999 = math.Max(0.05, p50*40)
				}
				if err := writeJSON(filepath.Join(sdir, c+".json"), Oha(w)); err != nil {
					return err
				}
				share := 0.55 + 0.1*float64(si)
				if err := writeJSON(filepath.Join(sdir, c+".loadgen.json"), results.Loadgen{CPUs: "1", CPUSeconds: share * 15, WindowS: 15, Saturated: share > results.SaturatedShare}); err != nil {
					return err
				}
				if win.Case.Rows != "" {
					if err := writeJSON(filepath.Join(sdir, c+".rows.json"), results.Rows{Before: 1000, After: 1000 + n}); err != nil {
						return err
					}
				}
				if cp := win.Case.Companion; cp != nil {
					wn := int64(cp.Rate * 15)
					if err := writeJSON(filepath.Join(sdir, c+".writers.json"), Oha(Window{Seconds: 15, OK: wn, P50: 0.002, P99: 0.01})); err != nil {
						return err
					}

				}
				if sp.Timelines {
					if err := WriteTimeline(filepath.Join(sdir, c+".cgroup.jsonl"), 15, false); err != nil {
						return err
					}
				}
				if sp.Canary {
					for _, label := range []string{"before app", "before loadgen", "after app", "after loadgen"} {
						ns := int64(7_000_000 + 10_000*((run+wi+si)%3))
						if slow && strings.HasSuffix(label, "app") {
							ns = ns * 5 / 4
						}
						cpus := map[bool]string{true: "0", false: "1"}[strings.HasSuffix(label, "app")]
						if err := speed.Append(filepath.Join(sdir, c+".canary.jsonl"), speed.Reading{Label: label, CPUs: cpus, Rounds: speed.Rounds, Tries: speed.Tries, BestNs: ns}); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	if err := manifest.Write(dir, m); err != nil {
		return err
	}
	return results.WriteChecksums(dir)
}

// scale is the share of the first window's rate the i-th one gets.
func scale(i int) float64 { return []float64{1, 0.9, 0.4, 0.3, 0.12, 0.1, 0.35, 0.3}[i%8] }

// Window holds what an oha file says about one window.
type Window struct {
	Seconds       float64
	OK            int64            // 200 answers
	Status        map[string]int64 // other statuses
	Errors        map[string]int64 // connection errors by message
	Cut           int64            // aborted due to deadline
	P50, P99      float64          // seconds
	P999, Slowest float64          // seconds; 0 means a short tail derived from P99
}

// ohaJSON mirrors oha 1.16.0's print_json field order.
type ohaJSON struct {
	Summary struct {
		SuccessRate    float64 `json:"successRate"`
		Total          float64 `json:"total"`
		Slowest        float64 `json:"slowest"`
		Fastest        float64 `json:"fastest"`
		Average        float64 `json:"average"`
		RequestsPerSec float64 `json:"requestsPerSec"`
		TotalData      int64   `json:"totalData"`
		SizePerRequest int64   `json:"sizePerRequest"`
		SizePerSec     float64 `json:"sizePerSec"`
	} `json:"summary"`
	ResponseTimeHistogram map[string]int64   `json:"responseTimeHistogram"`
	LatencyPercentiles    map[string]float64 `json:"latencyPercentiles"`
	RPS                   struct {
		Mean        float64            `json:"mean"`
		Stddev      float64            `json:"stddev"`
		Max         float64            `json:"max"`
		Min         float64            `json:"min"`
		Percentiles map[string]float64 `json:"percentiles"`
	} `json:"rps"`
	StatusCodeDistribution map[string]int64 `json:"statusCodeDistribution"`
	ErrorDistribution      map[string]int64 `json:"errorDistribution"`
}

// Oha returns an oha JSON document for w.
func Oha(w Window) []byte {
	var o ohaJSON
	answers := w.OK
	o.StatusCodeDistribution = map[string]int64{}
	if w.OK > 0 {
		o.StatusCodeDistribution["200"] = w.OK
	}
	for k, v := range w.Status {
		o.StatusCodeDistribution[k] = v
		answers += v
	}
	o.ErrorDistribution = map[string]int64{}
	var errs int64
	for k, v := range w.Errors {
		o.ErrorDistribution[k] = v
		errs += v
	}
	if w.Cut > 0 {
		o.ErrorDistribution["aborted due to deadline"] = w.Cut
	}
	p999, slowest := w.P999, w.Slowest
	if p999 == 0 {
		p999 = w.P99 * 1.2
	}
	if slowest == 0 {
		slowest = p999 * 1.3
	}
	o.Summary.SuccessRate = 1
	if answers+errs > 0 {
		o.Summary.SuccessRate = float64(answers) / float64(answers+errs)
	}
	o.Summary.Total = w.Seconds
	o.Summary.Slowest, o.Summary.Fastest, o.Summary.Average = slowest, w.P50/4, w.P50*1.1
	o.Summary.RequestsPerSec = float64(answers+errs) / w.Seconds
	o.Summary.TotalData = answers * 2
	o.Summary.SizePerRequest = 2
	o.Summary.SizePerSec = float64(answers*2) / w.Seconds
	o.LatencyPercentiles = map[string]float64{"p10": w.P50 * 0.6, "p25": w.P50 * 0.8, "p50": w.P50, "p75": w.P50 * 1.3,
		"p90": w.P50 * 1.8, "p95": w.P50 * 2.4, "p99": w.P99, "p99.9": p999, "p99.99": slowest * 0.95}
	o.ResponseTimeHistogram = map[string]int64{}
	for i := 1; i <= 11; i++ {
		o.ResponseTimeHistogram[strconv.FormatFloat(slowest*float64(i)/11, 'g', -1, 64)] = answers / 11
	}
	rate := float64(answers) / w.Seconds
	o.RPS.Mean, o.RPS.Stddev, o.RPS.Max, o.RPS.Min = rate, rate/10, rate*1.3, rate*0.5
	o.RPS.Percentiles = map[string]float64{"p10": rate * 0.8, "p25": rate * 0.9, "p50": rate, "p75": rate * 1.1, "p90": rate * 1.2,
		"p95": rate * 1.25, "p99": rate * 1.28, "p99.9": rate * 1.3, "p99.99": rate * 1.3}
	b, _ := json.MarshalIndent(o, "", "  ")
	return b
}

// WriteTimeline writes a cgroup timeline of seconds at 100 ms. With stalls,
// dirty+writeback climbs to the cgroup's dirty limit (20% of 256 MiB) every
// 4 s, with I/O pressure and CPU throttling while it sits there.
func WriteTimeline(path string, seconds int, stalls bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := timeline.NewWriter(f)
	limit := uint64(256 << 20)
	var usage, periods, throttled, throttledNs uint64
	for i := 1; i <= seconds*10; i++ {
		t := int64(i * 100)
		dirty, wb, io := uint64(2<<20), uint64(0), 0.5
		periods += 1
		usage += 90_000_000
		if stalls && (i%40) >= 20 && (i%40) < 35 {
			dirty, wb, io = uint64(40<<20), uint64(9<<20), 38
			throttled++
			throttledNs += 20_000_000
		}
		s := timeline.Sample{TMs: t, CPUUsageNs: timeline.U64(usage), CPUPeriods: timeline.U64(periods),
			CPUThrottledPeriods: timeline.U64(throttled), CPUThrottledNs: timeline.U64(throttledNs),
			MemUsageBytes: timeline.U64(64 << 20), MemLimitBytes: timeline.U64(limit), PageCacheBytes: timeline.U64(30 << 20),
			DirtyBytes: timeline.U64(dirty), WritebackBytes: timeline.U64(wb), PgMajFault: timeline.U64(3),
			PSIScope: timeline.PSIHost, PSICPUSomeAvg10: timeline.F64(1), PSIMemSomeAvg10: timeline.F64(0), PSIMemFullAvg10: timeline.F64(0),
			PSIIOSomeAvg10: timeline.F64(math.Min(io*1.2, 100)), PSIIOFullAvg10: timeline.F64(io),
			HostNrDirtyBytes: timeline.U64(dirty), HostNrWritebackBytes: timeline.U64(wb),
			HostDirtyThresholdBytes: timeline.U64(4 << 30), HostDirtyBackgroundThresholdBytes: timeline.U64(2 << 30)}
		if err := w.Write(s); err != nil {
			return err
		}
	}
	return f.Close()
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b []byte
	if raw, ok := v.([]byte); ok {
		b = raw
	} else {
		var err error
		if b, err = json.MarshalIndent(v, "", "  "); err != nil {
			return err
		}
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteOha replaces an oha file of a folder, for tests that plant a fault;
// call results.WriteChecksums after the last change.
func WriteOha(path string, w Window) error { return writeJSON(path, Oha(w)) }

// WriteJSON writes v as indented JSON at path, making its folder.
func WriteJSON(path string, v any) error { return writeJSON(path, v) }

// SelfTest is a five-run self-test (studies/selftest.toml): the twin
// answers exactly as A does, the planted rows 5%, 10% and 20% slower, so
// that their CPU time per request is as much higher.
func SelfTest() Spec {
	return Spec{Study: "selftest", Runs: 5, Timelines: true, Host: LocalHost(),
		Stacks: []string{"go-nethttp[a]", "go-nethttp[b]", "go-nethttp[burn5]", "go-nethttp[burn10]", "go-nethttp[burn20]"},
		Rate:   map[string]float64{"go-nethttp[a]": 10000, "go-nethttp[b]": 10000, "go-nethttp[burn5]": 9500, "go-nethttp[burn10]": 9000, "go-nethttp[burn20]": 8000}}
}
