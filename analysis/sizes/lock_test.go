package sizes

import (
	"os"
	"strings"
	"testing"
)

// The lock data committed in stacks/: each ecosystem's parser against
// the real file, counts checked against the file by other means (README).
func TestParseLockOnTheStacks(t *testing.T) {
	for _, c := range []struct {
		eco, file string
		want      int
	}{
		{"cargo", "../../stacks/rust-axum/Cargo.lock", 171}, // 4 of them the optional allocator crates (README, "Optimizing")
		{"npm", "../../stacks/node-fastify/package-lock.json", 111},
		{"pip", "../../stacks/python-fastapi/requirements.txt", 32},
		{"gem", "../../stacks/ruby-rails/Gemfile.lock", 54},
		{"maven", "../../stacks/java-spring/dependency-tree.txt", 63},
		{"debian", "../../stacks/c-libmicrohttpd/packages.txt", 106},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		pk, err := ParseLock(c.eco, b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		t.Logf("%s %s: %d packages, first %v", c.eco, c.file, len(pk), pk[0])
		if c.want >= 0 && len(pk) != c.want {
			t.Errorf("%s: %d packages, want %d", c.file, len(pk), c.want)
		}
	}
}

// What the app does not ship is not in its tree: npm's dev dependencies,
// Maven's test scope, Cargo's path packages; repeats count once.
func TestParseLockLeavesOut(t *testing.T) {
	for _, c := range []struct {
		eco, text string
		want      string
	}{
		{"npm", `{"lockfileVersion":3,"packages":{"":{"name":"app"},"node_modules/a":{"version":"1.0.0"},` +
			`"node_modules/t":{"version":"2.0.0","dev":true},"node_modules/x/node_modules/a":{"version":"1.0.0"},"node_modules/l":{"link":true}}}`, "a@1.0.0"},
		{"maven", "me:app:jar:1\n+- org.x:lib:jar:1.2:compile\n\\- org.junit:junit:jar:5.0:test\n", "org.x:lib@1.2"},
		{"cargo", "version = 4\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\nsource = \"registry+x\"\n", "serde@1.0.0"},
		{"gem", "GEM\n  specs:\n    rack (2.2.4)\n      x (>= 1)\n    puma (5.6.5)\n\nPLATFORMS\n  ruby\n", "puma@5.6.5 rack@2.2.4"},
		{"debian", "libc6=2.36-9\r\nlibc6=2.36-9\nlibc6=2.36-8\n\nbash=5.2\n", "bash@5.2 libc6@2.36-8 libc6@2.36-9"},
	} {
		pk, err := ParseLock(c.eco, []byte(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.eco, err)
		}
		var got []string
		for _, p := range pk {
			got = append(got, p.Name+"@"+p.Version)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: %q, want %q", c.eco, g, c.want)
		}
	}
}

// cargo tree's lines: the app and its workspace members (path packages)
// are the app's own code, a proc-macro or a repeat (*) counts once, and a
// file that is not the tree (no command line first) is an error.
func TestParseCargoTree(t *testing.T) {
	tree := "# cargo tree --locked --target x86_64-unknown-linux-gnu\n" +
		"app v0.1.0 (/src/app)\nmigration v0.1.0 (/src/app/migration)\nserde v1.0.0\n" +
		"serde_derive v1.0.0 (proc-macro)\nserde v1.0.0 (*)\nsea v2.0.0 (https://github.com/x/sea#abc)\n"
	pk, err := ParseDeps(CargoTreeFile, []byte(tree))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pk {
		got = append(got, p.Name+"@"+p.Version)
	}
	if g, want := strings.Join(got, " "), "sea@2.0.0 serde@1.0.0 serde_derive@1.0.0"; g != want {
		t.Errorf("%q, want %q", g, want)
	}
	for _, bad := range []string{"", "serde v1.0.0\n", "# cargo tree\n"} {
		if _, err := ParseDeps(CargoTreeFile, []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A path package named relative to the crate (the size study writes them
// so from 2026-12-02) is the app's own code, as an absolute one was.
func TestCargoTreeRelativePathPackage(t *testing.T) {
	got := cargoTree([]byte("# cargo tree\nstacklab_loco v0.1.0 (.)\nmigration v0.1.0 (./migration)\nserde v1.0.1\n"))
	if len(got) != 1 || got[0] != [2]string{"serde", "1.0.1"} {
		t.Errorf("cargoTree = %v, want serde only", got)
	}
}

// A packages.txt with one line that is not name=version is refused whole,
// not counted short.
func TestParseLockRefusesACorruptDebianList(t *testing.T) {
	_, err := ParseLock("debian", []byte("apt=2.6.1\nbase-files\n"))
	if want := `line 2: "base-files": want name=version`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
