package study

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Named is the study file that --study NAME names for a lab whose root
// is labRoot: a path (NAME holds a slash or ends in .toml) is itself, any
// other NAME is studies/NAME.toml. A NAME that names no file is an error
// of one line: a missing path, or a name beside the studies there are.
func Named(labRoot, name string) (string, error) {
	if strings.Contains(name, "/") || strings.HasSuffix(name, ".toml") {
		if !isFile(name) {
			return "", fmt.Errorf("--study '%s': no such study file", name)
		}
		return name, nil
	}
	dir := filepath.Join(labRoot, "studies")
	if p := filepath.Join(dir, name+".toml"); isFile(p) {
		return p, nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".toml")
	}
	return "", fmt.Errorf("--study '%s' is not a study (studies/: %s; or give a study file's path)", name, strings.Join(names, " "))
}

// isFile says whether p is a regular file (through a symbolic link).
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
