package results

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"stacklab/formats/rawfile"
)

// ChecksumsFile lists the sha256 of every file under raw/, sorted by path,
// in sha256sum's format.
const ChecksumsFile = "checksums.sha256"

// VerifyChecksums checks dir/checksums.sha256 against the files under
// dir/raw: every listed file must exist with its hash, and every raw file
// must be listed.
func VerifyChecksums(dir string) error {
	path := filepath.Join(dir, ChecksumsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{path, "missing: the raw files cannot be checked"}
	}
	if err != nil {
		return &Error{path, err.Error()}
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || !isHex(sum) || !strings.HasPrefix(name, "raw/") {
			return &Error{path, fmt.Sprintf("line %d is not \"<sha256>  raw/<path>\"", ln)}
		}
		want[name] = sum
	}
	var have []string
	raw := filepath.Join(dir, "raw")
	err = filepath.WalkDir(raw, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			have = append(have, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &Error{raw, err.Error()}
	}
	sort.Strings(have)
	seen := map[string]bool{}
	for _, rel := range have {
		sum, ok := want[rel]
		if !ok {
			return &Error{filepath.Join(dir, rel), "no checksum in " + ChecksumsFile}
		}
		seen[rel] = true
		got, err := fileSHA256(filepath.Join(dir, rel))
		if err != nil {
			return &Error{filepath.Join(dir, rel), err.Error()}
		}
		if got != sum {
			return &Error{filepath.Join(dir, rel), "checksum mismatch: the raw file changed after the bench wrote " + ChecksumsFile}
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !seen[name] {
			return &Error{filepath.Join(dir, name), "listed in " + ChecksumsFile + " but missing"}
		}
	}
	return nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// fileSHA256 streams a file through sha256 (raw files may be large).
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteChecksums writes dir/checksums.sha256 for the regular files under
// dir/raw, sorted by path byte for byte (as `LC_ALL=C sort` would), so
// `sha256sum -c checksums.sha256` run in dir checks them too. No raw/ (a
// bench stopped before its first window) gives an empty list. The file is
// written beside itself and renamed, so a reader never sees half of it.
// This is the only writer: the bench reaches it through `record finish`.
func WriteChecksums(dir string) error {
	var lines []string
	raw := filepath.Join(dir, "raw")
	err := filepath.WalkDir(raw, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		lines = append(lines, sum+"  "+filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// WalkDir's order is per folder ("raw/a/x" before "raw/a-b"); a path's
	// bytes put '-' before '/', so sort the whole paths.
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l + "\n")
	}
	return rawfile.Write(filepath.Join(dir, ChecksumsFile), buf.Bytes())
}
