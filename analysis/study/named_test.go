package study

import (
	"os"
	"path/filepath"
	"testing"
)

// --study NAME is studies/NAME.toml, a path is itself, and either missing
// is one line: the path, or the name beside every study there is.
func TestNamed(t *testing.T) {
	root := t.TempDir()
	studies := filepath.Join(root, "studies")
	for _, f := range []string{"pages.toml", "all.toml", "size-deps.toml", "size.toml", "README.md"} {
		if err := os.MkdirAll(studies, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(studies, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a folder named like a study is no study file
	if err := os.Mkdir(filepath.Join(studies, "folder.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "mine.toml")
	if err := os.WriteFile(elsewhere, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	list := "(studies/: all folder pages size-deps size; or give a study file's path)"
	for _, c := range []struct{ name, want, err string }{
		{"pages", filepath.Join(studies, "pages.toml"), ""},
		{elsewhere, elsewhere, ""},
		{"nope", "", "--study 'nope' is not a study " + list},
		{"folder", "", "--study 'folder' is not a study " + list},
		{"README", "", "--study 'README' is not a study " + list},
		{"mine.toml", "", "--study 'mine.toml': no such study file"},
		{"studies/pages", "", "--study 'studies/pages': no such study file"},
		{studies, "", "--study '" + studies + "': no such study file"},
	} {
		got, err := Named(root, c.name)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Named(%q) = %q, %v; want %q", c.name, got, err, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("Named(%q): error %v, want %q", c.name, err, c.err)
		}
	}
}

// The lab's own studies are named as the bench's users name them.
func TestNamedLabStudies(t *testing.T) {
	if got, err := Named("../..", "all"); err != nil || got != filepath.Join("../..", "studies", "all.toml") {
		t.Errorf("all: %q, %v", got, err)
	}
}
