// Package stackenv is the one reader of a stack's declaration, the
// stack.env of its folder (stacks/README.md, "What a stack folder holds"):
// which folders are stacks, where a stack's folder is, its keys as typed
// values, and its image's tag (the hash of every input its build reads,
// "The image's inputs"). Bash asks for these through the stack program
// (bench/stack) and never sources a stack.env itself; plan, size and
// guard read them here.
//
// A line is read by package envfile, as bash would read it: a # after
// white space starts a comment (REQUEST_SLOTS=5  # workers x threads is 5),
// a # inside a word or quotes does not.
package stackenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"stacklab/formats/envfile"
)

// Keys are the keys a stack.env may state, and what kind of value each
// takes: text (any), words (space-separated), count (a whole number, 0 or
// more), flag (0 or 1). A key not named here is refused, so that a typo
// (REQUEST_SLOT=5) is not silently a stack without slots.
var Keys = map[string]string{
	"STACK_NAME":    "text",
	"LANGUAGE":      "text",
	"FRAMEWORK":     "text",
	"VERSIONS":      "text",
	"CONCURRENCY":   "text",
	"REQUEST_SLOTS": "count",
	"DEPENDS":       "words",
	"INPUTS":        "words",
	"TOOLCHAINS":    "words",
	"HOST_INPUTS":   "flag",
	"SCRATCH":       "words",
	"BUILD_ARGS":    "words",
	"PAUSE_LOG":     "text",
	"IMAGE":         "text",
	"READY_PATH":    "text",
	"CONTRACT":      "contract",
	"ENV":           "text",
	"DATA":          "text",
	"SHARES":        "text",
	"DATABASES":     "words",
	"SIZE_EXCLUDE":  "words",
	"SIZE_TESTS":    "words",
	"SIZE_LOCK":     "words",
	"SIZE_DEPS_SRC": "words",
	"SIZE_TOUCH":    "text",
	"SIZE_BINARY":   "text",
	// NATIVE_PACKAGES: the Debian packages the native build needs on the
	// host, at its Dockerfile's versions (HostPackages).
	"NATIVE_PACKAGES": "words",
}

// Error is a stack's declaration that cannot be used: one line, naming the
// file (relative to the lab's root when inside it).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func bad(format string, a ...any) error { return &Error{fmt.Sprintf(format, a...)} }

// Lab is where stack folders are looked for: Root/stacks, then each of
// Extra (a test's fixture stacks, a study's stacks_dir), in that order.
type Lab struct {
	Root  string
	Extra []string
	// ImageID is the id of the image built under a tag, "" when there is
	// none: a DEPENDS image's id is an input of its dependents' tags. The
	// caller that talks to Docker (bench/stack) gives it; analysis never
	// does, and without it every DEPENDS id is "" (as with no engine).
	ImageID func(tag string) string
	// Toolchain is what a TOOLCHAINS entry adds to a tag: the program's
	// version, "not installed" when it has none (bench/stack runs them;
	// without it every toolchain hashes as not installed).
	Toolchain func(name string) string
	// Made holds the tags already made, by stack name, when the caller
	// asks for many at once (nil: none kept): a DEPENDS image's tag, base's
	// above all (its host inputs run its build-image), is made once and
	// not again for each stack built on it.
	Made map[string]string
}

func (l Lab) dirs() []string {
	out := []string{filepath.Join(l.Root, "stacks")}
	for _, e := range l.Extra {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// rel is path relative to the lab's root when it is inside it.
func (l Lab) rel(path string) string {
	if r, ok := strings.CutPrefix(path, strings.TrimSuffix(l.Root, "/")+"/"); ok {
		return r
	}
	return path
}

// IsStack says whether dir is a stack folder: it holds a stack.env (a link
// to one counts).
func IsStack(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "stack.env"))
	return err == nil && st.Mode().IsRegular()
}

// Names lists the stacks of the lab: the stack folders of its dirs but
// base, upstream and postgres (images the stacks are built on or run
// beside), sorted, each once.
func (l Lab) Names() []string {
	return Folders(l.dirs())
}

// Folders lists the stack folders of dirs (base, upstream and the
// Postgres server role left out), sorted, each once.
func Folders(dirs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			n := e.Name()
			if n == "base" || n == "upstream" || n == "postgres" || seen[n] {
				continue
			}
			if IsStack(filepath.Join(d, n)) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Check says why name is not one of the lab's stacks, or nil.
func (l Lab) Check(name string) error {
	names := l.Names()
	for _, n := range names {
		if n == name {
			_, err := l.Read(name)
			return err
		}
	}
	return bad("'%s' is not a stack (stacks: %s)", name, strings.Join(names, " "))
}

// Dir is the folder of the stack name: stacks/NAME when it is there, else
// the first extra folder that has it, else stacks/NAME (which then does
// not exist, and Read says so).
func (l Lab) Dir(name string) string {
	for _, d := range l.dirs() {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	return filepath.Join(l.Root, "stacks", name)
}

// Stack is one stack's declaration as read.
type Stack struct {
	Name   string            // its folder's name
	Dir    string            // its folder
	File   string            // its stack.env, relative to the lab's root when inside it
	Values map[string]string // every key it states, as bash would read it
}

// Read reads the stack name's declaration.
func (l Lab) Read(name string) (*Stack, error) {
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return nil, bad("%q is not a stack name (stacks: %s)", name, strings.Join(l.Names(), " "))
	}
	dir := l.Dir(name)
	file := filepath.Join(dir, "stack.env")
	if !IsStack(dir) {
		return nil, bad("stacks/%s: no stack.env (is '%s' a stack? stacks: %s)", name, name, strings.Join(l.Names(), " "))
	}
	s, err := ReadFile(file)
	if err != nil {
		return nil, err
	}
	s.Name, s.Dir, s.File = name, dir, l.rel(file)
	return s, nil
}

// ReadFile reads one stack.env and checks each key's kind.
func ReadFile(file string) (*Stack, error) {
	v, err := envfile.Read(file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, bad("%s: %v", file, pe.Err)
		}
		return nil, bad("%v", err)
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if msg := checkKind(k, v[k]); msg != "" {
			return nil, bad("%s: %s (stacks/README.md)", file, msg)
		}
	}
	dir := filepath.Dir(file)
	st := &Stack{Name: filepath.Base(dir), Dir: dir, File: file, Values: v}
	if sh := v["SHARES"]; sh != "" {
		if strings.ContainsAny(sh, "/\\ ") || sh == "." || sh == ".." || sh == st.Name || !IsStack(st.SharedDir()) {
			return nil, bad("%s: SHARES=%q is not a stack folder beside this one (stacks/README.md)", file, sh)
		}
		if o, err := envfile.Read(filepath.Join(st.SharedDir(), "stack.env")); err == nil && o["SHARES"] != "" {
			return nil, bad("%s: SHARES=%s, which itself shares %s: one folder is laid over one other, no deeper", file, sh, o["SHARES"])
		}
	}
	return st, nil
}

// SharedDir is the folder of the stack this one SHARES (its files, with
// this folder's over them, are what the image is built from), or "".
func (s *Stack) SharedDir() string {
	if sh := s.Values["SHARES"]; sh != "" {
		return filepath.Join(filepath.Dir(s.Dir), sh)
	}
	return ""
}

func checkKind(k, v string) string {
	kind, ok := Keys[k]
	if !ok {
		names := make([]string, 0, len(Keys))
		for n := range Keys {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Sprintf("%s is not a key the lab reads (keys: %s)", k, strings.Join(names, " "))
	}
	switch kind {
	case "count":
		if n, err := strconv.Atoi(v); v != "" && (err != nil || n < 0) {
			return fmt.Sprintf("%s=%q is not a whole number (0 or more)", k, v)
		}
	case "flag":
		if v != "" && v != "0" && v != "1" {
			return fmt.Sprintf("%s=%q is not 0 or 1", k, v)
		}
	case "contract":
		if v != "" && v != "app" && v != "none" {
			return fmt.Sprintf("%s=%s: want app or none", k, v)
		}
	}
	return ""
}

// Get is the value of key, "" when the stack does not state it; a key the
// lab does not read is an error (a caller's typo).
func (s *Stack) Get(key string) (string, error) {
	if _, ok := Keys[key]; !ok {
		return "", bad("%s is not a key of a stack.env (stacks/README.md)", key)
	}
	return s.Values[key], nil
}

// Has says whether the stack states key, even as KEY="".
func (s *Stack) Has(key string) bool {
	_, ok := s.Values[key]
	return ok
}

// Words is a words key's value split on white space.
func (s *Stack) Words(key string) []string { return strings.Fields(s.Values[key]) }

// BuildOrder is names and what each is built on (its DEPENDS, and theirs),
// dependencies first, each once: the order images are built in.
func (l Lab) BuildOrder(names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var add func(name string, path []string) error
	add = func(name string, path []string) error {
		if seen[name] {
			return nil
		}
		if slices.Contains(path, name) {
			return bad("%s: DEPENDS runs in a circle (%s)", name, strings.Join(append(path, name), " -> "))
		}
		s, err := l.Read(name)
		if err != nil {
			return err
		}
		for _, d := range s.Words("DEPENDS") {
			if err := add(d, append(path, name)); err != nil {
				return err
			}
		}
		seen[name] = true
		out = append(out, name)
		return nil
	}
	for _, n := range names {
		if err := add(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Contract is what the stack is held to: CONTRACT when stated, else "none"
// for an image of the user's own (IMAGE: only the study's per-case checks
// apply), else "app" (docs/app.md, checked by bench/verify). The one
// place this default is decided; bash asks `stack contract NAME`.
func (s *Stack) Contract() string {
	switch {
	case s.Values["CONTRACT"] != "":
		return s.Values["CONTRACT"]
	case s.OwnImage() != "":
		return "none"
	}
	return "app"
}

// OwnImage is the image of the user's own the stack runs, built elsewhere
// (IMAGE), which the lab never builds or removes; "" when the lab builds it.
func (s *Stack) OwnImage() string { return s.Values["IMAGE"] }

// Image is the image a stack runs.
type Image struct {
	Tag       string // its IMAGE, else the lab's tag (Tag)
	Elsewhere bool   // Tag is its IMAGE, built elsewhere
	Missing   string // the line that says so when Docker has no Tag
}

// Image is the image the stack name runs: the one its IMAGE names, else
// the lab's tag for it (with a build variant's arguments), and what to do
// when Docker does not have it. Bash asks `stack image NAME` and keeps the
// look at Docker.
func (l Lab) Image(name string, buildArgs []string) (Image, error) {
	s, err := l.Read(name)
	if err != nil {
		return Image{}, err
	}
	if tag := s.OwnImage(); tag != "" {
		return Image{Tag: tag, Elsewhere: true,
			Missing: fmt.Sprintf("image %s (IMAGE in %s/stack.env) is not on this Docker engine: build or load it first", tag, s.Dir)}, nil
	}
	tag, err := l.Tag(name, buildArgs)
	if err != nil {
		return Image{}, err
	}
	return Image{Tag: tag, Missing: fmt.Sprintf("image %s for stacks/%s is not built: run './lab images %s'", tag, name, name)}, nil
}

// ReadyPath is the path whose first 200 says the stack's app is up:
// READY_PATH, else /up (docs/app.md).
func (s *Stack) ReadyPath() string {
	if p := s.Values["READY_PATH"]; p != "" {
		return p
	}
	return "/up"
}

// DataSource is the file or folder of the stack's own data (DATA), copied
// into its data folder before every start in place of the lab's seeded
// app.db; "" when it names none. DATA must be a relative path without
// "..", to something that exists inside the stack folder.
func (s *Stack) DataSource() (string, error) {
	own := s.Values["DATA"]
	if own == "" {
		return "", nil
	}
	src := s.Dir + "/" + own
	if _, err := os.Stat(src); err != nil || strings.HasPrefix(own, "/") || strings.Contains("/"+own+"/", "/../") {
		return "", bad("%s/stack.env: DATA '%s' is not a file or folder inside the stack folder", s.Dir, own)
	}
	return src, nil
}

// Reserved are the variables the lab sets on every app container
// (docs/app.md): neither a stack's ENV nor a study's variant may set them.
var Reserved = []string{"PORT", "DATABASE_PATH", "DATABASE_URL", "UPSTREAM_URL", "LAB_CPUS"}

// IsReserved says whether the lab sets k on every app container.
func IsReserved(k string) bool { return slices.Contains(Reserved, k) }

var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// OwnEnv is the environment the stack's ENV adds to its container
// ("K=V", one a word), with the lab's values put in for ${PORT},
// ${LAB_CPUS}, ${DATA} (data: /data in its container, the database's
// folder natively), ${DATABASE_PATH} (data/app.db) and ${UPSTREAM_URL}:
// for an app that reads other variables than the lab's
// (BIND_ADDR=127.0.0.1:${PORT}). A word that is not NAME=VALUE, a
// reserved name, or another ${…} is refused in one line naming the file.
func (s *Stack) OwnEnv(port, upstream string, cpus int, data string) ([]string, error) {
	var out []string
	put := strings.NewReplacer("${PORT}", port, "${LAB_CPUS}", strconv.Itoa(cpus), "${DATA}", data,
		"${DATABASE_PATH}", data+"/app.db", "${UPSTREAM_URL}", upstream)
	for _, w := range s.Words("ENV") {
		k, v, ok := strings.Cut(w, "=")
		switch {
		case !ok || !envName.MatchString(k):
			return nil, bad("%s: ENV word '%s' is not NAME=VALUE", s.File, w)
		case IsReserved(k):
			return nil, bad("%s: ENV sets %s, which the lab sets for every stack (use ${%s} in another variable)", s.File, k, k)
		}
		if v = put.Replace(v); strings.Contains(v, "${") {
			return nil, bad("%s: ENV %s: only ${PORT}, ${LAB_CPUS}, ${DATA}, ${DATABASE_PATH} and ${UPSTREAM_URL} are put in (got '%s')", s.File, k, w)
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}

// AppEnv is the whole environment the lab gives the stack's app ("K=V"):
// the lab's own variables (PORT, DATABASE_PATH under data, UPSTREAM_URL,
// LAB_CPUS; a Postgres row's DATABASE_URL is the bench's to add), then
// what the stack's ENV adds (OwnEnv), for its container and natively alike.
func (s *Stack) AppEnv(port, upstream string, cpus int, data string) ([]string, error) {
	own, err := s.OwnEnv(port, upstream, cpus, data)
	if err != nil {
		return nil, err
	}
	lab := []string{"PORT=" + port, "DATABASE_PATH=" + data + "/app.db", "UPSTREAM_URL=" + upstream, "LAB_CPUS=" + strconv.Itoa(cpus)}
	return append(lab, own...), nil
}

// Slots is REQUEST_SLOTS, 0 when not stated.
func (s *Stack) Slots() int {
	n, _ := strconv.Atoi(s.Values["REQUEST_SLOTS"])
	return n
}

// BuildArgsProblem says what is wrong with a build variant's arguments
// (lines "K=V"; blank ones skipped): the first name the stack's
// BUILD_ARGS does not declare, in one sentence; "" when every name is
// declared. Only declared names reach the stack's build-image.
func (s *Stack) BuildArgsProblem(lines []string) string {
	declared := s.Words("BUILD_ARGS")
	for _, kv := range lines {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(declared, k) {
			continue
		}
		if len(declared) == 0 {
			return fmt.Sprintf("stacks/%s takes no build arguments (no BUILD_ARGS in its stack.env), not %s", s.Name, k)
		}
		return fmt.Sprintf("stacks/%s takes the build arguments %s (BUILD_ARGS in its stack.env), not %s", s.Name, strings.Join(declared, " "), k)
	}
	return ""
}
