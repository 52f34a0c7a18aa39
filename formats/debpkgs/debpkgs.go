// Package debpkgs is the one reader of a stack's packages.txt: the Debian
// packages its image holds, one name=version a line, as the stacks'
// build-image writes them (dpkg-query -W -f '${Package}=${Version}\n',
// sorted). bench/size keeps a copy as a run's deps/debian-packages.txt;
// analysis/sizes counts the packages and analysis/stackenv takes the
// Postgres role's server version from stacks/postgres/packages.txt.
package debpkgs

import (
	"fmt"
	"strings"
)

// Package is one line: a Debian package and the version the image has.
type Package struct {
	Name    string
	Version string
}

// Parse reads a packages.txt's text into its packages, in the file's
// order; an empty file is no packages. A name may come twice (dpkg-query
// lists a Multi-Arch: same package once per architecture), so what a
// repeat means is the caller's to say. The first line Line refuses is an
// error naming its number.
func Parse(b []byte) ([]Package, error) {
	var out []Package
	for i, l := range strings.Split(string(b), "\n") {
		p, ok, err := Line(l)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Line reads one line of the file: ok is false for a line of white space
// only. A "\r" at the end (a file saved with CRLF) is dropped; the rest is
// cut at its first "=", and both sides must be there. Nothing else is
// trimmed, and there are no comments: dpkg-query writes neither.
func Line(line string) (p Package, ok bool, err error) {
	l := strings.TrimRight(line, "\r")
	if strings.TrimSpace(l) == "" {
		return Package{}, false, nil
	}
	name, version, found := strings.Cut(l, "=")
	if !found || name == "" || version == "" {
		return Package{}, false, fmt.Errorf("%q: want name=version", l)
	}
	return Package{Name: name, Version: version}, true, nil
}
