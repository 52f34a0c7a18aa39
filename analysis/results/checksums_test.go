package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/formats/golden"
)

// rawTree lays out raw files whose names trip a per-folder walk: "run-10"
// after "run-1/", and "go-nethttp-twin/" before "go-nethttp/" (a path's
// bytes put '-' before '/'). Plus an empty file and a symlink, which is not
// a raw file and is neither listed nor checked.
var rawTree = map[string]string{
	"raw/run-1/go-nethttp/up.json":              `{"summary":{"total":5.0}}` + "\n",
	"raw/run-1/go-nethttp/up.cgroup.jsonl":      `{"t_ms":0,"cpu_usec":12}` + "\n",
	"raw/run-1/go-nethttp/resources.json":       `{"boot_ms":41}` + "\n",
	"raw/run-1/go-nethttp-twin/up.json":         `{"summary":{"total":5.1}}` + "\n",
	"raw/run-1/go-nethttp-twin/up.loadgen.json": "",
	"raw/run-10/go-nethttp/up.json":             `{"summary":{"total":4.9}}` + "\n",
	"raw/run-2/go-nethttp/up.json":              `{"summary":{"total":5.2}}` + "\n",
	"raw/discarded/run-1/go-nethttp/up.json":    `{"summary":{"total":0.1}}` + "\n",
	"raw/run-1/go-nethttp/case with space.json": "x\n",
}

func writeTree(t *testing.T, dir string) {
	t.Helper()
	for rel, body := range rawTree {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("up.json", filepath.Join(dir, "raw/run-1/go-nethttp/link.json")); err != nil {
		t.Fatal(err)
	}
}

// The golden file was made with `find raw -type f | LC_ALL=C sort | xargs
// -d '\n' sha256sum` over the same tree, so it is sha256sum's own answer.
func TestWriteChecksumsGolden(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	if err := WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/checksums.golden", got)
	if err := VerifyChecksums(dir); err != nil {
		t.Fatalf("verify right after write: %v", err)
	}
	// Writing again gives the same bytes and leaves no temporary file.
	if err := WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	if string(again) != string(got) {
		t.Errorf("a second write differs:\n%s\nvs\n%s", again, got)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "raw" && e.Name() != ChecksumsFile {
			t.Errorf("left %s behind in the results folder", e.Name())
		}
	}
}

func TestWriteChecksumsSortsWholePaths(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	if err := WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	var paths []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		paths = append(paths, l[66:])
	}
	if len(paths) != len(rawTree) {
		t.Fatalf("%d lines, want %d (one per regular raw file, the symlink left out):\n%s", len(paths), len(rawTree), b)
	}
	for i := 1; i < len(paths); i++ {
		if paths[i-1] >= paths[i] {
			t.Errorf("line %d: %q is not after %q in byte order", i+1, paths[i], paths[i-1])
		}
	}
	if i, j := index(paths, "raw/run-1/go-nethttp-twin/up.json"), index(paths, "raw/run-1/go-nethttp/up.json"); i > j {
		t.Errorf("go-nethttp-twin/ (line %d) must come before go-nethttp/ (line %d)", i+1, j+1)
	}
}

func index(ss []string, s string) int {
	for i, v := range ss {
		if v == s {
			return i
		}
	}
	return -1
}

// A bench stopped before its first window has no raw files: the list is
// empty (not missing), and it verifies.
func TestWriteChecksumsEmptyRaw(t *testing.T) {
	for _, mkRaw := range []bool{true, false} {
		dir := t.TempDir()
		if mkRaw {
			if err := os.Mkdir(filepath.Join(dir, "raw"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteChecksums(dir); err != nil {
			t.Fatalf("raw/ made: %v: %v", mkRaw, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, ChecksumsFile))
		if err != nil || len(b) != 0 {
			t.Errorf("raw/ made: %v: want an empty %s, got %q, %v", mkRaw, ChecksumsFile, b, err)
		}
		if err := VerifyChecksums(dir); err != nil {
			t.Errorf("raw/ made: %v: verify: %v", mkRaw, err)
		}
	}
}

// Whatever happens to a raw file after the list is written is caught, and
// the error names the file.
func TestVerifyCatchesChangeAfterWrite(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
		change           func(path string) error
	}{
		{"edited", "raw/run-1/go-nethttp/up.json", "checksum mismatch", func(p string) error {
			return os.WriteFile(p, []byte(`{"summary":{"total":9.9}}`+"\n"), 0o644)
		}},
		{"emptied", "raw/run-2/go-nethttp/up.json", "checksum mismatch", func(p string) error {
			return os.Truncate(p, 0)
		}},
		{"removed", "raw/run-10/go-nethttp/up.json", "listed in checksums.sha256 but missing", os.Remove},
		{"added", "raw/run-1/go-nethttp/extra.json", "no checksum in checksums.sha256", func(p string) error {
			return os.WriteFile(p, []byte("{}\n"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir)
			if err := WriteChecksums(dir); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.file)
			if err := tc.change(path); err != nil {
				t.Fatal(err)
			}
			err := VerifyChecksums(dir)
			if err == nil {
				t.Fatalf("%s %s: verify passed", tc.name, tc.file)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: error %q, want it to say %q and name %s", tc.name, err, tc.want, path)
			}
		})
	}
}

func TestVerifyChecksumsMissingOrMalformed(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	if err := VerifyChecksums(dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("no %s: got %v", ChecksumsFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ChecksumsFile), []byte("abc  raw/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := VerifyChecksums(dir); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("malformed line: got %v", err)
	}
}
