// Package confine is the confinement every container the lab starts runs
// under (issue #17): a benchmarked app may be someone else's image, so it
// gets no more than it needs to serve. It is the one place for the flags,
// so the bench, scripts/verify and the tests start containers the same way
// (bash asks `stack confine`, scripts/lib/confine.sh), and for the ids and
// the pid limit a native app's cgroup gets too (bench/native's defaults).
//
//	--user 10001:10001                  a fixed uid; the seeded /data is handed to it
//	--cap-drop ALL                      no capabilities, not even Docker's default set
//	--security-opt no-new-privileges    no setuid binary or file capability raises them
//	--read-only                         the image's files cannot be changed
//	--tmpfs /tmp (and the stack's SCRATCH dirs)   small, in memory, nosuid/nodev/noexec
//	--pids-limit 4096                   a fork loop stops there, the host goes on
//
// /data (the bind mount stack_start adds) is the only writable path on disk.
// LAB_UNCONFINED=1 drops every one of these flags: it exists only to measure
// what confinement costs (stacks' READMEs); confine_record puts what ran in
// the manifest.
package confine

import (
	"fmt"
	"strconv"
	"strings"
)

const (
	// UID and GID are who the app runs as, in a container and natively.
	UID = 10001
	GID = 10001
	// PidsLimit is the most processes and threads the app may have.
	PidsLimit = 4096
	// TmpfsSize is each tmpfs's size: in memory, counted against the
	// container's memory limit; 64 MiB each is far beyond what a stack
	// writes there (SQLite's temporary files, a pid file).
	TmpfsSize = "64m"
)

// User is UID:GID, as docker run's --user and chown take it.
func User() string { return strconv.Itoa(UID) + ":" + strconv.Itoa(GID) }

// Flags are the docker run flags, one an element: /tmp is always a tmpfs;
// each of scratch (absolute, neither /tmp nor /data) is another, owned by
// the lab's user. Unconfined (LAB_UNCONFINED=1) gives none. A scratch dir
// that is not so is refused in one line, and no flag is given.
func Flags(scratch []string, unconfined bool) ([]string, error) {
	if unconfined {
		return nil, nil
	}
	opts := "rw,nosuid,nodev,noexec,size=" + TmpfsSize
	flags := []string{"--user", User(), "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--read-only", "--pids-limit", strconv.Itoa(PidsLimit), "--tmpfs", "/tmp:" + opts + ",mode=1777"}
	for _, d := range scratch {
		if !scratchOK(d) {
			return nil, fmt.Errorf("confine: scratch dir '%s' must be an absolute path other than /tmp and /data", d)
		}
		flags = append(flags, "--tmpfs", fmt.Sprintf("%s:%s,uid=%d,gid=%d,mode=0700", d, opts, UID, GID))
	}
	return flags, nil
}

// scratchOK: d starts with / and has more after it, is neither /tmp nor
// /data, and has no .. part (so it cannot climb out to another path).
func scratchOK(d string) bool {
	return len(d) > 1 && d[0] == '/' && d != "/tmp" && d != "/data" && !strings.Contains("/"+d+"/", "/../")
}
