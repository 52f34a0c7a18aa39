package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The tests name no real registry: every host is under .example or .test.

func TestWholeHostMatch(t *testing.T) {
	hosts := []host{{name: "registry.example.test", source: "npm"}}
	text := strings.Join([]string{
		`"resolved": "https://registry.example.test/a/-/a-1.0.0.tgz"`, // 1: named
		`from registry.example.test.`,                                 // 2: named, end of a sentence
		`https://REGISTRY.example.test:443/x`,                         // 3: named, any case, a port
		`myregistry.example.test`,                                     // 4: a longer name
		`a.registry.example.test`,                                     // 5: a subdomain
		`registry.example.test-index`,                                 // 6: a longer label
		`registry.example.test.evil.test`,                             // 7: a longer name
		`example.test`,                                                // 8: a shorter one
		`cache/registry.example.test_dists`,                           // 9: named (a file name made from it)
		`two: registry.example.test and registry.example.test/again`,  // 10: one finding
	}, "\n")
	var lines []int
	for _, f := range scanText("f", []byte(text), hosts) {
		lines = append(lines, f.line)
	}
	if want := []int{1, 2, 3, 9, 10}; !reflect.DeepEqual(lines, want) {
		t.Errorf("lines naming the host: %v, want %v", lines, want)
	}
}

func TestHostOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://proxy.example.test":              "proxy.example.test",
		"sparse+https://index.example.test/":      "index.example.test",
		"registry+https://git.example.test/index": "git.example.test",
		"http://Mirror.Example.test:8080/debian":  "mirror.example.test",
		"sum.example.test":                        "sum.example.test",
		"'https://pypi.example.test/simple'":      "pypi.example.test",
		"file:/srv/debian":                        "",
		"direct":                                  "direct", // no dot: hostName drops it
	} {
		if got := hostOf(in); got != want {
			t.Errorf("hostOf(%q) = %q, want %q", in, got, want)
		}
	}
	for h, want := range map[string]bool{"a.example.test": true, "direct": false, "127.0.0.1": false, "0.0.0.0": false, "::1": false} {
		if got := hostName(h); got != want {
			t.Errorf("hostName(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestGoEnvValues(t *testing.T) {
	if got, want := goProxyList("https://a.example.test,https://b.example.test|direct"), []string{"https://a.example.test", "https://b.example.test"}; !reflect.DeepEqual(got, want) {
		t.Errorf("goProxyList = %v, want %v", got, want)
	}
	for in, want := range map[string][]string{
		"off":                                    nil,
		"sum.example.test":                       {"sum.example.test"},
		"sum.example.test+abc123":                {"sum.example.test"},
		"name+abc123 https://sumdb.example.test": {"name", "https://sumdb.example.test"},
	} {
		if got := goSumDB(in); !reflect.DeepEqual(got, want) {
			t.Errorf("goSumDB(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestXMLURLsSkipComments(t *testing.T) {
	xml := `<settings><!-- <mirror><url>http://commented.example.test/</url></mirror> -->
<mirror><url> https://mirror.example.test/maven2 </url></mirror></settings>`
	if got, want := xmlURLs([]byte(xml)), []string{"https://mirror.example.test/maven2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("xmlURLs = %v, want %v", got, want)
	}
}

// fakeMachine answers commands from a table ("name arg..." -> stdout; a
// missing entry fails) and files from a map.
type fakeMachine struct {
	cmds  map[string]string
	files map[string]string
	env   map[string]string
}

func (f fakeMachine) run(set []string, name string, args ...string) (string, error) {
	key := strings.Join(append([]string{name}, args...), " ")
	if name == "sh" && strings.HasPrefix(key, "sh -c command -v ") {
		key = "which " + strings.TrimPrefix(key, "sh -c command -v ")
	}
	if len(set) > 0 && name != "sh" {
		key = "[defaults] " + key
	}
	out, ok := f.cmds[key]
	if !ok {
		return "", errors.New("not found: " + key)
	}
	return out, nil
}

func (f fakeMachine) getenv(k string) string { return f.env[k] }

func (f fakeMachine) environ() []string {
	var out []string
	for k, v := range f.env {
		out = append(out, k+"="+v)
	}
	return out
}

func (f fakeMachine) readFile(p string) ([]byte, error) {
	if s, ok := f.files[p]; ok {
		return []byte(s), nil
	}
	return nil, os.ErrNotExist
}

func (f fakeMachine) glob(p string) []string {
	var out []string
	for name := range f.files {
		if ok, _ := filepath.Match(p, name); ok {
			out = append(out, name)
		}
		// a folder matches when a file lies under it
		for d := filepath.Dir(name); d != "/" && d != "."; d = filepath.Dir(d) {
			if ok, _ := filepath.Match(p, d); ok && !contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

func superPOMJar(t *testing.T, pom string) string {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("org/apache/maven/model/pom-4.0.0.xml")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(pom))
	zw.Close()
	return b.String()
}

// A machine configured with one registry per tool, some named twice and
// one an address: every host comes back once, with its first source.
func fixtureMachine(t *testing.T) fakeMachine {
	none := filepath.Join(os.TempDir(), "registryhosts-no-such-folder")
	npmDefault := "npm config get registry --userconfig=" + filepath.Join(none, "user") + " --globalconfig=" + filepath.Join(none, "global")
	m := fakeMachine{
		env: map[string]string{"HOME": "/home/u", "CARGO_REGISTRIES_CORP_INDEX": "sparse+https://cargo-corp.example.test/index/"},
		cmds: map[string]string{
			"which apt-get": "/usr/bin/apt-get",
			"apt-get indextargets --no-release-info --format $(SITE)": "http://deb.example.test/debian\nhttp://deb.example.test/debian\nhttp://security.example.test/debian-security\n",
			"which go":                          "/usr/bin/go",
			"go env GOPROXY GOSUMDB":            "https://goproxy.corp.example.test,direct\nsum.example.test\n",
			"[defaults] go env GOPROXY GOSUMDB": "https://goproxy.example.test,direct\nsum.example.test\n",
			"which npm":                         "/usr/bin/npm",
			"npm config list --json":            `{"registry": "https://npm.corp.example.test/", "@corp:registry": "https://npm-scope.example.test/", "fund": true}`,
			"which pip3":                        "/usr/bin/pip3",
			"pip3 config list":                  "global.index-url='https://pypi.corp.example.test/simple'\nglobal.find-links='/opt/wheels'\n",
			"pip3 download --help":              "  -i, --index-url <url>       Base URL of the Python Package Index (default\n                              https://pypi.example.test/simple). This should\n",
			"pip3 --version":                    "pip 23.2.1 from /x/pip (python 3.11)\n",
			"python3.11 -c from pip._internal.models.index import PyPI; print(PyPI.file_storage_domain)": "files.pypi.example.test\n",
			"which mvn":                             "/usr/bin/mvn",
			`sh -c readlink -f "$(command -v mvn)"`: "/usr/share/maven/bin/mvn\n",
			"which gem":                             "/usr/bin/gem",
			"gem sources --list":                    "*** CURRENT SOURCES ***\n\nhttps://gems.example.test/\n",
		},
		files: map[string]string{
			"/home/u/.cargo/config.toml": "[source.crates-io]\nreplace-with = \"corp\"\n[registries.corp]\nindex = \"sparse+https://cargo-corp.example.test/index/\"\n",
			"/home/u/.cargo/registry/index/index.cargo.example.test-0123456789abcdef/config.json": `{"dl": "https://static.cargo.example.test/crates", "api": "https://cargo.example.test"}`,
			"/home/u/.cargo/registry/index/git.example.test-fedcba9876543210/.git/HEAD":           "ref: refs/heads/master",
			"/usr/share/maven/conf/settings.xml":                                                  "<settings><!-- <url>http://example.mirror.test/</url> --><mirrors><mirror><url>http://0.0.0.0/</url></mirror></mirrors></settings>",
			"/usr/share/maven/lib/maven-model-builder-3.x.jar":                                    superPOMJar(t, "<project><repositories><repository><url>https://central.example.test/maven2</url></repository></repositories></project>"),
		},
	}
	m.cmds[npmDefault] = "https://npm.example.test/\n"
	return m
}

func TestMachineHosts(t *testing.T) {
	hosts, notes, ignored := machineHosts(fixtureMachine(t))
	got := map[string]string{}
	for _, h := range hosts {
		got[h.name] = h.source
	}
	want := map[string]string{
		"deb.example.test": "apt", "security.example.test": "apt",
		"goproxy.corp.example.test": "go", "goproxy.example.test": "go", "sum.example.test": "go",
		"npm.corp.example.test": "npm", "npm-scope.example.test": "npm", "npm.example.test": "npm",
		"pypi.corp.example.test": "pip", "pypi.example.test": "pip", "files.pypi.example.test": "pip",
		"cargo-corp.example.test": "cargo", "index.cargo.example.test": "cargo",
		"static.cargo.example.test": "cargo", "cargo.example.test": "cargo",
		"central.example.test": "maven",
		"gems.example.test":    "gem",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hosts:\n got %v\nwant %v", got, want)
	}
	if len(notes) != 0 {
		t.Errorf("notes = %q, want none", notes)
	}
	if !reflect.DeepEqual(ignored, []string{"0.0.0.0 (maven)"}) {
		t.Errorf("ignored = %q, want the address in Maven's settings", ignored)
	}
	if _, ok := got["git.example.test"]; ok {
		t.Error("a git index's host (a code host) was taken for a registry host")
	}
}

func TestNothingConfiguredFails(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(fakeMachine{}, t.TempDir(), false, &out, &errOut); code != 1 {
		t.Fatalf("exit %d with no registry configured, want 1", code)
	}
	if !strings.Contains(errOut.String(), "no package registry host found") {
		t.Errorf("stderr = %q", errOut.String())
	}
}

// The user's view: a repository whose README gains a registry URL fails,
// naming the file and line; results/ is not looked at; a Cargo.lock's
// source id naming a longer host passes.
func TestRunOnRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.test"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	m := fixtureMachine(t)
	write("README.md", "# lab\n\nInstall from the configured registry.\n")
	write("Cargo.lock", "source = \"registry+https://git.example.test/cargo.example.test-index\"\n")
	write("results/run/raw.json", "https://npm.corp.example.test/x\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "clean")

	var out, errOut bytes.Buffer
	if code := run(m, dir, false, &out, &errOut); code != 0 {
		t.Fatalf("clean repository: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errOut.String())
	}

	write("README.md", "# lab\n\nInstall from the configured registry.\nOr: npm install --registry https://npm.corp.example.test/ x\n")
	git("commit", "-q", "-am", "name a registry")
	out.Reset()
	errOut.Reset()
	if code := run(m, dir, false, &out, &errOut); code != 1 {
		t.Fatalf("exit %d for a README naming a registry, want 1", code)
	}
	if want := "README.md:4: names npm.corp.example.test (npm)\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "1 line names a package registry's host") {
		t.Errorf("stderr = %q", errOut.String())
	}
}
