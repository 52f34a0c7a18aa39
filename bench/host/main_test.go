package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func call(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	rc := run(args, &out, &errb)
	return rc, out.String(), errb.String()
}

func TestProfileOfLocalReadsBackInBash(t *testing.T) {
	rc, out, errs := call("profile", "../../hosts/local.env")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	b, err := exec.Command("bash", "-c", out+`echo "$HOST_NAME|$APP_CPUS|$ROLE_APP_ADDR|$ROLE_LOADGEN_ENGINE|$ROLE_SAMPLER_CPUS|$ROLE_ENGINES"`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != "local|0|127.0.0.1||1|0" {
		t.Errorf("bash read %q", got)
	}
}

// The upstream on an engine of its own: bash gets its engine, and the
// ceiling row's address becomes the upstream's.
func TestUpstreamEngineReadsBackInBash(t *testing.T) {
	p := filepath.Join(t.TempDir(), "up.env")
	os.WriteFile(p, []byte("HOST_NAME=x\nAPP_CPUS=0\nLOADGEN_CPUS=1\nUPSTREAM_CPUS=1\nAPP_MEMORY=4g\nCONNECTIONS=32\nUPSTREAM_ENGINE=lab-c\nUPSTREAM_ADDR=127.0.0.1\nAPP_ADDR=localhost\n"), 0o644)
	rc, out, errs := call("profile", p)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	b, err := exec.Command("bash", "-c", out+`echo "$ROLE_UPSTREAM_ENGINE|$ROLE_CEILING_ADDR|$ROLE_APP_ADDR|$ROLE_ENGINES"`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != "lab-c|127.0.0.1|localhost|1" {
		t.Errorf("bash read %q", got)
	}
}

func TestRolesOfTwoEngines(t *testing.T) {
	rc, out, errs := call("roles", "../../hosts/local-ssh.env")
	want := "app - 0 0\nloadgen stacklab-second 1 1\nupstream - 1 0\n"
	if rc != 0 || out != want {
		t.Errorf("rc %d, out %q (want %q), err %s", rc, out, want, errs)
	}
}

func TestBadProfileIsOneLineExit2(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.env")
	os.WriteFile(p, []byte("HOST_NAME=x\nLOADGEN_ENGINE=$(whoami)\n"), 0o644)
	rc, out, errs := call("profile", p)
	if rc != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "host profile "+p) {
		t.Errorf("rc %d, out %q, err %q", rc, out, errs)
	}
}

func TestCheckEngine(t *testing.T) {
	info := filepath.Join(t.TempDir(), "info.json")
	os.WriteFile(info, []byte(`{"NCPU": 1, "Name": "b"}`), 0o644)
	rc, _, errs := call("check-engine", "../../hosts/local-ssh.env", "loadgen", "--info", info)
	if rc != 2 || !strings.Contains(errs, "loadgen's CPUs 1 name CPU 1, but its engine stacklab-second has 1 CPUs") {
		t.Errorf("rc %d, err %q", rc, errs)
	}
	os.WriteFile(info, []byte(`{"NCPU": 2}`), 0o644)
	if rc, _, errs := call("check-engine", "../../hosts/local-ssh.env", "loadgen", "--info", info); rc != 0 {
		t.Errorf("rc %d, err %q", rc, errs)
	}
}
