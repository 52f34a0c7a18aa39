package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "stacklab/formats/golden" // knows -update
)

const capacityStudy = "../../studies/capacity.toml"

func plan(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run(args, &out, &errb); rc != 0 {
		t.Fatalf("plan %s: exit %d: %s", strings.Join(args, " "), rc, errb.String())
	}
	return out.String()
}

// What the bench is told: the lanes, the first step, each lane's targets
// and vegeta's arguments at the lane's share of the rate.
func TestPlanCapacity(t *testing.T) {
	if got := plan(t, "window", capacityStudy, "capacity"); !strings.Contains(got, "ramp 1\nlane main\nlane wait100\n") {
		t.Errorf("window:\n%s", got)
	}
	dir := filepath.Join(t.TempDir(), "capacity")
	if got := plan(t, "ramp", capacityStudy, "capacity", "--dir", dir, "--warmup", "2", "--warmup-max", "15", "--lead-in", "1", "--duration", "5"); got != "RAMP_STEP=1\nRAMP_RATE=200\nRAMP_MAX_STEPS=16\nRAMP_UNIT=req/s\n"+
		"RAMP_STEP_S=8\nRAMP_WARM_S=2\nRAMP_RESTART_WARM_S=15\nRAMP_AFTER=then warmed up 15 s at the step's rate\nRAMP_TRIM=yes\n" { // the mix writes: each step starts on the seeded rows
		t.Errorf("first step %q", got)
	}
	lines := strings.Split(strings.TrimSpace(plan(t, "targets", capacityStudy, "capacity", "--lane", "main", "--url", "http://127.0.0.1:24080")), "\n")
	if len(lines) != 19 { // 40:25:10:15:5 over their gcd of 5
		t.Errorf("%d targets in the main lane's cycle, want 19", len(lines))
	}
	posts := 0
	for _, l := range lines {
		var tg struct {
			Method, URL string
			Header      map[string][]string
		}
		if err := json.Unmarshal([]byte(l), &tg); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tg.URL, "http://127.0.0.1:24080/") || tg.Header["Accept-Encoding"][0] != "identity" {
			t.Errorf("target %s", l)
		}
		if tg.Method == "POST" {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("%d writes in the cycle, want 1 (5 of 95)", posts)
	}
	args := strings.Split(plan(t, "vegeta", capacityStudy, "capacity", "--lane", "wait100", "--targets", "x", "--rate", "50", "--duration", "5"), "\x00")
	if got := strings.Join(args, " "); !strings.Contains(got, "-rate 25/10s -duration 5s -timeout 5s") {
		t.Errorf("the upstream lane at 5%% of 50 req/s: %s", got)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"oha", capacityStudy, "capacity", "--url", "http://127.0.0.1:1"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "capacity ramp") {
		t.Errorf("oha for a ramp: exit %d %q", rc, errb.String())
	}
}

// A step's words and warm-up: a rate step is warmed up as the bench's
// windows are, and for the profile's most on a fresh app (after a step
// that lost requests); a users step counts users and warms up in its own
// lead-in; a rate ramp without the bench's figures is refused.
func TestPlanRampWords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capacity")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// step 1 at 200 req/s for 5 s: half the main lane's requests lost
	// (no answer), the upstream lane's all answered
	report := func(requests, lost int) string {
		return fmt.Sprintf(`{"latencies":{"total":5000000000,"mean":5000000,"50th":1000000,"90th":2000000,"95th":3000000,"99th":4000000,"max":5000000,"min":100000},`+
			`"bytes_in":{"total":0,"mean":0},"bytes_out":{"total":0,"mean":0},"earliest":"2026-12-01T07:52:25Z","latest":"2026-12-01T07:52:30Z","end":"2026-12-01T07:52:30Z",`+
			`"duration":5000000000,"wait":1000000,"requests":%d,"rate":200,"throughput":100,"success":0.5,"status_codes":{"0":%d,"200":%d},"errors":["timeout"]}`, requests, lost, requests-lost)
	}
	files := map[string]string{
		"step-01.target.json":  `{"step":1,"rate":200,"duration_s":5}`,
		"step-01.json":         report(950, 475),
		"step-01.wait100.json": report(50, 0),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := plan(t, "ramp", capacityStudy, "capacity", "--dir", dir, "--warmup", "2", "--warmup-max", "15", "--lead-in", "0", "--duration", "5")
	for _, want := range []string{"\nRAMP_RESTART=step 1 lost requests", "\nRAMP_STEP_S=7\nRAMP_WARM_S=15\nRAMP_RESTART_WARM_S=15\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("after a step that lost requests, want %q in:\n%s", want, got)
		}
	}
	got = plan(t, "ramp", "../../studies/users.toml", "users", "--dir", filepath.Join(t.TempDir(), "users"))
	if !strings.Contains(got, "\nRAMP_UNIT=users\n") || !strings.Contains(got, "\nRAMP_AFTER=then the step's own lead-in\n") || strings.Contains(got, "WARM_S") {
		t.Errorf("a users step:\n%s", got)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"ramp", capacityStudy, "capacity", "--dir", dir, "--warmup", "2"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "--warmup-max") {
		t.Errorf("a rate ramp without --warmup-max and --duration: exit %d %q", rc, errb.String())
	}
}
