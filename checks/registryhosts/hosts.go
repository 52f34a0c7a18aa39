package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// A host is a package registry's host name and where this machine named it.
type host struct {
	name   string
	source string
}

// A machine is what the sources read: commands, environment, files. Tests
// give a fake one.
type machine interface {
	// run runs a command with the environment changed by set (KEY=VALUE
	// adds or replaces, KEY= with an empty value removes) and returns stdout.
	run(set []string, name string, args ...string) (string, error)
	getenv(key string) string
	environ() []string
	readFile(path string) ([]byte, error)
	glob(pattern string) []string
}

// A source reads one tool's configuration. It returns the URLs or host
// names it found and, when it could not look, one note saying why.
type source struct {
	name string
	read func(machine) (found []string, note string)
}

var sources = []source{
	{"apt", aptSources},
	{"go", goSources},
	{"npm", npmSources},
	{"pip", pipSources},
	{"cargo", cargoSources},
	{"maven", mavenSources},
	{"gem", gemSources},
}

// machineHosts reads every source; hosts come back sorted and once each
// (the first source that named a host keeps it). ignored lists what was
// found but is not a host name to look for (an address, localhost).
func machineHosts(m machine) (hosts []host, notes, ignored []string) {
	// The sources run at once: some tools take a second to start.
	type result struct {
		found []string
		note  string
	}
	results := make([]result, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].found, results[i].note = s.read(m)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, s := range sources {
		found, note := results[i].found, results[i].note
		if note != "" {
			notes = append(notes, s.name+": "+strings.Join(strings.Fields(note), " "))
		}
		for _, f := range found {
			h := hostOf(f)
			if h == "" || seen[h] {
				continue
			}
			seen[h] = true
			if !hostName(h) {
				ignored = append(ignored, h+" ("+s.name+")")
				continue
			}
			hosts = append(hosts, host{name: h, source: s.name})
		}
	}
	sort.Slice(hosts, func(a, b int) bool { return hosts[a].name < hosts[b].name })
	return hosts, notes, ignored
}

// hostOf returns the host of a URL ("sparse+https://h/x", "https://h:443/")
// or of a bare host name ("h", "h/path"), lower case; "" when there is none
// (a file: URL, "direct").
func hostOf(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'`))
	for _, p := range []string{"sparse+", "registry+", "git+", "mirror+"} {
		s = strings.TrimPrefix(s, p)
	}
	if s == "" {
		return ""
	}
	if !strings.Contains(s, "://") {
		if strings.ContainsAny(s, ":") {
			return ""
		}
		s = "//" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}

// hostName reports whether h is a name worth looking for: it has a dot and
// is not an IP address or localhost (a registry on the loopback is named by
// an address the lab uses everywhere).
func hostName(h string) bool {
	return strings.Contains(h, ".") && net.ParseIP(h) == nil && !strings.HasSuffix(h, ".localhost")
}

func missing(m machine, tool string) bool {
	_, err := m.run(nil, "sh", "-c", "command -v "+tool)
	return err != nil
}

// aptSources: the sites apt installs from, as apt itself reads its sources
// (deb822 .sources and sources.list alike), whether fetched yet or not.
func aptSources(m machine) ([]string, string) {
	if missing(m, "apt-get") {
		return nil, "apt-get not installed, skipped"
	}
	out, err := m.run(nil, "apt-get", "indextargets", "--no-release-info", "--format", "$(SITE)")
	if err != nil {
		return nil, "apt-get indextargets failed: " + err.Error()
	}
	return strings.Fields(out), ""
}

// goSources: GOPROXY and GOSUMDB as go reports them here, and go's own
// defaults (GOROOT/go.env; no user go env file, nothing from the environment).
func goSources(m machine) ([]string, string) {
	if missing(m, "go") {
		return nil, "go not installed, skipped"
	}
	var found []string
	for _, set := range [][]string{nil, {"GOENV=off", "GOPROXY=", "GOSUMDB=", "GOFLAGS="}} {
		out, err := m.run(set, "go", "env", "GOPROXY", "GOSUMDB")
		if err != nil {
			return found, "go env failed: " + err.Error()
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) > 0 {
			found = append(found, goProxyList(lines[0])...)
		}
		if len(lines) > 1 {
			found = append(found, goSumDB(lines[1])...)
		}
	}
	return found, ""
}

// goProxyList splits GOPROXY ("https://a,https://b|direct") into its URLs.
func goProxyList(v string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`[,|]`).Split(v, -1) {
		if p = strings.TrimSpace(p); p != "" && p != "direct" && p != "off" {
			out = append(out, p)
		}
	}
	return out
}

// goSumDB reads GOSUMDB: "off", "name", "name+key" or "name+key url"; the
// name is the database's host unless a URL follows.
func goSumDB(v string) []string {
	f := strings.Fields(v)
	if len(f) == 0 || f[0] == "off" {
		return nil
	}
	out := []string{strings.SplitN(f[0], "+", 2)[0]}
	if len(f) > 1 {
		out = append(out, f[1])
	}
	return out
}

// npmSources: the registry npm uses here, its default (no user or global
// npmrc, no npm_config_ variables), and any scope's registry.
func npmSources(m machine) ([]string, string) {
	if missing(m, "npm") {
		return nil, "npm not installed, skipped"
	}
	var found []string
	out, err := m.run(nil, "npm", "config", "list", "--json")
	if err != nil {
		return nil, "npm config list failed: " + err.Error()
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		return nil, "npm config list --json: " + err.Error()
	}
	for k, v := range cfg {
		if s, ok := v.(string); ok && (k == "registry" || strings.HasSuffix(k, ":registry")) {
			found = append(found, s)
		}
	}
	var clear []string
	for _, kv := range m.environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(strings.ToLower(k), "npm_config_") {
			clear = append(clear, k+"=")
		}
	}
	none := filepath.Join(os.TempDir(), "registryhosts-no-such-folder")
	def, err := m.run(clear, "npm", "config", "get", "registry",
		"--userconfig="+filepath.Join(none, "user"), "--globalconfig="+filepath.Join(none, "global"))
	if err != nil {
		return found, "npm config get registry (defaults) failed: " + err.Error()
	}
	return append(found, strings.TrimSpace(def)), ""
}

var pipDefaultIndex = regexp.MustCompile(`--index-url <url>\s+Base URL[^(]*\(default\s+(\S+?)\)`)

// pipSources: index URLs and trusted hosts in pip's configuration (files
// and PIP_ variables, as `pip config list` shows them), the default index
// in pip's own help, and the host PyPI serves files from (pip's model of PyPI).
func pipSources(m machine) ([]string, string) {
	pip := ""
	for _, p := range []string{"pip3", "pip"} {
		if !missing(m, p) {
			pip = p
			break
		}
	}
	if pip == "" {
		return nil, "pip not installed, skipped"
	}
	var (
		found                 []string
		config, help, version string
		helpErr, versionErr   error
		wg                    sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); help, helpErr = m.run(nil, pip, "download", "--help") }()
	go func() { defer wg.Done(); version, versionErr = m.run(nil, pip, "--version") }()
	config, configErr := m.run(nil, pip, "config", "list")
	wg.Wait()
	if configErr == nil {
		for _, line := range strings.Split(config, "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || !(strings.HasSuffix(k, "index-url") || strings.HasSuffix(k, "trusted-host")) {
				continue
			}
			found = append(found, strings.Fields(strings.Trim(v, `'"`))...)
		}
	}
	if helpErr != nil {
		return found, pip + " download --help failed: " + helpErr.Error()
	}
	sm := pipDefaultIndex.FindStringSubmatch(help)
	if sm == nil {
		return found, pip + " download --help names no default --index-url"
	}
	found = append(found, sm[1])
	// pip's interpreter is the one pip names in `pip --version` ("... (python 3.11)").
	if versionErr == nil {
		if v := regexp.MustCompile(`\(python (\d+\.\d+)\)`).FindStringSubmatch(version); v != nil {
			if d, err := m.run(nil, "python"+v[1], "-c",
				"from pip._internal.models.index import PyPI; print(PyPI.file_storage_domain)"); err == nil {
				found = append(found, strings.TrimSpace(d))
			}
		}
	}
	return found, ""
}

var quotedURL = regexp.MustCompile(`"((?:sparse\+|registry\+|git\+)?[a-z]+://[^"]+)"`)

// cargoSources: URLs in cargo's configuration (CARGO_HOME's config files,
// CARGO_ variables: source replacement, registries), and the registries
// cargo has fetched from here: each index folder it keeps under
// CARGO_HOME/registry/index (a sparse index is named after its host), with
// the download and API addresses in the index's config.json. A git index
// lives on a code host, so only its config.json counts.
func cargoSources(m machine) ([]string, string) {
	home := m.getenv("CARGO_HOME")
	if home == "" {
		home = filepath.Join(m.getenv("HOME"), ".cargo")
	}
	var found []string
	for _, f := range []string{"config.toml", "config"} {
		if data, err := m.readFile(filepath.Join(home, f)); err == nil {
			for _, sm := range quotedURL.FindAllStringSubmatch(string(data), -1) {
				found = append(found, sm[1])
			}
		}
	}
	for _, kv := range m.environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CARGO_") && strings.Contains(v, "://") {
			found = append(found, v)
		}
	}
	dirs := m.glob(filepath.Join(home, "registry", "index", "*"))
	if len(dirs) == 0 && len(found) == 0 {
		return nil, "no cargo configuration or registry index under " + home + ", skipped"
	}
	for _, d := range dirs {
		if m.glob(filepath.Join(d, ".git")) == nil {
			if i := strings.LastIndex(filepath.Base(d), "-"); i > 0 {
				found = append(found, filepath.Base(d)[:i])
			}
		}
		if data, err := m.readFile(filepath.Join(d, "config.json")); err == nil {
			var c struct{ DL, API string }
			if json.Unmarshal(data, &c) == nil {
				found = append(found, c.DL, c.API)
			}
		}
	}
	return found, ""
}

var (
	xmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	xmlURL     = regexp.MustCompile(`<url>\s*([^<\s]+)\s*</url>`)
)

// xmlURLs returns the <url> values of an XML file, comments left out.
func xmlURLs(data []byte) []string {
	var out []string
	for _, sm := range xmlURL.FindAllStringSubmatch(xmlComment.ReplaceAllString(string(data), ""), -1) {
		out = append(out, sm[1])
	}
	return out
}

// mavenSources: mirrors and repositories in Maven's settings (the user's
// and the installation's), and the central repository of Maven's own super
// POM (inside its maven-model-builder jar), Maven's default.
func mavenSources(m machine) ([]string, string) {
	if missing(m, "mvn") {
		return nil, "mvn not installed, skipped"
	}
	bin, err := m.run(nil, "sh", "-c", "readlink -f \"$(command -v mvn)\"")
	if err != nil {
		return nil, "cannot find mvn's installation: " + err.Error()
	}
	mhome := filepath.Dir(filepath.Dir(strings.TrimSpace(bin)))
	var found []string
	for _, f := range []string{filepath.Join(m.getenv("HOME"), ".m2", "settings.xml"), filepath.Join(mhome, "conf", "settings.xml")} {
		if data, err := m.readFile(f); err == nil {
			found = append(found, xmlURLs(data)...)
		}
	}
	jars := m.glob(filepath.Join(mhome, "lib", "maven-model-builder-*.jar"))
	if len(jars) == 0 {
		return found, "no maven-model-builder jar under " + mhome + "/lib: Maven's default repository not read"
	}
	pom, err := zipEntry(m, jars[0], "org/apache/maven/model/pom-4.0.0.xml")
	if err != nil {
		return found, err.Error()
	}
	return append(found, xmlURLs(pom)...), ""
}

func zipEntry(m machine, jar, name string) ([]byte, error) {
	data, err := m.readFile(jar)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(strings.NewReader(string(data)), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", jar, err)
	}
	f, err := zr.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", jar, err)
	}
	defer f.Close()
	return io.ReadAll(f)
}

// gemSources: the gem sources RubyGems lists (its default included).
func gemSources(m machine) ([]string, string) {
	if missing(m, "gem") {
		return nil, "gem not installed, skipped"
	}
	out, err := m.run(nil, "gem", "sources", "--list")
	if err != nil {
		return nil, "gem sources failed: " + err.Error()
	}
	var found []string
	for _, f := range strings.Fields(out) {
		if strings.Contains(f, "://") {
			found = append(found, f)
		}
	}
	return found, ""
}

// realMachine is this host.
type realMachine struct{ dir string }

func (r realMachine) run(set []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = r.dir
	env := os.Environ()
	for _, kv := range set {
		k, v, _ := strings.Cut(kv, "=")
		kept := env[:0:0]
		for _, e := range env {
			if !strings.HasPrefix(e, k+"=") {
				kept = append(kept, e)
			}
		}
		env = kept
		if v != "" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return string(out), err
}

func (realMachine) getenv(k string) string { return os.Getenv(k) }

func (realMachine) environ() []string { return os.Environ() }

func (realMachine) readFile(p string) ([]byte, error) { return os.ReadFile(p) }

func (realMachine) glob(p string) []string {
	m, _ := filepath.Glob(p)
	return m
}
