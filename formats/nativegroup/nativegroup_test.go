package nativegroup

import (
	"strings"
	"testing"
)

func TestLineParsesBack(t *testing.T) {
	s := Started{PID: 42, Group: Group{Cgroup: "/stacklab/x", Mode: "v1", Library: "github.com/containerd/cgroups/v3 v3.0.5",
		Limits: Limits{CPUs: "0", Memory: 4 << 30, Pids: 4096}}}
	line := s.Line()
	if !strings.HasPrefix(line, `{"pid":42,"cgroup":"/stacklab/x","mode":"v1",`) {
		t.Fatalf("line %s: want the pid first, then the group's fields flat", line)
	}
	got, err := Parse([]byte(line + "\n"))
	if err != nil || got != s {
		t.Fatalf("Parse(Line) = %+v, %v; want %+v", got, err, s)
	}
}

func TestParseRefusesWhatIsNotALine(t *testing.T) {
	for in, want := range map[string]string{
		"": "empty",
		"native start: cgroup /stacklab/x: permission denied":                                                           "not native start's line",
		`{"cgroup":"/stacklab/x","mode":"v1","library":"l","limits":{"cpus":"0","memory_bytes":1,"pids":1}}`:            "no pid",
		`{"pid":1,"cgroup":"/sys/fs/cgroup","mode":"v1","library":"l","limits":{"cpus":"0","memory_bytes":1,"pids":1}}`: "not one of the lab's",
		`{"pid":1,"cgroup":"/stacklab/x","mode":"v3","library":"l","limits":{"cpus":"0","memory_bytes":1,"pids":1}}`:    "want v1 or v2",
		`{"pid":1,"cgroup":"/stacklab/x","mode":"v2","library":"l","limits":{"cpus":"0","pids":1}}`:                     "limits",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", in, err, want)
		}
	}
}
