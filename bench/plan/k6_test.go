package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plan k6 prints the study's flows as a k6 script; a bad study or bad
// flags are one line and exit 2.
func TestK6Script(t *testing.T) {
	code, out, errs := runPlan("k6", "../../studies/users.toml", "--url", "http://127.0.0.1:8080", "--stages", "30s:10,1m:10", "--start-vus", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"executor: 'ramping-vus'", "startVUs: 2,", `{ duration: "30s", target: 10 },`,
		`{ duration: "1m0s", target: 10 },`, `const BASE = "http://127.0.0.1:8080";`, `"name":"order","weight":5`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan k6 lacks %q", want)
		}
	}
	// One step of a users case: its ramp's lead-in, span and timeout.
	st := filepath.Join(t.TempDir(), "st.toml")
	if err := os.WriteFile(st, []byte("[[flow]]\nname = \"f\"\nweight = 1\n[[flow.step]]\npath = \"/up\"\n[[case]]\nname = \"u\"\nusers = true\n[case.ramp]\nlead_s = 4\nstep_s = 12\ntimeout_s = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runPlan("k6", st, "--url", "http://127.0.0.1:8080", "--case", "u", "--vus", "30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"vus: 30,", `duration: "19s",`, "const LEAD_MS = 4000;", "const END_MS = 16000;", `const TIMEOUT = "2s";`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan k6 --case lacks %q", want)
		}
	}
	if code, out, errs := runPlan("window", st, "u"); code != 0 || !strings.Contains(out, "ramp 1\n") || !strings.Contains(out, "users 1\n") {
		t.Errorf("plan window of a users case: exit %d, %q %q", code, out, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[[flow]]\nname = \"f\"\nweight = 1\nthink = { mean_s = 0 }\n[[flow.step]]\npath = \"/up\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"k6", bad, "--url", "http://127.0.0.1:8080", "--vus", "2", "--duration", "1m"}, `bad.toml: flow "f": think.mean_s: 0: want a think time in seconds above 0`},
		{[]string{"k6", "../../studies/pages.toml", "--url", "http://127.0.0.1:8080", "--vus", "2", "--duration", "1m"}, "pages.toml: flow: no [[flow]]"},
		{[]string{"k6", "../../studies/users.toml", "--url", "http://localhost:8080", "--vus", "2", "--duration", "1m"}, "the lab targets http://127.0.0.1:PORT only"},
		{[]string{"k6", "../../studies/users.toml", "--url", "http://127.0.0.1:8080", "--stages", "30s"}, `--stages "30s": want DURATION:USERS`},
		{[]string{"k6", "../../studies/users.toml", "--url", "http://127.0.0.1:8080"}, "constant-vus: want 1 to 100000 users (got 0)"},
		{[]string{"k6", "../../studies/users.toml", "--url", "http://127.0.0.1:8080", "--case", "browse", "--vus", "2"}, `--case "browse": the study has no users case of that name`},
	} {
		code, _, errs := runPlan(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q, want 2 and %q", tc.args[1:], code, errs, tc.want)
		}
	}
}
