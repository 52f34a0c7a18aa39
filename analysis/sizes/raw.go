// Package sizes reads a size study's raw files (scc's JSON, each
// ecosystem's lock data, the bench's build and image records) and derives
// its tables: app code by kind, dependency packages and their code, build
// times, artifact sizes. The command bench/size writes the raw files
// during the bench; summarize, reproduce and compare read them here.
package sizes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"stacklab/formats/debpkgs"
)

// Raw file names inside raw/run-N/<stack>/.
const (
	CodeFile      = "code.scc.json"        // scc --by-file over the app's counted files
	RuleFile      = "code.rule.json"       // the stack's rule as applied (CodeRule)
	DepsDir       = "deps"                 // copies of the lock data, <ecosystem>-<name>
	CargoTreeFile = "cargo-tree.txt"       // in DepsDir: what cargo builds for the image's target (CargoTreeArgs)
	DepsCodeFile  = "deps-code.scc.json"   // scc over the dependencies' source, where at hand
	DepsCoverFile = "deps-code.cover.json" // how many packages' source deps-code.scc.json covers (Cover)
	BuildFile     = "build.json"           // one clean build and one rebuild (Build)
	ImageFile     = "image.json"           // the image's sizes and files (Image)
)

// SCCLanguage is one language of scc's --format json output.
type SCCLanguage struct {
	Name    string    `json:"Name"`
	Lines   int64     `json:"Lines"`
	Code    int64     `json:"Code"`
	Comment int64     `json:"Comment"`
	Blank   int64     `json:"Blank"`
	Count   int64     `json:"Count"`
	Files   []SCCFile `json:"Files"`
}

// SCCFile is one file of scc's --by-file output.
type SCCFile struct {
	Language string `json:"Language"`
	Location string `json:"Location"`
	Lines    int64  `json:"Lines"`
	Code     int64  `json:"Code"`
	Comment  int64  `json:"Comment"`
	Blank    int64  `json:"Blank"`
}

// ParseSCC reads scc 3.5's --format json output; a file that is not
// that (cut short, another format) is an error naming what is wrong.
func ParseSCC(b []byte) ([]SCCLanguage, error) {
	var langs []SCCLanguage
	if err := json.Unmarshal(b, &langs); err != nil {
		return nil, fmt.Errorf("truncated or corrupt scc JSON: %v", err)
	}
	for _, l := range langs {
		if l.Name == "" {
			return nil, fmt.Errorf("a language without a Name (not scc --format json?)")
		}
	}
	return langs, nil
}

// CodeRule is how a stack's files were chosen: what its stack.env states
// and the files it let through, as the bench applied it.
type CodeRule struct {
	StackEnv string   `json:"stack_env"`
	Exclude  []string `json:"exclude"` // SIZE_EXCLUDE globs; empty for "none"
	Tests    []string `json:"tests"`   // SIZE_TESTS globs; empty for none
	Counted  []string `json:"counted"` // files given to scc, relative to the stack folder
	Excluded []string `json:"excluded"`
}

// Match tells whether rel (a slash path relative to the stack folder)
// matches one of globs: "dir/" matches everything under dir, a glob with
// a slash matches the whole path, one without matches the base name.
func Match(globs []string, rel string) bool {
	for _, g := range globs {
		switch {
		case strings.HasSuffix(g, "/"):
			if strings.HasPrefix(rel, g) || strings.Contains(rel, "/"+g) {
				return true
			}
		case strings.Contains(g, "/"):
			if ok, _ := path.Match(g, rel); ok {
				return true
			}
		default:
			if ok, _ := path.Match(g, path.Base(rel)); ok {
				return true
			}
		}
	}
	return false
}

// Package is one package of a resolved dependency tree.
type Package struct {
	Ecosystem string `json:"ecosystem"`
	Name      string `json:"name"`
	Version   string `json:"version"`
}

// Ecosystems are the lock data the study reads, by the prefix a stack's
// SIZE_LOCK gives them (cargo:Cargo.lock).
var Ecosystems = []string{"cargo", "npm", "pip", "gem", "maven", "go", "debian"}

// CargoTreeArgs is the cargo command whose output CargoTreeFile holds,
// after a first line "# cargo tree ... --target TRIPLE": the packages cargo
// compiles for that target (normal and build dependencies, the features the
// image is built with, dev dependencies and other platforms' crates left
// out), one line each. Cargo.lock lists every platform's.
var CargoTreeArgs = []string{"tree", "--locked", "--offline", "--edges", "normal,build", "--prefix", "none", "--format", "{p}"}

// ParseDeps reads one file of a stack's DepsDir, named <ecosystem>-<file>:
// cargo's tree where the name says so, the ecosystem's lock data otherwise.
func ParseDeps(name string, b []byte) ([]Package, error) {
	if name == CargoTreeFile {
		if !bytes.HasPrefix(b, []byte("# cargo tree ")) {
			return nil, fmt.Errorf("not the output of cargo tree (its first line is not \"# cargo tree ...\")")
		}
		return dedupe("cargo", cargoTree(b))
	}
	eco, _, _ := strings.Cut(name, "-")
	return ParseLock(eco, b)
}

// cargoTree: "name vVERSION" lines, a suffix in parentheses for a
// proc-macro, a repeat (*), a git source or a path package: the path
// packages (the app and its workspace members, by an absolute path or one
// relative to the crate's folder) are the app's own code.
func cargoTree(b []byte) [][2]string {
	var out [][2]string
	for _, l := range lines(b) {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") || !strings.HasPrefix(f[1], "v") {
			continue
		}
		if strings.Contains(l, " (/") || strings.Contains(l, " (.") {
			continue
		}
		out = append(out, [2]string{f[0], strings.TrimPrefix(f[1], "v")})
	}
	return out
}

// ParseLock reads one ecosystem's lock data into its packages, deduplicated
// by name and version and sorted. The stack's own package (a Cargo path
// package, npm's root, Maven's project) is not a dependency.
func ParseLock(ecosystem string, b []byte) ([]Package, error) {
	var names [][2]string
	var err error
	switch ecosystem {
	case "cargo":
		names, err = cargoLock(b)
	case "npm":
		names, err = npmLock(b)
	case "pip":
		names, err = pipRequirements(b)
	case "gem":
		names, err = gemfileLock(b)
	case "maven":
		names, err = mavenTree(b)
	case "go":
		names, err = goList(b)
	case "debian":
		names, err = debianList(b)
	default:
		return nil, fmt.Errorf("unknown ecosystem %q (want one of %s)", ecosystem, strings.Join(Ecosystems, ", "))
	}
	if err != nil {
		return nil, err
	}
	return dedupe(ecosystem, names)
}

// dedupe makes packages of name and version pairs, each once, sorted.
func dedupe(ecosystem string, names [][2]string) ([]Package, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("no packages in it (empty or not %s lock data?)", ecosystem)
	}
	seen := map[[2]string]bool{}
	var out []Package
	for _, nv := range names {
		if seen[nv] {
			continue
		}
		seen[nv] = true
		out = append(out, Package{Ecosystem: ecosystem, Name: nv[0], Version: nv[1]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Version < out[j].Version
	})
	return out, nil
}

func lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		out = append(out, strings.TrimRight(sc.Text(), "\r"))
	}
	return out
}

func unquote(s string) string { return strings.Trim(strings.TrimSpace(s), `"`) }

// cargoLock: every [[package]] with a source (registry or git); path
// packages (the app and its workspace members) have none.
func cargoLock(b []byte) ([][2]string, error) {
	var out [][2]string
	var name, version, source string
	in := false
	flush := func() {
		if in && source != "" {
			out = append(out, [2]string{name, version})
		}
		name, version, source = "", "", ""
	}
	sawVersion := false
	for _, l := range lines(b) {
		switch {
		case l == "[[package]]":
			flush()
			in = true
		case strings.HasPrefix(l, "["):
			flush()
			in = false
		case in && strings.HasPrefix(l, "name = "):
			name = unquote(strings.TrimPrefix(l, "name = "))
		case in && strings.HasPrefix(l, "version = "):
			version = unquote(strings.TrimPrefix(l, "version = "))
		case in && strings.HasPrefix(l, "source = "):
			source = unquote(strings.TrimPrefix(l, "source = "))
		case strings.HasPrefix(l, "version = "):
			sawVersion = true
		}
	}
	flush()
	if !sawVersion && len(out) == 0 {
		return nil, fmt.Errorf("not a Cargo.lock (no version line, no [[package]])")
	}
	return out, nil
}

// npmLock: lockfileVersion 2 or 3, every entry of "packages" but the root,
// links and dev dependencies (the images install with --omit=dev).
func npmLock(b []byte) ([][2]string, error) {
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Link    bool   `json:"link"`
			Dev     bool   `json:"dev"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, fmt.Errorf("truncated or corrupt package-lock.json: %v", err)
	}
	if lock.LockfileVersion < 2 || lock.Packages == nil {
		return nil, fmt.Errorf("lockfileVersion %d without \"packages\" (npm 7 or later writes them)", lock.LockfileVersion)
	}
	var out [][2]string
	for key, p := range lock.Packages {
		if key == "" || p.Link || p.Dev {
			continue
		}
		name := p.Name
		if name == "" {
			i := strings.LastIndex(key, "node_modules/")
			name = key[i+len("node_modules/"):]
		}
		out = append(out, [2]string{name, p.Version})
	}
	return out, nil
}

// pipRequirements: pinned lines "name==version" (pip-compile's output;
// continuation and option lines skipped); an unpinned requirement is an error.
func pipRequirements(b []byte) ([][2]string, error) {
	var out [][2]string
	for i, l := range lines(b) {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "-") || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		t, _, _ = strings.Cut(t, ";")
		t = strings.TrimSuffix(strings.TrimSpace(t), "\\")
		name, version, ok := strings.Cut(strings.TrimSpace(t), "==")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not pinned (want name==version: a lock, not a wish list)", i+1, t)
		}
		name, _, _ = strings.Cut(name, "[")
		out = append(out, [2]string{strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(version)})
	}
	return out, nil
}

// gemfileLock: the specs of every GEM, GIT or PATH section ("    name (version)").
func gemfileLock(b []byte) ([][2]string, error) {
	var out [][2]string
	inSpecs := false
	for _, l := range lines(b) {
		switch {
		case l == "  specs:":
			inSpecs = true
		case !strings.HasPrefix(l, " "):
			inSpecs = false
		case inSpecs && strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "     "):
			name, rest, ok := strings.Cut(strings.TrimSpace(l), " (")
			if !ok {
				return nil, fmt.Errorf("spec line %q: want \"name (version)\"", strings.TrimSpace(l))
			}
			out = append(out, [2]string{name, strings.TrimSuffix(rest, ")")})
		}
	}
	return out, nil
}

// mavenTree: `mvn dependency:tree` output, every line below the project's
// own (group:artifact:type[:classifier]:version:scope) but the test scope,
// which the jar does not hold.
func mavenTree(b []byte) ([][2]string, error) {
	var out [][2]string
	for i, l := range lines(b) {
		if i == 0 || strings.TrimSpace(l) == "" {
			continue
		}
		t := strings.TrimLeft(l, "|+-\\ ")
		parts := strings.Split(t, ":")
		if len(parts) < 5 {
			return nil, fmt.Errorf("line %d: %q is not group:artifact:type:version:scope", i+1, t)
		}
		version, scope := parts[len(parts)-2], strings.Fields(parts[len(parts)-1])[0]
		if scope == "test" {
			continue
		}
		out = append(out, [2]string{parts[0] + ":" + parts[1], version})
	}
	return out, nil
}

// goList: "path version dir" lines, as `size deps` writes them from `go
// list -deps` (the modules the app's packages come from; the main module
// and the standard library have none).
func goList(b []byte) ([][2]string, error) {
	var out [][2]string
	for i, l := range lines(b) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: %q: want \"module version\"", i+1, l)
		}
		out = append(out, [2]string{f[0], f[1]})
	}
	return out, nil
}

// debianList: packages.txt as formats/debpkgs reads it. A malformed line
// refuses the whole file; a name listed twice counts once per version
// (dedupe).
func debianList(b []byte) ([][2]string, error) {
	pkgs, err := debpkgs.Parse(b)
	if err != nil {
		return nil, err
	}
	out := make([][2]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = [2]string{p.Name, p.Version}
	}
	return out, nil
}

// Cover is how many of a lock's packages had their source at hand for
// the dependency code count (the rest: another platform's, never unpacked).
type Cover struct {
	WithSource int `json:"packages_with_source"`
	Packages   int `json:"packages"`
}

// Build is one run's clean build and rebuild of a stack's image.
type Build struct {
	CleanS   float64 `json:"clean_s"`
	RebuildS float64 `json:"rebuild_s"`
	Touched  string  `json:"touched"` // the handler file changed by one line
	CPUs     string  `json:"cpus"`    // the build's CPU set (BUILD_CPUS)
}

// Image is one run's image: its sizes and files.
type Image struct {
	Tag          string `json:"tag"`
	SizeBytes    int64  `json:"size_bytes"`    // unpacked (docker image inspect .Size)
	GzippedBytes int64  `json:"gzipped_bytes"` // docker save | gzip -c
	Files        int64  `json:"files"`         // regular files in the image's file system
	Binary       string `json:"binary,omitempty"`
	BinaryBytes  int64  `json:"binary_bytes,omitempty"`
}

// ReadJSON reads a raw record the bench wrote; a missing, truncated or
// corrupt file is an error naming the file.
func ReadJSON(p string, v any) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("%s: missing", p)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: truncated or corrupt JSON: %v", p, err)
	}
	return nil
}
