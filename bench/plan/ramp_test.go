package main

import (
	"bytes"
	"encoding/json"
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
	if got := plan(t, "ramp", capacityStudy, "capacity", "--dir", dir); got != "RAMP_STEP=1\nRAMP_RATE=200\nRAMP_MAX_STEPS=16\nRAMP_TRIM=yes\n" { // the mix writes: each step starts on the seeded rows
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
