// Package hostprofile is the one reader of a host profile (hosts/*.env):
// the table of keys a profile may set, what each means, and the roles
// (app, load generator, upstream) with the Docker engine, CPU set and
// address of each. The bench gets the values from bench/host, which
// prints them for bash; nothing else parses a profile.
package hostprofile

import (
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"stacklab/formats/cpulist"
	"stacklab/formats/envfile"
)

// Kind is what a key's value must look like.
type Kind int

const (
	Word    Kind = iota // any single value
	CPUList             // 0-3,6
	Engine              // a Docker context name, or a DOCKER_HOST (unix://, ssh://, tcp://)
	Address             // an IP address or host name
	Number              // a decimal number
)

// Key is one row of the profile table.
type Key struct {
	Name     string
	Kind     Kind
	Required bool
	Meaning  string
}

// Keys is the profile table: every key a host profile may set.
var Keys = []Key{
	{"HOST_NAME", Word, true, "the name used in results folder names"},
	{"APP_CPUS", CPUList, true, "the app's CPUs (--cpuset-cpus) on the app's engine"},
	{"LOADGEN_CPUS", CPUList, true, "the load generator's CPUs (taskset, or --cpuset-cpus on its engine)"},
	{"UPSTREAM_CPUS", CPUList, true, "the mock upstream's CPUs on its engine"},
	{"SAMPLER_CPUS", CPUList, false, "the cgroup sampler's CPUs, on the app's machine (default LOADGEN_CPUS)"},
	{"APP_MEMORY", Word, true, "the app's memory limit (--memory)"},
	{"APP_CPU_MODE", Word, false, "cpuset (default) or quota"},
	{"APP_CPU_QUOTA", Number, false, "quota mode: CPUs' worth per period (--cpus)"},
	{"CONNECTIONS", Number, true, "oha connections for page, read and write cases"},
	{"IO_CONNECTIONS", Number, false, "oha connections for the upstream case"},
	{"QUIET_LOAD", Number, false, "the quiet gate's 1-minute load average"},
	{"QUIET_SECONDS", Number, false, "how long the load must stay under QUIET_LOAD (full profile)"},
	{"QUIET_CPU_SHARE", Number, false, "a run is discarded when an outside process used more than this share of one CPU"},
	{"BUILD_CPUS", CPUList, false, "the size study's build CPUs"},
	{"DB_CPUS", CPUList, false, "the Postgres server role's CPUs (--cpuset-cpus), for rows on Postgres"},
	{"DB_MEMORY", Word, false, "the Postgres server role's memory limit (--memory)"},
	{"APP_ENGINE", Engine, false, "the Docker engine of the app and of what watches it (the cgroup sampler, the canary and hiccup meter of its CPUs, the checks that read its database), in containers there; unset or default: the bench's own"},
	{"LOADGEN_ENGINE", Engine, false, "the Docker engine the load generator runs on, in a container; unset: on this machine, no container"},
	{"UPSTREAM_ENGINE", Engine, false, "the Docker engine the mock upstream runs on; unset: the app's"},
	{"APP_ADDR", Address, false, "the address the load generator reaches the app (and, beside it, the upstream's ceiling) at (default 127.0.0.1)"},
	{"UPSTREAM_ADDR", Address, false, "the address the app (and, with UPSTREAM_ENGINE, the generator for the ceiling) reaches the mock upstream at (default 127.0.0.1)"},
}

// Defaults are the values of the keys a profile may leave unset that the
// bench still needs: the quiet gate's thresholds, owned here once (bash,
// the quiet command and the plan's ETA ask for them; checks/owners fails a
// second literal). A 1-minute load under 2.0 on this project's 2-CPU
// machines is a host with a CPU to spare; a process outside the lab using
// half a CPU through a run is work the run shared its CPUs with.
var Defaults = map[string]string{
	"QUIET_LOAD":      "2.0",
	"QUIET_CPU_SHARE": "0.5",
}

// DefaultNumber is Defaults[name] as a number (0 when it has none).
func DefaultNumber(name string) float64 {
	v, _ := strconv.ParseFloat(Defaults[name], 64)
	return v
}

// Roles are the roles a profile places, in the order the manifest lists them.
var Roles = []string{"app", "loadgen", "upstream"}

// Role is where one role runs.
type Role struct {
	Name string
	// Engine is the Docker context or DOCKER_HOST; "" is the engine the
	// bench itself talks to (and, for the load generator, no container).
	Engine string
	CPUs   string
	// Addr is the address others reach this role at ("" for the generator).
	Addr string
}

// Profile is a read and checked host profile.
type Profile struct {
	Path string
	Name string // the file's name without .env
	// Set holds the keys the file sets, as written.
	Set map[string]string
}

var (
	number    = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	context   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]*$`)
	hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$`)
)

func keyOf(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Read reads and checks the profile at path; every error is one line
// starting "host profile PATH:".
func Read(path string) (*Profile, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("host profile %s: %s", path, fmt.Sprintf(format, a...))
	}
	if _, err := os.Stat(path); err != nil {
		return nil, bad("no such file")
	}
	set, err := envfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("host profile %v", err)
	}
	var names []string
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		key, ok := keyOf(k)
		if !ok {
			return nil, bad("%s is not a key of a host profile (hosts/README.md lists them)", k)
		}
		if err := check(key.Kind, set[k]); err != nil {
			return nil, bad("%s=%s %v", k, set[k], err)
		}
	}
	for _, key := range Keys {
		if key.Required && set[key.Name] == "" {
			return nil, bad("%s is not set", key.Name)
		}
	}
	return &Profile{Path: path, Name: strings.TrimSuffix(filepath.Base(path), ".env"), Set: set}, nil
}

func check(k Kind, v string) error {
	switch k {
	case CPUList:
		if _, err := cpulist.Parse(v); err != nil {
			return err
		}
	case Number:
		if !number.MatchString(v) {
			return fmt.Errorf("is not a number")
		}
	case Engine:
		if v == "" {
			return nil
		}
		if i := strings.Index(v, "://"); i >= 0 {
			switch v[:i] {
			case "unix", "ssh", "tcp":
				return nil
			}
			return fmt.Errorf("is not a Docker context name or a DOCKER_HOST (unix://, ssh://, tcp://)")
		}
		if !context.MatchString(v) {
			return fmt.Errorf("is not a Docker context name or a DOCKER_HOST (unix://, ssh://, tcp://)")
		}
	case Address:
		if net.ParseIP(v) != nil {
			return nil
		}
		for _, l := range strings.Split(v, ".") {
			if !hostLabel.MatchString(l) {
				return fmt.Errorf("is not an IP address or a host name")
			}
		}
	}
	return nil
}

// Role returns where the named role runs.
func (p *Profile) Role(name string) Role {
	s := p.Set
	switch name {
	case "app":
		return Role{Name: name, Engine: s["APP_ENGINE"], CPUs: s["APP_CPUS"], Addr: or(s["APP_ADDR"], "127.0.0.1")}
	case "loadgen":
		return Role{Name: name, Engine: s["LOADGEN_ENGINE"], CPUs: s["LOADGEN_CPUS"]}
	case "upstream":
		return Role{Name: name, Engine: s["UPSTREAM_ENGINE"], CPUs: s["UPSTREAM_CPUS"], Addr: or(s["UPSTREAM_ADDR"], "127.0.0.1")}
	}
	return Role{Name: name}
}

// Remote tells whether the named role runs on an engine of its own, not
// the bench's ("default" is the bench's): its CPUs are that machine's.
func (p *Profile) Remote(role string) bool {
	e := p.Role(role).Engine
	return e != "" && e != "default"
}

// CeilingAddr is where the load generator reaches the mock upstream for
// the ceiling row: beside the app (APP_ADDR) while it shares the app's
// engine, at UPSTREAM_ADDR on an engine of its own.
func (p *Profile) CeilingAddr() string {
	if p.Remote("upstream") {
		return p.Role("upstream").Addr
	}
	return p.Role("app").Addr
}

// Engines tells whether the profile names any engine: then every role's
// engine is fingerprinted in the manifest, and the generator runs in a
// container.
func (p *Profile) Engines() bool {
	return p.Set["APP_ENGINE"] != "" || p.Set["LOADGEN_ENGINE"] != "" || p.Set["UPSTREAM_ENGINE"] != ""
}

// CheckLocalCPUs refuses a role on this machine whose CPU list names a CPU
// outside online (the kernel's online list, "0-1").
func (p *Profile) CheckLocalCPUs(online string) error {
	var keys []string
	if !p.Remote("app") {
		// the sampler runs beside the app, on its machine
		keys = append(keys, "APP_CPUS")
		if p.Set["SAMPLER_CPUS"] != "" {
			keys = append(keys, "SAMPLER_CPUS")
		}
	}
	if !p.Remote("loadgen") {
		keys = append(keys, "LOADGEN_CPUS")
	}
	if !p.Remote("upstream") {
		keys = append(keys, "UPSTREAM_CPUS")
	}
	return p.checkOnline(keys, online)
}

// checkOnline refuses the first of keys whose CPU list names a CPU outside
// online (the kernel's online list, "0-1").
func (p *Profile) checkOnline(keys []string, online string) error {
	on, err := cpulist.Parse(strings.TrimSpace(online))
	if err != nil {
		return fmt.Errorf("this host's online CPUs %q: %v", online, err)
	}
	have := map[int]bool{}
	for _, c := range on {
		have[c] = true
	}
	for _, k := range keys {
		cpus, _ := cpulist.Parse(p.Set[k])
		for _, c := range cpus {
			if !have[c] {
				return fmt.Errorf("host profile %s: %s=%s names CPU %d, but this host has CPUs %s", p.Path, k, p.Set[k], c, strings.TrimSpace(online))
			}
		}
	}
	return nil
}

// CheckEngineCPUs refuses a role whose CPU list names a CPU its engine
// does not have (ncpu: docker info's NCPU there).
func (p *Profile) CheckEngineCPUs(role string, ncpu int) error {
	r := p.Role(role)
	lists := [][2]string{{role + "'s CPUs", r.CPUs}}
	if role == "app" && p.Set["SAMPLER_CPUS"] != "" {
		lists = append(lists, [2]string{"SAMPLER_CPUS", p.Set["SAMPLER_CPUS"]})
	}
	for _, l := range lists {
		cpus, _ := cpulist.Parse(l[1])
		for _, c := range cpus {
			if c >= ncpu {
				return fmt.Errorf("host profile %s: %s %s name CPU %d, but its engine %s has %d CPUs", p.Path, l[0], l[1], c, r.Engine, ncpu)
			}
		}
	}
	return nil
}

// AppCPU is how the app's CPUs are confined: Mode cpuset (the default:
// --cpuset-cpus APP_CPUS) or quota (a CFS quota of Quota CPUs on top, as a
// Kubernetes CPU limit sets it; Quota defaults to the count of APP_CPUS),
// and Count, the app's LAB_CPUS: the count of APP_CPUS, or in quota mode
// the quota rounded up (the CPUs' worth it may use per period).
type AppCPU struct {
	Mode  string
	Quota string // "" in cpuset mode
	Count int
}

// AppCPU is the profile's app CPU confinement, checked; every error is
// one line starting "host profile PATH:".
func (p *Profile) AppCPU() (AppCPU, error) {
	cpus, _ := cpulist.Parse(p.Set["APP_CPUS"])
	a := AppCPU{Mode: or(p.Set["APP_CPU_MODE"], "cpuset"), Count: len(cpus)}
	switch a.Mode {
	case "cpuset":
		return a, nil
	case "quota":
		a.Quota = or(p.Set["APP_CPU_QUOTA"], strconv.Itoa(a.Count))
		q, err := strconv.ParseFloat(a.Quota, 64)
		if err != nil || !number.MatchString(a.Quota) || q <= 0 || q > float64(a.Count) {
			return a, fmt.Errorf("host profile %s: APP_CPU_QUOTA=%s: want a number of CPUs above 0 and at most the %d of APP_CPUS=%s", p.Path, a.Quota, a.Count, p.Set["APP_CPUS"])
		}
		a.Count = int(math.Ceil(q))
		return a, nil
	}
	return a, fmt.Errorf("host profile %s: APP_CPU_MODE=%s: want cpuset or quota", p.Path, a.Mode)
}

// CheckDB refuses a profile whose Postgres server role (rows on Postgres)
// is unset or names a CPU outside online (the kernel's online list).
func (p *Profile) CheckDB(online string) error {
	for _, k := range []string{"DB_CPUS", "DB_MEMORY"} {
		if p.Set[k] == "" {
			return fmt.Errorf("host profile %s: %s is not set (a row on Postgres runs the server role there; hosts/README.md)", p.Path, k)
		}
	}
	return p.checkOnline([]string{"DB_CPUS"}, online)
}

// SamplerCPUs is where the cgroup sampler runs: SAMPLER_CPUS, else the
// load generator's CPUs while the app is on the bench's machine, else
// (the app on an engine of its own, the generator's CPUs another
// machine's) the app's.
func (p *Profile) SamplerCPUs() string {
	if v := p.Set["SAMPLER_CPUS"]; v != "" {
		return v
	}
	if p.Remote("app") {
		return p.Role("app").CPUs
	}
	return p.Role("loadgen").CPUs
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Lines is the profile as KEY=VALUE lines, each value as written (a
// profile's values are one line each): the keys the file sets, and the
// Defaults of those it leaves unset, in the table's order. Bash assigns
// them as they are (assign_lines in scripts/lib/common.sh), never
// evaluating them.
func (p *Profile) Lines() string {
	var b strings.Builder
	for _, k := range Keys {
		if v, ok := p.Set[k.Name]; ok {
			fmt.Fprintf(&b, "%s=%s\n", k.Name, v)
		} else if v, ok := Defaults[k.Name]; ok {
			fmt.Fprintf(&b, "%s=%s\n", k.Name, v)
		}
	}
	return b.String()
}
