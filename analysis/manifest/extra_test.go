package manifest

import (
	"strings"
	"testing"
)

// A key outside the table, a retired key and a value of the wrong kind
// are each refused with one line naming the key; the bench's own values
// pass.
func TestCheckExtra(t *testing.T) {
	for _, kv := range [][2]string{{"app_port", "8080"}, {"quiet_gate", "1"}, {"warmup", "steady"}, {"warmup_max_s", "30"},
		{"app_cpu_mode", "quota"}, {"app_cpu_quota", "0.5"}, {"build_cpus", "0-1"}, {"postgres_cpus", "1"}, {"cpu_canary", "before and after every window (formats/speed)"}} {
		if err := CheckExtra(kv[0], kv[1]); err != nil {
			t.Errorf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	for _, c := range []struct{ k, v, want string }{
		{"app_prot", "8080", `"app_prot" is not a key of parameters.extra`},
		{"write_rate_cap", "500", `"write_rate_cap" is a retired key`},
		{"app_port", "80800", `app_port="80800": want a TCP port number`},
		{"app_cpu_mode", "cpus", `app_cpu_mode="cpus": want one of cpuset, quota`},
		{"build_cpus", "0,", `build_cpus="0,": want a CPU list`},
		{"app_cpu_quota", "0", `want a number over 0`},
		{"postgres_version", "", `want some text`},
	} {
		err := CheckExtra(c.k, c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: %v, want %q", c.k, c.v, err, c.want)
		}
	}
}
