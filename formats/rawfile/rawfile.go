// Package rawfile writes a file whole: the bytes go to a temporary file
// beside it (a dot name) that is then renamed over it, so a reader, the
// checksums or a bench stopped halfway never see half a file. Every file
// the lab writes for a reader goes through it.
package rawfile

import (
	"os"
	"path/filepath"
)

// Write stores b at path, mode 0644.
func Write(path string, b []byte) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
