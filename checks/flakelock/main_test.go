package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func regexpReplace(s, re, with string) string {
	return regexp.MustCompile(re).ReplaceAllString(s, with)
}

func TestTheLabsLock(t *testing.T) {
	if err := check("../.."); err != nil {
		t.Fatal(err)
	}
}

func TestStaleAndBadLocks(t *testing.T) {
	nix, _ := os.ReadFile("../../flake.nix")
	good, _ := os.ReadFile("../../flake.lock")
	for name, tc := range map[string]struct{ nix, lock, want string }{
		"other branch": {strings.Replace(string(nix), "nixos-25.11", "nixos-26.05", 1), string(good), "flake.nix asks for nixos/nixpkgs/nixos-26.05"},
		"short rev":    {string(nix), regexpReplace(string(good), `"rev": "[0-9a-f]{40}"`, `"rev": "8fd9daa3"`), "not locked to a 40-hex rev"},
		"not json":     {string(nix), "{", "flake.lock: not JSON"},
		"no input":     {"{ }", string(good), "no github: url"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "flake.nix"), []byte(tc.nix), 0o644)
		os.WriteFile(filepath.Join(dir, "flake.lock"), []byte(tc.lock), 0o644)
		if err := check(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
