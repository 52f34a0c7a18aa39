package main

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// tarOf writes entries, name then body, in their order: a folder before
// what it holds, as docker cp streams them.
func tarOf(t *testing.T, entries ...string) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for i := 0; i+1 < len(entries); i += 2 {
		name, body := entries[i], entries[i+1]
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(name, "/") {
			h = &tar.Header{Name: name, Mode: 0o755, Typeflag: tar.TypeDir}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.Close()
	return &b
}

// The seeded folder lands in the volume, owned by the app's uid; a path
// that climbs out of it is refused.
func TestFill(t *testing.T) {
	dir := t.TempDir()
	uid, gid := os.Getuid(), os.Getgid()
	owner := strconv.Itoa(uid) + ":" + strconv.Itoa(gid)
	if err := fill(tarOf(t, "./", "", "./app.db", "seeded", "./sub/", "", "./sub/x", "y"), dir, owner); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "app.db"))
	if err != nil || string(b) != "seeded" {
		t.Fatalf("app.db: %q, %v", b, err)
	}
	st, _ := os.Stat(filepath.Join(dir, "sub", "x"))
	if s, ok := st.Sys().(*syscall.Stat_t); !ok || int(s.Uid) != uid {
		t.Errorf("owner of sub/x: %+v", st.Sys())
	}
	if err := fill(tarOf(t, "../evil", "x"), dir, owner); err == nil || !strings.Contains(err.Error(), "outside the folder") {
		t.Errorf("a path out of the folder: %v", err)
	}
	if err := fill(tarOf(t), dir, "app"); err == nil || !strings.Contains(err.Error(), "want UID:GID") {
		t.Errorf("a named owner: %v", err)
	}
}
