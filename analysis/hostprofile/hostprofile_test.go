package hostprofile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.env")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const base = "HOST_NAME=x\nAPP_CPUS=0\nLOADGEN_CPUS=1\nUPSTREAM_CPUS=1\nAPP_MEMORY=4g\nCONNECTIONS=32\n"

func TestShippedProfilesRead(t *testing.T) {
	files, _ := filepath.Glob("../../hosts/*.env")
	if len(files) < 4 {
		t.Fatalf("found %d profiles", len(files))
	}
	for _, f := range files {
		if _, err := Read(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestDefaultRoles(t *testing.T) {
	p, err := Read(write(t, base))
	if err != nil {
		t.Fatal(err)
	}
	if p.Engines() {
		t.Error("a profile naming no engine says it names engines")
	}
	if r := p.Role("app"); r.Addr != "127.0.0.1" || r.Engine != "" || r.CPUs != "0" {
		t.Errorf("app role %+v", r)
	}
	if got := p.Lines(); !strings.HasPrefix(got, "HOST_NAME=x\nAPP_CPUS=0\n") || strings.Contains(got, "ENGINE") {
		t.Errorf("shell:\n%s", got)
	}
}

func TestBadProfiles(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{base + "LOADGEN_ENGIN=x\n", "LOADGEN_ENGIN is not a key of a host profile"},
		{base + "LOADGEN_ENGINE=ftp://x\n", "LOADGEN_ENGINE=ftp://x is not a Docker context name or a DOCKER_HOST"},
		{base + "APP_ADDR=10.0.0.1/8\n", "APP_ADDR=10.0.0.1/8 is not an IP address or a host name"},
		{base + "APP_ENGINE=ftp://x\n", "APP_ENGINE=ftp://x is not a Docker context name or a DOCKER_HOST"},
		{strings.Replace(base, "APP_CPUS=0", "APP_CPUS=a", 1), "APP_CPUS=a not a CPU list like 0-3,6"},
		{strings.Replace(base, "CONNECTIONS=32\n", "", 1), "CONNECTIONS is not set"},
	} {
		_, err := Read(write(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "host profile ") {
			t.Errorf("%q: got %v, want …%s…", c.text, err, c.want)
		}
	}
}

// The upstream on an engine of its own: its CPUs are that machine's, and
// the generator reaches it for the ceiling at its own address.
func TestUpstreamOnItsOwnEngine(t *testing.T) {
	p, err := Read(write(t, strings.Replace(base, "UPSTREAM_CPUS=1", "UPSTREAM_CPUS=6", 1)+"UPSTREAM_ENGINE=lab-c\nUPSTREAM_ADDR=127.0.0.3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Remote("upstream") || p.Remote("loadgen") || p.Role("upstream").Engine != "lab-c" {
		t.Errorf("roles: upstream %+v, loadgen %+v", p.Role("upstream"), p.Role("loadgen"))
	}
	if err := p.CheckLocalCPUs("0-1"); err != nil {
		t.Errorf("local check looked at the remote upstream's CPUs: %v", err)
	}
	if got := p.CeilingAddr(); got != "127.0.0.3" {
		t.Errorf("ceiling at %s, want the upstream's address", got)
	}
	p, _ = Read(write(t, base+"UPSTREAM_ENGINE=default\nAPP_ADDR=127.0.0.2\n"))
	if p.Remote("upstream") || p.CeilingAddr() != "127.0.0.2" {
		t.Errorf("the default engine is the bench's: remote %v, ceiling %s", p.Remote("upstream"), p.CeilingAddr())
	}
}

func TestCPUChecks(t *testing.T) {
	p, err := Read(write(t, strings.Replace(base, "APP_CPUS=0", "APP_CPUS=0-3", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckLocalCPUs("0-1\n"); err == nil || !strings.HasSuffix(err.Error(), "APP_CPUS=0-3 names CPU 2, but this host has CPUs 0-1") {
		t.Errorf("got %v", err)
	}
	// the generator on an engine of its own: its CPUs are that machine's
	p, _ = Read(write(t, strings.Replace(base, "LOADGEN_CPUS=1", "LOADGEN_CPUS=4-7", 1)+"LOADGEN_ENGINE=lab-b\n"))
	if err := p.CheckLocalCPUs("0-1"); err != nil {
		t.Errorf("local check looked at the remote generator's CPUs: %v", err)
	}
	if err := p.CheckEngineCPUs("loadgen", 4); err == nil || !strings.Contains(err.Error(), "loadgen's CPUs 4-7 name CPU 4, but its engine lab-b has 4 CPUs") {
		t.Errorf("got %v", err)
	}
	if err := p.CheckEngineCPUs("loadgen", 8); err != nil {
		t.Error(err)
	}
}

// The app on an engine of its own: its CPUs and its sampler's are that
// machine's, checked against its engine, not this host; the sampler runs
// beside it.
func TestAppOnItsOwnEngine(t *testing.T) {
	p, err := Read(write(t, strings.Replace(base, "APP_CPUS=0", "APP_CPUS=2-3", 1)+"APP_ENGINE=lab-a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Remote("app") || p.Role("app").Engine != "lab-a" {
		t.Errorf("app role %+v", p.Role("app"))
	}
	if err := p.CheckLocalCPUs("0-1"); err != nil {
		t.Errorf("local check looked at the remote app's CPUs: %v", err)
	}
	if got := p.SamplerCPUs(); got != "2-3" {
		t.Errorf("sampler on %s, want the app's CPUs on its machine", got)
	}
	if err := p.CheckEngineCPUs("app", 2); err == nil || !strings.Contains(err.Error(), "app's CPUs 2-3 name CPU 2, but its engine lab-a has 2 CPUs") {
		t.Errorf("got %v", err)
	}
	p, _ = Read(write(t, strings.Replace(base, "APP_CPUS=0", "APP_CPUS=2-3", 1)+"APP_ENGINE=lab-a\nSAMPLER_CPUS=5\n"))
	if err := p.CheckEngineCPUs("app", 4); err == nil || !strings.Contains(err.Error(), "SAMPLER_CPUS 5 name CPU 5") {
		t.Errorf("got %v", err)
	}
	p, _ = Read(write(t, base))
	if got := p.SamplerCPUs(); got != "1" {
		t.Errorf("sampler on %s, want the generator's CPUs while the app is here", got)
	}
}

// A profile that leaves the quiet gate's thresholds unset gets the
// defaults in its shell values (bash has no literal of its own); one that
// sets them keeps its own.
func TestQuietDefaults(t *testing.T) {
	p, err := Read(write(t, base))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Lines()
	for _, want := range []string{"QUIET_LOAD=2.0\n", "QUIET_CPU_SHARE=0.5\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("shell has no %q:\n%s", want, got)
		}
	}
	p, err = Read(write(t, base+"QUIET_LOAD=1.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Lines(); !strings.Contains(got, "QUIET_LOAD=1.5\n") || strings.Contains(got, "QUIET_LOAD=2.0") {
		t.Errorf("a profile's own QUIET_LOAD lost:\n%s", got)
	}
	if DefaultNumber("QUIET_LOAD") != 2.0 || DefaultNumber("QUIET_CPU_SHARE") != 0.5 || DefaultNumber("APP_CPUS") != 0 {
		t.Error("DefaultNumber")
	}
}

// The app's CPU mode: cpuset by default (its count the list's), a quota
// defaulting to that count and rounded up for LAB_CPUS, and each refusal
// in one line naming the key.
func TestAppCPU(t *testing.T) {
	two := strings.Replace(base, "APP_CPUS=0", "APP_CPUS=0-1", 1)
	for _, c := range []struct {
		text string
		want AppCPU
		err  string
	}{
		{base, AppCPU{Mode: "cpuset", Count: 1}, ""},
		{two + "APP_CPU_QUOTA=1.5\n", AppCPU{Mode: "cpuset", Count: 2}, ""},
		{two + "APP_CPU_MODE=quota\n", AppCPU{Mode: "quota", Quota: "2", Count: 2}, ""},
		{two + "APP_CPU_MODE=quota\nAPP_CPU_QUOTA=1.5\n", AppCPU{Mode: "quota", Quota: "1.5", Count: 2}, ""},
		{two + "APP_CPU_MODE=quota\nAPP_CPU_QUOTA=0.5\n", AppCPU{Mode: "quota", Quota: "0.5", Count: 1}, ""},
		{two + "APP_CPU_MODE=quota\nAPP_CPU_QUOTA=3\n", AppCPU{}, "APP_CPU_QUOTA=3: want a number of CPUs above 0 and at most the 2 of APP_CPUS=0-1"},
		{two + "APP_CPU_MODE=quota\nAPP_CPU_QUOTA=0\n", AppCPU{}, "APP_CPU_QUOTA=0: want"},
		{two + "APP_CPU_MODE=shares\n", AppCPU{}, "APP_CPU_MODE=shares: want cpuset or quota"},
	} {
		p, err := Read(write(t, c.text))
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.AppCPU()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "host profile ") {
				t.Errorf("%q: got %v, want …%s…", c.text, err, c.err)
			}
		case err != nil || got != c.want:
			t.Errorf("%q: got %+v, %v; want %+v", c.text, got, err, c.want)
		}
	}
}

// The Postgres server role: both keys set, and its CPUs this host's.
func TestCheckDB(t *testing.T) {
	for _, c := range []struct{ text, err string }{
		{base + "DB_CPUS=1\nDB_MEMORY=1g\n", ""},
		{base + "DB_MEMORY=1g\n", "DB_CPUS is not set"},
		{base + "DB_CPUS=1\n", "DB_MEMORY is not set"},
		{base + "DB_CPUS=3\nDB_MEMORY=1g\n", "DB_CPUS=3 names CPU 3, but this host has CPUs 0-1"},
	} {
		p, err := Read(write(t, c.text))
		if err != nil {
			t.Fatal(err)
		}
		err = p.CheckDB("0-1\n")
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.err)
		}
	}
}
