package rawfile

import (
	"os"
	"path/filepath"
	"testing"
)

// The file holds the bytes, replaces what was there, and no temporary
// file is left beside it; a path in a missing folder is an error.
func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	for _, body := range []string{"{\"first\":1}\n", "{}\n"} {
		if err := Write(p, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != body {
			t.Errorf("read %q, want %q", b, body)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files in the folder, want 1", len(es))
	}
	if err := Write(filepath.Join(dir, "no", "b.json"), nil); err == nil {
		t.Error("a missing folder was not an error")
	}
}
