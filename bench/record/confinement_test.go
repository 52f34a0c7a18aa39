package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
	"stacklab/formats/nativegroup"
)

// The two files are real `docker inspect` output of go-nethttp started by
// scripts/lib/stack.sh's stack_start, with and without LAB_UNCONFINED=1
// (Docker 20.10, 2026-12-01).
func TestParseInspect(t *testing.T) {
	cases := []struct {
		file string
		want manifest.Confinement
	}{
		{"inspect-confined.json", manifest.Confinement{
			User:           "10001:10001",
			CapDrop:        []string{"ALL"},
			CapAdd:         []string{},
			SecurityOpt:    []string{"no-new-privileges"},
			ReadOnlyRootfs: true,
			PidsLimit:      4096,
			NetworkMode:    "host",
			Tmpfs:          map[string]string{"/tmp": "rw,nosuid,nodev,noexec,size=64m,mode=1777"},
			WritableMounts: []string{"/data"},
		}},
		{"inspect-unconfined.json", manifest.Confinement{
			CapDrop:        []string{},
			CapAdd:         []string{},
			SecurityOpt:    []string{},
			NetworkMode:    "host",
			Tmpfs:          map[string]string{},
			WritableMounts: []string{"/data"},
		}},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseInspect(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
	for _, bad := range []string{``, `{}`, `[]`, `[{},{}]`} {
		if _, err := parseInspect([]byte(bad)); err == nil {
			t.Errorf("parseInspect(%q): no error", bad)
		}
	}
}

// record confinement writes the field into a manifest that record start
// made, and a second call for the same name replaces the first.
func TestRecordConfinement(t *testing.T) {
	dir := t.TempDir()
	m := &manifest.Manifest{ManifestVersion: manifest.Version, Study: "pages", Host: manifest.Host{Profile: "local"}}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"inspect-unconfined.json", "inspect-confined.json"} {
		if err := update(dir, []string{"go-nethttp", "--inspect", filepath.Join("testdata", f)}, confinement); err != nil {
			t.Fatal(err)
		}
	}
	got, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := got.Confinement["go-nethttp"]
	if !ok || len(got.Confinement) != 1 || c.User != "10001:10001" || !c.ReadOnlyRootfs || c.PidsLimit != 4096 {
		t.Fatalf("confinement in manifest: %+v", got.Confinement)
	}
	if err := update(dir, []string{"--inspect", "x"}, confinement); err == nil {
		t.Error("no NAME: no error")
	}
	if err := update(dir, []string{"upstream"}, confinement); err == nil {
		t.Error("no --inspect: no error")
	}
}

// A native row's confinement is its group, as native start printed it, and
// the lab's uid with none of Docker's other flags; a line that is not
// native's is refused naming the file.
func TestRecordNativeConfinement(t *testing.T) {
	dir := t.TempDir()
	m := &manifest.Manifest{ManifestVersion: manifest.Version, Study: "pages", Host: manifest.Host{Profile: "local"}}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	line := filepath.Join(dir, "start.json")
	st := nativegroup.Started{PID: 7, Group: nativegroup.Group{Cgroup: "/stacklab/x", Mode: "v1", Library: "github.com/containerd/cgroups/v3 v3.0.5",
		Limits: nativegroup.Limits{CPUs: "0", Memory: 4 << 30, Pids: 4096}}}
	if err := os.WriteFile(line, []byte(st.Line()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := update(dir, []string{"go-nethttp", "--native", line, "--user", "10001:10001"}, confinement); err != nil {
		t.Fatal(err)
	}
	got, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Confinement["go-nethttp"]
	if c.Cgroup == nil || *c.Cgroup != st.Group || c.User != "10001:10001" || c.PidsLimit != 4096 || c.ReadOnlyRootfs || c.NetworkMode != "host" {
		t.Fatalf("native confinement in manifest: %+v", c)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("native start: permission denied\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := update(dir, []string{"go-nethttp", "--native", bad, "--user", "1:1"}, confinement); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a line that is not native's: %v, want an error naming %s", err, bad)
	}
	if err := update(dir, []string{"go-nethttp", "--native", line}, confinement); err == nil {
		t.Error("--native without --user: no error")
	}
	if err := update(dir, []string{"go-nethttp", "--native", line, "--user", "1:1", "--inspect", "x"}, confinement); err == nil {
		t.Error("--native and --inspect together: no error")
	}
}
