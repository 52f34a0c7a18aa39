package envfile

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The forms the lab's files use, as bash reads them: a comment after a
// value is not part of it (a host profile's `APP_MEMORY=4g  # …` was once
// recorded with its comment), a # inside quotes is.
func TestLine(t *testing.T) {
	for _, c := range []struct{ in, k, v string }{
		{`APP_MEMORY=4g  # the app's limit`, "APP_MEMORY", "4g"},
		{`NAME="a # b"  # c`, "NAME", "a # b"},
		{`X='it''s'`, "X", "its"},
		{`EMPTY=`, "EMPTY", ""},
		{`EMPTY="" # none`, "EMPTY", ""},
		{`  INDENTED=1`, "INDENTED", "1"},
	} {
		k, v, ok, err := Line(c.in)
		if err != nil || !ok || k != c.k || v != c.v {
			t.Errorf("%q: %q=%q %v %v, want %q=%q", c.in, k, v, ok, err, c.k, c.v)
		}
	}
	for _, in := range []string{"# a comment", "   ", ""} {
		if _, _, ok, err := Line(in); ok || err != nil {
			t.Errorf("%q: ok %v err %v, want skipped", in, ok, err)
		}
	}
	for _, in := range []string{"export X=1", "X=a b", `X="unterminated`, "X=$HOME", `X="$(date)"`, "1X=2"} {
		if _, _, _, err := Line(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// Every stack.env and host profile in the repository reads the same in
// Go as in bash (sourced, then each key printed).
func TestTheLabsFilesAsBashReadsThem(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("skipped: no bash")
	}
	files, _ := filepath.Glob("../../stacks/*/stack.env")
	hosts, _ := filepath.Glob("../../hosts/*.env")
	files = append(files, hosts...)
	if len(files) < 10 {
		t.Fatalf("found %d files", len(files))
	}
	for _, f := range files {
		got, err := Read(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		script := "set -e; source \"$1\"; shift; for k in \"$@\"; do printf '%s=%s\\0' \"$k\" \"${!k}\"; done"
		out, err := exec.Command("bash", append([]string{"-c", script, "bash", f}, keys...)...).Output()
		if err != nil {
			t.Errorf("%s: bash: %v", f, err)
			continue
		}
		want := map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				want[k] = v
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Go read %v, bash %v", f, got, want)
		}
	}
}
