package stackenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// write creates path's folders and the file (package synth has the same
// helper, but synth reads studies, and studies read stackenv's reserved
// names: a test here cannot import it).
func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An inline # comment is read one way: after white space it is a comment,
// inside a word or quotes it is part of the value; so a stack recorded,
// sized, started and tagged all see REQUEST_SLOTS=5, as bash would.
func TestInlineComment(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "stacks/demo/stack.env"), strings.Join([]string{
		"STACK_NAME=demo   # = folder name",
		`FRAMEWORK="net/http # not a comment"  # a comment`,
		"REQUEST_SLOTS=5\t# workers x threads",
		"SIZE_TOUCH=app#1.go",
		`INPUTS=""   # none`,
		"TOOLCHAINS=",
	}, "\n")+"\n")
	s, err := Lab{Root: dir}.Read("demo")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"STACK_NAME": "demo", "FRAMEWORK": "net/http # not a comment", "REQUEST_SLOTS": "5",
		"SIZE_TOUCH": "app#1.go", "INPUTS": "", "TOOLCHAINS": ""}
	if !reflect.DeepEqual(s.Values, want) {
		t.Errorf("read %v, want %v", s.Values, want)
	}
	if s.Slots() != 5 || !s.Has("INPUTS") || s.Has("DEPENDS") {
		t.Errorf("slots %d, has INPUTS %v, has DEPENDS %v", s.Slots(), s.Has("INPUTS"), s.Has("DEPENDS"))
	}
	if _, err := exec.LookPath("bash"); err == nil {
		out, err := exec.Command("bash", "-c", `source "$1"; printf '%s|%s|%s|%s' "$STACK_NAME" "$FRAMEWORK" "$REQUEST_SLOTS" "$SIZE_TOUCH"`,
			"bash", filepath.Join(dir, "stacks/demo/stack.env")).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := string(out); got != "demo|net/http # not a comment|5|app#1.go" {
			t.Errorf("bash read %q", got)
		}
	}
}

// A key the lab does not read, or a value of the wrong kind, is one line
// naming the file.
func TestBadDeclarations(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"REQUEST_SLOT=5", "REQUEST_SLOT is not a key the lab reads"},
		{"REQUEST_SLOTS=five", `REQUEST_SLOTS="five" is not a whole number`},
		{"HOST_INPUTS=yes", `HOST_INPUTS="yes" is not 0 or 1`},
		{"CONTRACT=loose", "CONTRACT=loose: want app or none"},
		{"DEPENDS=$BASE", "would be expanded by bash"},
	} {
		dir := t.TempDir()
		f := filepath.Join(dir, "stacks/demo/stack.env")
		write(t, f, "STACK_NAME=demo\n"+c.line+"\n")
		_, err := Lab{Root: dir}.Read("demo")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "stack.env") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.line, err, c.want)
		}
	}
	_, err := Lab{Root: t.TempDir()}.Read("nope")
	if err == nil || !strings.HasPrefix(err.Error(), "stacks/nope: no stack.env") {
		t.Errorf("missing stack: %v", err)
	}
}

// Every stack.env in the repository reads, with keys the lab knows.
func TestTheLabsStacks(t *testing.T) {
	files, _ := filepath.Glob("../../stacks/*/stack.env")
	more, _ := filepath.Glob("../../scripts/testdata/stacks/*/stack.env")
	ex, _ := filepath.Glob("../../studies/examples/*/*/stack.env")
	files = append(append(files, more...), ex...)
	if len(files) < 15 {
		t.Fatalf("found %d stack.env files", len(files))
	}
	for _, f := range files {
		s, err := ReadFile(f)
		if err != nil {
			t.Error(err)
			continue
		}
		// A folder laid over another is built by the other's build-image.
		if sh := s.Values["SHARES"]; sh != "" {
			b, _ := os.ReadFile(filepath.Join(s.Dir, "build-image"))
			if !strings.Contains(string(b), "/../"+sh+"/build-image\" --over") {
				t.Errorf("%s: SHARES=%s, but its build-image does not run ../%s/build-image --over", f, sh, sh)
			}
		}
	}
	names := Lab{Root: "../.."}.Names()
	for _, n := range names {
		if n == "base" || n == "upstream" || n == "postgres" {
			t.Errorf("%s listed as a stack", n)
		}
	}
	if len(names) < 9 {
		t.Errorf("stacks: %v", names)
	}
}

// Folders: sorted, each once, base and upstream left out, a link counts.
func TestFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, p := range []string{"a/zeta", "a/alpha", "a/base", "a/upstream", "b/alpha", "b/mid"} {
		root := map[byte]string{'a': a, 'b': b}[p[0]]
		write(t, filepath.Join(root, p[2:], "stack.env"), "STACK_NAME="+p[2:]+"\n")
	}
	if err := os.MkdirAll(filepath.Join(a, "notastack"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(b, "mid"), filepath.Join(a, "linked")); err != nil {
		t.Fatal(err)
	}
	got := Folders([]string{a, b})
	if want := []string{"alpha", "linked", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folders %v, want %v", got, want)
	}
	l := Lab{Root: t.TempDir(), Extra: []string{b}}
	if d := l.Dir("mid"); d != filepath.Join(b, "mid") {
		t.Errorf("dir %s", d)
	}
	if err := l.Check("base"); err == nil || !strings.Contains(err.Error(), "'base' is not a stack (stacks: alpha mid)") {
		t.Errorf("check base: %v", err)
	}
}

// The text the tag hashes, line for line (the lines sha256sum and the
// lab's bash wrote before Go owned the hash, so tags did not move).
func TestInputsHash(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: no git")
	}
	root := t.TempDir()
	env := "STACK_NAME=demo\nINPUTS=\"shared.txt lib\"\nTOOLCHAINS=\"no-such-program-here\"\n"
	write(t, filepath.Join(root, "stacks/demo/stack.env"), env)
	write(t, filepath.Join(root, "stacks/demo/b.txt"), "b\n")
	write(t, filepath.Join(root, "stacks/demo/a.txt"), "a\n")
	write(t, filepath.Join(root, "stacks/demo/ignored.log"), "x\n")
	write(t, filepath.Join(root, ".gitignore"), "*.log\n")
	write(t, filepath.Join(root, "shared.txt"), "s\n")
	write(t, filepath.Join(root, "lib/x.go"), "package x\n")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	text := fmt.Sprintf("folder\n%s  a.txt\n%s  b.txt\n%s  stack.env\ninput shared.txt\n%s  shared.txt\ninput lib\n%s  lib/x.go\ntoolchain no-such-program-here: not installed\n",
		sum("a\n"), sum("b\n"), sum(env), sum("s\n"), sum("package x\n"))
	l := Lab{Root: root}
	got, err := l.InputsHash("demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := sum(text)[:12]; got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	v, err := l.InputsHash("demo", []string{"CGO_CFLAGS=-g", ""})
	if err != nil {
		t.Fatal(err)
	}
	if want := sum(text + "build-arg CGO_CFLAGS=-g\n")[:12]; v != want {
		t.Errorf("variant hash %s, want %s", v, want)
	}
	write(t, filepath.Join(root, "stacks/demo/stack.env"), "STACK_NAME=demo\nINPUTS=\"gone\"\nTOOLCHAINS=\n")
	if _, err := l.InputsHash("demo", nil); err == nil || err.Error() != "stacks/demo/stack.env: INPUTS path 'gone' does not exist" {
		t.Errorf("missing input: %v", err)
	}
	write(t, filepath.Join(root, "stacks/demo/stack.env"), "STACK_NAME=demo\nINPUTS=\n")
	if _, err := l.InputsHash("demo", nil); err == nil || !strings.HasPrefix(err.Error(), "stacks/demo/stack.env: no TOOLCHAINS= line") {
		t.Errorf("no TOOLCHAINS: %v", err)
	}
}

// A folder laid over another (SHARES): the other's files are in its tag,
// an edit there moves it; a SHARES that names no stack beside it, or one
// that shares in turn, is refused.
func TestShares(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: no git")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "stacks/orm/stack.env"), "STACK_NAME=orm\nINPUTS=\nTOOLCHAINS=\n")
	write(t, filepath.Join(root, "stacks/orm/config.rb"), "a = 1\n")
	write(t, filepath.Join(root, "stacks/sql/stack.env"), "STACK_NAME=sql\nSHARES=orm\nINPUTS=\nTOOLCHAINS=\n")
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	l := Lab{Root: root}
	before, err := l.InputsHash("sql", nil)
	if err != nil {
		t.Fatal(err)
	}
	orm, _ := l.InputsHash("orm", nil)
	write(t, filepath.Join(root, "stacks/orm/config.rb"), "a = 2\n")
	after, _ := l.InputsHash("sql", nil)
	orm2, _ := l.InputsHash("orm", nil)
	if before == after || orm == orm2 {
		t.Errorf("an edit to the shared folder: sql %s -> %s, orm %s -> %s; want both moved", before, after, orm, orm2)
	}
	for _, c := range []struct{ shares, want string }{
		{"nope", `SHARES="nope" is not a stack folder beside this one`},
		{"sql", `SHARES="sql" is not a stack folder beside this one`},
		{"../orm", `SHARES="../orm" is not a stack folder beside this one`},
	} {
		write(t, filepath.Join(root, "stacks/sql/stack.env"), "STACK_NAME=sql\nSHARES="+c.shares+"\n")
		if _, err := l.Read("sql"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SHARES=%s: %v", c.shares, err)
		}
	}
	write(t, filepath.Join(root, "stacks/sql/stack.env"), "STACK_NAME=sql\nSHARES=orm\n")
	write(t, filepath.Join(root, "stacks/deeper/stack.env"), "STACK_NAME=deeper\nSHARES=sql\n")
	if _, err := l.Read("deeper"); err == nil || !strings.Contains(err.Error(), "which itself shares orm") {
		t.Errorf("SHARES of a SHARES: %v", err)
	}
}

// A build variant may set only the names its stack declares; the first
// other name is the problem, said in one sentence.
func TestBuildArgsProblem(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "stacks/cgo/stack.env"), "STACK_NAME=cgo\nBUILD_ARGS=\"CGO_CFLAGS GOAMD64\"\n")
	write(t, filepath.Join(dir, "stacks/plain/stack.env"), "STACK_NAME=plain\n")
	lab := Lab{Root: dir}
	cgo, err := lab.Read("cgo")
	must(t, err)
	plain, err := lab.Read("plain")
	must(t, err)
	for _, c := range []struct {
		s     *Stack
		lines []string
		want  string
	}{
		{cgo, []string{"CGO_CFLAGS=-O3", "", "GOAMD64=v3"}, ""},
		{cgo, []string{"CGO_CFLAGS=-O3", "GOGC=50"}, "stacks/cgo takes the build arguments CGO_CFLAGS GOAMD64 (BUILD_ARGS in its stack.env), not GOGC"},
		{plain, []string{""}, ""},
		{plain, []string{"CGO_CFLAGS=-O3"}, "stacks/plain takes no build arguments (no BUILD_ARGS in its stack.env), not CGO_CFLAGS"},
	} {
		if got := c.s.BuildArgsProblem(c.lines); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.s.Name, c.lines, got, c.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A stack's contract: what it states, else none for an image of the user's
// own, else the app's.
func TestContract(t *testing.T) {
	for _, c := range []struct {
		values map[string]string
		want   string
	}{
		{map[string]string{}, "app"},
		{map[string]string{"IMAGE": "me/api:1"}, "none"},
		{map[string]string{"IMAGE": "me/api:1", "CONTRACT": "app"}, "app"},
		{map[string]string{"CONTRACT": "none"}, "none"},
	} {
		if got := (&Stack{Values: c.values}).Contract(); got != c.want {
			t.Errorf("%v: contract %s, want %s", c.values, got, c.want)
		}
	}
}

// A stack's own environment: the lab's values put in, and each refusal in
// one line naming the file (the reserved names are the study's too).
func TestOwnEnv(t *testing.T) {
	env := func(v string) *Stack {
		return &Stack{File: "stacks/own/stack.env", Values: map[string]string{"ENV": v}}
	}
	got, err := env("BIND_ADDR=127.0.0.1:${PORT} GOMAXPROCS=${LAB_CPUS} DB=${DATA}/contacts.db UP=${UPSTREAM_URL} P=${DATABASE_PATH}").OwnEnv("8081", "http://127.0.0.1:9090", 2, "/data")
	want := []string{"BIND_ADDR=127.0.0.1:8081", "GOMAXPROCS=2", "DB=/data/contacts.db", "UP=http://127.0.0.1:9090", "P=/data/app.db"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if got, _ := env("DB=${DATABASE_PATH}").OwnEnv("8081", "u", 1, "/tmp/n"); len(got) != 1 || got[0] != "DB=/tmp/n/app.db" {
		t.Errorf("natively, the database's folder: %q", got)
	}
	if got, err := env("").OwnEnv("8081", "u", 1, "/data"); err != nil || len(got) != 0 {
		t.Errorf("no ENV: %q, %v", got, err)
	}
	for v, msg := range map[string]string{
		"PORT=9":         "ENV sets PORT, which the lab sets for every stack",
		"DATABASE_URL=x": "ENV sets DATABASE_URL, which the lab sets for every stack",
		"X=${HOME}":      "ENV X: only ${PORT}, ${LAB_CPUS}, ${DATA}, ${DATABASE_PATH} and ${UPSTREAM_URL} are put in (got 'X=${HOME}')",
		"lower=1":        "ENV word 'lower=1' is not NAME=VALUE",
		"NOEQUALS":       "ENV word 'NOEQUALS' is not NAME=VALUE",
	} {
		_, err := env(v).OwnEnv("8081", "u", 1, "/data")
		if err == nil || !strings.HasPrefix(err.Error(), "stacks/own/stack.env: "+msg) {
			t.Errorf("%s: %v, want %q", v, err, msg)
		}
	}
	for _, k := range []string{"PORT", "DATABASE_PATH", "DATABASE_URL", "UPSTREAM_URL", "LAB_CPUS"} {
		if !IsReserved(k) {
			t.Errorf("%s is not reserved", k)
		}
	}
}

// The app's whole environment is the lab's four variables, then the
// stack's ENV with the lab's values put in; a bad ENV is still refused.
func TestAppEnv(t *testing.T) {
	env := func(v string) *Stack {
		return &Stack{File: "stacks/own/stack.env", Values: map[string]string{"ENV": v}}
	}
	got, err := env("GOMAXPROCS=${LAB_CPUS}").AppEnv("8081", "http://127.0.0.1:9090", 2, "/tmp/n")
	want := []string{"PORT=8081", "DATABASE_PATH=/tmp/n/app.db", "UPSTREAM_URL=http://127.0.0.1:9090", "LAB_CPUS=2", "GOMAXPROCS=2"}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("AppEnv = %q, %v; want %q", got, err, want)
	}
	if _, err := env("PORT=9").AppEnv("8081", "u", 1, "/data"); err == nil {
		t.Error("an ENV that sets PORT: no error")
	}
	for _, k := range Reserved {
		if k == "DATABASE_URL" {
			continue // a Postgres row's, the bench's to add
		}
		if !strings.Contains(strings.Join(got, " "), k+"=") {
			t.Errorf("AppEnv sets no %s", k)
		}
	}
}

// Images build in dependency order, each once; a circle of DEPENDS is one
// line naming it.
func TestBuildOrder(t *testing.T) {
	root := t.TempDir()
	for name, deps := range map[string]string{"base": "", "app": "base", "other": "base app", "loop1": "loop2", "loop2": "loop1"} {
		dir := filepath.Join(root, "stacks", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "STACK_NAME=" + name + "\nDEPENDS=\"" + deps + "\"\n"
		if err := os.WriteFile(filepath.Join(dir, "stack.env"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lab := Lab{Root: root}
	got, err := lab.BuildOrder([]string{"other", "app"})
	if err != nil || strings.Join(got, " ") != "base app other" {
		t.Errorf("got %v, %v; want base app other", got, err)
	}
	if _, err := lab.BuildOrder([]string{"loop1"}); err == nil || !strings.Contains(err.Error(), "loop1 -> loop2 -> loop1") {
		t.Errorf("a circle: %v", err)
	}
}

// A stack runs its IMAGE when it names one, else the lab's tag; each has
// its own line for an engine that lacks it.
func TestImage(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "stacks/own/stack.env"), "IMAGE=me/api:1\n")
	write(t, filepath.Join(root, "stacks/plain/stack.env"), "INPUTS=\"\"\nTOOLCHAINS=\"\"\n")
	lab := Lab{Root: root}
	im, err := lab.Image("own", nil)
	want := Image{Tag: "me/api:1", Elsewhere: true,
		Missing: "image me/api:1 (IMAGE in " + root + "/stacks/own/stack.env) is not on this Docker engine: build or load it first"}
	if err != nil || im != want {
		t.Errorf("own: %+v, %v; want %+v", im, err, want)
	}
	tag, err := lab.Tag("plain", []string{"K=V"})
	must(t, err)
	im, err = lab.Image("plain", []string{"K=V"})
	want = Image{Tag: tag, Missing: "image " + tag + " for stacks/plain is not built: run './lab images plain'"}
	if err != nil || im != want {
		t.Errorf("plain: %+v, %v; want %+v", im, err, want)
	}
}

// The ready path is READY_PATH, else /up.
func TestReadyPath(t *testing.T) {
	for v, want := range map[string]string{"": "/up", "/healthz": "/healthz"} {
		if got := (&Stack{Values: map[string]string{"READY_PATH": v}}).ReadyPath(); got != want {
			t.Errorf("READY_PATH=%q: %s, want %s", v, got, want)
		}
	}
}

// A stack's own data is a file or folder inside its folder; anything else
// is one line naming the stack.env.
func TestDataSource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "own")
	write(t, filepath.Join(dir, "seed/contacts.db"), "rows")
	write(t, filepath.Join(filepath.Dir(dir), "elsewhere"), "x")
	for data, want := range map[string]string{"": "", "seed": dir + "/seed", "seed/contacts.db": dir + "/seed/contacts.db"} {
		got, err := (&Stack{Dir: dir, Values: map[string]string{"DATA": data}}).DataSource()
		if err != nil || got != want {
			t.Errorf("DATA=%q: %q, %v; want %q", data, got, err, want)
		}
	}
	for _, data := range []string{"../elsewhere", "seed/../seed", "/etc", dir + "/seed", "missing"} {
		_, err := (&Stack{Dir: dir, Values: map[string]string{"DATA": data}}).DataSource()
		if want := dir + "/stack.env: DATA '" + data + "' is not a file or folder inside the stack folder"; err == nil || err.Error() != want {
			t.Errorf("DATA=%q: %v, want %q", data, err, want)
		}
	}
}

// A build-image runs with its declared BUILD_ARGS unset, a variant's set,
// and BASE_IMAGE only for a stack built on base: the tag given, else base's.
func TestBuildEnv(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "stacks/base/stack.env"), "INPUTS=\"\"\nTOOLCHAINS=\"\"\n")
	write(t, filepath.Join(root, "stacks/cgo/stack.env"), "BUILD_ARGS=\"CGO_CFLAGS GOAMD64\"\nDEPENDS=base\n")
	write(t, filepath.Join(root, "stacks/plain/stack.env"), "DEPENDS=\"other\"\n")
	lab := Lab{Root: root}
	baseTag, err := lab.Tag("base", nil)
	must(t, err)
	for _, c := range []struct {
		name, base string
		args       []string
		want       []string
	}{
		{"cgo", "", []string{""}, []string{"-u", "CGO_CFLAGS", "-u", "GOAMD64", "BASE_IMAGE=" + baseTag}},
		{"cgo", "stacklab/base:fixed", []string{"CGO_CFLAGS=-O2 -g", "", "GOAMD64=v3"},
			[]string{"-u", "CGO_CFLAGS", "-u", "GOAMD64", "CGO_CFLAGS=-O2 -g", "GOAMD64=v3", "BASE_IMAGE=stacklab/base:fixed"}},
		{"plain", "stacklab/base:fixed", nil, []string{"BASE_IMAGE="}},
	} {
		got, err := lab.BuildEnv(c.name, c.args, c.base)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q base %q: %q, %v; want %q", c.name, c.args, c.base, got, err, c.want)
		}
	}
}

// scripts/images leaves an IMAGE of the user's own alone, refuses an
// undeclared argument before making a tag, and names a variant's build
// and its log apart from the stack's own.
func TestBuildPlan(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "stacks/own/stack.env"), "IMAGE=me/api:1\n")
	write(t, filepath.Join(root, "stacks/cgo/stack.env"), "BUILD_ARGS=\"CGO_CFLAGS GOAMD64\"\nINPUTS=\"\"\nTOOLCHAINS=\"\"\n")
	write(t, filepath.Join(root, "stacks/untagged/stack.env"), "BUILD_ARGS=CGO_CFLAGS\n")
	lab := Lab{Root: root}
	plain, err := lab.Tag("cgo", nil)
	must(t, err)
	variant, err := lab.Tag("cgo", []string{"CGO_CFLAGS=-O2 -g", "GOAMD64=v3", ""})
	must(t, err)
	for _, c := range []struct {
		name, args string
		want       Build
	}{
		{"own", "GOGC=1", Build{Elsewhere: true, Tag: "me/api:1"}},
		{"cgo", "", Build{Tag: plain, Log: "cgo.build.log"}},
		{"cgo", "CGO_CFLAGS=-O2 -g\nGOAMD64=v3\n", Build{Tag: variant, Args: " with CGO_CFLAGS=-O2 -g GOAMD64=v3",
			Log: "cgo-" + strings.TrimPrefix(variant, "stacklab/cgo:") + ".build.log"}},
		{"cgo", "GOGC=50", Build{Problem: "stacks/cgo takes the build arguments CGO_CFLAGS GOAMD64 (BUILD_ARGS in its stack.env), not GOGC"}},
		{"untagged", "GOGC=50", Build{Problem: "stacks/untagged takes the build arguments CGO_CFLAGS (BUILD_ARGS in its stack.env), not GOGC"}},
	} {
		got, err := lab.BuildPlan(c.name, c.args)
		if err != nil || got != c.want {
			t.Errorf("%s %q: %+v, %v; want %+v", c.name, c.args, got, err, c.want)
		}
	}
	if _, err := lab.BuildPlan("untagged", ""); err == nil || !strings.Contains(err.Error(), "no INPUTS= line") {
		t.Errorf("a stack whose tag cannot be made: %v", err)
	}
}
