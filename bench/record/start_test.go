package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stacklab/analysis/manifest"
	"stacklab/formats/golden"
)

// startLab is a lab for record start: alpha with REQUEST_SLOTS, beta an
// image of the user's own that runs on Postgres too, gamma in a folder of
// its own (a study's stacks_dir, or the bench's extra stacks), the
// Postgres role's two files, a host profile in quota mode and one in
// cpuset mode, and three studies: one on every row, one on alpha and
// gamma, and a size study.
func startLab(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{
		"stacks/alpha/stack.env":          "LANGUAGE=go\nREQUEST_SLOTS=4  # workers x threads\n",
		"stacks/beta/stack.env":           "IMAGE=example/beta:1\nDATABASES=\"sqlite postgres\"\n",
		"more/gamma/stack.env":            "LANGUAGE=rust\nREQUEST_SLOTS=2\nCONTRACT=app\n",
		"stacks/postgres/postgresql.conf": "# the role's settings\nmax_connections = 100\nshared_buffers = 128MB  # ample\n",
		"stacks/postgres/packages.txt":    "adduser=3.134\npostgresql-15=15.14-0+deb12u1\n",
		"hosts/quota.env":                 "HOST_NAME=box\nAPP_CPUS=0-1\nLOADGEN_CPUS=2\nUPSTREAM_CPUS=3\nAPP_MEMORY=1g\nCONNECTIONS=64\nAPP_CPU_MODE=quota\nAPP_CPU_QUOTA=1.5\nDB_CPUS=3\nDB_MEMORY=2g\nBUILD_CPUS=0-3\n",
		"hosts/cpuset.env":                "HOST_NAME=small\nAPP_CPUS=0\nLOADGEN_CPUS=1\nUPSTREAM_CPUS=1\nAPP_MEMORY=4g\nCONNECTIONS=32\n",
		"studies/every.toml": `stacks = ["alpha", "alpha[wide]", "beta", "beta[pg]", "gamma"]
stacks_dir = "../more"

[seed]
items = 50

[[variant]]
stack = "alpha"
name = "wide"
env = { WORKERS = "4" }
slots = 16

[[variant]]
stack = "beta"
name = "pg"
database = "postgres"

[[case]]
name = "items"
path = "/items"

[[case]]
name = "page"
path = "/page"
connections = [8, 64]
`,
		"studies/two.toml": `stacks = ["alpha", "gamma"]

[[case]]
name = "up"
path = "/up"
`,
		"studies/size.toml": `stacks = ["alpha", "beta"]

[size]
quick_runs = 1
`,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// record start writes the same manifest for the same bench, byte for
// byte: each golden file was written when bash passed every key, slot
// and contract as a flag, and analysis/manifest and every committed
// results folder read these keys and values. Between them the three
// benches write every key of parameters.extra that is still written.
func TestStartWritesTheManifest(t *testing.T) {
	now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	hostFingerprint = func() (manifest.Fingerprint, error) {
		return manifest.Fingerprint{Hostname: "box", CPUModel: "a CPU", Cores: 4, MemoryBytes: 1 << 33, Kernel: "6.1", CgroupMode: "v2"}, nil
	}
	defer func() { now, hostFingerprint = time.Now, fingerprint }()
	lab := startLab(t)
	written := map[string]bool{}
	at := []string{"--lab-root", lab, "--extra-stacks", filepath.Join(lab, "more")}
	tools := []string{"--tool", "docker=27.5.1", "--tool", "go=go1.24.4", "--lab-commit", "0123abc-dirty"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"every", append([]string{"--study-file", lab + "/studies/every.toml", "--profile", "full", "--label", "night",
			"--host-profile", lab + "/hosts/quota.env", "--runs", "5", "--warmup", "3", "--duration", "15",
			"--stacks", "alpha,alpha[wide],beta,beta[pg],gamma",
			"--app-port", "8080", "--quiet-gate", "1", "--seed-checksum", "sha256:5eed", "--mode", "docker"},
			append(append(at, tools...), "--shared-host", "")...)},
		{"native-paired", append([]string{"--study-file", lab + "/studies/two.toml", "--profile", "paired", "--label", "",
			"--host-profile", lab + "/hosts/cpuset.env", "--runs", "20", "--warmup", "3", "--duration", "2", "--stacks", "gamma,alpha",
			"--app-port", "9000", "--quiet-gate", "0", "--seed-checksum", "sha256:d3fa", "--mode", "native"},
			append(append(at, tools...), "--shared-host", "a compiler on CPU 1")...)},
		{"size", append([]string{"--study-file", lab + "/studies/size.toml", "--profile", "quick", "--label", "",
			"--host-profile", lab + "/hosts/quota.env", "--runs", "1", "--stacks", "alpha,beta", "--build-cpus", "0-3", "--quiet-gate", "1"},
			append(append(at, tools...), "--tool", "scc=3.5.0", "--shared-host", "")...)},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := start(dir, c.args); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/golden/start-"+c.name+".json", got)
		m, err := manifest.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		for k := range m.Parameters.Extra {
			written[k] = true
		}
	}
	for _, k := range manifest.ExtraKeys {
		if !k.Retired && !written[k.Name] {
			t.Errorf("no bench wrote %s: a key of ExtraKeys that record start no longer writes is Retired", k.Name)
		}
	}
}

// What record start cannot write is one line naming the flag or the file
// at fault: a run-time fact of the wrong kind, a stack held to a contract
// the lab does not know, a row on Postgres with no server role's memory.
func TestStartRefuses(t *testing.T) {
	lab := startLab(t)
	for name, text := range map[string]string{
		"stacks/odd/stack.env": "CONTRACT=loose\n",
		"hosts/nodb.env":       "HOST_NAME=x\nAPP_CPUS=0\nLOADGEN_CPUS=1\nUPSTREAM_CPUS=1\nAPP_MEMORY=1g\nCONNECTIONS=32\nDB_CPUS=1\n",
		"studies/odd.toml":     "stacks = [\"odd\"]\n\n[[case]]\nname = \"up\"\npath = \"/up\"\n",
	} {
		p := filepath.Join(lab, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"--lab-root", lab, "--extra-stacks", filepath.Join(lab, "more"), "--profile", "quick"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--study-file", lab + "/studies/two.toml", "--host-profile", lab + "/hosts/cpuset.env", "--stacks", "alpha", "--app-port", "80800"},
			`--app-port: app_port="80800": want a TCP port number`},
		{[]string{"--study-file", lab + "/studies/two.toml", "--host-profile", lab + "/hosts/cpuset.env", "--stacks", "alpha", "--mode", "vm"},
			`--mode: run_mode="vm": want one of docker, native`},
		{[]string{"--study-file", lab + "/studies/odd.toml", "--host-profile", lab + "/hosts/cpuset.env", "--stacks", "odd"},
			"stacks/odd/stack.env: CONTRACT=loose: want app or none"},
		{[]string{"--study-file", lab + "/studies/every.toml", "--host-profile", lab + "/hosts/nodb.env", "--stacks", "beta[pg]"},
			"nodb.env: DB_MEMORY is not set"},
	} {
		err := start(filepath.Join(t.TempDir(), "run"), append(base, c.args...))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
