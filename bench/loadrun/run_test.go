package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func argsOf(t *testing.T, args ...string) runFlags {
	t.Helper()
	r, err := parseRun(args)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return r
}

func sameArgs(t *testing.T, got runFlags, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(got.args, want) {
		t.Errorf("ARGS: got %q, want %q", got.args, want)
	}
}

// @OUT and @DATA are put in wherever they appear inside an argument, as
// role_tool's ${a//@OUT/$o} did.
func TestTokenInsideAnArgument(t *testing.T) {
	r := argsOf(t, "--token", "@OUT=/r/out.json", "--token", "@DATA=/var/db", "--",
		"seed", "rows", "@DATA/app.db", "--out=@OUT", "@OUT", "@OUT,@OUT")
	if r.prog != "/bin/seed" {
		t.Errorf("PROGRAM: got %q, want /bin/seed", r.prog)
	}
	sameArgs(t, r, "rows", "/var/db/app.db", "--out=/r/out.json", "/r/out.json", "/r/out.json,/r/out.json")
}

// A kept file's token is put in only when it is the whole argument.
func TestArgWholeOnly(t *testing.T) {
	r := argsOf(t, "--arg", "@db=/r/w.db", "--", "oha", "--db-url", "@db", "x@db", "@db/x", "@dbx")
	sameArgs(t, r, "--db-url", "/r/w.db", "x@db", "@db/x", "@dbx")
}

// A study's request body that reads like a token stays as it is when no
// such token was given: a generator's ARGS are the study's.
func TestBodyUntouchedWithoutItsToken(t *testing.T) {
	body := `{"note":"@OUT @DATA @db @time","to":"@OUT"}`
	r := argsOf(t, "--time", "@time", "--arg", "@time=/r/t", "--", "oha", "-d", body, "@OUT", "@DATA", "@db")
	sameArgs(t, r, "-d", body, "@OUT", "@DATA", "@db")
	r = argsOf(t, "--", "oha", "-d", body)
	sameArgs(t, r, "-d", body)
}

// loadrun's own --time and --start take a kept file's token (role_tool
// passes --time @time), the container's path or this machine's.
func TestOwnFlagsTakeTokens(t *testing.T) {
	r := argsOf(t, "--time", "@time", "--start", "@start", "--emit", "@OUT", "--deadline", "90",
		"--arg", "@time=/tmp/time", "--arg", "@start=/tmp/start", "--token", "@OUT=/tmp/out", "--", "oha", "-z", "5s")
	if r.timeFile != "/tmp/time" || r.startFile != "/tmp/start" || r.emit != "/tmp/out" || r.deadline != 90 {
		t.Errorf("got --time %q --start %q --emit %q --deadline %v", r.timeFile, r.startFile, r.emit, r.deadline)
	}
	sameArgs(t, r, "-z", "5s")
}

// A whole argument is put in first, then each token inside it, in the
// order given (role_tool's order: the kept files, @OUT, @DATA).
func TestOrder(t *testing.T) {
	r := argsOf(t, "--token", "@OUT=/o", "--arg", "@k=@OUT.k", "--token", "@DATA=/d", "--", "p", "@k", "@DATA@OUT")
	sameArgs(t, r, "/o.k", "/d/o")
}

// stderrOf runs loadrun run with args and returns its status and what it
// printed on stderr.
func stderrOf(t *testing.T, args ...string) (int, string) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = f
	rc := runProgram(args)
	os.Stderr = saved
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	return rc, string(b)
}

// A --token or --arg that is not @NAME=PATH, or a token given twice, is
// refused in one line, status 2, and the program does not run.
func TestBadTokenRefused(t *testing.T) {
	for _, v := range [][]string{
		{"--token", "OUT=/x"},
		{"--token", "@OUT"},
		{"--token", "@=/x"},
		{"--token", "@OUT="},
		{"--arg", "db=/x"},
		{"--arg", "@db=/x", "--arg", "@db=/y"},
	} {
		ran := filepath.Join(t.TempDir(), "ran")
		rc, msg := stderrOf(t, append(v, "--", "sh", "-c", `: >"$0"`, ran)...)
		if rc != 2 {
			t.Errorf("%q: status %d, want 2", v, rc)
		}
		if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "loadrun run: ") {
			t.Errorf("%q: want one line from loadrun run, got %q", v, msg)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("%q: the program ran", v)
		}
	}
}

// The program gets its arguments with the tokens put in, and --time
// writes to the path its token stands for.
func TestProgramGetsPaths(t *testing.T) {
	dir := t.TempDir()
	out, tf := filepath.Join(dir, "out"), filepath.Join(dir, "time")
	body := `{"a":"@DATA"}`
	rc, msg := stderrOf(t, "--time", "@time", "--arg", "@time="+tf, "--token", "@OUT="+out, "--",
		"sh", "-c", `printf '%s\n' "$@" >"$0"`, "@OUT", body, "--out=@OUT")
	if rc != 0 || msg != "" {
		t.Fatalf("status %d, stderr %q", rc, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := body + "\n--out=" + out + "\n"; string(b) != want {
		t.Errorf("the program got %q, want %q", b, want)
	}
	b, err = os.ReadFile(tf)
	if err != nil {
		t.Fatalf("--time @time: %v", err)
	}
	if len(strings.Fields(string(b))) != 3 {
		t.Errorf("--time wrote %q, want user system real", b)
	}
}
