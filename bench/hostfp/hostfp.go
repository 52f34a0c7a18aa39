// Package hostfp reads the fingerprint of the machine it runs on (CPU
// model, cores, memory, kernel, cgroup mode, dirty-page limits): the
// bench's host through bench/record, and each engine's machine through
// bench/loadrun in a container there.
package hostfp

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/containerd/cgroups/v3"
	"github.com/prometheus/procfs"

	"stacklab/analysis/manifest"
)

// Read describes this machine: enough to refuse mixing two hosts in one
// table, and to explain a write stall afterwards.
func Read() (manifest.Fingerprint, error) {
	var fp manifest.Fingerprint
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return fp, fmt.Errorf("host fingerprint: %w", err)
	}
	fp.Hostname, _ = os.Hostname()
	if infos, err := fs.CPUInfo(); err == nil && len(infos) > 0 {
		fp.CPUModel = infos[0].ModelName
	}
	fp.Cores = runtime.NumCPU()
	if mi, err := fs.Meminfo(); err == nil && mi.MemTotalBytes != nil {
		fp.MemoryBytes = int64(*mi.MemTotalBytes)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		fp.Kernel = strings.TrimSpace(string(b))
	}
	switch cgroups.Mode() {
	case cgroups.Legacy:
		fp.CgroupMode = "legacy"
	case cgroups.Hybrid:
		fp.CgroupMode = "hybrid"
	case cgroups.Unified:
		fp.CgroupMode = "unified"
	default:
		fp.CgroupMode = "unavailable"
	}
	if vm, err := fs.VM(); err == nil {
		fp.VM = manifest.VM{
			DirtyRatio:           deref(vm.DirtyRatio),
			DirtyBackgroundRatio: deref(vm.DirtyBackgroundRatio),
			DirtyBytes:           deref(vm.DirtyBytes),
			DirtyBackgroundBytes: deref(vm.DirtyBackgroundBytes),
		}
	}
	return fp, nil
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
