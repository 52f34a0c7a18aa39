package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A package the host lacks is installed at the image's version; one at
// another version is kept and named with both; one at the image's is left.
func TestHostPackageSteps(t *testing.T) {
	installed := map[string]string{"libssl-dev": "3.0.19-1~deb12u2", "gcc": "4:12.2.0-3"}
	got := hostPackageSteps([]string{"gcc=4:12.2.0-3", "libssl-dev=3.0.22-1~deb12u2", "libmicrohttpd-dev=0.9.75-6"},
		func(name string) string { return installed[name] })
	want := []string{"keep libssl-dev 3.0.19-1~deb12u2 3.0.22-1~deb12u2", "install libmicrohttpd-dev=0.9.75-6"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}
}

// The Postgres role's two facts, from the lab's own files, are the very
// bytes bash printed for them: committed manifests record these strings,
// and a bench on the same files must record them again.
func TestPostgresFacts(t *testing.T) {
	for sub, want := range map[string]string{
		"postgres-settings": "listen_addresses = '127.0.0.1'; unix_socket_directories = '/tmp'; max_connections = 100; " +
			"shared_buffers = 128MB; synchronous_commit = on; fsync = on; wal_level = replica; max_wal_size = 1GB; " +
			"checkpoint_timeout = 5min; track_io_timing = on; track_wal_io_timing = on; log_checkpoints = on; " +
			"log_min_messages = warning; log_timezone = 'UTC'; timezone = 'UTC'; lc_messages = 'C'; " +
			"dynamic_shared_memory_type = posix; huge_pages = off\n",
		"postgres-version": "15.20-0+deb12u1\n",
	} {
		var out, errs strings.Builder
		if rc := run([]string{"--lab-root", "../..", sub}, &out, &errs); rc != 0 || out.String() != want {
			t.Errorf("stack %s: exit %d, %q (stderr %q), want %q", sub, rc, out.String(), errs.String(), want)
		}
	}
}

// `stack confine` prints, a line each, the very flags bash's confine_flags
// printed (which confine_flags reads into an array): the base set, a tmpfs
// per SCRATCH dir of the stack named, none when unconfined, and a bad
// scratch dir refused in bash's one line, exit 2, with no flag printed.
func TestConfine(t *testing.T) {
	const base = "--user\n10001:10001\n--cap-drop\nALL\n--security-opt\nno-new-privileges\n--read-only\n" +
		"--pids-limit\n4096\n--tmpfs\n/tmp:rw,nosuid,nodev,noexec,size=64m,mode=1777\n"
	extra := t.TempDir()
	os.MkdirAll(filepath.Join(extra, "two"), 0o755)
	os.WriteFile(filepath.Join(extra, "two", "stack.env"), []byte("SCRATCH=\"/app/tmp /var/cache/x\"\n"), 0o644)
	os.MkdirAll(filepath.Join(extra, "bad"), 0o755)
	os.WriteFile(filepath.Join(extra, "bad", "stack.env"), []byte("SCRATCH=\"/app/tmp tmp\"\n"), 0o644)
	for _, c := range []struct {
		args      []string
		rc        int
		out, errs string
	}{
		{[]string{"confine"}, 0, base, ""},
		{[]string{"confine", "--unconfined", "", "two"}, 0, base +
			"--tmpfs\n/app/tmp:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n" +
			"--tmpfs\n/var/cache/x:rw,nosuid,nodev,noexec,size=64m,uid=10001,gid=10001,mode=0700\n", ""},
		{[]string{"confine", "--unconfined", "1", "two"}, 0, "", ""},
		{[]string{"confine", "--unconfined", "1"}, 0, "", ""},
		{[]string{"confine", "--unconfined", "true"}, 0, base, ""},
		{[]string{"confine", "bad"}, 2, "", "confine: scratch dir 'tmp' must be an absolute path other than /tmp and /data\n"},
		{[]string{"confine-ids"}, 0, "CONFINE_USER=10001:10001\nCONFINE_PIDS_LIMIT=4096\n", ""},
	} {
		var out, errs strings.Builder
		rc := run(append([]string{"--lab-root", "../..", "--extra-stacks", extra}, c.args...), &out, &errs)
		if rc != c.rc || out.String() != c.out || errs.String() != c.errs {
			t.Errorf("stack %q: exit %d, %q, stderr %q; want exit %d, %q, stderr %q", c.args, rc, out.String(), errs.String(), c.rc, c.out, c.errs)
		}
	}
}

// `stack tags` gives each stack the lab builds the very tag `stack tag`
// gives it, once however often it is named; a stack with an IMAGE of its
// own has none, and one whose tag cannot be made is its line on stderr
// while the others are still printed, exit 2.
func TestTags(t *testing.T) {
	extra := t.TempDir()
	for name, env := range map[string]string{
		"plain":  "INPUTS=\"\"\nTOOLCHAINS=\"\"\n",
		"own":    "IMAGE=example/own:1\nCONTRACT=none\n",
		"broken": "TOOLCHAINS=\"\"\n",
	} {
		os.MkdirAll(filepath.Join(extra, name), 0o755)
		os.WriteFile(filepath.Join(extra, name, "stack.env"), []byte(env), 0o644)
	}
	stack := func(args ...string) (int, string, string) {
		var out, errs strings.Builder
		rc := run(append([]string{"--lab-root", "../..", "--extra-stacks", extra}, args...), &out, &errs)
		return rc, out.String(), errs.String()
	}
	rc, tag, errs := stack("tag", "plain")
	if rc != 0 || !strings.HasPrefix(tag, "stacklab/plain:") {
		t.Fatalf("stack tag plain: exit %d, %q, stderr %q", rc, tag, errs)
	}
	rc, out, errs := stack("tags", "plain", "own", "broken", "plain")
	if rc != 2 || out != "plain "+tag || !strings.Contains(errs, "no INPUTS= line") || strings.Count(errs, "\n") != 1 {
		t.Errorf("stack tags: exit %d, %q, stderr %q; want exit 2, %q and broken's one line", rc, out, errs, "plain "+tag)
	}
	if rc, out, _ := stack("tags", "own"); rc != 0 || out != "" {
		t.Errorf("stack tags own: exit %d, %q; want exit 0 and no line", rc, out)
	}
}

// What bash reads of a stack's image, data, readiness and build, and of
// verify's rows, as it reads it: one line each, KEY=VALUE lines for
// assign_lines, or env's arguments a line each; a refusal is bash's old
// line, exit 2, with nothing on stdout.
func TestAnswers(t *testing.T) {
	root := t.TempDir()
	for name, env := range map[string]string{
		"plain":  "INPUTS=\"\"\nTOOLCHAINS=\"\"\nDATABASES=\"sqlite postgres\"\n",
		"cgo":    "INPUTS=\"\"\nTOOLCHAINS=\"\"\nBUILD_ARGS=CGO_CFLAGS\n",
		"onbase": "BUILD_ARGS=CGO_CFLAGS\nDEPENDS=base\n", // (no tag made: that asks Docker for base's id)
		"own":    "IMAGE=me/api:1\nREADY_PATH=/healthz\nDATA=seed\n",
		"far":    "DATA=../plain/stack.env\n",
	} {
		os.MkdirAll(filepath.Join(root, "stacks", name, "seed"), 0o755)
		os.WriteFile(filepath.Join(root, "stacks", name, "stack.env"), []byte(env), 0o644)
	}
	stack := func(args ...string) (int, string, string) {
		var out, errs strings.Builder
		rc := run(append([]string{"--lab-root", root}, args...), &out, &errs)
		return rc, out.String(), errs.String()
	}
	_, plain, _ := stack("tag", "plain")
	plain = strings.TrimSuffix(plain, "\n")
	_, variant, _ := stack("tag", "cgo", "--build-args", "CGO_CFLAGS=-g")
	variant = strings.TrimSuffix(variant, "\n")
	own := root + "/stacks/own"
	for _, c := range []struct {
		args      []string
		rc        int
		out, errs string
	}{
		{[]string{"ready-path", "own"}, 0, "/healthz\n", ""},
		{[]string{"ready-path", "plain"}, 0, "/up\n", ""},
		{[]string{"data", "own"}, 0, own + "/seed\n", ""},
		{[]string{"data", "plain"}, 0, "", ""},
		{[]string{"data", "far"}, 2, "", root + "/stacks/far/stack.env: DATA '../plain/stack.env' is not a file or folder inside the stack folder\n"},
		{[]string{"image", "own"}, 0, "TAG=me/api:1\nMISSING=image me/api:1 (IMAGE in " + own + "/stack.env) is not on this Docker engine: build or load it first\n", ""},
		{[]string{"image", "plain", "--build-args", ""}, 0, "TAG=" + plain + "\nMISSING=image " + plain + " for stacks/plain is not built: run './lab images plain'\n", ""},
		{[]string{"build-plan", "own"}, 0, "ELSEWHERE=1\nTAG=me/api:1\n", ""},
		{[]string{"build-plan", "plain", "--build-args", ""}, 0, "ELSEWHERE=0\nTAG=" + plain + "\nARGS=\nLOG=plain.build.log\n", ""},
		{[]string{"build-plan", "cgo", "--build-args", "CGO_CFLAGS=-g"}, 0, "ELSEWHERE=0\nTAG=" + variant + "\nARGS= with CGO_CFLAGS=-g\nLOG=cgo-" +
			strings.TrimPrefix(variant, "stacklab/cgo:") + ".build.log\n", ""},
		{[]string{"build-plan", "plain", "--build-args", "CGO_CFLAGS=-g"}, 0,
			"ELSEWHERE=0\nPROBLEM=stacks/plain takes no build arguments (no BUILD_ARGS in its stack.env), not CGO_CFLAGS\n", ""},
		{[]string{"build-env", "onbase", "--build-args", "CGO_CFLAGS=-O2 -g\n", "--base", "stacklab/base:fixed"}, 0,
			"-u\nCGO_CFLAGS\nCGO_CFLAGS=-O2 -g\nBASE_IMAGE=stacklab/base:fixed\n", ""},
		{[]string{"build-env", "plain"}, 0, "BASE_IMAGE=\n", ""},
		{[]string{"verify-rows", "plain", "plain[pg]", "own"}, 0, "plain plain sqlite\nplain[pg] plain postgres\nown own sqlite\n", ""},
		{[]string{"verify-rows", "plain", "own[pg]"}, 2, "", "stacks/own does not run on postgres (DATABASES in its stack.env: )\n"},
		{[]string{"verify-rows", "plain[x]"}, 2, "", "'plain[x]' is not a stack (stacks: cgo far onbase own plain)\n"},
	} {
		rc, out, errs := stack(c.args...)
		if rc != c.rc || out != c.out || errs != c.errs {
			t.Errorf("stack %q: exit %d, %q, stderr %q; want exit %d, %q, stderr %q", c.args, rc, out, errs, c.rc, c.out, c.errs)
		}
	}
	if !strings.HasPrefix(plain, "stacklab/plain:") || !strings.HasPrefix(variant, "stacklab/cgo:") {
		t.Errorf("tags %q, %q", plain, variant)
	}
}
