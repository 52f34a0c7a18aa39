package cgroupstat

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/containerd/cgroups/v3/cgroup1"
	"stacklab/formats/timeline"
)

func val(p *uint64) string {
	if p == nil {
		return "null"
	}
	return itoa(*p)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestReadVMStat(t *testing.T) {
	v, err := ReadVMStat("testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	if val(v.NrDirty) != "54670" || val(v.NrWriteback) != "11" || val(v.NrDirtyThreshold) != "1166305" || val(v.NrDirtyBackgroundThreshold) != "582440" {
		t.Errorf("read %s %s %s %s", val(v.NrDirty), val(v.NrWriteback), val(v.NrDirtyThreshold), val(v.NrDirtyBackgroundThreshold))
	}
	_, err = ReadVMStat("testdata/proc-corrupt")
	if err == nil || !strings.Contains(err.Error(), "testdata/proc-corrupt/vmstat:2: nr_dirty") {
		t.Errorf("corrupt vmstat gave %v, want an error naming file, line and key", err)
	}
}

func TestV1DockerGroup(t *testing.T) {
	s, err := OpenV1("testdata/v1", "/docker/0123abcd", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"cpu_usage_ns":          {val(got.CPUUsageNs), "1013746294"},
		"cpu_periods":           {val(got.CPUPeriods), "23"},
		"cpu_throttled_periods": {val(got.CPUThrottledPeriods), "19"},
		"cpu_throttled_ns":      {val(got.CPUThrottledNs), "475718564"},
		"mem_usage_bytes":       {val(got.MemUsageBytes), "425984"},
		"mem_limit_bytes":       {val(got.MemLimitBytes), "268435456"},
		"page_cache_bytes":      {val(got.PageCacheBytes), "33652736"},
		"dirty_bytes":           {val(got.DirtyBytes), "8388608"},
		"writeback_bytes":       {val(got.WritebackBytes), "4096"},
		"pgmajfault":            {val(got.PgMajFault), "7"},
		"host_nr_dirty_bytes":   {val(got.HostNrDirtyBytes), itoa(54670 * uint64(os.Getpagesize()))},
		"host_dirty_threshold":  {val(got.HostDirtyThresholdBytes), itoa(1166305 * uint64(os.Getpagesize()))},
	}
	for k, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %s, want %s", k, c[0], c[1])
		}
	}
	// v1 has no per-cgroup PSI: the host's figures, labelled as such.
	if got.PSIScope != timeline.PSIHost || got.PSIIOSomeAvg10 == nil || *got.PSICPUSomeAvg10 != 90.42 || *got.PSIIOFullAvg10 != 0.01 || *got.PSIIOSomeAvg10 != 2.74 || *got.PSIMemSomeAvg10 != 0 {
		t.Errorf("psi: scope %s, %+v", got.PSIScope, got)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}

func TestV1UnlimitedMemoryOnlyGroupIsNullNotZero(t *testing.T) {
	s, err := OpenV1("testdata/v1", "/unlimited", "testdata/proc-nopsi")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if got.MemLimitBytes != nil {
		t.Errorf("an unlimited group's limit read %d, want null", *got.MemLimitBytes)
	}
	if got.CPUUsageNs != nil || got.CPUPeriods != nil {
		t.Errorf("a group with no cpu controller gave cpu figures")
	}
	if got.DirtyBytes == nil || *got.DirtyBytes != 8388608 {
		t.Errorf("memory figures missing")
	}
	if got.PSIScope != timeline.PSINone || got.PSIIOSomeAvg10 != nil {
		t.Errorf("a host without /proc/pressure must say psi_scope none, got %s", got.PSIScope)
	}
}

func TestV1MissingGroup(t *testing.T) {
	_, err := OpenV1("testdata/v1", "/docker/nope", "testdata/proc")
	if err == nil || !strings.Contains(err.Error(), "/docker/nope") {
		t.Errorf("got %v, want an error naming the group", err)
	}
}

func TestV2DockerScope(t *testing.T) {
	s, err := OpenV2("testdata/v2", "/system.slice/docker-0123abcd.scope", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"cpu_usage_ns":          {val(got.CPUUsageNs), "2500000000"},
		"cpu_periods":           {val(got.CPUPeriods), "150"},
		"cpu_throttled_periods": {val(got.CPUThrottledPeriods), "12"},
		"cpu_throttled_ns":      {val(got.CPUThrottledNs), "340000000"},
		"mem_usage_bytes":       {val(got.MemUsageBytes), "314572800"},
		"mem_limit_bytes":       {val(got.MemLimitBytes), "4294967296"},
		"page_cache_bytes":      {val(got.PageCacheBytes), "209715200"},
		"dirty_bytes":           {val(got.DirtyBytes), "67108864"},
		"writeback_bytes":       {val(got.WritebackBytes), "1048576"},
		"pgmajfault":            {val(got.PgMajFault), "9"},
	}
	for k, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %s, want %s", k, c[0], c[1])
		}
	}
	if got.PSIScope != timeline.PSICgroup || *got.PSIIOSomeAvg10 != 35.10 || *got.PSIIOFullAvg10 != 30.02 || *got.PSIMemSomeAvg10 != 0.25 || *got.PSIMemFullAvg10 != 0.12 || *got.PSICPUSomeAvg10 != 1.5 {
		t.Errorf("v2 PSI must come from the group's own files: %s", got.PSIScope)
	}
}

func TestV2GroupWithoutControllers(t *testing.T) {
	s, err := OpenV2("testdata/v2", "/user.slice", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if got.CPUPeriods != nil || got.CPUThrottledNs != nil {
		t.Error("no cpu.max: periods and throttling must be null, not 0")
	}
	if got.MemLimitBytes != nil {
		t.Error(`memory.max "max" must read as null`)
	}
	if got.PSIScope != timeline.PSINone {
		t.Errorf("no *.pressure files: psi_scope %s, want none", got.PSIScope)
	}
	if _, err := OpenV2("testdata/v2", "/nope", "testdata/proc"); err == nil {
		t.Error("opened a v2 group that does not exist")
	}
}

// The kept-open files give exactly the sample containerd's Stat gives, on
// every fixture group (v1 full and memory-only, v2 with and without
// controllers), so the cheaper reader changes no figure.
func TestFilesMatchContainerd(t *testing.T) {
	open := []struct {
		name string
		open func() (*Sampler, error)
	}{
		{"v1 docker", func() (*Sampler, error) { return OpenV1("testdata/v1", "/docker/0123abcd", "testdata/proc") }},
		{"v1 unlimited", func() (*Sampler, error) { return OpenV1("testdata/v1", "/unlimited", "testdata/proc-nopsi") }},
		{"v2 docker", func() (*Sampler, error) {
			return OpenV2("testdata/v2", "/system.slice/docker-0123abcd.scope", "testdata/proc")
		}},
		{"v2 no controllers", func() (*Sampler, error) { return OpenV2("testdata/v2", "/user.slice", "testdata/proc") }},
	}
	for _, o := range open {
		s, err := o.open()
		if err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		if s.files == nil {
			t.Fatalf("%s: no kept-open files", o.name)
		}
		fast, err := s.Sample()
		if err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		ref, err := s.sampleContainerd()
		if err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		a, _ := json.Marshal(fast)
		b, _ := json.Marshal(ref)
		if string(a) != string(b) {
			t.Errorf("%s:\n files:      %s\n containerd: %s", o.name, a, b)
		}
		// A second read of the same open files gives the same figures.
		again, _ := s.Sample()
		if c, _ := json.Marshal(again); string(c) != string(a) {
			t.Errorf("%s: a second read differs:\n%s\n%s", o.name, c, a)
		}
		s.Close()
	}
}

// A group whose directory goes away (the container stopped) ends the
// timeline with an error naming it, as containerd's State check did.
func TestFilesGroupGone(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/v2")); err != nil {
		t.Fatal(err)
	}
	s, err := OpenV2(root, "/system.slice/docker-0123abcd.scope", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Sample(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root + "/system.slice/docker-0123abcd.scope"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(); err == nil || !strings.Contains(err.Error(), "the group is gone") {
		t.Errorf("after removal: %v, want \"the group is gone\"", err)
	}
}

// Memory splits anonymous memory from page cache as containerd reads
// them (v1 total_rss/total_cache, v2 anon/file), and refuses a group
// whose memory.stat lacks them.
func TestMemory(t *testing.T) {
	v1, err := OpenV1("testdata/v1", "/docker/0123abcd", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	m, err := v1.Memory()
	m1, _ := v1.v1.Stat(cgroup1.IgnoreNotExist)
	if err != nil || m != (MemoryStat{UsageBytes: 425984, AnonBytes: 262144, FileBytes: 33652736}) ||
		m.AnonBytes != m1.Memory.TotalRSS || m.FileBytes != m1.Memory.TotalCache {
		t.Errorf("v1: %+v, %v", m, err)
	}
	v2, err := OpenV2("testdata/v2", "/system.slice/docker-0123abcd.scope", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	m, err = v2.Memory()
	m2, _ := v2.v2.Stat()
	if err != nil || m != (MemoryStat{UsageBytes: 314572800, AnonBytes: 104857600, FileBytes: 209715200}) ||
		m.AnonBytes != m2.Memory.Anon || m.FileBytes != m2.Memory.File {
		t.Errorf("v2: %+v, %v", m, err)
	}
	none, err := OpenV2("testdata/v2", "/user.slice", "testdata/proc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := none.Memory(); err == nil || !strings.Contains(err.Error(), "memory.stat has no anon or file") {
		t.Errorf("a memory.stat without anon and file: %v", err)
	}
	path := t.TempDir() + "/mem.jsonl"
	os.WriteFile(path, []byte(`{"usage_bytes":3,"anon_bytes":1,"file_bytes":2}`+"\n"+`{"usage_bytes":6,"anon_bytes":4,"file_bytes":2}`+"\n"), 0o644)
	if got, err := ReadMemoryFile(path); err != nil || len(got) != 2 || got[1].AnonBytes != 4 {
		t.Errorf("ReadMemoryFile: %+v, %v", got, err)
	}
	os.WriteFile(path, []byte(`{"usage_bytes":3,"rss":1}`+"\n"), 0o644)
	if _, err := ReadMemoryFile(path); err == nil || !strings.Contains(err.Error(), "mem.jsonl:1") {
		t.Errorf("an unknown field: %v", err)
	}
}
