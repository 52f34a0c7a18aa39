package manifest

import (
	"fmt"
	"strconv"
	"strings"

	"stacklab/formats/cpulist"
)

// The keys of parameters.extra, one table: what each means and the kind
// of its value. The bench writes them through record, which refuses a key
// not in the table and a value not of its kind (CheckExtra); analysis
// reads them through the methods below and never by a string of its own.
// The JSON stays a map of strings, as every committed manifest has it.

// ExtraKey is one key of parameters.extra.
type ExtraKey struct {
	Name  string
	Kind  string // port, 01, cpus, number, seconds, text, or one of "a|b|c"
	Means string
	// Retired keys are read in old folders and never written again.
	Retired bool
}

// ExtraKeys is every key parameters.extra has held.
var ExtraKeys = []ExtraKey{
	{Name: "app_port", Kind: "port", Means: "the port every row's app listened on"},
	{Name: "quiet_gate", Kind: "01", Means: "1 when the quiet-host gate waited before each run"},
	{Name: "cpu_canary", Kind: "text", Means: "when the CPU-speed canary read the CPUs' speed"},
	{Name: "warmup", Kind: "steady|window|container|case", Means: "what one warm-up preceded: every window until steady, every window, a container's first, or each row's slices of a case (paired)"},
	{Name: "warmup_max_s", Kind: "seconds", Means: "the longest a warm-up ran before it gave up on steady"},
	{Name: "app_cpu_mode", Kind: "cpuset|quota", Means: "how the app's CPUs were limited: a CPU set, or a CFS quota over it"},
	{Name: "app_cpu_quota", Kind: "number", Means: "the app's CPUs per 100 ms period in quota mode"},
	{Name: "build_cpus", Kind: "cpus", Means: "the CPUs a size study's builds ran on"},
	{Name: "postgres_version", Kind: "text", Means: "the Postgres role's server package and version"},
	{Name: "postgres_settings", Kind: "text", Means: "the Postgres role's settings file, its lines"},
	{Name: "postgres_cpus", Kind: "cpus", Means: "the Postgres role's CPUs"},
	{Name: "postgres_memory", Kind: "text", Means: "the Postgres role's memory limit, as Docker took it"},
	{Name: "postgres_rows", Kind: "text", Means: "the rows that ran on Postgres, comma-separated"},
	{Name: "seed", Kind: "text", Means: "the seed's size every session started from, as the seed command's flags (a study's [seed], else the default)"},
	{Name: "seed_checksum", Kind: "text", Means: "the checksum of the seed's rows (seed checksum), which every fresh database was checked against before its app started"},
	{Name: "run_mode", Kind: "docker|native", Means: "where the stacks ran: in Docker containers, or as host processes in cgroups the lab made (bench/native); folders without it ran in Docker"},
	{Name: "io_connections", Kind: "text", Means: "the io study's connections, before studies were files", Retired: true},
	{Name: "upstream_delay_ms", Kind: "text", Means: "the mock upstream's delay, before studies were files", Retired: true},
	{Name: "write_rate_cap", Kind: "text", Means: "the companion writers' rate, before studies were files", Retired: true},
}

// CheckExtra says what is wrong with writing key=value into
// parameters.extra, nil when nothing is.
func CheckExtra(key, value string) error {
	var k *ExtraKey
	for i := range ExtraKeys {
		if ExtraKeys[i].Name == key {
			k = &ExtraKeys[i]
		}
	}
	var names []string
	for _, e := range ExtraKeys {
		if !e.Retired {
			names = append(names, e.Name)
		}
	}
	switch {
	case k == nil:
		return fmt.Errorf("%q is not a key of parameters.extra (keys: %s)", key, strings.Join(names, ", "))
	case k.Retired:
		return fmt.Errorf("%q is a retired key of parameters.extra: old folders have it, nothing writes it", key)
	}
	ok := true
	switch k.Kind {
	case "port":
		n, err := strconv.Atoi(value)
		ok = err == nil && n >= 1 && n <= 65535
	case "01":
		ok = value == "0" || value == "1"
	case "cpus":
		_, err := cpulist.Parse(value)
		ok = err == nil
	case "number", "seconds":
		f, err := strconv.ParseFloat(value, 64)
		ok = err == nil && f > 0
	case "text":
		ok = value != ""
	default:
		ok = contains(strings.Split(k.Kind, "|"), value)
	}
	if !ok {
		return fmt.Errorf("%s=%q: want %s (%s)", key, value, kindWords(k.Kind), k.Means)
	}
	return nil
}

func kindWords(kind string) string {
	switch kind {
	case "port":
		return "a TCP port number"
	case "01":
		return "0 or 1"
	case "cpus":
		return "a CPU list like 0 or 0-1,3"
	case "number":
		return "a number over 0"
	case "seconds":
		return "seconds, over 0"
	case "text":
		return "some text"
	}
	return "one of " + strings.ReplaceAll(kind, "|", ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// AppCPUMode is how the app's CPUs were limited ("cpuset" or "quota"), ""
// when the manifest does not say (older folders: the host profile does).
func (p Parameters) AppCPUMode() string { return p.Extra["app_cpu_mode"] }

// The run modes: every stack in a container, or every stack a host process
// in a cgroup the lab made. A table never mixes the two.
const (
	RunDocker = "docker"
	RunNative = "native"
)

// RunMode is where the stacks ran, RunDocker for a folder that does not
// say (every folder from before native mode).
func (p Parameters) RunMode() string {
	if v := p.Extra["run_mode"]; v != "" {
		return v
	}
	return RunDocker
}

// ModeWords is a run mode in a phrase: "in Docker", "natively".
func ModeWords(mode string) string {
	if mode == RunNative {
		return "natively (each stack a host process in a cgroup the lab made)"
	}
	return "in Docker"
}

// AppCPUQuota is the app's CPUs per period in quota mode, "" otherwise.
func (p Parameters) AppCPUQuota() string { return p.Extra["app_cpu_quota"] }

// Warmup is what one warm-up preceded (ExtraKeys' warmup) and the longest
// a warm-up ran, "" for folders from before each was kept.
func (p Parameters) Warmup() (scope, maxS string) {
	return p.Extra["warmup"], p.Extra["warmup_max_s"]
}

// BuildCPUs is the CPUs a size study's builds ran on.
func (p Parameters) BuildCPUs() string { return p.Extra["build_cpus"] }

// PostgresSettings is the Postgres role's settings, "" for a folder
// without rows on Postgres.
func (p Parameters) PostgresSettings() string { return p.Extra["postgres_settings"] }
