package confine

import (
	"strings"
	"testing"
)

// The base flags, a line each, as docker run takes them: the very bytes
// bash's confine_flags printed, which every committed manifest's
// confinement was recorded under.
const base = `--user
10001:10001
--cap-drop
ALL
--security-opt
no-new-privileges
--read-only
--pids-limit
4096
--tmpfs
/tmp:rw,nosuid,nodev,noexec,size=64m,mode=1777
`

func lines(flags []string) string {
	if len(flags) == 0 {
		return ""
	}
	return strings.Join(flags, "\n") + "\n"
}

// Each case's flags are exactly what the bash function printed for it.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		scratch    []string
		unconfined bool
		want       string
	}{
		{nil, false, base},
		{[]string{"/a", "/b"}, false, base +
			"--tmpfs\n/a:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n" +
			"--tmpfs\n/b:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n"},
		// bash's test let these through (only "..", /tmp and /data exactly are refused)
		{[]string{"/tmp/", "//x", "/a/..b"}, false, base +
			"--tmpfs\n/tmp/:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n" +
			"--tmpfs\n//x:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n" +
			"--tmpfs\n/a/..b:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n"},
		{nil, true, ""},
		{[]string{"/x", "relative"}, true, ""},
	} {
		got, err := Flags(c.scratch, c.unconfined)
		if err != nil || lines(got) != c.want {
			t.Errorf("Flags(%q, %v) = %q, %v; want %q", c.scratch, c.unconfined, lines(got), err, c.want)
		}
	}
}

// A scratch dir that is not absolute, is / or /tmp or /data, or climbs
// with .. is refused in bash's one line, with no flags at all.
func TestFlagsRefuseABadScratchDir(t *testing.T) {
	for _, d := range []string{"tmp", "", "/", "/tmp", "/data", "/a/../b", "/..", "/b/.."} {
		got, err := Flags([]string{"/a", d}, false)
		want := "confine: scratch dir '" + d + "' must be an absolute path other than /tmp and /data"
		if err == nil || err.Error() != want || got != nil {
			t.Errorf("Flags with %q: %q, %v; want no flags and %q", d, got, err, want)
		}
	}
}

func TestUser(t *testing.T) {
	if User() != "10001:10001" {
		t.Errorf("User() = %q, want 10001:10001", User())
	}
}
