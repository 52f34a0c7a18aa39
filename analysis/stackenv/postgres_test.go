package stackenv

import (
	"path/filepath"
	"strings"
	"testing"
)

// The settings line keeps what a line sets and nothing else: comment
// lines (indented too) and blank ones go, a comment after a value goes
// with the white space before it, and a ";" in a value reads "; " as
// every manifest so far recorded it.
func TestPostgresSettings(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "stacks/postgres/postgresql.conf"),
		"# the lab's\n\nfsync = on\n   # indented\n \t\nwork_mem = 4MB \t# a comment\nsearch_path = 'a;b'\n  jit = off\r\nlast = 1")
	got, err := Lab{Root: root}.PostgresSettings()
	want := "fsync = on; work_mem = 4MB; search_path = 'a; b';   jit = off\r; last = 1"
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	write(t, filepath.Join(root, "stacks/postgres/postgresql.conf"), "# nothing set\n\n")
	if _, err := (Lab{Root: root}).PostgresSettings(); err == nil || err.Error() != "stacks/postgres/postgresql.conf: no settings in it" {
		t.Errorf("a file that sets nothing: %v", err)
	}
}

// The version is the one postgresql-15= line's; none, two (even of one
// version), a malformed line anywhere, or no file at all is one line
// naming the file.
func TestPostgresVersion(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "stacks/postgres/packages.txt")
	l := Lab{Root: root}
	if _, err := l.PostgresVersion(); err == nil || !strings.HasPrefix(err.Error(), "stacks/postgres/packages.txt: ") {
		t.Errorf("no file: %v", err)
	}
	write(t, file, "postgresql-client-15=15.20-0+deb12u1\npostgresql-15=15.20-0+deb12u1\npostgresql-common=248+deb12u2\n")
	if got, err := l.PostgresVersion(); err != nil || got != "15.20-0+deb12u1" {
		t.Errorf("got %q, %v", got, err)
	}
	for text, want := range map[string]string{
		"postgresql-common=248\n":                  "stacks/postgres/packages.txt: no postgresql-15=VERSION line",
		"postgresql-15=\n":                         `stacks/postgres/packages.txt: line 1: "postgresql-15=": want name=version`,
		"not a package\npostgresql-15=15.1\n":      `stacks/postgres/packages.txt: line 1: "not a package": want name=version`,
		"postgresql-15=15.1\npostgresql-15=15.1\n": "stacks/postgres/packages.txt: postgresql-15 is listed 2 times",
		"postgresql-15=15.1\npostgresql-15=15.2\n": "stacks/postgres/packages.txt: postgresql-15 is listed 2 times",
	} {
		write(t, file, text)
		if _, err := l.PostgresVersion(); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
