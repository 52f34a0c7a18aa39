package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Engine is the Docker engine one role ran on (host profile keys
// APP_ENGINE, LOADGEN_ENGINE, UPSTREAM_ENGINE), and the machine behind it:
// what `docker info` says there, and the fingerprint bench/loadrun read
// in a container on it (the dirty-page limits no docker info shows).
type Engine struct {
	// Engine is the Docker context or DOCKER_HOST as the profile names it
	// ("" for the engine the bench itself talks to).
	Engine string `json:"engine"`
	// CPUs is the role's CPU list on that machine.
	CPUs string `json:"cpus"`
	// Container is true when the role's programs ran in containers on the
	// engine (the load generator named by LOADGEN_ENGINE), false when they
	// ran on the bench's machine itself.
	Container     bool   `json:"container"`
	Name          string `json:"name"`
	ServerVersion string `json:"server_version"`
	Kernel        string `json:"kernel"`
	OS            string `json:"operating_system"`
	NCPU          int    `json:"ncpu"`
	MemoryBytes   int64  `json:"memory_bytes"`
	CgroupVersion string `json:"cgroup_version"`
	CgroupDriver  string `json:"cgroup_driver"`
	// RootDir is the engine's data root: with Name, which engine it is
	// (two engines on one machine differ by it), whatever the profile
	// called it ("" and "default" are one engine).
	RootDir string      `json:"docker_root_dir"`
	Machine Fingerprint `json:"machine"`
}

// DockerInfo is what an Engine keeps of `docker info --format '{{json .}}'`.
type DockerInfo struct {
	Name            string
	ServerVersion   string
	KernelVersion   string
	OperatingSystem string
	NCPU            int
	MemTotal        int64
	CgroupVersion   string
	CgroupDriver    string
	DockerRootDir   string
}

// ReadEngines reads an engines file (role → Engine, as record engine writes it).
func ReadEngines(path string) (map[string]Engine, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var e map[string]Engine
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%s: not an engines file: %v", path, err)
	}
	return e, nil
}

// sameEngine: the same machine, engine build and CPUs for a role.
func sameEngine(a, b Engine) bool {
	ma, mb := a.Machine, b.Machine
	return a.Name == b.Name && a.ServerVersion == b.ServerVersion && a.Kernel == b.Kernel &&
		a.NCPU == b.NCPU && a.MemoryBytes == b.MemoryBytes && a.CgroupVersion == b.CgroupVersion &&
		a.CPUs == b.CPUs && a.Container == b.Container &&
		ma.CPUModel == mb.CPUModel && ma.VM == mb.VM
}

// id names the engine itself: its machine and data root.
func (e Engine) id() string { return e.Name + "\x00" + e.RootDir }

// SameEngines tells whether two runs' engine sets are the same: the same
// roles, each on the same kind of machine and engine with the same CPUs,
// and the same roles sharing an engine (by its machine and data root,
// not by the name the profile gives it). Two runs that recorded no engines
// (one local engine, the default) are the same set.
func SameEngines(a, b map[string]Engine) bool {
	if len(a) != len(b) {
		return false
	}
	for role, ea := range a {
		eb, ok := b[role]
		if !ok || !sameEngine(ea, eb) {
			return false
		}
		for other, oa := range a {
			if (oa.id() == ea.id()) != (b[other].id() == eb.id()) {
				return false
			}
		}
	}
	return true
}

// EnginesLine is an engine set in a few words, for a message.
func EnginesLine(e map[string]Engine) string {
	if len(e) == 0 {
		return "one local engine"
	}
	roles := make([]string, 0, len(e))
	for r := range e {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	var parts []string
	for _, r := range roles {
		x := e[r]
		name := x.Engine
		if name == "" {
			name = "the bench's engine"
		}
		where := ""
		if app, ok := e["app"]; ok && r != "app" {
			where = ", an engine of its own"
			if app.id() == x.id() {
				where = ", the app's engine"
			}
		}
		parts = append(parts, fmt.Sprintf("%s on %s (%s%s, Docker %s, %d CPUs, CPUs %s)", r, name, x.Name, where, x.ServerVersion, x.NCPU, x.CPUs))
	}
	return strings.Join(parts, ", ")
}
