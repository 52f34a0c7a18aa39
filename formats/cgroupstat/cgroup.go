// Package cgroupstat samples one cgroup (v1 or v2) and the host's dirty-page
// state into a timeline.Sample: the figures bench/cgsample records and
// probes/dirty reasons about. It reads cgroups through containerd/cgroups,
// /proc through prometheus/procfs, and /proc/vmstat through its own reader.
package cgroupstat

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	v1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	"github.com/containerd/cgroups/v3/cgroup2"
	v2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/prometheus/procfs"

	"stacklab/formats/timeline"
)

// Target names the cgroup to sample: exactly one of the fields is set.
type Target struct {
	Container string // a Docker container id (full or unique prefix) or name
	Path      string // a cgroup path relative to the hierarchy root, e.g. /docker/<id>
	PID       int    // a process whose cgroup is sampled
}

// Sampler reads one cgroup and the host's dirty-page state.
type Sampler struct {
	// Desc says what is sampled, for messages ("cgroup v1 /docker/0123…").
	Desc string
	// PSIScope is timeline.PSICgroup, PSIHost or PSINone.
	PSIScope string

	v1       cgroup1.Cgroup
	v1subs   map[cgroup1.Name]bool
	v2       *cgroup2.Manager
	v2dir    string
	proc     procfs.FS
	procRoot string
	pageSize uint64
	// files, when set, is how Sample reads: the few files it needs, kept
	// open (files.go). The containerd path is the reference it is tested
	// against.
	files *groupFiles
}

// Close releases the files the sampler keeps open.
func (s *Sampler) Close() {
	if s.files != nil {
		s.files.close()
	}
}

// Open finds the target's cgroup on this host (v1, hybrid or unified).
func Open(t Target) (*Sampler, error) {
	n := 0
	for _, set := range []bool{t.Container != "", t.Path != "", t.PID != 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("name exactly one of a container, a cgroup path or a pid")
	}
	if t.Container != "" {
		pid, err := containerPID(t.Container)
		if err != nil {
			return nil, err
		}
		t.PID = pid
	}
	switch cgroups.Mode() {
	case cgroups.Unified:
		group := t.Path
		if t.PID != 0 {
			g, err := cgroup2.PidGroupPath(t.PID)
			if err != nil {
				return nil, fmt.Errorf("pid %d: %v", t.PID, err)
			}
			group = g
		}
		return OpenV2("/sys/fs/cgroup", group, "/proc")
	case cgroups.Legacy, cgroups.Hybrid:
		path := cgroup1.StaticPath(t.Path)
		desc := t.Path
		if t.PID != 0 {
			path = cgroup1.PidPath(t.PID)
			p, err := path(cgroup1.Memory)
			if err != nil {
				return nil, fmt.Errorf("pid %d: %v", t.PID, err)
			}
			desc = p
		}
		return openV1(cgroup1.Default, path, desc, "/proc", "/sys/fs/cgroup")
	default:
		return nil, errors.New("no cgroup file system is mounted at /sys/fs/cgroup")
	}
}

// containerPID asks Docker for the main process of a running container.
func containerPID(id string) (int, error) {
	out, err := exec.Command("docker", "inspect", "--format", "{{.State.Pid}}", id).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("container %s: %s", id, strings.TrimSpace(string(ee.Stderr)))
		}
		return 0, fmt.Errorf("container %s: docker inspect: %v", id, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("container %s is not running", id)
	}
	return pid, nil
}

// OpenV1 samples the v1 group at path under root (one directory per
// controller: root/memory, root/cpu, root/cpuacct), with /proc at procRoot.
func OpenV1(root, path, procRoot string) (*Sampler, error) {
	h := func() ([]cgroup1.Subsystem, error) {
		return []cgroup1.Subsystem{cgroup1.NewMemory(root), cgroup1.NewCpu(root), cgroup1.NewCpuacct(root)}, nil
	}
	return openV1(h, cgroup1.StaticPath(path), path, procRoot, root)
}

// openV1 loads the group at path in hierarchy h; mountRoot holds one
// directory per controller (/sys/fs/cgroup/memory, …).
func openV1(h cgroup1.Hierarchy, path cgroup1.Path, desc, procRoot, mountRoot string) (*Sampler, error) {
	cg, err := cgroup1.Load(path, cgroup1.WithHierarchy(h))
	if err != nil {
		if errors.Is(err, cgroup1.ErrCgroupDeleted) {
			return nil, fmt.Errorf("cgroup %s: no such group in any v1 hierarchy", desc)
		}
		return nil, fmt.Errorf("cgroup %s: %v", desc, err)
	}
	s := &Sampler{Desc: "cgroup v1 " + desc, v1: cg, v1subs: map[cgroup1.Name]bool{}}
	for _, sub := range cg.Subsystems() {
		s.v1subs[sub.Name()] = true
	}
	// cgroup v1 has no per-group pressure files: the host's are the best there is.
	if err := s.initHost(procRoot, timeline.PSIHost); err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for _, ctl := range []cgroup1.Name{cgroup1.Memory, cgroup1.Cpu, cgroup1.Cpuacct} {
		if p, err := path(ctl); err == nil && s.v1subs[ctl] {
			dirs[string(ctl)] = filepath.Join(mountRoot, string(ctl), p)
		}
	}
	s.files, err = openFilesV1(dirs, procRoot, s.PSIScope)
	return s, err
}

// OpenV2 samples group under the cgroup2 mountpoint, with /proc at procRoot.
func OpenV2(mountpoint, group, procRoot string) (*Sampler, error) {
	dir := filepath.Join(mountpoint, group)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cgroup %s: no such group under %s", group, mountpoint)
	}
	m, err := cgroup2.Load(group, cgroup2.WithMountpoint(mountpoint))
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %v", group, err)
	}
	s := &Sampler{Desc: "cgroup v2 " + group, v2: m, v2dir: dir}
	scope := timeline.PSINone
	if exists(filepath.Join(dir, "io.pressure")) {
		scope = timeline.PSICgroup
	}
	if err := s.initHost(procRoot, scope); err != nil {
		return nil, err
	}
	s.files, err = openFilesV2(dir, procRoot, s.PSIScope)
	return s, err
}

func (s *Sampler) initHost(procRoot, scope string) error {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return fmt.Errorf("%s: %v", procRoot, err)
	}
	s.proc, s.procRoot, s.pageSize = fs, procRoot, uint64(os.Getpagesize())
	if scope == timeline.PSIHost {
		if _, err := fs.PSIStatsForResource("io"); err != nil {
			scope = timeline.PSINone
		}
	}
	s.PSIScope = scope
	return nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// Sample reads the cgroup and the host once. TMs is left for the caller.
func (s *Sampler) Sample() (timeline.Sample, error) {
	if s.files != nil {
		return s.files.sample(s.Desc)
	}
	return s.sampleContainerd()
}

// sampleContainerd reads through containerd/cgroups and procfs: every file
// of every controller, opened each time (the reference for files.go).
func (s *Sampler) sampleContainerd() (timeline.Sample, error) {
	var out timeline.Sample
	if s.v1 != nil {
		// State notices a removed group; Stat alone would read it as empty.
		if s.v1.State() == cgroup1.Deleted {
			return out, fmt.Errorf("%s: the group is gone", s.Desc)
		}
		m, err := s.v1.Stat(cgroup1.IgnoreNotExist)
		if err != nil {
			return out, fmt.Errorf("%s: %v", s.Desc, err)
		}
		out = FromV1(m, s.v1subs)
	} else {
		if !exists(s.v2dir) {
			return out, fmt.Errorf("%s: the group is gone", s.Desc)
		}
		m, err := s.v2.Stat()
		if err != nil {
			return out, fmt.Errorf("%s: %v", s.Desc, err)
		}
		out = FromV2(m, V2Files{CPUMax: exists(filepath.Join(s.v2dir, "cpu.max")), MemoryCurrent: exists(filepath.Join(s.v2dir, "memory.current"))})
		if s.PSIScope == timeline.PSICgroup {
			setPSI(&out, m.CPU.GetPSI(), readPSIFile(filepath.Join(s.v2dir, "memory.pressure")), m.Io.GetPSI())
		}
	}
	out.PSIScope = s.PSIScope
	if s.PSIScope == timeline.PSIHost {
		s.hostPSI(&out)
	}
	if vm, err := ReadVMStat(s.procRoot); err == nil {
		out.HostNrDirtyBytes = pages(vm.NrDirty, s.pageSize)
		out.HostNrWritebackBytes = pages(vm.NrWriteback, s.pageSize)
		out.HostDirtyThresholdBytes = pages(vm.NrDirtyThreshold, s.pageSize)
		out.HostDirtyBackgroundThresholdBytes = pages(vm.NrDirtyBackgroundThreshold, s.pageSize)
	}
	return out, nil
}

func pages(n *uint64, size uint64) *uint64 {
	if n == nil {
		return nil
	}
	return timeline.U64(*n * size)
}

// v1Unlimited: an unlimited v1 memory limit reads 9223372036854771712
// (PAGE_COUNTER_MAX in bytes); anything this large means "no limit".
const v1Unlimited = uint64(1) << 62

// FromV1 maps containerd's v1 metrics to a sample. subs names the
// controllers the group exists in: a missing one leaves its fields null.
// Memory figures are the hierarchical totals (the group and its children).
func FromV1(m *v1stats.Metrics, subs map[cgroup1.Name]bool) timeline.Sample {
	var s timeline.Sample
	if m.CPU != nil && subs[cgroup1.Cpuacct] && m.CPU.Usage != nil {
		s.CPUUsageNs = timeline.U64(m.CPU.Usage.Total)
	}
	if m.CPU != nil && subs[cgroup1.Cpu] && m.CPU.Throttling != nil {
		t := m.CPU.Throttling
		s.CPUPeriods, s.CPUThrottledPeriods, s.CPUThrottledNs = timeline.U64(t.Periods), timeline.U64(t.ThrottledPeriods), timeline.U64(t.ThrottledTime)
	}
	if mem := m.Memory; mem != nil && subs[cgroup1.Memory] {
		if mem.Usage != nil {
			s.MemUsageBytes = timeline.U64(mem.Usage.Usage)
			if mem.Usage.Limit < v1Unlimited {
				s.MemLimitBytes = timeline.U64(mem.Usage.Limit)
			}
		}
		s.PageCacheBytes = timeline.U64(mem.TotalCache)
		s.DirtyBytes = timeline.U64(mem.TotalDirty)
		s.WritebackBytes = timeline.U64(mem.TotalWriteback)
		s.PgMajFault = timeline.U64(mem.TotalPgMajFault)
	}
	return s
}

// V2Files says which of a v2 group's files exist: containerd reads a
// missing file as 0, and the timeline must say null instead.
type V2Files struct {
	CPUMax        bool // cpu.max: the cpu controller is enabled, periods are counted
	MemoryCurrent bool // memory.current: the memory controller is enabled
}

// FromV2 maps containerd's v2 metrics to a sample (PSI is set apart).
func FromV2(m *v2stats.Metrics, have V2Files) timeline.Sample {
	var s timeline.Sample
	if c := m.CPU; c != nil {
		s.CPUUsageNs = timeline.U64(c.UsageUsec * 1000)
		if have.CPUMax {
			s.CPUPeriods, s.CPUThrottledPeriods, s.CPUThrottledNs = timeline.U64(c.NrPeriods), timeline.U64(c.NrThrottled), timeline.U64(c.ThrottledUsec*1000)
		}
	}
	if mem := m.Memory; mem != nil && have.MemoryCurrent {
		s.MemUsageBytes = timeline.U64(mem.Usage)
		if mem.UsageLimit != ^uint64(0) {
			s.MemLimitBytes = timeline.U64(mem.UsageLimit)
		}
		s.PageCacheBytes = timeline.U64(mem.File)
		s.DirtyBytes = timeline.U64(mem.FileDirty)
		s.WritebackBytes = timeline.U64(mem.FileWriteback)
		s.PgMajFault = timeline.U64(mem.Pgmajfault)
	}
	return s
}

// readPSIFile reads memory.pressure directly: containerd skips it when
// memory.stat is not beside it (a hybrid host's unified tree).
func readPSIFile(path string) *v2stats.PSIStats {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := &v2stats.PSIStats{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		for _, kv := range strings.Fields(rest) {
			k, v, _ := strings.Cut(kv, "=")
			if k != "avg10" {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil
			}
			switch kind {
			case "some":
				out.Some = &v2stats.PSIData{Avg10: f}
			case "full":
				out.Full = &v2stats.PSIData{Avg10: f}
			}
		}
	}
	return out
}

func setPSI(s *timeline.Sample, cpu, mem, io *v2stats.PSIStats) {
	avg := func(d *v2stats.PSIData) *float64 {
		if d == nil {
			return nil
		}
		return timeline.F64(d.Avg10)
	}
	s.PSICPUSomeAvg10 = avg(cpu.GetSome())
	s.PSIMemSomeAvg10, s.PSIMemFullAvg10 = avg(mem.GetSome()), avg(mem.GetFull())
	s.PSIIOSomeAvg10, s.PSIIOFullAvg10 = avg(io.GetSome()), avg(io.GetFull())
}

func (s *Sampler) hostPSI(out *timeline.Sample) {
	line := func(res string) (some, full *float64) {
		p, err := s.proc.PSIStatsForResource(res)
		if err != nil {
			return nil, nil
		}
		if p.Some != nil {
			some = timeline.F64(p.Some.Avg10)
		}
		if p.Full != nil {
			full = timeline.F64(p.Full.Avg10)
		}
		return some, full
	}
	out.PSICPUSomeAvg10, _ = line("cpu")
	out.PSIMemSomeAvg10, out.PSIMemFullAvg10 = line("memory")
	out.PSIIOSomeAvg10, out.PSIIOFullAvg10 = line("io")
}
