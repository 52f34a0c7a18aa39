// Command size writes a size study's raw files while the bench runs and
// decides what the bench does for each stack (scripts/lib/bench-size.sh
// calls it, and runs the builds, Docker and the copies as it says; bash
// parses no JSON). Package sizes reads what it writes.
//
//	size code STACK_DIR OUT --scc BIN
//	    the app's files by the stack's rule (SIZE_EXCLUDE, SIZE_TESTS in its
//	    stack.env), counted by scc: OUT/code.scc.json (scc's output as
//	    written) and OUT/code.rule.json (the rule as applied)
//	size deps STACK_DIR OUT --lab-root DIR [--scc BIN]
//	    the stack's lock data (SIZE_LOCK) copied to OUT/deps/<ecosystem>-<file>,
//	    checked by its parser; for go, `go list -deps` of the app's package
//	    and scc over those modules' source (OUT/deps-code.scc.json)
//	size touch FILE
//	    append one line to FILE, in FILE's language (the rebuild's change: a
//	    definition in a compiled language, a comment in the others)
//	size build OUT --clean-ms N --rebuild-ms N --touched FILE --cpus LIST
//	    OUT/build.json, and the two times in whole seconds on stderr
//	size image OUT --tag T --size BYTES --gzipped BYTES [--binary PATH] < TAR
//	    OUT/image.json: the regular files of the image's file system (the tar
//	    `docker export` writes, on stdin) and the binary's size
//	size tools < LINES
//	    NAME=VERSION a line, the tools a size study's manifest records:
//	    of the lab's tools ("name version" lines on stdin) and of the
//	    builds' toolchains (rustc, cargo, gcc, mvn, java, run here), those
//	    that ran, but the load generators and just
//	size plan STACK_DIR OUT --run N --build 0|1 [--bench-id ID --work DIR]
//	    what run N of the study does for the stack (OUT: its raw files), as
//	    KEY=VALUE lines for bash: SIZE_CODE=1 to count the app's code;
//	    SIZE_DEPS, where to read the lock data: "stack" (its folder), "copy"
//	    (the builds' copy, after the clean build) or "" (not in this run);
//	    SIZE_BUILDS=1 to build clean and rebuild (--build 1). For the
//	    builds, empty without: SIZE_COPY (the lab's copy they run in),
//	    SIZE_TAG, SIZE_LOG (its base image is stack build-env's),
//	    SIZE_GOCACHE (the Go build cache they get; empty: the
//	    host's), SIZE_TOUCH (the file the rebuild changes) or
//	    SIZE_TOUCH_FAULT (the line saying why there is no rebuild),
//	    SIZE_BINARY, and for scc over SIZE_DEPS_SRC in the image:
//	    SIZE_DEPS_SRC, SIZE_DEPS_SCC (scc's arguments), SIZE_DEPS_CODE
//	    (where its output goes)
//	size failed OUT MEASURE [--line LINE [--log FILE]]
//	    a measure (code, deps, image, build) that failed: SIZE_TAKEN=0 when
//	    it is not taken, which leaves OUT/MEASURE.error, else SIZE_TAKEN=1.
//	    With --line (a build the bench saw fail), LINE is the .error, on
//	    stderr too, and FILE is kept as OUT/MEASURE.log; without, after a
//	    size subcommand failed, the .error it wrote stands, a failure that
//	    left the measure's result is taken, and any other gets an .error
//	    of its own
//
// A stack whose stack.env states no rule, or whose lock data is missing,
// gets OUT/<measure>.error holding one line naming the stack and what is
// missing, the same line on stderr, and exit status 1: the bench goes on
// with the next stack, summarize reports it. Exit status 2: bad arguments.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"stacklab/analysis/stackenv"
	"strings"

	"stacklab/analysis/sizes"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: size code|deps|touch|build|image|tools|plan|failed ... (see the comment at the top of bench/size/main.go)")
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	var err error
	switch cmd {
	case "code":
		err = withError(args, "code", code)
	case "deps":
		err = withError(args, "deps", deps)
	case "touch":
		err = touch(args)
	case "build":
		err = build(args, os.Stderr)
	case "image":
		err = image(args, os.Stdin)
	case "tools":
		err = tools(os.Stdin, os.Stdout)
	case "plan":
		err = planCmd(args, os.Stdout)
	case "failed":
		err = failed(args, os.Stdout, os.Stderr)
	default:
		fmt.Fprintf(os.Stderr, "size: unknown subcommand %q (code, deps, touch, build, image, tools, plan, failed)\n", cmd)
		os.Exit(2)
	}
	var m *missing
	switch {
	case errors.As(err, &m):
		fmt.Fprintln(os.Stderr, "size: "+m.Error())
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "size "+cmd+": "+err.Error())
		os.Exit(2)
	}
}

// missing is a fault of the stack folder, not of the bench: the measure
// is not taken and the study goes on.
type missing struct{ msg string }

func (m *missing) Error() string { return m.msg }

// withError runs a measure of STACK_DIR into OUT and, when the stack
// folder lacks what it needs, writes OUT/<measure>.error.
func withError(args []string, measure string, fn func(stackDir, out string, args []string) error) error {
	if len(args) < 2 {
		return fmt.Errorf("want STACK_DIR OUT")
	}
	stackDir, out := args[0], args[1]
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	err := fn(stackDir, out, args[2:])
	var m *missing
	if errors.As(err, &m) {
		if werr := os.WriteFile(filepath.Join(out, measure+".error"), []byte(m.msg+"\n"), 0o644); werr != nil {
			return werr
		}
	}
	return err
}

// stackEnv reads stack.env (package stackenv, its one reader). A key
// that is present is stated, even when empty.
func stackEnv(stackDir string) (map[string]string, string, error) {
	p := filepath.Join(stackDir, "stack.env")
	if _, err := os.Stat(p); err != nil {
		return nil, p, &missing{fmt.Sprintf("%s: no stack.env", stackName(stackDir))}
	}
	st, err := stackenv.ReadFile(p)
	if err != nil {
		return nil, p, &missing{fmt.Sprintf("%s: %v", stackName(stackDir), err)}
	}
	return st.Values, p, nil
}

// overlaid is the path of a stack's file: its own, else, for a folder laid
// over another's (SHARES), that folder's.
func overlaid(stackDir string, env map[string]string, file string) string {
	p := filepath.Join(stackDir, file)
	if _, err := os.Stat(p); err != nil && env["SHARES"] != "" {
		return filepath.Join(filepath.Dir(filepath.Clean(stackDir)), env["SHARES"], file)
	}
	return p
}

func stackName(stackDir string) string { return filepath.Base(filepath.Clean(stackDir)) }

// globs reads a stated list of globs: "none" (or nothing) is the empty list.
func globs(v string) []string {
	f := strings.Fields(v)
	if len(f) == 1 && f[0] == "none" {
		return []string{}
	}
	if f == nil {
		return []string{}
	}
	return f
}

func code(stackDir, out string, args []string) error {
	fl := flag.NewFlagSet("size code", flag.ContinueOnError)
	scc := fl.String("scc", "scc", "the pinned scc binary")
	if err := fl.Parse(args); err != nil {
		return err
	}
	env, envPath, err := stackEnv(stackDir)
	if err != nil {
		return err
	}
	name := stackName(stackDir)
	ex, ok := env["SIZE_EXCLUDE"]
	if !ok {
		return &missing{fmt.Sprintf("%s: stack.env states no SIZE_EXCLUDE, the rule that keeps generated and vendored files out of the code count (SIZE_EXCLUDE=\"glob ...\" or SIZE_EXCLUDE=none; stacks/README.md)", name)}
	}
	rule := sizes.CodeRule{StackEnv: "stacks/" + name + "/stack.env", Exclude: globs(ex), Tests: globs(env["SIZE_TESTS"]),
		Counted: []string{}, Excluded: []string{}}
	_ = envPath
	// A folder laid over another's (SHARES) counts that folder's files too,
	// named from this one (../ruby-rails/config/puma.rb), but for those it
	// has itself: the files its image is built from.
	own := map[string]bool{}
	walk := func(dir, prefix string) error {
		return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if rel == "." {
				return nil
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				if sizes.Match(rule.Exclude, rel+"/") {
					rule.Excluded = append(rule.Excluded, prefix+rel+"/")
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if prefix == "" {
				own[rel] = true
			} else if own[rel] {
				return nil
			}
			// stack.env is the lab's description of the stack, not the app's.
			if rel == "stack.env" || sizes.Match(rule.Exclude, rel) {
				rule.Excluded = append(rule.Excluded, prefix+rel)
			} else {
				rule.Counted = append(rule.Counted, prefix+rel)
			}
			return nil
		})
	}
	if err := walk(stackDir, ""); err != nil {
		return err
	}
	if sh := env["SHARES"]; sh != "" {
		if err := walk(filepath.Join(filepath.Dir(filepath.Clean(stackDir)), sh), "../"+sh+"/"); err != nil {
			return err
		}
	}
	sort.Strings(rule.Counted)
	sort.Strings(rule.Excluded)
	if len(rule.Counted) == 0 {
		return &missing{fmt.Sprintf("%s: SIZE_EXCLUDE leaves no file to count", name)}
	}
	// The files are named one by one, relative to the stack folder, so
	// scc's Location is the path the rule matched; no ignore file of the
	// folder changes what is counted.
	cmd := exec.Command(*scc, append(sccCodeArgs, rule.Counted...)...)
	cmd.Dir = stackDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", *scc, err, strings.TrimSpace(stderr.String()))
	}
	if _, err := sizes.ParseSCC(b); err != nil {
		return fmt.Errorf("%s gave no scc JSON: %v", *scc, err)
	}
	if err := os.WriteFile(filepath.Join(out, sizes.CodeFile), b, 0o644); err != nil {
		return err
	}
	return writeJSON(filepath.Join(out, sizes.RuleFile), rule)
}

// sccCodeArgs are scc's flags for app code: every file named, none
// skipped by an ignore file; EJS templates and Rack's config.ru, which scc
// 3.5 does not know, counted as HTML and Ruby.
var sccCodeArgs = []string{"--by-file", "--format", "json", "--no-cocomo", "--no-complexity",
	"--no-gitignore", "--no-ignore", "--no-scc-ignore", "--exclude-file", "", "--count-as", "ejs:HTML,ru:Ruby", "--"}

// sccDepsArgs are scc's flags for the dependencies' source, here and in
// the image (size plan's SIZE_DEPS_SCC): totals by language, every file.
var sccDepsArgs = []string{"--format", "json", "--no-cocomo", "--no-complexity", "--no-gitignore", "--no-ignore", "--"}

func deps(stackDir, out string, args []string) error {
	fl := flag.NewFlagSet("size deps", flag.ContinueOnError)
	root := fl.String("lab-root", ".", "the lab's folder (a go stack's packages are listed from its module)")
	scc := fl.String("scc", "scc", "the pinned scc binary")
	if err := fl.Parse(args); err != nil {
		return err
	}
	env, _, err := stackEnv(stackDir)
	if err != nil {
		return err
	}
	name := stackName(stackDir)
	lock, ok := env["SIZE_LOCK"]
	if !ok || strings.TrimSpace(lock) == "" {
		return &missing{fmt.Sprintf("%s: stack.env states no SIZE_LOCK, where its resolved dependency tree is (e.g. SIZE_LOCK=\"cargo:Cargo.lock\"; stacks/README.md)", name)}
	}
	ddir := filepath.Join(out, sizes.DepsDir)
	if err := os.MkdirAll(ddir, 0o755); err != nil {
		return err
	}
	for _, item := range strings.Fields(lock) {
		eco, file, ok := strings.Cut(item, ":")
		if !ok || !contains(sizes.Ecosystems, eco) || file == "" {
			return &missing{fmt.Sprintf("%s: SIZE_LOCK %q: want ECOSYSTEM:FILE (ecosystems: %s)", name, item, strings.Join(sizes.Ecosystems, ", "))}
		}
		var b []byte
		target := eco + "-" + path.Base(file)
		if eco == "go" {
			// file is the app's package, relative to the lab's module.
			if b, err = goModules(*root, file); err != nil {
				return &missing{fmt.Sprintf("%s: lock data missing: go list -deps %s: %v", name, file, err)}
			}
			target = "go-list.txt"
		} else {
			b, err = os.ReadFile(overlaid(stackDir, env, file))
			if err != nil {
				return &missing{fmt.Sprintf("%s: lock data missing: %s (SIZE_LOCK names %s)", name, file, item)}
			}
		}
		if _, err := sizes.ParseLock(eco, b); err != nil {
			return &missing{fmt.Sprintf("%s: lock data unreadable: %s: %v", name, file, err)}
		}
		if eco == "cargo" {
			// The lock names every platform's crates; the count is of
			// what cargo builds here, for the target the image is built for.
			if b, err = cargoTree(filepath.Join(stackDir, file)); err != nil {
				return &missing{fmt.Sprintf("%s: lock data missing: %v", name, err)}
			}
			target = sizes.CargoTreeFile
		}
		if err := os.WriteFile(filepath.Join(ddir, target), b, 0o644); err != nil {
			return err
		}
		var dirs []string
		switch eco {
		case "go":
			dirs = goModuleDirs(b)
		case "cargo":
			dirs = crateDirs(b)
		}
		if len(dirs) > 0 {
			if err := sccTotal(*scc, dirs, filepath.Join(out, sizes.DepsCodeFile)); err != nil {
				return err
			}
			pk, _ := sizes.ParseDeps(target, b)
			if err := writeJSON(filepath.Join(out, sizes.DepsCoverFile), sizes.Cover{WithSource: len(dirs), Packages: len(pk)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// goModules lists "path version dir" of each module the package's
// dependencies come from (not the main module, not the standard library).
func goModules(root, pkg string) ([]byte, error) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}", pkg)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	seen := map[string]bool{}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return []byte{}, nil
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// goModuleDirs are the module cache folders `go list` named.
func goModuleDirs(list []byte) []string {
	var dirs []string
	for _, l := range strings.Split(string(list), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			dirs = append(dirs, f[2])
		}
	}
	return dirs
}

// cargoTree runs cargo tree (sizes.CargoTreeArgs) on the lock's package
// for the host's target, which is the one the stacks' build-image scripts
// build for, and returns its output after a line naming the command.
func cargoTree(lock string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("rustc", "-vV")
	cmd.Stderr = &stderr
	v, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("rustc -vV: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	triple := ""
	for _, l := range strings.Split(string(v), "\n") {
		if t, ok := strings.CutPrefix(l, "host: "); ok {
			triple = strings.TrimSpace(t)
		}
	}
	if triple == "" {
		return nil, fmt.Errorf("rustc -vV names no host target")
	}
	args := append(append([]string{}, sizes.CargoTreeArgs...), "--target", triple,
		"--manifest-path", filepath.Join(filepath.Dir(lock), "Cargo.toml"))
	stderr.Reset()
	cmd = exec.Command("cargo", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("cargo %s: %v: %s", strings.Join(args[:len(args)-2], " "), err, strings.TrimSpace(stderr.String()))
	}
	// Path packages are named by where they are: relative to the crate's
	// folder, so the raw file names no path of the machine it ran on.
	if abs, err := filepath.Abs(filepath.Dir(lock)); err == nil {
		out = bytes.ReplaceAll(out, []byte("("+abs), []byte("(."))
	}
	head := "# cargo " + strings.Join(args[:len(args)-2], " ") + "\n"
	return append([]byte(head), out...), nil
}

// crateDirs are the unpacked sources cargo keeps of the tree's crates
// ($CARGO_HOME/registry/src/*/NAME-VERSION).
func crateDirs(tree []byte) []string {
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		h, _ := os.UserHomeDir()
		home = filepath.Join(h, ".cargo")
	}
	pk, err := sizes.ParseDeps(sizes.CargoTreeFile, tree)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, p := range pk {
		if m, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*", p.Name+"-"+p.Version)); len(m) > 0 {
			dirs = append(dirs, m[0])
		}
	}
	return dirs
}

// sccTotal counts the dependencies' source with scc, by language.
func sccTotal(scc string, dirs []string, out string) error {
	cmd := exec.Command(scc, append(append([]string{}, sccDepsArgs...), dirs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s over the dependencies' source: %v: %s", scc, err, strings.TrimSpace(stderr.String()))
	}
	return os.WriteFile(out, b, 0o644)
}

// touchLines: the line appended to a file of each kind. For a compiled
// language it is a definition the compiler must compile into the object
// (a comment would let Go's build cache see the same object and skip the
// link); for the others a comment, which changes the file the image
// copies just the same.
var touchLines = map[string]string{
	".go":   "var sizeStudyTouch = 1 // %s",
	".rs":   "#[allow(dead_code)] const SIZE_STUDY_TOUCH: u8 = 1; // %s",
	".c":    "int size_study_touch = 1; /* %s */",
	".java": "class SizeStudyTouch {} // %s",
	".js":   "// %s", ".py": "# %s", ".rb": "# %s", ".erb": "<%%# %s %%>", ".html": "<!-- %s -->", ".ejs": "<%%# %s %%>",
}

func touch(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want FILE")
	}
	f := args[0]
	format, ok := touchLines[filepath.Ext(f)]
	if !ok {
		return fmt.Errorf("%s: no one-line change known for %q files (add one to touchLines in bench/size)", f, filepath.Ext(f))
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, fmt.Sprintf(format, "changed by the size study's rebuild")+"\n"...)
	return os.WriteFile(f, b, 0o644)
}

func build(args []string, stderr io.Writer) error {
	if len(args) < 1 {
		return fmt.Errorf("want OUT")
	}
	fl := flag.NewFlagSet("size build", flag.ContinueOnError)
	clean := fl.Int64("clean-ms", 0, "the clean build's wall time")
	rebuild := fl.Int64("rebuild-ms", 0, "the rebuild's wall time")
	touched := fl.String("touched", "", "the file changed by one line")
	cpus := fl.String("cpus", "", "the build's CPU set")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	if *clean <= 0 || *rebuild <= 0 {
		return fmt.Errorf("--clean-ms and --rebuild-ms must be above 0")
	}
	if err := writeJSON(filepath.Join(args[0], sizes.BuildFile), sizes.Build{
		CleanS: float64(*clean) / 1000, RebuildS: float64(*rebuild) / 1000, Touched: *touched, CPUs: *cpus}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench: %s: clean build %d s, rebuild %d s\n", stackName(args[0]), *clean/1000, *rebuild/1000)
	return nil
}

func image(args []string, stdin io.Reader) error {
	if len(args) < 1 {
		return fmt.Errorf("want OUT")
	}
	fl := flag.NewFlagSet("size image", flag.ContinueOnError)
	tag := fl.String("tag", "", "the image's tag")
	size := fl.Int64("size", 0, "unpacked bytes")
	gz := fl.Int64("gzipped", 0, "gzipped bytes of docker save")
	binary := fl.String("binary", "", "the path of the stack's one binary in the image")
	if err := fl.Parse(args[1:]); err != nil {
		return err
	}
	im := sizes.Image{Tag: *tag, SizeBytes: *size, GzippedBytes: *gz, Binary: *binary}
	want := strings.TrimPrefix(*binary, "/")
	found := false
	tr := tar.NewReader(stdin)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("the image's file system (tar on stdin): %v", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		im.Files++
		if want != "" && strings.TrimPrefix(h.Name, "./") == want {
			im.BinaryBytes, found = h.Size, true
		}
	}
	if im.Files == 0 {
		return fmt.Errorf("the image's file system (tar on stdin) holds no file")
	}
	if want != "" && !found {
		m := &missing{fmt.Sprintf("%s: SIZE_BINARY %s is no file of the image", *tag, *binary)}
		if err := os.WriteFile(filepath.Join(args[0], "image.error"), []byte(m.msg+"\n"), 0o644); err != nil {
			return err
		}
		return m
	}
	return writeJSON(filepath.Join(args[0], sizes.ImageFile), im)
}

func writeJSON(p string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o644)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
