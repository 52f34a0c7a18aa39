package main

import (
	"reflect"
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
