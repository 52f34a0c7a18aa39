package main

import (
	"os"
	"path/filepath"
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
// byte: each golden file is what the bench's command line of the case
// wrote, and analysis/manifest and every committed results folder read
// these keys and values.
func TestStartWritesTheManifest(t *testing.T) {
	now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	hostFingerprint = func() (manifest.Fingerprint, error) {
		return manifest.Fingerprint{Hostname: "box", CPUModel: "a CPU", Cores: 4, MemoryBytes: 1 << 33, Kernel: "6.1", CgroupMode: "v2"}, nil
	}
	defer func() { now, hostFingerprint = time.Now, fingerprint }()
	lab := startLab(t)
	tools := []string{"--tool", "docker=27.5.1", "--tool", "go=go1.24.4", "--lab-commit", "0123abc-dirty"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"every", append([]string{"--study-file", lab + "/studies/every.toml", "--profile", "full", "--label", "night",
			"--host-profile", lab + "/hosts/quota.env", "--runs", "5", "--warmup", "3", "--duration", "15",
			"--connections", "64", "--cases", "items,page-c8,page-c64", "--stacks", "alpha,alpha[wide],beta,beta[pg],gamma",
			"--extra", "app_port=8080", "--extra", "quiet_gate=1", "--extra", "cpu_canary=before and after every window (formats/speed)",
			"--slots", "alpha=4", "--contract", "alpha=app", "--slots", "alpha[wide]=16", "--contract", "alpha[wide]=app",
			"--slots", "beta=", "--contract", "beta=none", "--slots", "beta[pg]=", "--contract", "beta[pg]=none",
			"--slots", "gamma=2", "--contract", "gamma=app",
			"--extra", "warmup=steady", "--extra", "warmup_max_s=30", "--extra", "app_cpu_mode=quota", "--extra", "app_cpu_quota=1.5",
			"--extra", "postgres_version=15.14-0+deb12u1", "--extra", "postgres_settings=max_connections = 100; shared_buffers = 128MB",
			"--extra", "postgres_cpus=3", "--extra", "postgres_memory=2g", "--extra", "postgres_rows=beta[pg]",
			"--extra", "seed=--items 50 --events 1000 --users 100 --orders-per-user 50", "--extra", "seed_checksum=sha256:5eed",
			"--extra", "run_mode=docker"}, append(tools, "--shared-host", "")...)},
		{"native-paired", append([]string{"--study-file", lab + "/studies/two.toml", "--profile", "paired", "--label", "",
			"--host-profile", lab + "/hosts/cpuset.env", "--runs", "20", "--warmup", "3", "--duration", "2",
			"--connections", "32", "--cases", "up", "--stacks", "gamma,alpha",
			"--extra", "app_port=9000", "--extra", "quiet_gate=0", "--extra", "cpu_canary=before and after every window (formats/speed)",
			"--slots", "gamma=2", "--contract", "gamma=app", "--slots", "alpha=4", "--contract", "alpha=app",
			"--extra", "warmup=case", "--extra", "warmup_max_s=30", "--extra", "app_cpu_mode=cpuset",
			"--extra", "seed=--items 1000 --events 1000 --users 100 --orders-per-user 50", "--extra", "seed_checksum=sha256:d3fa",
			"--extra", "run_mode=native"}, append(tools, "--shared-host", "a compiler on CPU 1")...)},
		{"size", append([]string{"--study-file", lab + "/studies/size.toml", "--profile", "quick", "--label", "",
			"--host-profile", lab + "/hosts/quota.env", "--runs", "1", "--warmup", "0", "--duration", "0", "--connections", "0",
			"--cases", "", "--stacks", "alpha,beta", "--extra", "build_cpus=0-3", "--extra", "quiet_gate=1"},
			append(tools, "--tool", "scc=3.5.0", "--shared-host", "")...)},
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
	}
}
