package study

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/stackenv"
)

// The lab's own studies read, and expand to the windows the bench runs.
func TestLabStudies(t *testing.T) {
	files, err := filepath.Glob("../../studies/*.toml")
	if err != nil || len(files) < 4 {
		t.Fatalf("studies/: %v %v", files, err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	s, err := Load("../../studies/all.toml")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range s.Windows(32) {
		ids = append(ids, w.ID)
	}
	if got, want := strings.Join(ids, " "), "up json items page upstream write read read-under-writes"; got != want {
		t.Errorf("all: windows %q, want %q", got, want)
	}
	if len(s.Files) != 3 || s.Files[0].Name != "all" || s.Files[1].Name != "pages" || s.Files[2].Name != "io" {
		t.Errorf("all: files %v", s.Files)
	}
	if s.SamplerCheck != "json" {
		t.Errorf("all: sampler_check %q, want json (from pages)", s.SamplerCheck)
	}
}

func TestSweepWindows(t *testing.T) {
	s := parse(t, `
[[case]]
name = "upstream"
path = "/bench/upstream"
connections = [32, 512]
upstream_delay_ms = 100
ceiling = true

[[case]]
name = "open"
path = "/json"
rate = [500, 1000.5]
`)
	var got []string
	for _, w := range s.Windows(32) {
		got = append(got, fmt.Sprintf("%s/%d/%g/%s", w.ID, w.Connections, w.Rate, w.Setting))
	}
	want := "upstream-c32/32/0/32 connections upstream-c512/512/0/512 connections open-r500/32/500/500 req/s open-r1000.5/32/1000.5/1000.5 req/s"
	if strings.Join(got, " ") != want {
		t.Errorf("windows\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestVariantsAndRows(t *testing.T) {
	s := parse(t, `
stacks = ["ruby-rails[4x3]", "go-nethttp"]
[[variant]]
stack = "ruby-rails"
name = "4x3"
env = { WEB_CONCURRENCY = "4", RAILS_MAX_THREADS = "3" }
slots = 12
[[case]]
name = "up"
path = "/up"
`)
	if got := strings.Join(s.Rows([]string{"x"}), ","); got != "ruby-rails[4x3],go-nethttp" {
		t.Errorf("rows %q", got)
	}
	if s.StackOf("ruby-rails[4x3]") != "ruby-rails" || s.StackOf("go-nethttp") != "go-nethttp" {
		t.Errorf("StackOf")
	}
	if v := s.Variant("ruby-rails[4x3]"); v == nil || v.Env["RAILS_MAX_THREADS"] != "3" || v.Slots != 12 {
		t.Errorf("variant %+v", v)
	}
}

// A build variant needs no environment: its own image is the change.
func TestBuildVariant(t *testing.T) {
	s := parse(t, `
[[variant]]
stack = "go-nethttp"
name = "O0"
build = { CGO_CFLAGS = "-g" }
[[case]]
name = "up"
path = "/up"
`)
	if v := s.Variant("go-nethttp[O0]"); v == nil || v.Build["CGO_CFLAGS"] != "-g" || len(v.Env) != 0 {
		t.Errorf("variant %+v", v)
	}
}

// Every fault is one line naming the file, where, and what is wrong.
func TestFaults(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"syntax", "[[case]\nname = 1", "study.toml:1: "},
		{"unknown top key", "conections = 3\n[[case]]\nname='a'\npath='/a'", "study.toml:1: conections: unknown key"},
		{"unknown case key", "[[case]]\nname='a'\npath='/a'\nbodyy='x'", "study.toml:4: case.bodyy: unknown key"},
		{"wrong type", "[[case]]\nname='a'\npath='/a'\nfresh_db='yes'", "study.toml:4: fresh_db: want true or false, got a TOML string"},
		{"no cases", "description = 'x'", "study.toml: no [[case]], no include and no [size]"},
		{"size with a case", "[size]\n[[case]]\nname='a'\npath='/a'", "case: a size study has no [[case]]"},
		{"size with a variant", "[size]\n[[variant]]\nstack='go'\nname='x'\nenv={A='1'}", "variant: a size study has no [[variant]]"},
		{"size runs out of range", "[size]\nfull_runs=0", "size.full_runs: want a whole number from 1 to 20 (got 0)"},
		{"size unknown key", "[size]\nrunz=3", "study.toml:2: size.runz: unknown key"},
		{"size build not a bool", "[size]\nbuild='no'", "build: want true or false, got a TOML string"},
		{"missing name", "[[case]]\npath='/a'", `case 1: name: missing`},
		{"bad name", "[[case]]\nname='A b'\npath='/a'", `case "A b": name: "A b": lower-case letters`},
		{"missing path", "[[case]]\nname='a'", `case "a": path: missing`},
		{"relative path", "[[case]]\nname='a'\npath='a'", `case "a": path: "a": want a path starting with /`},
		{"bad method", "[[case]]\nname='a'\npath='/a'\nmethod='FETCH'", `case "a": method: "FETCH": want one of`},
		{"negative connections", "[[case]]\nname='a'\npath='/a'\nconnections=-1", `case "a": connections: want a whole number from 1 to 100000`},
		{"string connections", "[[case]]\nname='a'\npath='/a'\nconnections='32'", `case "a": connections: want a whole number`},
		{"empty sweep", "[[case]]\nname='a'\npath='/a'\nconnections=[]", `case "a": connections: an empty list`},
		{"repeated setting", "[[case]]\nname='a'\npath='/a'\nconnections=[8,8]", `case "a": connections: 8 is listed twice`},
		{"zero rate", "[[case]]\nname='a'\npath='/a'\nrate=0", `case "a": rate: want a rate in req/s above 0`},
		{"bad errors", "[[case]]\nname='a'\npath='/a'\nerrors='ignore'", `case "a": errors: "ignore": want gate or report`},
		{"bad status", "[[case]]\nname='a'\npath='/a'\nstatus=[99]", `case "a": status: 99 is not an HTTP status`},
		{"ceiling without delay", "[[case]]\nname='a'\npath='/a'\nceiling=true", `case "a": ceiling: needs upstream_delay_ms`},
		{"session without credentials", "[[case]]\nname='a'\npath='/account'\n[case.session]\nemail='u@x'", `case "a": session: email and password are required`},
		{"session per connection", "[[case]]\nname='a'\npath='/account'\n[case.session]\nemail='u@x'\npassword='p'\nper='connection'", `case "a": session.per: "connection": want row`},
		{"token without session", "[[case]]\nname='a'\nmethod='POST'\npath='/orders'\nbody='x={csrf_token}'", `case "a": body: {csrf_token} needs a [case.session]`},
		{"post without token", "[[case]]\nname='a'\nmethod='POST'\npath='/orders'\nbody='x=1'\n[case.session]\nemail='u@x'\npassword='p'", `case "a": body: a POST with a session must carry the form's token`},
		{"session on a ramp", "[[case]]\nname='a'\n[case.ramp]\nstart=10\n[[case.mix]]\npath='/a'\n[case.session]\nemail='u'\npassword='p'", `session`},
		{"companion without connections", "[[case]]\nname='a'\npath='/a'\n[case.companion]\npath='/w'", `case "a": companion.connections: missing`},
		{"two cases one name", "[[case]]\nname='a'\npath='/a'\n[[case]]\nname='a'\npath='/b'", `case "a": a second case with this name`},
		{"window clash", "[[case]]\nname='a'\npath='/a'\nconnections=[1,2]\n[[case]]\nname='a-c1'\npath='/b'", `its window "a-c1" has the name of a window of case "a"`},
		{"alone unknown", "[[case]]\nname='a'\npath='/a'\nalone='b'", `case "a": alone: "b" is not another case`},
		{"sampler unknown", "sampler_check='b'\n[[case]]\nname='a'\npath='/a'", `sampler_check: "b" is not a case`},
		{"paired check unknown", "sampler_check='a'\npaired_check='sampler'\n[[case]]\nname='a'\npath='/a'", `paired_check: "sampler": want all, timeline or hiccup`},
		{"paired check alone", "paired_check='timeline'\n[[case]]\nname='a'\npath='/a'", `paired_check: needs sampler_check`},
		{"variant without env", "[[variant]]\nstack='go'\nname='x'\n[[case]]\nname='a'\npath='/a'", `variant "go[x]": env: a variant needs at least one`},
		{"bad build argument name", "[[variant]]\nstack='go'\nname='x'\nbuild={cflags='-g'}\n[[case]]\nname='a'\npath='/a'", `variant "go[x]": build: "cflags" is not an environment variable name`},
		{"build argument of two lines", "[[variant]]\nstack='go'\nname='x'\nbuild={CGO_CFLAGS=\"-g\\n-O2\"}\n[[case]]\nname='a'\npath='/a'", `variant "go[x]": build: CGO_CFLAGS: a build argument is one line`},
		{"variant sets PORT", "[[variant]]\nstack='go'\nname='x'\nenv={PORT='1'}\n[[case]]\nname='a'\npath='/a'", `PORT is set by the lab for every stack`},
		{"stack names no variant", "stacks=['go[y]']\n[[case]]\nname='a'\npath='/a'", `stacks: "go[y]" names no [[variant]]`},
		{"selftest without planted", "[selftest]\na='go[a]'\ntwin='go[b]'\n[[variant]]\nstack='go'\nname='a'\nenv={X='0'}\n[[variant]]\nstack='go'\nname='b'\nenv={X='0'}\n[[case]]\nname='c'\npath='/c'\n", `selftest.planted: missing: at least one row`},
		{"selftest twin is a", "[selftest]\na='go[a]'\ntwin='go[a]'\nplanted=['go[b]']\n[[variant]]\nstack='go'\nname='a'\nenv={X='0'}\n[[variant]]\nstack='go'\nname='b'\nenv={X='0'}\n[[case]]\nname='c'\npath='/c'\n", `selftest.twin: "go[a]" is already selftest.a`},
		{"selftest names no variant", "[selftest]\na='go[a]'\ntwin='go[c]'\nplanted=['go[b]']\n[[variant]]\nstack='go'\nname='a'\nenv={X='0'}\n[[variant]]\nstack='go'\nname='b'\nenv={X='0'}\n[[case]]\nname='c'\npath='/c'\n", `selftest.twin: "go[c]" names no [[variant]]`},
		{"selftest row not run", "stacks=['go[a]','go[b]']\n[selftest]\na='go[a]'\ntwin='go[b]'\nplanted=['go']\n[[variant]]\nstack='go'\nname='a'\nenv={X='0'}\n[[variant]]\nstack='go'\nname='b'\nenv={X='0'}\n[[case]]\nname='c'\npath='/c'\n", `selftest.planted: "go" is not among the rows the study runs`},
		{"stack listed twice", "stacks=['go','go']\n[[case]]\nname='a'\npath='/a'", `stacks: "go" is listed twice`},
		{"include and cases", "include=['pages']\n[[case]]\nname='a'\npath='/a'", "include: a study either includes others or has cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("study.toml", []byte(tc.text), nil)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "study.toml") {
				t.Errorf("error %q\nwant one line from study.toml containing %q", msg, tc.want)
			}
		})
	}
}

func TestIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name+".toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "[[case]]\nname='x'\npath='/x'\n")
	write("b", "[[case]]\nname='y'\npath='/y'\n")
	write("both", "include=['a','b']\n")
	write("missing", "include=['a','zz']\n")
	write("nested", "include=['both']\n")
	write("clash", "include=['a','a']\n")
	s, err := Load(filepath.Join(dir, "both.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sections) != 2 || s.Sections[0].Name != "a" || s.Sections[1].Name != "b" {
		t.Errorf("sections %+v", s.Sections)
	}
	again, err := FromFiles("manifest.json", s.Files)
	if err != nil || again.Hash() != s.Hash() || len(again.Cases()) != 2 {
		t.Errorf("from the manifest's copy: %v, hash %s vs %s", err, again.Hash(), s.Hash())
	}
	for name, want := range map[string]string{"missing": `include: study "zz"`, "nested": "an included study may hold cases",
		"clash": `case "x": a second case with this name`} {
		if _, err := Load(filepath.Join(dir, name+".toml")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

func parse(t *testing.T, text string) *Study {
	t.Helper()
	s, err := Parse("study.toml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSizeStudy(t *testing.T) {
	s, err := Load("../../studies/size.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Size == nil || !s.Size.Build || s.Size.RunsFor("quick") != 1 || s.Size.RunsFor("full") != 3 {
		t.Fatalf("studies/size.toml: got %+v, want builds, 1 quick run, 3 full", s.Size)
	}
	if len(s.Cases()) != 0 || len(s.Windows(32)) != 0 {
		t.Errorf("a size study has no cases or windows, got %d and %d", len(s.Cases()), len(s.Windows(32)))
	}
	s, err = Parse("code.toml", []byte("stacks=['go-nethttp']\n[size]\nbuild=false\nquick_runs=2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Size.Build || s.Size.RunsFor("quick") != 2 || s.Stacks[0] != "go-nethttp" {
		t.Errorf("got %+v and stacks %v", s.Size, s.Stacks)
	}
}

// A variant may put its row on the lab's Postgres; any other database is
// refused with the key named.
func TestVariantDatabase(t *testing.T) {
	dir := t.TempDir()
	write := func(db string) string {
		p := filepath.Join(dir, "pg.toml")
		body := "[[variant]]\nstack = \"go-nethttp\"\nname = \"pg\"\ndatabase = \"" + db + "\"\n\n[[case]]\nname = \"items\"\npath = \"/items\"\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := Load(write("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.DatabaseOf("go-nethttp[pg]"); got != DatabasePostgres {
		t.Errorf("DatabaseOf the variant: %q", got)
	}
	if got := s.DatabaseOf("go-nethttp"); got != DatabaseSQLite {
		t.Errorf("DatabaseOf the stack: %q", got)
	}
	if _, err := Load(write("mysql")); err == nil || !strings.Contains(err.Error(), `database: "mysql": want "sqlite" or "postgres"`) {
		t.Errorf("mysql: %v", err)
	}
}

// A study's [seed]: the counts it names, the default's for the others; a
// count out of range is one line naming the file and seed; an included
// study may not set it.
func TestSeed(t *testing.T) {
	const cases = "\n[[case]]\nname = \"items\"\npath = \"/items\"\n"
	s, err := Parse("big.toml", []byte("[seed]\nitems = 100000\nevents = 5000\n"+cases), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed.Items != 100000 || s.Seed.Events != 5000 || s.Seed.Users != 100 || s.Seed.OrdersPerUser != 50 {
		t.Errorf("seed %+v", s.Seed)
	}
	if s, err := Parse("small.toml", []byte(cases), nil); err != nil || s.Seed.Items != 1000 || s.Seed.Users != 100 {
		t.Errorf("no [seed]: %+v %v", s, err)
	}
	for text, want := range map[string]string{
		"[seed]\nitems = 0\n":                              "big.toml: seed: items: want a whole number from 1",
		"[seed]\nusers = 1000000\norders_per_user = 101\n": "big.toml: seed: orders: 1000000 users × 101 orders",
		"[seed]\nrows = 5\n":                               "rows",
	} {
		if _, err := Parse("big.toml", []byte(text+cases), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want …%s…", text, err, want)
		}
	}
	inc := func(string) (string, []byte, error) { return "other.toml", []byte("[seed]\nitems = 5\n" + cases), nil }
	if _, err := Parse("big.toml", []byte(`include = ["other"]`+"\n"), inc); err == nil || !strings.Contains(err.Error(), "[seed]") {
		t.Errorf("an included [seed]: %v", err)
	}
}

// A stack runs on the databases its DATABASES names, SQLite alone when it
// names none; any other is its one line.
func TestRunsOn(t *testing.T) {
	plain := &stackenv.Stack{Name: "plain", Values: map[string]string{}}
	both := &stackenv.Stack{Name: "both", Values: map[string]string{"DATABASES": "sqlite postgres"}}
	if RunsOn(plain, DatabaseSQLite) != nil || RunsOn(both, DatabasePostgres) != nil {
		t.Errorf("a stack refused a database it runs on")
	}
	err := RunsOn(plain, DatabasePostgres)
	if want := "stacks/plain does not run on postgres (DATABASES in its stack.env: )"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
