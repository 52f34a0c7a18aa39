package debpkgs

import (
	"os"
	"reflect"
	"testing"
)

func read(t *testing.T, name string) ([]Package, error) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(b)
}

// The Postgres role's own list, as its build-image wrote it: every line a
// package, in the file's order.
func TestParseReadsTheRolesList(t *testing.T) {
	got, err := read(t, "postgres.packages.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 124 || got[0] != (Package{"adduser", "3.134"}) {
		t.Fatalf("%d packages, first %+v; want 124, adduser 3.134 first", len(got), got[0])
	}
	if got[108] != (Package{"postgresql-15", "15.20-0+deb12u1"}) {
		t.Errorf("line 109 reads %+v, want postgresql-15 15.20-0+deb12u1", got[108])
	}
}

// A CRLF file reads as the LF one, blank lines are skipped, and a repeat
// is kept for the caller to judge (same version or not).
func TestParseKeepsRepeats(t *testing.T) {
	got, err := read(t, "crlf-repeats.packages.txt")
	want := []Package{{"libc6", "2.36-9+deb12u14"}, {"libc6", "2.36-9+deb12u14"}, {"libc6", "2.36-9+deb12u13"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
	if got, err := Parse(nil); err != nil || len(got) != 0 {
		t.Errorf("an empty file: %+v, %v; want no packages", got, err)
	}
}

// A line that is not name=version stops the file, in one line naming it.
func TestParseRefusesACorruptLine(t *testing.T) {
	for file, want := range map[string]string{
		"no-equals.packages.txt":     `line 3: "base-files": want name=version`,
		"empty-name.packages.txt":    `line 2: "=2.6.1": want name=version`,
		"empty-version.packages.txt": `line 4: "bash=": want name=version`,
	} {
		if got, err := read(t, file); err == nil || err.Error() != want {
			t.Errorf("%s: %+v, %v; want %s", file, got, err, want)
		}
	}
}

// A version is all after the first "=", white space and all: Line
// trims only the "\r" of a CRLF file.
func TestLine(t *testing.T) {
	for in, want := range map[string]Package{
		"a=1":      {"a", "1"},
		"a=1=2":    {"a", "1=2"},
		"a=1 \r\r": {"a", "1 "},
		" a=1":     {" a", "1"},
	} {
		if got, ok, err := Line(in); err != nil || !ok || got != want {
			t.Errorf("Line(%q) = %+v, %v, %v; want %+v", in, got, ok, err, want)
		}
	}
	for _, blank := range []string{"", "  \t", "\r"} {
		if _, ok, err := Line(blank); ok || err != nil {
			t.Errorf("Line(%q): ok %v, %v; want a blank line", blank, ok, err)
		}
	}
}
