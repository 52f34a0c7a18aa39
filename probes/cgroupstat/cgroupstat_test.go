package cgroupstat

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"stacklab/probes/timeline"
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
