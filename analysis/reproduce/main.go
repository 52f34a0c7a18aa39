// Command reproduce checks that a results folder's committed outputs are
// exactly what its raw files and manifest give: it verifies
// checksums.sha256, regenerates summary.md, summary.json and report.html
// into a temporary folder, and compares them byte for byte.
//
//	reproduce [RUN...]
//
// With no RUN it checks every folder under results/ that holds a
// manifest.json. Exit status: 0 every folder reproduces; 1 an output
// differs (the first differing line is printed); 2 bad input.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"stacklab/formats/linediff"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/render"
	"stacklab/analysis/results"
	"stacklab/analysis/sizes"
	"stacklab/analysis/summary"
)

const usage = `usage: reproduce [RUN...]

Verifies RUN/checksums.sha256, regenerates RUN's summary.md, summary.json and
report.html into a temporary folder and compares them byte for byte with the
committed ones. The baseline is read back from the committed summary.json.
With no RUN, checks every folder under results/ that holds a manifest.json.

Exit status: 0 all reproduce; 1 an output differs; 2 bad input.
`

// stdout and stderr are variables so that the tests can read them.
var stdout, stderr io.Writer = os.Stdout, os.Stderr

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	var dirs []string
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case strings.HasPrefix(a, "-"):
			fmt.Fprintln(stderr, "reproduce: "+a+": unknown flag (see --help)")
			return 2
		}
		dirs = append(dirs, a)
	}
	if len(dirs) == 0 {
		found, err := allFolders("results")
		if err != nil {
			fmt.Fprintln(stderr, "reproduce: "+err.Error())
			return 2
		}
		if len(found) == 0 {
			fmt.Fprintln(stdout, "reproduce: no results folders under results/ (nothing to check)")
			return 0
		}
		dirs = found
	}
	code := 0
	for _, d := range dirs {
		c := one(d)
		if c > code {
			code = c
		}
	}
	return code
}

// allFolders lists root/* folders holding a manifest.json, sorted.
func allFolders(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), manifest.FileName)); err == nil {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out, nil
}

func one(dir string) int {
	opt, err := committedOptions(dir)
	if err != nil {
		fmt.Fprintln(stderr, "reproduce: "+err.Error())
		return 2
	}
	outs, err := derive(dir, opt)
	if err != nil {
		fmt.Fprintln(stderr, "reproduce: "+err.Error())
		return 2
	}
	tmp, err := os.MkdirTemp("", "reproduce-*")
	if err != nil {
		fmt.Fprintln(stderr, "reproduce: "+err.Error())
		return 2
	}
	defer os.RemoveAll(tmp)
	code := 0
	for _, out := range outs {
		fresh := filepath.Join(tmp, out.Name)
		if err := os.WriteFile(fresh, out.Data, 0o644); err != nil {
			fmt.Fprintln(stderr, "reproduce: "+err.Error())
			return 2
		}
		committed, err := os.ReadFile(filepath.Join(dir, out.Name))
		if err != nil {
			fmt.Fprintf(stderr, "reproduce: %s: missing: run `just summarize %s` and commit its outputs\n", filepath.Join(dir, out.Name), dir)
			code = 1
			continue
		}
		regenerated, _ := os.ReadFile(fresh)
		if msg := firstDiff(committed, regenerated); msg != "" {
			fmt.Fprintf(stderr, "reproduce: %s differs from what the raw files give: %s\n", filepath.Join(dir, out.Name), msg)
			code = 1
		}
	}
	if code == 0 {
		fmt.Fprintf(stdout, "reproduce: %s: checksums ok; summary.md, summary.json, report.html reproduce byte for byte\n", dir)
	}
	return code
}

// derive computes a folder's outputs as summarize does: a size study's
// through analysis/sizes, any other through analysis/summary.
func derive(dir string, opt summary.Options) ([]render.File, error) {
	if sizes.Is(dir) {
		z, err := sizes.Load(dir, sizes.Options{Baseline: opt.Baseline})
		if err != nil {
			return nil, err
		}
		return render.SizeFiles(z), nil
	}
	f, err := results.Load(dir)
	if err != nil {
		return nil, err
	}
	s, err := summary.Compute(f, opt)
	if err != nil {
		return nil, err
	}
	return render.Files(s), nil
}

// committedOptions reads the options summarize was run with back from the
// committed summary.json.
func committedOptions(dir string) (summary.Options, error) {
	path := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return summary.Options{}, fmt.Errorf("%s: missing: run `just summarize %s` and commit its outputs", path, dir)
	}
	var v struct {
		Options summary.Options `json:"options"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return summary.Options{}, fmt.Errorf("%s: not valid JSON: %v", path, err)
	}
	return v.Options, nil
}

// firstDiff describes the first line where a and b differ, "" when equal.
func firstDiff(a, b []byte) string {
	n, x, y, ok := linediff.First(string(a), string(b))
	if !ok {
		return ""
	}
	return fmt.Sprintf("line %d\n  committed:   %q\n  regenerated: %q", n, clip(x), clip(y))
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
