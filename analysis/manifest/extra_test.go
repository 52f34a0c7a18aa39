package manifest

import (
	"os"
	"path/filepath"
	"regexp"
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

// Every key the bench writes is a key of the table, and not a retired one.
func TestBenchWritesKnownKeys(t *testing.T) {
	files, _ := filepath.Glob("../../scripts/lib/*.sh")
	re := regexp.MustCompile(`--extra "([a-z_0-9]+)=`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			seen++
			known := false
			for _, k := range ExtraKeys {
				known = known || k.Name == m[1] && !k.Retired
			}
			if !known {
				t.Errorf("%s writes %s, which is not a key of ExtraKeys that is still written", f, m[1])
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d --extra keys in scripts/lib: the pattern no longer matches the bench", seen)
	}
}
