// Command flakelock checks that flake.lock locks the very nixpkgs branch
// flake.nix names, at a full revision with a NAR hash, so an edit to the
// input cannot leave a stale lock behind. scripts/test runs it; it prints
// one line and exits 1 on a fault (bash parses no JSON).
//
//	flakelock [DIR]   (default: the current folder)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	inputRe = regexp.MustCompile(`(?m)^\s*inputs\.nixpkgs\.url\s*=\s*"github:([^"]+)";`)
	revRe   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	narRe   = regexp.MustCompile(`^sha256-[A-Za-z0-9+/]{43}=$`)
)

type lock struct {
	Version int    `json:"version"`
	Root    string `json:"root"`
	Nodes   map[string]struct {
		Inputs   map[string]any `json:"inputs"`
		Original struct {
			Owner, Repo, Ref string
		} `json:"original"`
		Locked struct {
			Rev     string `json:"rev"`
			NarHash string `json:"narHash"`
		} `json:"locked"`
	} `json:"nodes"`
}

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := check(dir); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("flakelock: flake.lock locks the nixpkgs flake.nix names, to a full revision with a NAR hash")
}

func check(dir string) error {
	nix, err := os.ReadFile(filepath.Join(dir, "flake.nix"))
	if err != nil {
		return fmt.Errorf("flake.nix: %v", err)
	}
	m := inputRe.FindSubmatch(nix)
	if m == nil {
		return fmt.Errorf("flake.nix: no github: url for inputs.nixpkgs")
	}
	want := strings.ToLower(string(m[1]))
	b, err := os.ReadFile(filepath.Join(dir, "flake.lock"))
	if err != nil {
		return fmt.Errorf("flake.lock: missing")
	}
	var l lock
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("flake.lock: not JSON: %v", err)
	}
	n, ok := l.Nodes["nixpkgs"]
	if !ok {
		return fmt.Errorf("flake.lock: no nixpkgs node")
	}
	got := strings.ToLower(n.Original.Owner + "/" + n.Original.Repo + "/" + n.Original.Ref)
	if got != want {
		return fmt.Errorf("flake.lock: locks %s, flake.nix asks for %s", got, want)
	}
	root := l.Nodes[l.Root]
	if l.Version != 7 || l.Root != "root" || root.Inputs["nixpkgs"] != "nixpkgs" ||
		!revRe.MatchString(n.Locked.Rev) || !narRe.MatchString(n.Locked.NarHash) {
		return fmt.Errorf("flake.lock: nixpkgs is not locked to a 40-hex rev with a sha256 narHash")
	}
	return nil
}
