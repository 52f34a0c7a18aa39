package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"stacklab/formats/quietlog"
)

func fixture(t *testing.T) snapshot {
	t.Helper()
	fs, err := procfs.NewFS("testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := takeSnapshot(fs)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func byPID(s snapshot) map[int]proc {
	m := map[int]proc{}
	for _, p := range s {
		m[p.PID] = p
	}
	return m
}

func TestSnapshotReadsFixtureProc(t *testing.T) {
	m := byPID(fixture(t))
	if len(m) != 10 {
		t.Fatalf("read %d processes, want 10", len(m))
	}
	if p := m[601]; p.Comm != "my prog" || p.PPID != 600 || p.SID != 600 || p.CPUSeconds != 5 {
		t.Errorf("pid 601 read as %+v", p)
	}
	if p := m[720]; len(p.Cgroups) == 0 || p.Cgroups[0] != "/docker/0123abcdef" {
		t.Errorf("pid 720 cgroups %v", p.Cgroups)
	}
}

func TestWhichProcessesAreTheLabs(t *testing.T) {
	m := byPID(fixture(t))
	ex := exclusions{SID: 500, PIDs: []int{600}, Self: 9999}
	want := map[int]string{
		1:   "",
		500: "bench session",
		501: "bench session",
		600: "excluded pid",
		601: "excluded pid", // child of an excluded pid
		700: "docker engine",
		710: "docker engine", // containerd-shim-runc-v2
		720: "docker container",
		730: "docker container", // cgroup v2 + systemd driver: docker-<id>.scope
		800: "",
	}
	for pid, w := range want {
		if got := ex.labReason(m[pid], m); got != w {
			t.Errorf("pid %d (%s): %q, want %q", pid, m[pid].Comm, got, w)
		}
	}
}

func snap(ps ...proc) snapshot {
	s := snapshot{}
	for _, p := range ps {
		s[procKey{p.PID, p.Start}] = p
	}
	return s
}

func TestAccumulatorCountsProcessesThatComeAndGo(t *testing.T) {
	a := newAccumulator(snap(
		proc{PID: 10, Comm: "steady", CPUSeconds: 100, Start: 1},
		proc{PID: 11, Comm: "leaver", CPUSeconds: 50, Start: 1},
	))
	a.add(snap(
		proc{PID: 10, Comm: "steady", CPUSeconds: 101, Start: 1},
		proc{PID: 11, Comm: "leaver", CPUSeconds: 52, Start: 1},
		proc{PID: 12, Comm: "newcomer", CPUSeconds: 0.5, Start: 900},
	))
	a.add(snap(
		proc{PID: 10, Comm: "steady", CPUSeconds: 102, Start: 1},
		// leaver exited; pid 12 was reused by another process
		proc{PID: 12, Comm: "reused", CPUSeconds: 0.25, Start: 950},
	))
	got := a.result(4, exclusions{})
	want := []usage{{PID: 10, Comm: "steady", CPUShare: 0.5}, {PID: 11, Comm: "leaver", CPUShare: 0.5}, {PID: 12, Comm: "newcomer", CPUShare: 0.125}, {PID: 12, Comm: "reused", CPUShare: 0.0625}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].Comm != want[i].Comm || got[i].CPUShare != want[i].CPUShare {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestReportQuietOnlyWhenNobodyOutsideTheLabIsBusy(t *testing.T) {
	all := []usage{
		{PID: 720, Comm: "app", CPUShare: 0.98, Lab: "docker container"},
		{PID: 800, Comm: "stress", CPUShare: 0.61},
		{PID: 1, Comm: "init", CPUShare: 0.01},
	}
	r := buildReport(all, 0.5, 15.0004, []float64{0.5, 0.6})
	if r.Quiet || len(r.Busiest) != 2 || r.Busiest[0].Comm != "stress" || r.WindowS != 15 {
		t.Errorf("report %+v: want not quiet, stress first, the container left out", r)
	}
	if v := r.Verdict(); !strings.HasPrefix(v, "quiet: NO") || !strings.Contains(v, "stress (pid 800) outside the lab used 0.61 CPU > 0.50 over the 15 s run") {
		t.Errorf("verdict %q", v)
	}
	r = buildReport(all[:1], 0.5, 15, nil)
	if !r.Quiet || r.Busiest == nil || r.Load1 == nil {
		t.Errorf("only the lab was busy: want quiet with empty (not null) lists, got %+v", r)
	}
	if v := r.Verdict(); !strings.HasPrefix(v, "quiet: YES") {
		t.Errorf("verdict %q", v)
	}
}

func TestWaitNeedsAnUnbrokenQuietStretch(t *testing.T) {
	st := &waitState{max: 2, need: 60 * time.Second}
	t0 := time.Unix(0, 0)
	steps := []struct {
		s    int
		load float64
		want bool
	}{{0, 1.5, false}, {30, 1.9, false}, {40, 2.0, false}, {50, 1.0, false}, {100, 1.2, false}, {110, 1.8, true}}
	for _, s := range steps {
		if got := st.observe(t0.Add(time.Duration(s.s)*time.Second), s.load); got != s.want {
			t.Errorf("at %ds load %.1f: quiet %v, want %v", s.s, s.load, got, s.want)
		}
	}
	if st.longest != 60*time.Second {
		t.Errorf("longest stretch %v", st.longest)
	}
}

func TestOneShotVerdict(t *testing.T) {
	if v := oneShotVerdict(0.3, 2, []quietlog.Process{{PID: 5, Comm: "x", CPUShare: 0.1}}, 0.5); !strings.HasPrefix(v, "quiet: YES") {
		t.Error(v)
	}
	v := oneShotVerdict(3.1, 2, []quietlog.Process{{PID: 5, Comm: "cc1", CPUShare: 0.9}}, 0.5)
	if !strings.Contains(v, "load1 3.10 ≥ 2.0") || !strings.Contains(v, "cc1 (pid 5) used 0.90 CPU") {
		t.Error(v)
	}
}

// The watch's report is the run's evidence the manifest keeps whole, and
// analysis reads committed manifests: a change to its type in
// formats/quietlog must not change a byte the watch writes.
func TestWatchReportBytesStay(t *testing.T) {
	all := []usage{
		{PID: 720, Comm: "app", CPUShare: 0.98, Lab: "docker container"},
		{PID: 800, Comm: "stress", CPUShare: 0.61},
		{PID: 1, Comm: "init", CPUShare: 0.01},
	}
	gate := filepath.Join(t.TempDir(), "run-1.gate.json")
	for _, w := range []quietlog.Wait{
		{At: "before the run", Quiet: true, Load: 2, ForS: 5, TimeoutS: 60, WaitedS: 5.2, Load1: 0.4, LongestQuietS: 5},
		{At: "after building go-nethttp's image", Load: 2, ForS: 5, TimeoutS: 60, WaitedS: 60, Load1: 3.1, LongestQuietS: 1.5,
			Busiest: []quietlog.Process{{PID: 800, Comm: "stress", CPUShare: 0.9}}},
	} {
		if err := quietlog.AppendWait(gate, w); err != nil {
			t.Fatal(err)
		}
	}
	busy := buildReport(all, 0.5, 15.0004, []float64{0.5, 0.6})
	g, err := quietlog.ReadGate(gate)
	busy.Waits = g.Waits
	busy.Judge(err)
	for _, c := range []struct {
		rep  quietlog.Report
		want string
	}{
		{buildReport(all[:1], 0.5, 15, nil), `{"quiet":true,"share":0.5,"window_s":15,"load1":[],"busiest":[]}
`},
		{busy, `{"quiet":false,"why":["load1 3.10 ≥ 2.0 after building go-nethttp's image (the gate waited 60 s and went on)","stress (pid 800) outside the lab used 0.61 CPU \u003e 0.50 over the 15 s run"],"waits":[{"at":"before the run","quiet":true,"load":2,"for_s":5,"timeout_s":60,"waited_s":5.2,"load1":0.4,"longest_quiet_s":5},{"at":"after building go-nethttp's image","quiet":false,"load":2,"for_s":5,"timeout_s":60,"waited_s":60,"load1":3.1,"longest_quiet_s":1.5,"busiest":[{"pid":800,"comm":"stress","cpu_share":0.9}]}],"share":0.5,"window_s":15,"load1":[0.5,0.6],"busiest":[{"pid":800,"comm":"stress","cpu_share":0.61},{"pid":1,"comm":"init","cpu_share":0.01}]}
`},
	} {
		var b bytes.Buffer
		if err := json.NewEncoder(&b).Encode(c.rep); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("the watch wrote\n%s\nwant\n%s", b.String(), c.want)
		}
	}
}
