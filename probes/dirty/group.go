package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// group is a memory-limited cgroup this probe creates for one run, or a
// container's cgroup it borrows.
type group struct {
	Path   string // relative to the hierarchy root
	V1     bool
	v1     cgroup1.Cgroup
	v2     *cgroup2.Manager
	owned  bool
	target int // pid of a process in the container (borrowed groups)
}

// newGroup creates /stacklab-probe-dirty-<pid>-<n> with the memory limit.
func newGroup(name string, limit int64) (*group, error) {
	path := "/" + name
	switch cgroups.Mode() {
	case cgroups.Unified:
		max := limit
		m, err := cgroup2.NewManager("/sys/fs/cgroup", path, &cgroup2.Resources{Memory: &cgroup2.Memory{Max: &max}})
		if err != nil {
			return nil, fmt.Errorf("create cgroup %s: %v", path, err)
		}
		return &group{Path: path, v2: m, owned: true}, nil
	case cgroups.Legacy, cgroups.Hybrid:
		// memory and cpu only: a group in every hierarchy would be more to clean up
		h := func() ([]cgroup1.Subsystem, error) {
			return []cgroup1.Subsystem{cgroup1.NewMemory("/sys/fs/cgroup"), cgroup1.NewCpu("/sys/fs/cgroup"), cgroup1.NewCpuacct("/sys/fs/cgroup")}, nil
		}
		cg, err := cgroup1.New(cgroup1.StaticPath(path), &specs.LinuxResources{Memory: &specs.LinuxMemory{Limit: &limit}}, cgroup1.WithHierarchy(h))
		if err != nil {
			return nil, fmt.Errorf("create cgroup %s: %v", path, err)
		}
		return &group{Path: path, V1: true, v1: cg, owned: true}, nil
	}
	return nil, errors.New("no cgroup file system at /sys/fs/cgroup")
}

// containerGroup borrows the cgroup of a running container's main process.
func containerGroup(pid int) (*group, error) {
	if cgroups.Mode() == cgroups.Unified {
		p, err := cgroup2.PidGroupPath(pid)
		if err != nil {
			return nil, err
		}
		m, err := cgroup2.Load(p)
		if err != nil {
			return nil, err
		}
		return &group{Path: p, v2: m, target: pid}, nil
	}
	path := cgroup1.PidPath(pid)
	cg, err := cgroup1.Load(path)
	if err != nil {
		return nil, err
	}
	p, _ := path(cgroup1.Memory)
	return &group{Path: p, V1: true, v1: cg, target: pid}, nil
}

// add moves pid into the group (every controller it has).
func (g *group) add(pid int) error {
	if g.v2 != nil {
		return g.v2.AddProc(uint64(pid))
	}
	return g.v1.Add(cgroup1.Process{Pid: pid})
}

// remove deletes a group this probe created. The kernel refuses while a
// process is still leaving it, so retry for a short while.
func (g *group) remove() error {
	if !g.owned {
		return nil
	}
	var err error
	for i := 0; i < 50; i++ {
		if g.v2 != nil {
			err = g.v2.Delete()
		} else {
			err = g.v1.Delete()
		}
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("cgroup %s not removed: %v", g.Path, err)
}
