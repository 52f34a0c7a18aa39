// Package golden compares test output with files kept in testdata, and
// rewrites them when the tests run with -update (go test ./PKG -update).
// A test package with golden files imports it, so that the flag is known
// there.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"stacklab/formats/linediff"
	"strconv"
	"testing"
)

// Update is set by -update: rewrite the golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Check compares got with the file at path, or rewrites it under -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in its package creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update in its package rewrites it after a deliberate change); %s",
			path, FirstDiff(want, got))
	}
}

// FirstDiff names the first line where want and got differ.
func FirstDiff(want, got []byte) string {
	n, w, g, ok := linediff.First(string(want), string(got))
	if !ok {
		return "the bytes differ"
	}
	return "first difference at line " + strconv.Itoa(n) + ":\n  want: " + w + "\n  got:  " + g
}
