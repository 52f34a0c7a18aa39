package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"stacklab/formats/latencyline"
	"strconv"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/synth"
	"stacklab/formats/golden"
)

// build writes a synthetic results folder named name, lets change plant
// faults in it, and rewrites its checksums unless keepSums is set.
func build(t testing.TB, name string, sp synth.Spec, change func(dir string), keepSums bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := synth.Write(dir, sp); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(dir)
		if !keepSums {
			if err := results.WriteChecksums(dir); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func editManifest(t testing.TB, dir string, f func(m *manifest.Manifest)) {
	m, err := manifest.Read(dir)
	must(t, err)
	f(m)
	must(t, manifest.Write(dir, m))
}

func win(dir string, run int, stack, c, ext string) string {
	return filepath.Join(dir, "raw", "run-"+strconv.Itoa(run), stack, c+ext)
}

// Golden folders: what a reader sees, byte for byte.
func goldenFolders(t testing.TB) map[string]string {
	pages := build(t, "2026-11-29-local-pages", synth.Pages(), func(dir string) {
		// run 2, go-nethttp, page: a long tail while dirty pages sat at the limit.
		must(t, synth.WriteOha(win(dir, 2, "go-nethttp", "page", ".json"),
			synth.Window{Seconds: 15, OK: 180000, P50: 0.0031, P99: 0.4, P999: 2.1, Slowest: 4.0}))
		must(t, synth.WriteTimeline(win(dir, 2, "go-nethttp", "page", ".cgroup.jsonl"), 15, true))
		// run 3, node-fastify, json: the generator was the limit.
		must(t, synth.WriteJSON(win(dir, 3, "node-fastify", "json", ".loadgen.json"),
			results.Loadgen{CPUs: "1", CPUSeconds: 14.6, WindowS: 15, Saturated: true}))
		// resources.json with RSS apart from page cache (since 2026-12-01).
		for run := 1; run <= 3; run++ {
			for i, stack := range []string{"go-nethttp", "node-fastify"} {
				mb := int64(1 << 20)
				must(t, synth.WriteJSON(win(dir, run, stack, "resources", ".json"), results.Resources{
					BootMs: float64(20 + 500*i + run), MemoryIdleBytes: (8 + 60*int64(i)) * mb, MemoryAfterBytes: (140 + 10*int64(i)) * mb,
					Memory: &results.MemorySplit{IdleAnonBytes: (5 + 50*int64(i)) * mb, IdleFileBytes: 2 * mb,
						AfterAnonBytes: (11 + 70*int64(i) + int64(run)) * mb, AfterFileBytes: 128 * mb, Containers: 1}}))
			}
		}
		// the sampler's own CPU time in two windows
		must(t, synth.WriteJSON(win(dir, 1, "go-nethttp", "json", ".sampler.json"), results.Loadgen{CPUs: "1", CPUSeconds: 0.021, WindowS: 15.2}))
		must(t, synth.WriteJSON(win(dir, 1, "go-nethttp", "up", ".sampler.json"), results.Loadgen{CPUs: "1", CPUSeconds: 0.03, WindowS: 15.2}))
		// The generator's headroom once a run: at its limit in runs 1 and 2,
		// the mock's limit in run 3 (the generator at 70% of its CPU).
		for run, cpu := range map[int]float64{1: 14.2, 2: 14.4, 3: 10.5} {
			rdir := filepath.Join(dir, "raw", "run-"+strconv.Itoa(run))
			must(t, synth.WriteOha(filepath.Join(rdir, "headroom.json"), synth.Window{Seconds: 15, OK: int64(1_800_000 - 60_000*run), P50: 0.00025, P99: 0.0011}))
			must(t, synth.WriteJSON(filepath.Join(rdir, "headroom.loadgen.json"), results.Loadgen{CPUs: "1", CPUSeconds: cpu, WindowS: 15, Saturated: cpu > 13.5}))
		}
		// run 1, go-nethttp, json again without the cgroup sampler: its cost.
		must(t, synth.WriteOha(win(dir, 1, "go-nethttp", "json", ".nosampler.json"),
			synth.Window{Seconds: 15, OK: 760000, P50: 0.0006, P99: 0.002}))
	}, false)
	io := build(t, "2026-11-29-local-io", synth.IO(), func(dir string) {
		editManifest(t, dir, func(m *manifest.Manifest) {
			m.Runs[1].Discarded = []json.RawMessage{json.RawMessage(`{"quiet":false,"share":0.83,"window_s":20,"load1":[0.4,1.9],"busiest":[{"pid":4242,"comm":"rustc","cpu_share":0.71}]}`)}
		})
		// A discarded run's files stay under raw/discarded and are ignored.
		must(t, synth.WriteOha(filepath.Join(dir, "raw", "discarded", "run-2-a", "go-nethttp", "write.json"), synth.Window{Seconds: 15, OK: 1}))
	}, false)
	failures := build(t, "2026-11-29-local-io-failures", synth.IO(), func(dir string) {
		plantFailures(t, dir)
	}, false)
	return map[string]string{"pages": pages, "io": io, "failures": failures}
}

func plantFailures(t testing.TB, dir string) {
	must(t, synth.WriteOha(win(dir, 1, "node-fastify", "read", ".json"),
		synth.Window{Seconds: 15, OK: 70000, Status: map[string]int64{"500": 12}, P50: 0.005, P99: 0.02}))
	must(t, synth.WriteOha(win(dir, 2, "go-nethttp", "write", ".json"),
		synth.Window{Seconds: 15, OK: 60000, Errors: map[string]int64{"connection refused": 4}, P50: 0.008, P99: 0.03}))
	must(t, synth.WriteJSON(win(dir, 2, "go-nethttp", "write", ".rows.json"), results.Rows{Before: 1000, After: 61000}))
	must(t, synth.WriteJSON(win(dir, 3, "node-fastify", "write", ".rows.json"), results.Rows{Before: 1000, After: 1000 + 22000}))
	must(t, synth.WriteOha(filepath.Join(dir, "raw", "run-3", "upstream-ceiling.json"),
		synth.Window{Seconds: 15, OK: 74000, Status: map[string]int64{"502": 5}, P50: 0.1005, P99: 0.104}))
	must(t, os.Remove(win(dir, 1, "go-nethttp", "upstream", ".json")))
	must(t, os.WriteFile(win(dir, 1, "go-nethttp", "upstream", ".error"), []byte("container exited with code 137 before /up answered\n"), 0o644))
}

func TestGolden(t *testing.T) {
	wantCode := map[string]int{"pages": 0, "io": 0, "failures": 1}
	for name, dir := range goldenFolders(t) {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{dir}, &out, &errb)
			if code != wantCode[name] {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode[name], errb.String())
			}
			md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			must(t, err)
			if !bytes.Equal(out.Bytes(), md) {
				t.Errorf("stdout is not summary.md")
			}
			files := []string{"summary.md", "summary.json", "report.html"}
			if name == "failures" {
				must(t, os.WriteFile(filepath.Join(dir, "stderr.txt"), errb.Bytes(), 0o644))
				files = append(files, "stderr.txt")
			}
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(dir, f))
				must(t, err)
				golden.Check(t, filepath.Join("testdata", "golden", name, f), got)
			}
		})
	}
}

// Same input, same bytes: a second summarize rewrites identical files.
func TestDeterministic(t *testing.T) {
	dir := build(t, "det", synth.IO(), nil, false)
	var first [][]byte
	for i := 0; i < 2; i++ {
		var out, errb bytes.Buffer
		if code := run([]string{dir}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		for j, f := range []string{"summary.md", "summary.json", "report.html"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			must(t, err)
			if i == 0 {
				first = append(first, b)
			} else if !bytes.Equal(first[j], b) {
				t.Errorf("%s changed between two runs on the same input", f)
			}
		}
	}
}

// Each faulty folder gives its documented line on stderr and exit code.
func TestFaults(t *testing.T) {
	cases := []struct {
		name     string
		spec     synth.Spec
		change   func(t testing.TB, dir string)
		keepSums bool
		code     int
		stderr   string // RUN stands for the folder
	}{
		{"non-2xx", synth.Pages(), func(t testing.TB, dir string) {
			must(t, synth.WriteOha(win(dir, 2, "node-fastify", "json", ".json"),
				synth.Window{Seconds: 15, OK: 200000, Status: map[string]int64{"500": 7, "404": 1}, P50: 0.002, P99: 0.01}))
		}, false, 1, "summarize: FAIL run 2, node-fastify, json: 1 answers with status 404\nsummarize: FAIL run 2, node-fastify, json: 7 answers with status 500\n"},
		{"connection-errors", synth.Pages(), func(t testing.TB, dir string) {
			must(t, synth.WriteOha(win(dir, 1, "go-nethttp", "up", ".json"),
				synth.Window{Seconds: 15, OK: 200000, Errors: map[string]int64{"connection reset by peer": 3}, Cut: 30, P50: 0.002, P99: 0.01}))
		}, false, 1, "summarize: FAIL run 1, go-nethttp, up: 3 connection errors: connection reset by peer\n"},
		{"deadline-aborts-allowed", synth.Pages(), func(t testing.TB, dir string) {
			must(t, synth.WriteOha(win(dir, 1, "go-nethttp", "up", ".json"),
				synth.Window{Seconds: 15, OK: 200000, Cut: 32, P50: 0.002, P99: 0.01}))
		}, false, 0, ""},
		{"row-count-mismatch", synth.IO(), func(t testing.TB, dir string) {
			must(t, synth.WriteJSON(win(dir, 3, "node-fastify", "write", ".rows.json"), results.Rows{Before: 1000, After: 1990}))
		}, false, 1, "summarize: FAIL run 3, node-fastify, write: the database gained 990 rows but 198450 writes answered 2xx, 3 cut at the deadline (raw/run-3/node-fastify/write.json)\n"},
		{"rows-include-writes-cut-at-deadline", synth.IO(), func(t testing.TB, dir string) {
			// oha gave up on 3 writes at the deadline; the server committed 2.
			must(t, synth.WriteJSON(win(dir, 1, "go-nethttp", "write", ".rows.json"), results.Rows{Before: 1000, After: 1000 + 540000 + 2}))
		}, false, 0, ""},
		{"ceiling-errors", synth.IO(), func(t testing.TB, dir string) {
			// The ceiling is a measurement too: the mock answered 502 and dropped connections.
			must(t, synth.WriteOha(filepath.Join(dir, "raw", "run-2", "upstream-ceiling.json"),
				synth.Window{Seconds: 15, OK: 70000, Status: map[string]int64{"502": 9}, Errors: map[string]int64{"connection reset by peer": 2}, P50: 0.1, P99: 0.2}))
		}, false, 1, "summarize: FAIL run 2, ceiling (oha → mock upstream), upstream: 9 answers with status 502 (raw/run-2/upstream-ceiling.json)\n" +
			"summarize: FAIL run 2, ceiling (oha → mock upstream), upstream: 2 connection errors: connection reset by peer (raw/run-2/upstream-ceiling.json)\n"},
		{"case-error-file", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.Remove(win(dir, 1, "node-fastify", "page", ".json")))
			must(t, os.WriteFile(win(dir, 1, "node-fastify", "page", ".error"), []byte("/page answered 500 during warm-up\n"), 0o644))
		}, false, 1, "summarize: FAIL run 1, node-fastify, page: not measured: /page answered 500 during warm-up\n"},
		{"mixed-hosts", synth.Pages(), func(t testing.TB, dir string) {
			editManifest(t, dir, func(m *manifest.Manifest) {
				h := m.Host
				h.Fingerprint.CPUModel = "Other CPU"
				m.Runs[2].Host = &h
			})
		}, false, 2, `summarize: RUN/manifest.json: holds more than one host: run 1 on "local" (Test CPU @ 2.0GHz, 2 cores, 25000000000 bytes, kernel 6.18.0), run 3 on "local" (Other CPU, 2 cores, 25000000000 bytes, kernel 6.18.0); a table never mixes hosts` + "\n"},
		{"truncated-oha", synth.Pages(), func(t testing.TB, dir string) {
			p := win(dir, 2, "go-nethttp", "items", ".json")
			b, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		}, false, 2, "summarize: RUN/raw/run-2/go-nethttp/items.json: truncated or corrupt JSON: unexpected end of JSON input\n"},
		{"missing-oha", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.Remove(win(dir, 1, "go-nethttp", "json", ".json")))
		}, false, 2, "summarize: RUN/raw/run-1/go-nethttp/json.json: missing\n"},
		{"not-oha", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.WriteFile(win(dir, 1, "go-nethttp", "json", ".json"), []byte(`{"requests": 5}`), 0o644))
		}, false, 2, "summarize: RUN/raw/run-1/go-nethttp/json.json: no statusCodeDistribution (not oha 1.16 --output-format json?)\n"},
		{"corrupt-manifest", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"manifest_version": 1, "study": `), 0o644))
		}, false, 2, "summarize: RUN/manifest.json: not valid JSON: unexpected end of JSON input\n"},
		{"unknown-manifest-version", synth.Pages(), func(t testing.TB, dir string) {
			editManifest(t, dir, func(m *manifest.Manifest) { m.ManifestVersion = 7 })
		}, false, 2, "summarize: RUN/manifest.json: unknown manifest_version 7 (this lab reads 1 to 2)\n"},
		{"missing-checksum", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "raw", "run-1", "stray.json"), []byte("{}\n"), 0o644))
		}, true, 2, "summarize: RUN/raw/run-1/stray.json: no checksum in checksums.sha256\n"},
		{"checksum-mismatch", synth.Pages(), func(t testing.TB, dir string) {
			must(t, synth.WriteOha(win(dir, 1, "go-nethttp", "up", ".json"), synth.Window{Seconds: 15, OK: 999999, P50: 0.001, P99: 0.002}))
		}, true, 2, "summarize: RUN/raw/run-1/go-nethttp/up.json: checksum mismatch: the raw file changed after the bench wrote checksums.sha256\n"},
		{"missing-checksums-file", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.Remove(filepath.Join(dir, "checksums.sha256")))
		}, true, 2, "summarize: RUN/checksums.sha256: missing: the raw files cannot be checked\n"},
		{"corrupt-timeline", synth.Pages(), func(t testing.TB, dir string) {
			// A timeline is read for a window with a latency tail.
			must(t, synth.WriteOha(win(dir, 1, "go-nethttp", "up", ".json"),
				synth.Window{Seconds: 15, OK: 200000, P50: 0.002, P99: 0.1, P999: 0.5}))
			p := win(dir, 1, "go-nethttp", "up", ".cgroup.jsonl")
			b, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p, append([]byte("{not json}\n"), b...), 0o644))
		}, false, 2, "summarize: RUN/raw/run-1/go-nethttp/up.cgroup.jsonl:1: corrupt cgroup timeline line: invalid character 'n' looking for beginning of object key string\n"},
		{"corrupt-latency-timeline", synth.Pages(), func(t testing.TB, dir string) {
			p := writeLatency(t, win(dir, 1, "go-nethttp", "up", ".latency.jsonl"))
			b, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p, bytes.Replace(b, []byte(`"answers":`), []byte(`"answers";`), 2), 0o644))
		}, false, 2, "summarize: RUN/raw/run-1/go-nethttp/up.latency.jsonl:1: corrupt line: invalid character ';' after object key\n"},
		{"truncated-latency-timeline", synth.Pages(), func(t testing.TB, dir string) {
			p := writeLatency(t, win(dir, 1, "go-nethttp", "up", ".latency.jsonl"))
			b, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p, b[:len(b)-20], 0o644))
		}, false, 2, "summarize: RUN/raw/run-1/go-nethttp/up.latency.jsonl:52: truncated last line: unexpected EOF\n"},
		{"corrupt-hiccup-record", synth.Pages(), func(t testing.TB, dir string) {
			must(t, os.WriteFile(win(dir, 1, "go-nethttp", "up", ".hiccup-app.jsonl"), []byte(`{"format":"stacklab-hiccup/1","label":"app"}`+"\n"), 0o644))
		}, false, 2, "summarize: RUN/raw/run-1/go-nethttp/up.hiccup-app.jsonl:1: corrupt line: header: field cpus is missing\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := build(t, "run", c.spec, func(dir string) { c.change(t, dir) }, c.keepSums)
			var out, errb bytes.Buffer
			code := run([]string{dir}, &out, &errb)
			got := strings.ReplaceAll(errb.String(), dir, "RUN")
			if code != c.code || got != c.stderr {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, got, c.code, c.stderr)
			}
			_, err := os.Stat(filepath.Join(dir, "summary.md"))
			if c.code == 2 && err == nil {
				t.Errorf("bad input, yet summary.md was written")
			}
			if c.code != 2 && err != nil {
				t.Errorf("a failed gate must still write the summary: %v", err)
			}
			if c.code == 2 {
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), ".") {
						t.Errorf("left a temporary file behind: %s", e.Name())
					}
				}
			}
		})
	}
}

func TestEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{dir}, &out, &errb)
	want := "summarize: " + dir + ": empty folder (no manifest.json, no raw/)\n"
	if code != 2 || errb.String() != want {
		t.Fatalf("exit %d, stderr %q; want 2, %q", code, errb.String(), want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote into an empty folder: %v", ents)
	}
}

func TestBaselineFlag(t *testing.T) {
	dir := build(t, "run", synth.Pages(), nil, false)
	var out, errb bytes.Buffer
	if code := run([]string{dir, "--baseline", "node-fastify"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "vs node-fastify") || !strings.Contains(out.String(), "| go-nethttp   | 40,000 (39,200–41,600) |           2.67× |") {
		t.Errorf("ratios are not taken against --baseline:\n%s", out.String())
	}
	errb.Reset()
	if code := run([]string{dir, "--baseline=rails"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--baseline rails: not a stack of this run") {
		t.Errorf("unknown baseline: exit %d, %q", code, errb.String())
	}
}

// BenchmarkSummarize1000 times summarize (read, check, compute, render,
// write) on a generated folder of about 1,000 raw files, where a few
// windows have a latency tail (the usual case).
func BenchmarkSummarize1000(b *testing.B) { benchSummarize(b, false) }

// BenchmarkSummarize1000Tails is the slowest case: every window has a
// latency tail, so every cgroup timeline is read.
func BenchmarkSummarize1000Tails(b *testing.B) { benchSummarize(b, true) }

func benchSummarize(b *testing.B, tails bool) {
	sp := synth.IO()
	sp.Study = "all"
	sp.Stacks = []string{"go-nethttp", "node-fastify", "rails", "django", "spring", "aspnet", "phoenix"}
	sp.Runs = 5
	sp.Tails = tails
	for _, s := range sp.Stacks {
		sp.Rate[s] = 20000
	}
	dir := build(b, "bench", sp, func(dir string) {
		// one window in the usual case has a tail, with stalls behind it
		must(b, synth.WriteOha(win(dir, 2, "rails", "write", ".json"), synth.Window{Seconds: 15, OK: 30000, P50: 0.003, P99: 0.4, P999: 2.1, Slowest: 4}))
		must(b, synth.WriteJSON(win(dir, 2, "rails", "write", ".rows.json"), results.Rows{Before: 1000, After: 31000}))
		must(b, synth.WriteTimeline(win(dir, 2, "rails", "write", ".cgroup.jsonl"), 15, true))
	}, false)
	n := 0
	filepath.WalkDir(filepath.Join(dir, "raw"), func(_ string, d os.DirEntry, _ error) error {
		if !d.IsDir() {
			n++
		}
		return nil
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out, errb bytes.Buffer
		if code := run([]string{dir}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
	b.ReportMetric(float64(n), "raw-files")
}

// writeLatency writes a small, valid latency timeline at p: a 5 s window
// of 32 connections with one 300 ms stall.
func writeLatency(t testing.TB, p string) string {
	var reqs []latencyline.Request
	for c := int64(0); c < 32; c++ {
		for at := c * 1e5; at < 5e9; {
			end := at + 1e6
			if end > 2e9 && at < 2.3e9 {
				end = 2.3e9 + 1e6
			}
			reqs = append(reqs, latencyline.Request{StartNs: at, EndNs: end, Status: 200})
			at = end
		}
	}
	must(t, latencyline.WriteFile(p, latencyline.Build(1796160000000000000, latencyline.SourceOha, reqs, latencyline.DefaultBucket)))
	return p
}
