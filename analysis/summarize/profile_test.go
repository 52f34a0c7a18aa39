package main

import (
	"bytes"
	"strings"
	"testing"

	"stacklab/analysis/manifest"
	"stacklab/analysis/profile"
	"stacklab/analysis/synth"
)

// A manifest that keeps its profile's table gets it in the header's
// profile line; one from before the table keeps the line it had.
func TestTheProfileTableIsInTheHeader(t *testing.T) {
	full, err := profile.Get("full")
	must(t, err)
	dir := build(t, "2026-12-02-local-pages", synth.Pages(), func(dir string) {
		editManifest(t, dir, func(m *manifest.Manifest) { m.Profile, m.ProfileTable = "full", &full })
	}, false)
	var out, errb bytes.Buffer
	if code := run([]string{dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errb.String())
	}
	want := "; quiet gate 60 s under the host's load threshold within 900 s (required), up to 2 run(s) measured again (a slow CPU canary too), requests time out after 30 s, warm-up in 1 s slices up to 30 s, the cgroup sampler at most 75 samples a window and no closer than 100 ms, its own cost measured, a capacity step's window after a 2 s lead-in at its rate\n"
	if s := out.String(); !strings.Contains(s, "- profile: full (") || !strings.Contains(s, want) {
		t.Errorf("the header's profile line lacks the table:\n%s", s[:min(1500, len(s))])
	}
}
