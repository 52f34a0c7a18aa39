package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// versions.json and the tools module scripts/bootstrap builds scc from
// must pin the same scc.
func TestSCCPinnedOnce(t *testing.T) {
	b, err := os.ReadFile("../../versions.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		SCC string `json:"scc"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.SCC == "" {
		t.Fatalf("versions.json: no scc pinned (%v)", err)
	}
	mod, err := os.ReadFile("../../scripts/tools/scc/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "require github.com/boyter/scc/v3 v" + v.SCC + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("scripts/tools/scc/go.mod does not hold %q (versions.json pins scc %s)", strings.TrimSpace(want), v.SCC)
	}
}
