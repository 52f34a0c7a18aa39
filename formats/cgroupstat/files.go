package cgroupstat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"stacklab/formats/timeline"
)

// The sampler runs on the load generator's CPUs, so what it costs comes off
// the measurement. containerd's Stat opens and closes every file of every
// controller on each call (about 30 files a tick here: memsw, kmem, tcp,
// blkio, hugetlb, ...; ~250 system calls). A sample needs nine: they are
// opened once and re-read with pread at offset 0 each tick (cgroup and /proc
// files regenerate their text on every read from the start), plus one stat
// of the group's directory to notice that it is gone. bench/cgsample's
// README has the before and after. FromV1/FromV2 (containerd) stay the
// reference: TestFilesMatchContainerd checks both give the same sample on
// the fixtures.

// kfile is a kernel file kept open and re-read from its start.
type kfile struct {
	f   *os.File
	fd  int // f.Fd() once: each call of Fd() costs an fcntl
	buf []byte
}

// openK opens path; nil (not an error) when it does not exist.
func openK(path string) (*kfile, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &kfile{f: f, fd: int(f.Fd()), buf: make([]byte, 4096)}, nil
}

// read returns the file's whole text as of now; the slice is reused by the
// next read. One pread from offset 0 (os.File.ReadAt would make a second
// call to see the end of the file): a read that fills the buffer is
// retried with a larger one.
func (k *kfile) read() ([]byte, error) {
	for {
		n, err := syscall.Pread(k.fd, k.buf, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k.f.Name(), err)
		}
		if n < len(k.buf) {
			return k.buf[:n], nil
		}
		k.buf = make([]byte, 2*len(k.buf)) // memory.stat outgrew the buffer
	}
}

func (k *kfile) close() {
	if k != nil {
		k.f.Close()
	}
}

// groupFiles are the files one sample reads. A nil file is one the host or
// the group does not have: its figures stay null.
type groupFiles struct {
	v2 bool
	// alive is a directory of the group: when it is gone, so is the group.
	alive string
	// v1: cpuacct.usage, cpu.stat, memory.usage_in_bytes,
	// memory.limit_in_bytes, memory.stat; v2: cpu.stat, memory.current,
	// memory.max, memory.stat (usage and limit reuse the v1 slots).
	cpuUsage, cpuStat, memUsage, memLimit, memStat *kfile
	// v2 only: cpu.max exists, i.e. periods are counted.
	cpuMax bool
	// pressure: the group's own (v2) or the host's (v1), or nil.
	psiCPU, psiMem, psiIO *kfile
	vmstat                *kfile
	pageSize              uint64
	scope                 string
}

func (g *groupFiles) close() {
	for _, k := range []*kfile{g.cpuUsage, g.cpuStat, g.memUsage, g.memLimit, g.memStat, g.psiCPU, g.psiMem, g.psiIO, g.vmstat} {
		k.close()
	}
}

// openFilesV1 opens a v1 group's files: dirs maps each controller
// ("memory", "cpu", "cpuacct") to the group's directory in its hierarchy
// ("" when the group is not in it).
func openFilesV1(dirs map[string]string, procRoot, scope string) (*groupFiles, error) {
	g := &groupFiles{pageSize: uint64(os.Getpagesize()), scope: scope}
	opens := []struct {
		dst  **kfile
		ctl  string
		file string
	}{
		{&g.cpuUsage, "cpuacct", "cpuacct.usage"}, {&g.cpuStat, "cpu", "cpu.stat"},
		{&g.memUsage, "memory", "memory.usage_in_bytes"}, {&g.memLimit, "memory", "memory.limit_in_bytes"},
		{&g.memStat, "memory", "memory.stat"},
	}
	for _, o := range opens {
		if dirs[o.ctl] == "" || !exists(dirs[o.ctl]) {
			continue
		}
		if g.alive == "" {
			g.alive = dirs[o.ctl]
		}
		k, err := openK(filepath.Join(dirs[o.ctl], o.file))
		if err != nil {
			g.close()
			return nil, err
		}
		*o.dst = k
	}
	return g, g.openHost(procRoot, filepath.Join(procRoot, "pressure"), "")
}

// openFilesV2 opens the files of the v2 group at dir.
func openFilesV2(dir, procRoot, scope string) (*groupFiles, error) {
	g := &groupFiles{v2: true, alive: dir, pageSize: uint64(os.Getpagesize()), scope: scope, cpuMax: exists(filepath.Join(dir, "cpu.max"))}
	var err error
	for _, o := range []struct {
		dst  **kfile
		file string
	}{{&g.cpuStat, "cpu.stat"}, {&g.memUsage, "memory.current"}, {&g.memLimit, "memory.max"}, {&g.memStat, "memory.stat"}} {
		if *o.dst, err = openK(filepath.Join(dir, o.file)); err != nil {
			g.close()
			return nil, err
		}
	}
	return g, g.openHost(procRoot, dir, ".pressure")
}

// openHost opens /proc/vmstat and the pressure files of the sample's scope:
// psiDir/{cpu,memory,io}+suffix.
func (g *groupFiles) openHost(procRoot, psiDir, suffix string) error {
	var err error
	if g.vmstat, err = openK(filepath.Join(procRoot, "vmstat")); err != nil {
		return err
	}
	if g.scope == timeline.PSINone {
		return nil
	}
	for _, o := range []struct {
		dst **kfile
		res string
	}{{&g.psiCPU, "cpu"}, {&g.psiMem, "memory"}, {&g.psiIO, "io"}} {
		if *o.dst, err = openK(filepath.Join(psiDir, o.res+suffix)); err != nil {
			return err
		}
	}
	return nil
}

// sample reads every file once. A read that fails, or the group's
// directory gone, is an error: the timeline ends there.
func (g *groupFiles) sample(desc string) (timeline.Sample, error) {
	out := timeline.Sample{PSIScope: g.scope}
	if g.alive != "" && !exists(g.alive) {
		return out, fmt.Errorf("%s: the group is gone", desc)
	}
	var err error
	if g.v2 {
		err = g.cgroupV2(&out)
	} else {
		err = g.cgroupV1(&out)
	}
	if err != nil {
		return out, fmt.Errorf("%s: %v", desc, err)
	}
	if g.scope != timeline.PSINone {
		cpuSome, _ := readPSI(g.psiCPU)
		out.PSICPUSomeAvg10 = cpuSome
		out.PSIMemSomeAvg10, out.PSIMemFullAvg10 = readPSI(g.psiMem)
		out.PSIIOSomeAvg10, out.PSIIOFullAvg10 = readPSI(g.psiIO)
	}
	if g.vmstat != nil {
		if b, err := g.vmstat.read(); err == nil {
			if vm, err := parseVMStat(g.vmstat.f.Name(), b); err == nil {
				out.HostNrDirtyBytes = pages(vm.NrDirty, g.pageSize)
				out.HostNrWritebackBytes = pages(vm.NrWriteback, g.pageSize)
				out.HostDirtyThresholdBytes = pages(vm.NrDirtyThreshold, g.pageSize)
				out.HostDirtyBackgroundThresholdBytes = pages(vm.NrDirtyBackgroundThreshold, g.pageSize)
			}
		}
	}
	return out, nil
}

// cgroupV1 fills the sample as FromV1 does from containerd's metrics.
func (g *groupFiles) cgroupV1(out *timeline.Sample) error {
	if g.cpuUsage != nil {
		v, err := readUint(g.cpuUsage)
		if err != nil {
			return err
		}
		out.CPUUsageNs = &v
	}
	if g.cpuStat != nil {
		st, err := readKeys(g.cpuStat, "nr_periods", "nr_throttled", "throttled_time")
		if err != nil {
			return err
		}
		out.CPUPeriods, out.CPUThrottledPeriods, out.CPUThrottledNs = u64(st[0]), u64(st[1]), u64(st[2])
	}
	if g.memUsage != nil && g.memStat != nil {
		usage, err := readUint(g.memUsage)
		if err != nil {
			return err
		}
		out.MemUsageBytes = &usage
		if g.memLimit != nil {
			if lim, err := readUint(g.memLimit); err == nil && lim < v1Unlimited {
				out.MemLimitBytes = &lim
			}
		}
		st, err := readKeys(g.memStat, "total_cache", "total_dirty", "total_writeback", "total_pgmajfault")
		if err != nil {
			return err
		}
		out.PageCacheBytes, out.DirtyBytes, out.WritebackBytes, out.PgMajFault = u64(st[0]), u64(st[1]), u64(st[2]), u64(st[3])
	}
	return nil
}

// cgroupV2 fills the sample as FromV2 does from containerd's metrics.
func (g *groupFiles) cgroupV2(out *timeline.Sample) error {
	if g.cpuStat != nil {
		st, err := readKeys(g.cpuStat, "usage_usec", "nr_periods", "nr_throttled", "throttled_usec")
		if err != nil {
			return err
		}
		out.CPUUsageNs = timeline.U64(u64v(st[0]) * 1000)
		if g.cpuMax {
			out.CPUPeriods, out.CPUThrottledPeriods, out.CPUThrottledNs = u64(st[1]), u64(st[2]), timeline.U64(u64v(st[3])*1000)
		}
	}
	if g.memUsage != nil {
		usage, err := readUint(g.memUsage)
		if err != nil {
			return err
		}
		out.MemUsageBytes = &usage
		if g.memLimit != nil {
			if b, err := g.memLimit.read(); err == nil && string(bytes.TrimSpace(b)) != "max" {
				if lim, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64); err == nil {
					out.MemLimitBytes = &lim
				}
			}
		}
		if g.memStat != nil {
			st, err := readKeys(g.memStat, "file", "file_dirty", "file_writeback", "pgmajfault")
			if err != nil {
				return err
			}
			out.PageCacheBytes, out.DirtyBytes, out.WritebackBytes, out.PgMajFault = u64(st[0]), u64(st[1]), u64(st[2]), u64(st[3])
		}
	}
	return nil
}

// u64 turns a key that was present into a value (containerd reads a
// missing key as 0, and so does this, to give the same sample).
func u64(p *uint64) *uint64 { return timeline.U64(u64v(p)) }

func u64v(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

func readUint(k *kfile) (uint64, error) {
	b, err := k.read()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", k.f.Name(), err)
	}
	return v, nil
}

// readKeys reads a "key value" file (memory.stat, cpu.stat) and returns
// the values of keys, in order, nil for a key the kernel did not print.
func readKeys(k *kfile, keys ...string) ([]*uint64, error) {
	b, err := k.read()
	if err != nil {
		return nil, err
	}
	return parseKeys(k.f.Name(), b, keys...)
}

func parseKeys(name string, b []byte, keys ...string) ([]*uint64, error) {
	out := make([]*uint64, len(keys))
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		key, val, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			continue
		}
		for i, want := range keys {
			if out[i] == nil && string(key) == want {
				v, err := strconv.ParseUint(string(bytes.TrimSpace(val)), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %v", name, want, err)
				}
				out[i] = &v
			}
		}
	}
	return out, nil
}

// readPSI reads a pressure file's "some" and "full" avg10; nil for a file
// the host does not have, or a line it does not print.
func readPSI(k *kfile) (some, full *float64) {
	if k == nil {
		return nil, nil
	}
	b, err := k.read()
	if err != nil {
		return nil, nil
	}
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		kind, rest, _ := bytes.Cut(line, []byte(" "))
		_, v, ok := bytes.Cut(rest, []byte("avg10="))
		if !ok {
			continue
		}
		v, _, _ = bytes.Cut(v, []byte(" "))
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			continue
		}
		switch string(kind) {
		case "some":
			some = timeline.F64(f)
		case "full":
			full = timeline.F64(f)
		}
	}
	return some, full
}

// MemoryStat is a group's memory at one moment, split the way a reader
// needs it: anonymous memory (the processes' own: heap, stacks; v1
// memory.stat total_rss, v2 anon) apart from page cache (file pages, for
// the lab's stacks mostly the SQLite database read through the cache; v1
// total_cache, v2 file), which a limit squeezes out before anything else.
// One JSON line each, as `cgsample memory` writes them.
type MemoryStat struct {
	UsageBytes uint64 `json:"usage_bytes"`
	AnonBytes  uint64 `json:"anon_bytes"`
	FileBytes  uint64 `json:"file_bytes"`
}

// Memory reads the group's memory once; an error when the group has no
// memory controller.
func (s *Sampler) Memory() (MemoryStat, error) {
	g := s.files
	if g == nil || g.memUsage == nil || g.memStat == nil {
		return MemoryStat{}, fmt.Errorf("%s: no memory controller (memory.stat)", s.Desc)
	}
	if g.alive != "" && !exists(g.alive) {
		return MemoryStat{}, fmt.Errorf("%s: the group is gone", s.Desc)
	}
	usage, err := readUint(g.memUsage)
	if err != nil {
		return MemoryStat{}, err
	}
	keys := []string{"total_rss", "total_cache"}
	if g.v2 {
		keys = []string{"anon", "file"}
	}
	st, err := readKeys(g.memStat, keys...)
	if err != nil {
		return MemoryStat{}, err
	}
	if st[0] == nil || st[1] == nil {
		return MemoryStat{}, fmt.Errorf("%s: memory.stat has no %s or %s", s.Desc, keys[0], keys[1])
	}
	return MemoryStat{UsageBytes: usage, AnonBytes: *st[0], FileBytes: *st[1]}, nil
}

// ReadMemoryFile reads the JSON lines `cgsample memory` wrote to path.
func ReadMemoryFile(path string) ([]MemoryStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []MemoryStat
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m MemoryStat
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no memory reading", path)
	}
	return out, nil
}
