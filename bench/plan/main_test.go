package main

import (
	"stacklab/bench/websession"

	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runPlan(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// describe lists what the bench runs: rows, variants' environment, windows.
func TestDescribe(t *testing.T) {
	code, out, errs := runPlan("describe", "../../studies/variants.toml", "--lab-root", "../..")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"study variants\n", "upstream 1\n", "row ruby-rails[4x3] ruby-rails\n",
		"env ruby-rails[4x3] RAILS_MAX_THREADS=3\n", "env ruby-rails[4x3] WEB_CONCURRENCY=4\n",
		"row python-fastapi[2w] python-fastapi\n", "window items\nwindow upstream\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	// A build variant's arguments reach the bench as build lines.
	code, out, errs = runPlan("describe", "../../stacks/go-nethttp/optimizing.toml", "--lab-root", "../..")
	if code != 0 || !strings.Contains(out, "row go-nethttp[O0] go-nethttp\nbuild go-nethttp[O0] CGO_CFLAGS=-g\n") ||
		!strings.Contains(out, "build go-nethttp[nomemstat] CGO_CFLAGS=-O2 -g -DSQLITE_DEFAULT_MEMSTATUS=0\n") {
		t.Errorf("build variant: exit %d %s\n%s", code, errs, out)
	}
	// --stacks narrows the rows; an unknown one is one line, exit 2.
	code, out, _ = runPlan("describe", "../../studies/pages.toml", "--lab-root", "../..", "--stacks", "go-nethttp")
	if code != 0 || strings.Count(out, "\nrow ") != 1 {
		t.Errorf("--stacks go-nethttp: exit %d\n%s", code, out)
	}
	code, _, errs = runPlan("describe", "../../studies/pages.toml", "--lab-root", "../..", "--stacks", "go-nethttp,nope")
	if code != 2 || !strings.Contains(errs, `--stacks: "nope": no stack folder nope with a stack.env`) || strings.Count(errs, "\n") != 1 {
		t.Errorf("unknown stack: exit %d, %q", code, errs)
	}
}

// Every row's database is said, so the bench looks it up: sqlite unless
// a variant names postgres.
func TestDescribeRowFacts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"../../studies/variants.toml"}, []string{"database ruby-rails[4x32] sqlite\n", "database python-fastapi[1w] sqlite\n"}},
		{[]string{"../../studies/pages.toml", "--stacks", "ruby-rails,go-nethttp"}, []string{"row ruby-rails ruby-rails\ndatabase ruby-rails sqlite\n",
			"row go-nethttp go-nethttp\ndatabase go-nethttp sqlite\n"}},
		{[]string{"../../studies/postgres.toml", "--stacks", "go-nethttp[pg]"}, []string{"row go-nethttp[pg] go-nethttp\ndatabase go-nethttp[pg] postgres\n"}},
	} {
		code, out, errs := runPlan(append([]string{"describe", c.args[0], "--lab-root", "../.."}, c.args[1:]...)...)
		for _, want := range c.want {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("%v: exit %d %s, want %q in\n%s", c.args, code, errs, want, out)
			}
		}
	}
}

// Natively, the study's stacks without a native build are left out, each
// named on a line of its own; the lead stays first; a stack asked for by
// name stays (the bench refuses it when it cannot build). In a lab root
// whose stacks are the lab's, rust-loco's folder with its stack.env alone.
func TestDescribeNative(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "stacks"), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("../../stacks")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		real, _ := filepath.Abs(filepath.Join("../../stacks", e.Name()))
		if e.Name() != "rust-loco" {
			if err := os.Symlink(real, filepath.Join(root, "stacks", e.Name())); err != nil {
				t.Fatal(err)
			}
			continue
		}
		env, err := os.ReadFile(filepath.Join(real, "stack.env"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, "stacks", e.Name()), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "stacks", e.Name(), "stack.env"), env, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runPlan("describe", "../../studies/all.toml", "--lab-root", root, "--native")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "\nleft_out rust-loco stacks/rust-loco has no native build (native-build and native-start)\n") || strings.Contains(out, "\nrow rust-loco ") {
		t.Errorf("rust-loco (no native build) not left out:\n%s", out)
	}
	if !strings.Contains(out, "\nrow python-fastapi ") || strings.Index(out, "\nrow python-fastapi ") > strings.Index(out, "\nrow ") {
		t.Errorf("the lead is not the first row:\n%s", out)
	}
	code, out, _ = runPlan("describe", "../../studies/all.toml", "--lab-root", root, "--native", "--stacks", "rust-loco")
	if code != 0 || !strings.Contains(out, "\nrow rust-loco ") || strings.Contains(out, "left_out") {
		t.Errorf("--stacks rust-loco --native: exit %d\n%s", code, out)
	}
	// the lab's own stacks all build natively
	code, out, _ = runPlan("describe", "../../studies/all.toml", "--lab-root", "../..", "--native")
	if code != 0 || strings.Contains(out, "left_out") || !strings.Contains(out, "\nrow rust-loco ") {
		t.Errorf("the lab's stacks natively: exit %d\n%s", code, out)
	}
}

// The generator's headroom: measured in a study oha drives, not in a
// capacity study (vegeta's) or a size study; its load is the mock with no
// delay at the default connections, at a loopback address only.
func TestHeadroom(t *testing.T) {
	for study, want := range map[string]string{"pages": "headroom 1\n", "capacity": "headroom 0\n", "size": "headroom 0\n"} {
		code, out, errs := runPlan("describe", "../../studies/"+study+".toml", "--lab-root", "../..")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d %s, want %q in\n%s", study, code, errs, want, out)
		}
	}
	code, out, errs := runPlan("headroom", "../../studies/pages.toml", "--url", "http://127.0.0.1:8080", "--connections", "64")
	if want := "-c\x0064\x00-m\x00GET\x00http://127.0.0.1:8080/delay?ms=0\x00"; code != 0 || out != want {
		t.Errorf("headroom: exit %d %s, %q, want %q", code, errs, out, want)
	}
	code, _, errs = runPlan("headroom", "../../studies/capacity.toml", "--url", "http://127.0.0.1:8080")
	if code != 2 || !strings.Contains(errs, "no window oha drives") || strings.Count(errs, "\n") != 1 {
		t.Errorf("capacity: exit %d, %q", code, errs)
	}
	code, _, errs = runPlan("headroom", "../../studies/pages.toml", "--url", "http://10.0.0.1:8080")
	if code != 2 || !strings.Contains(errs, "127.0.0.1:PORT only") {
		t.Errorf("non-loopback: exit %d, %q", code, errs)
	}
}

// oha's arguments: a sweep's connections, an open loop with latency
// correction, a companion, a ceiling; never a non-loopback target.
func TestOhaArgs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte(`
[[case]]
name = "up"
path = "/bench/upstream"
connections = [32, 128]
upstream_delay_ms = 100
ceiling = true

[[case]]
name = "post"
method = "POST"
path = "/bench/write"
rate = 250
body = "a b"
content_type = "text/plain"
headers = ["X-Lab: 1"]
[case.companion]
path = "/bench/read"
connections = 2
rate = 10
`), 0o644)
	args := func(a ...string) string {
		code, out, errs := runPlan(append([]string{"oha", path}, a...)...)
		if code != 0 {
			return fmt.Sprintf("exit %d: %s", code, errs)
		}
		return strings.ReplaceAll(strings.TrimSuffix(out, "\x00"), "\x00", "|")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"up-c128", "--url", "http://127.0.0.1:8080"}, "-c|128|-m|GET|http://127.0.0.1:8080/bench/upstream"},
		{[]string{"up-c32", "--ceiling", "--url", "http://127.0.0.1:9090"}, "-c|32|-m|GET|http://127.0.0.1:9090/delay?ms=100"},
		{[]string{"post", "--url", "http://127.0.0.1:8080"}, "-c|32|-q|250|--latency-correction|-m|POST|-d|a b|-T|text/plain|-H|X-Lab: 1|http://127.0.0.1:8080/bench/write"},
		{[]string{"post", "--companion", "--url", "http://127.0.0.1:8080"}, "-c|2|-q|10|-m|GET|http://127.0.0.1:8080/bench/read"},
	} {
		if got := args(tc.args...); got != tc.want {
			t.Errorf("oha %v:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
	if code, _, errs := runPlan("oha", path, "up-c32", "--url", "http://10.0.0.1:8080"); code != 2 || !strings.Contains(errs, "127.0.0.1") {
		t.Errorf("a non-loopback target: exit %d %q", code, errs)
	}
	if code, _, errs := runPlan("oha", path, "nope", "--url", "http://127.0.0.1:8080"); code != 2 || !strings.Contains(errs, `no window "nope"`) {
		t.Errorf("an unknown window: exit %d %q", code, errs)
	}
}

// checks make each case's response check once and name what failed.
func TestChecks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/json" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"message":"Hello, World!"}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	url := srv.URL // httptest listens on 127.0.0.1, the only host plan accepts
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte(`
[[case]]
name = "hello"
path = "/json"
[case.check]
content_type = "application/json"
body_contains = "Hello"

[[case]]
name = "gone"
path = "/gone"
[case.check]
status = 200
`), 0o644)
	code, out, errs := runPlan("checks", path, "--url", url)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one check fails): %s %s", code, out, errs)
	}
	if !strings.Contains(out, "PASS  hello") || !strings.Contains(out, "FAIL  gone") || !strings.Contains(out, "status 404, want 200") {
		t.Errorf("checks printed:\n%s", out)
	}
}

// A size study: its build runs per profile, whether it builds, its rows,
// and no window.
func TestDescribeSize(t *testing.T) {
	code, out, errs := runPlan("describe", "../../studies/size.toml", "--lab-root", "../..", "--stacks", "go-nethttp,rust-axum")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"study size\n", "size_runs quick 1\nsize_runs full 3\nsize_build 1\n",
		"row go-nethttp go-nethttp\n", "row rust-axum rust-axum\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "row rust-axum ") < strings.Index(out, "row go-nethttp ") {
		t.Errorf("the rows are not in the order asked:\n%s", out)
	}
	if strings.Contains(out, "window ") {
		t.Errorf("a size study has no window:\n%s", out)
	}
}

// A study of flows alone is refused in one line before a bench writes
// anything: without a users case nothing runs its flows.
func TestFlowsAloneAreRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flows.toml")
	if err := os.WriteFile(path, []byte("[[flow]]\nname = \"f\"\nweight = 1\n[[flow.step]]\npath = \"/up\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runPlan("describe", path, "--lab-root", "../..")
	if code != 2 || !strings.Contains(errs, "flows.toml: flow: a study of flows alone has no case that runs them") || strings.Count(errs, "\n") != 1 {
		t.Errorf("flows alone: exit %d, %q", code, errs)
	}
}

// A signed-in window gets its session's cookies and token; without the
// session file its arguments are refused; a 303 counted good is not followed.
func TestSignedInWindow(t *testing.T) {
	dir := t.TempDir()
	sess := dir + "/s.json"
	if err := websession.Write(sess, websession.Session{Cookie: "lab_session=abc; lab_csrf=x", Token: "t+k/="}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runPlan("oha", "../../studies/signed-in.toml", "order", "--url", "http://127.0.0.1:8080", "--session", sess)
	want := "-c\x0032\x00--redirect\x000\x00-m\x00POST\x00-d\x00email=buyer%40shop.example&amount=149.90&currency=EUR&csrf_token=t%2Bk%2F%3D\x00-T\x00application/x-www-form-urlencoded\x00-H\x00Cookie: lab_session=abc; lab_csrf=x\x00http://127.0.0.1:8080/orders\x00"
	if code != 0 || out != want {
		t.Errorf("order: exit %d %s\n got %q\nwant %q", code, errs, out, want)
	}
	code, _, errs = runPlan("oha", "../../studies/signed-in.toml", "account", "--url", "http://127.0.0.1:8080")
	if code != 2 || !strings.Contains(errs, "give its --session") {
		t.Errorf("no session: exit %d, %q", code, errs)
	}
	code, out, _ = runPlan("signin", "../../studies/signed-in.toml", "sign-in-post", "--url", "http://127.0.0.1:8080")
	if want := "-url\x00http://127.0.0.1:8080\x00-email\x00user1@lab.example\x00-password\x00lab-password-1\x00-form-only\x00"; code != 0 || out != want {
		t.Errorf("signin: exit %d, %q", code, out)
	}
}

// A build variant may set only what its stack's BUILD_ARGS declares, and
// none natively: describe refuses it in one line naming the variant.
func TestDescribeBuildArgs(t *testing.T) {
	study := filepath.Join(t.TempDir(), "badbuild.toml")
	body := "stacks = [\"go-nethttp[race]\"]\n\n[[variant]]\nstack = \"go-nethttp\"\nname = \"race\"\nbuild = { GOFLAGS = \"-race\" }\n\n[[case]]\nname = \"items\"\npath = \"/items\"\n"
	if err := os.WriteFile(study, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runPlan("describe", study, "--lab-root", "../..")
	if code != 2 || strings.Count(errs, "\n") != 1 ||
		!strings.Contains(errs, "badbuild.toml: variant go-nethttp[race]: stacks/go-nethttp takes the build arguments CGO_CFLAGS (BUILD_ARGS in its stack.env), not GOFLAGS") {
		t.Errorf("undeclared: exit %d %q", code, errs)
	}
	code, _, errs = runPlan("describe", "../../stacks/go-nethttp/optimizing.toml", "--lab-root", "../..", "--native", "--stacks", "go-nethttp[O0]")
	if code != 2 || !strings.Contains(errs, "variant go-nethttp[O0]: it has build arguments: the native mode") {
		t.Errorf("native: exit %d %q", code, errs)
	}
}
