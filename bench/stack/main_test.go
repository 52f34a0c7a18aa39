package main

import (
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
