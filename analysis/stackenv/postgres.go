package stackenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"stacklab/formats/debpkgs"
)

// The two facts about the Postgres server role (stacks/postgres) that a
// bench with rows on it records in its manifest (postgres_settings,
// postgres_version), so that compare can tell two roles apart. Committed
// results hold these strings: their shape must not change.

// posixSpace is what grep's [[:space:]] matched when bash read these files.
const posixSpace = " \t\n\v\f\r"

// PostgresSettings is the role's settings file, stacks/postgres/postgresql.conf,
// as the manifest records it: each line that sets something, a comment
// after it and the white space before that comment dropped (comment and
// blank lines left out), joined by "; ". A ";" inside a line is written
// "; " too, as the bash it replaces wrote it.
func (l Lab) PostgresSettings() (string, error) {
	file, text, err := l.postgresFile("postgresql.conf")
	if err != nil {
		return "", err
	}
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimLeft(line, posixSpace); t == "" || t[0] == '#' {
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimRight(line[:i], posixSpace)
		}
		kept = append(kept, strings.ReplaceAll(line, ";", "; "))
	}
	if len(kept) == 0 {
		return "", bad("%s: no settings in it", file)
	}
	return strings.Join(kept, "; "), nil
}

// PostgresVersion is the version of the server's Debian package,
// postgresql-15, that the role's image pins in stacks/postgres/packages.txt
// (formats/debpkgs): the file is read whole, and a line it refuses is one
// line naming the file, as analysis/sizes refuses it; the package listed
// twice is an error here even with one version.
func (l Lab) PostgresVersion() (string, error) {
	const pkg = "postgresql-15"
	file, text, err := l.postgresFile("packages.txt")
	if err != nil {
		return "", err
	}
	pkgs, err := debpkgs.Parse([]byte(text))
	if err != nil {
		return "", bad("%s: %v", file, err)
	}
	var found []string
	for _, p := range pkgs {
		if p.Name == pkg {
			found = append(found, p.Version)
		}
	}
	if len(found) > 1 {
		return "", bad("%s: %s is listed %d times", file, pkg, len(found))
	}
	if len(found) == 0 {
		return "", bad("%s: no %s=VERSION line", file, pkg)
	}
	return found[0], nil
}

// postgresFile reads stacks/postgres/NAME; it returns the file's name as
// errors show it (relative to the lab's root) and its text.
func (l Lab) postgresFile(name string) (string, string, error) {
	path := filepath.Join(l.Root, "stacks", "postgres", name)
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return l.rel(path), "", bad("%s: %v", l.rel(path), err)
	}
	return l.rel(path), string(b), nil
}
