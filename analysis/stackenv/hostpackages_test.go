package stackenv

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A native build's host packages come at its Dockerfile's versions; a
// package the Dockerfile does not pin, or pins twice apart, is refused in
// one line naming both files; a folder laid over another reads the other's
// Dockerfile.
func TestHostPackages(t *testing.T) {
	root := t.TempDir()
	docker := strings.Join([]string{
		"FROM ${BASE_IMAGE} AS build",
		"ARG LAB_VERSION=1.2",
		"RUN apt-get update \\",
		" && apt-get install -y \\",
		"      gcc=4:12.2.0-3 \\",
		"      libssl-dev=3.0.22-1~deb12u2 libpq-dev=15.20-0+deb12u1 \\",
		" && pip install x==1.0 --no-cache-dir",
		"# libfoo-dev=9.9 in a comment does not count",
		"COPY --from=build --chown=10001:10001 /app /app",
		"RUN apt-get install -y libssl3=3.0.22-1~deb12u2",
		"ENV PORT=8080 DATABASE_PATH=/data/app.db",
	}, "\n")
	write(t, filepath.Join(root, "stacks/c/Dockerfile"), docker)
	write(t, filepath.Join(root, "stacks/c/stack.env"), "STACK_NAME=c\nNATIVE_PACKAGES=\"gcc libssl-dev libpq-dev\"\n")
	write(t, filepath.Join(root, "stacks/over/stack.env"), "STACK_NAME=over\nSHARES=c\nNATIVE_PACKAGES=libssl-dev\n")
	write(t, filepath.Join(root, "stacks/none/stack.env"), "STACK_NAME=none\n")
	l := Lab{Root: root}
	for _, c := range []struct {
		stack string
		want  []string
	}{
		{"c", []string{"gcc=4:12.2.0-3", "libssl-dev=3.0.22-1~deb12u2", "libpq-dev=15.20-0+deb12u1"}},
		{"over", []string{"libssl-dev=3.0.22-1~deb12u2"}},
		{"none", nil},
	} {
		s, err := l.Read(c.stack)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.HostPackages()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.stack, got, err, c.want)
		}
	}

	write(t, filepath.Join(root, "stacks/c/stack.env"), "STACK_NAME=c\nNATIVE_PACKAGES=\"gcc libfoo-dev\"\n")
	s, _ := l.Read("c")
	if _, err := s.HostPackages(); err == nil || err.Error() != "stacks/c/stack.env: NATIVE_PACKAGES names libfoo-dev, which stacks/c/Dockerfile does not pin (name=version)" {
		t.Errorf("an unpinned package: %v", err)
	}
	write(t, filepath.Join(root, "stacks/c/Dockerfile"), docker+"\nRUN apt-get install -y gcc=4:12.2.0-4\n")
	if _, err := s.HostPackages(); err == nil || err.Error() != "stacks/c/Dockerfile: gcc is pinned at 4:12.2.0-3 and at 4:12.2.0-4" {
		t.Errorf("a package pinned twice apart: %v", err)
	}
}

// Every stack of the lab that names host packages finds each pinned in its
// Dockerfile.
func TestTheLabsHostPackages(t *testing.T) {
	l := Lab{Root: "../.."}
	named := 0
	for _, n := range l.Names() {
		s, err := l.Read(n)
		if err != nil {
			t.Fatal(err)
		}
		pkgs, err := s.HostPackages()
		if err != nil {
			t.Error(err)
		}
		named += len(pkgs)
	}
	if named == 0 {
		t.Error("no stack names a host package")
	}
}
