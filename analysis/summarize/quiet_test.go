package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
	"stacklab/analysis/synth"
)

// A quick bench whose gate gave up waiting and measured anyway: the summary
// says so under its title and in its header, and so does each row line of
// that run, while a run whose gate held carries no flag.
func TestHostNotQuietIsSaid(t *testing.T) {
	dir := build(t, "2026-12-01-local-pages", synth.Pages(), func(dir string) {
		editManifest(t, dir, func(m *manifest.Manifest) {
			m.Profile = "quick"
			m.Host.Settings["QUIET_LOAD"] = "2.0"
			// as bench/quiet writes it: the wait held, nobody outside the lab was busy
			// a first attempt at run 1 was discarded, with the gate's reason
			m.Runs[0].Discarded = []json.RawMessage{json.RawMessage(`{"quiet":false,"why":["rustc (pid 3221) outside the lab used 0.67 CPU > 0.50 over the 40 s run"],"share":0.5,"window_s":39.6,"load1":[0.5],"busiest":[{"pid":3221,"comm":"rustc","cpu_share":0.671}]}`)}
			m.Runs[0].Quiet = json.RawMessage(`{"quiet":true,"waits":[{"at":"before the run","quiet":true,"load":2,"for_s":5,"timeout_s":60,"waited_s":5,"load1":0.4,"longest_quiet_s":5}],"share":0.5,"window_s":120,"load1":[0.4,1.1],"busiest":[{"pid":1,"comm":"init","cpu_share":0.01}]}`)
			// the wait timed out and the quick profile went on
			m.Runs[1].Quiet = json.RawMessage(`{"quiet":false,"why":["load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on)"],"waits":[{"at":"before the run","quiet":false,"load":2,"for_s":5,"timeout_s":60,"waited_s":60,"load1":9.8,"longest_quiet_s":0}],"share":0.5,"window_s":120,"load1":[9.8,9.1],"busiest":[{"pid":1,"comm":"init","cpu_share":0.01}]}`)
			// evidence from before the gate recorded its waits, "quiet" at load 5.54
			m.Runs[2].Quiet = json.RawMessage(`{"quiet":true,"share":0.5,"window_s":580.098,"load1":[5.54,5.34],"busiest":[{"pid":1,"comm":"process_api","cpu_share":0.007}]}`)
		})
	}, false)
	var out, errb bytes.Buffer
	if code := run([]string{dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	want := "**Host not quiet**: run 2: load1 9.80 ≥ 2.0 before the run (the gate waited 60 s and went on); " +
		"run 3: load1 5.54 ≥ 2.0 when the run began (its gate's wait cannot have held; this manifest does not record it); figures may be slow."
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || lines[2] != want {
		t.Errorf("summary.md begins\n%s\nwant its third line\n%s", strings.Join(lines[:min(4, len(lines))], "\n"), want)
	}
	if s := out.String(); !strings.Contains(s, "runs kept: 1, 2, 3; discarded (quiet-host gate): run 1: rustc (pid 3221) outside the lab used 0.67 CPU > 0.50 over the 40 s run; kept although the host was not quiet: runs 2, 3\n") {
		t.Errorf("the header's runs line claims a quiet host:\n%s", s[:min(1500, len(s))])
	}
	var sj struct {
		NotQuiet []struct {
			Run int      `json:"run"`
			Why []string `json:"why"`
		} `json:"not_quiet"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	must(t, err)
	must(t, json.Unmarshal(b, &sj))
	if len(sj.NotQuiet) != 2 || sj.NotQuiet[0].Run != 2 || sj.NotQuiet[1].Run != 3 {
		t.Errorf("summary.json not_quiet: %+v", sj.NotQuiet)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	must(t, err)
	if !bytes.Contains(html, []byte("Host not quiet")) {
		t.Error("report.html does not say the host was not quiet")
	}
	for runN, flagged := range map[string]bool{"1": false, "2": true} {
		out.Reset()
		if code := run([]string{"--row", "go-nethttp", "--run", runN, dir}, &out, &errb); code != 0 {
			t.Fatalf("--row: exit %d; stderr: %s", code, errb.String())
		}
		if got := strings.HasSuffix(out.String(), "(req/s of 2xx, CPU per request; S: oha saturated) · host not quiet\n"); got != flagged {
			t.Errorf("run %s (flag wanted: %v): %q", runN, flagged, out.String())
		}
	}
}

// A run whose evidence does not read is not passed off as quiet.
func TestUnreadableQuietEvidenceIsNotQuiet(t *testing.T) {
	dir := build(t, "2026-12-01-local-pages", synth.Pages(), func(dir string) {
		editManifest(t, dir, func(m *manifest.Manifest) {
			m.Runs[0].Quiet = json.RawMessage(`{"quiet":"yes"}`)
		})
	}, false)
	var out, errb bytes.Buffer
	if code := run([]string{dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "**Host not quiet**: run 1: quiet evidence is not the quiet probe's: ") {
		t.Errorf("summary.md:\n%s", out.String()[:min(600, out.Len())])
	}
}
