package main

import (
	"bytes"
	"testing"

	"stacklab/analysis/manifest"
)

// record describe tells scripts/rerun what a run ran, as KEY=VALUE lines:
// the warm-up and window as the bench's flags take them (whole seconds),
// the run mode Docker unless the manifest says otherwise, and whether
// its roles had engines of their own.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name string
		m    manifest.Manifest
		want string
	}{
		{"docker", manifest.Manifest{Study: "pages", Profile: "quick", Host: manifest.Host{Profile: "local"},
			Parameters: manifest.Parameters{Runs: 1, WarmupS: 1, DurationS: 5, Stacks: []string{"go-nethttp", "go-nethttp[gc-off]"}}},
			"ENGINES=0\nSTUDY=pages\nPROFILE=quick\nHOST_PROFILE=local\nLABEL=\nRUN_MODE=docker\nSTACKS=go-nethttp,go-nethttp[gc-off]\nRUNS=1\nWARMUP=1\nDURATION=5\n"},
		{"native, engines, fractions", manifest.Manifest{Study: "io", Profile: "full", Label: "night", Host: manifest.Host{Profile: "two-box", Engines: map[string]manifest.Engine{"loadgen": {Engine: "far"}}},
			Parameters: manifest.Parameters{Runs: 5, WarmupS: 3.5, DurationS: 15.9, Stacks: []string{"rust-axum"}, Extra: map[string]string{"run_mode": "native"}}},
			"ENGINES=1\nSTUDY=io\nPROFILE=full\nHOST_PROFILE=two-box\nLABEL=night\nRUN_MODE=native\nSTACKS=rust-axum\nRUNS=5\nWARMUP=3\nDURATION=15\n"},
	} {
		dir := t.TempDir()
		c.m.ManifestVersion = manifest.Version
		if err := manifest.Write(dir, &c.m); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := describe(dir, nil, &out); err != nil || out.String() != c.want {
			t.Errorf("%s: %v\n%s\nwant\n%s", c.name, err, out.String(), c.want)
		}
	}
	if err := describe(t.TempDir(), []string{"x"}, &bytes.Buffer{}); err == nil {
		t.Error("describe DIR x: no error")
	}
}
