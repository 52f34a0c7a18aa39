// Package nativegroup owns the line bench/native prints once it has started
// a stack in a cgroup of the lab's (the native run mode): the process, where
// its group is, which library made it and the limits it holds the process
// to. The bench keeps the line in its scratch folder; `record confinement
// --native` reads it into the manifest.
package nativegroup

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Limits are what the group holds the process to: its container's.
type Limits struct {
	CPUs   string  `json:"cpus"`
	Memory int64   `json:"memory_bytes"`
	Quota  float64 `json:"quota_cpus,omitempty"` // 0: no CFS quota (cpuset mode)
	Pids   int64   `json:"pids"`
}

// Group is one of the lab's cgroups: its path (under /stacklab), the
// host's cgroup mode (v1, v2), the library that made it, its limits.
type Group struct {
	Cgroup  string `json:"cgroup"`
	Mode    string `json:"mode"`
	Library string `json:"library"`
	Limits  Limits `json:"limits"`
}

// Started is the line `native start` prints: the command's pid, and its group.
type Started struct {
	PID int `json:"pid"`
	Group
}

// Line is s as one JSON line, as `native start` prints it.
func (s Started) Line() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Parse reads one Started line; what is missing or wrong is the error.
func Parse(b []byte) (Started, error) {
	var s Started
	text := strings.TrimSpace(string(b))
	if text == "" {
		return s, errors.New("empty: not native start's line")
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return s, fmt.Errorf("not native start's line: %v", err)
	}
	switch {
	case s.PID < 1:
		return s, errors.New("no pid")
	case !strings.HasPrefix(s.Cgroup, "/stacklab/"):
		return s, fmt.Errorf("cgroup %q: not one of the lab's (/stacklab/NAME)", s.Cgroup)
	case s.Mode != "v1" && s.Mode != "v2":
		return s, fmt.Errorf("mode %q: want v1 or v2", s.Mode)
	case s.Library == "":
		return s, errors.New("no library")
	case s.Limits.CPUs == "" || s.Limits.Memory < 1 || s.Limits.Pids < 1:
		return s, errors.New("limits: want cpus, memory_bytes and pids")
	}
	return s, nil
}
