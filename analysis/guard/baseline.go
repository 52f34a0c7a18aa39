package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"stacklab/analysis/manifest"
)

// A baseline file names the committed results folder a study's routes are
// held to, and the hash of that folder's manifest and checksums, so that
// a changed or another folder under the same name is refused. The folder
// is relative to the file. guard --update writes it.
type pointer struct {
	Folder string `toml:"folder"`
	SHA256 string `toml:"sha256"`
}

// BaselineExt ends a baseline file's name: studies/NAME.baseline is the
// baseline of studies/NAME.toml.
const BaselineExt = ".baseline"

// A first baseline (scripts/guard --update with no baseline file yet) is
// measured with the quick profile and five runs unless --profile and
// --runs say otherwise: five, so that the U test can reach its level
// against five new ones (four a side at least).
const (
	firstBaselineProfile = "quick"
	firstBaselineRuns    = 5
)

// isPointer tells a baseline file from a results folder.
func isPointer(path string) bool { return strings.HasSuffix(path, BaselineExt) }

// readPointer reads a baseline file and checks the folder it names against
// its hash; it returns the folder's path.
func readPointer(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: no such baseline file (guard --update NEW_DIR writes the first one)", path)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	var p pointer
	d := toml.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return "", fmt.Errorf("%s: not a baseline file (want folder = \"...\" and sha256 = \"...\"): %v", path, err)
	}
	if p.Folder == "" || p.SHA256 == "" {
		return "", fmt.Errorf("%s: a baseline file needs folder and sha256", path)
	}
	dir := p.Folder
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	h, err := folderHash(dir)
	if err != nil {
		return "", fmt.Errorf("%s names %s: %v", path, p.Folder, err)
	}
	if h != p.SHA256 {
		return "", fmt.Errorf("%s names %s, whose manifest and checksums hash to %s, not the %s it records: the folder changed since it became the baseline", path, p.Folder, short(h), short(p.SHA256))
	}
	return dir, nil
}

// folderHash is the sha256 of a results folder's manifest.json followed by
// its checksums.sha256: the raw files through their checksums.
func folderHash(dir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{manifest.FileName, "checksums.sha256"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: missing (is this a results folder?)", filepath.Join(dir, name))
		}
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writePointer makes dir the baseline named by the file at path.
func writePointer(path, dir, study string) error {
	h, err := folderHash(dir)
	if err != nil {
		return err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	absFile, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(absFile, absDir)
	if err != nil {
		rel = absDir
	}
	text := fmt.Sprintf(`# The guard's baseline for the study %s: the results folder its routes
# are held to (relative to this file) and the sha256 of that folder's
# manifest.json and checksums.sha256. Written by guard --update
# (docs/guard.md); review it in git like the folder it names.
folder = %q
sha256 = %q
`, study, filepath.ToSlash(rel), h)
	return os.WriteFile(path, []byte(text), 0o644)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
