package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/sizes"
	"stacklab/analysis/study"
)

// SizeSpec describes a size study's folder: two stacks by default, one
// (go-nethttp) shipping a binary and testing its code, one (node-fastify)
// with npm and Debian lock data and its dependencies' code at hand.
type SizeSpec struct {
	Runs int
	Host manifest.Host
	// Slower multiplies node-fastify's build times (0: 1).
	Slower float64
}

// sizeFile is one synthetic file of a stack folder as scc reports it.
type sizeFile struct {
	lang, rel         string
	code, comm, blank int64
}

var sizeStacks = map[string][]sizeFile{
	"go-nethttp": {
		{"Go", "app.go", 241, 20, 30}, {"Go", "db.go", 87, 5, 10}, {"Go", "main.go", 133, 12, 14},
		{"Go", "app_test.go", 364, 10, 30}, {"HTML", "page.html", 15, 0, 1}, {"BASH", "build-image", 20, 6, 3},
		{"Markdown", "README.md", 173, 0, 40},
	},
	"node-fastify": {
		{"JavaScript", "app.js", 110, 8, 12}, {"JavaScript", "db.js", 39, 2, 5}, {"JavaScript", "server.js", 61, 4, 6},
		{"EJS", "views/page.ejs", 12, 0, 1}, {"JSON", "package.json", 23, 0, 0}, {"Dockerfile", "Dockerfile", 34, 20, 6},
		{"YAML", "config/app.yaml", 5, 1, 0}, {"SQL", "schema.sql", 9, 1, 1}, {"Markdown", "README.md", 135, 0, 30},
	},
}

// SCC lays files out as scc 3.5's --by-file --format json does.
func sccJSON(files []sizeFile) []byte {
	type file struct {
		Language string `json:"Language"`
		Filename string `json:"Filename"`
		Location string `json:"Location"`
		Lines    int64  `json:"Lines"`
		Code     int64  `json:"Code"`
		Comment  int64  `json:"Comment"`
		Blank    int64  `json:"Blank"`
	}
	type lang struct {
		Name    string `json:"Name"`
		Lines   int64  `json:"Lines"`
		Code    int64  `json:"Code"`
		Comment int64  `json:"Comment"`
		Blank   int64  `json:"Blank"`
		Count   int64  `json:"Count"`
		Files   []file `json:"Files"`
	}
	var langs []*lang
	idx := map[string]*lang{}
	for _, f := range files {
		l := idx[f.lang]
		if l == nil {
			l = &lang{Name: f.lang}
			idx[f.lang] = l
			langs = append(langs, l)
		}
		lines := f.code + f.comm + f.blank
		l.Files = append(l.Files, file{f.lang, filepath.Base(f.rel), f.rel, lines, f.code, f.comm, f.blank})
		l.Lines, l.Code, l.Comment, l.Blank, l.Count = l.Lines+lines, l.Code+f.code, l.Comment+f.comm, l.Blank+f.blank, l.Count+1
	}
	b, _ := json.Marshal(langs)
	return b
}

// WriteSize writes a size study's results folder: code and lock data in
// run 1, a build and an image per run and stack.
func WriteSize(dir string, sp SizeSpec) error {
	st, err := study.Load(StudyPath("size"))
	if err != nil {
		return err
	}
	stacks := []string{"go-nethttp", "node-fastify"}
	var files []manifest.StudyFile
	for _, f := range st.Files {
		files = append(files, manifest.StudyFile{Name: f.Name, Text: f.Text})
	}
	m := &manifest.Manifest{ManifestVersion: manifest.Version, Complete: true, LabCommit: "0123456789abcdef0123456789abcdef01234567",
		StartedAt: "2026-12-01T11:40:00Z", EndedAt: "2026-12-01T12:10:00Z", Study: st.Name, StudyFiles: files, StudyHash: st.Hash(),
		Profile: "full", Host: sp.Host,
		Parameters: manifest.Parameters{Runs: sp.Runs, Cases: []string{}, Stacks: stacks, Extra: map[string]string{"build_cpus": "0-1"}},
		Tools:      map[string]string{"scc": "3.5.0", "docker": "20.10.24+dfsg1", "go": "1.26.8"},
		Images:     map[string]manifest.Image{}, Failures: []manifest.Failure{}}
	first := filepath.Join(dir, "raw", "run-1")
	for _, s := range stacks {
		sdir := filepath.Join(first, s)
		if err := os.MkdirAll(filepath.Join(sdir, sizes.DepsDir), 0o755); err != nil {
			return err
		}
		rule := sizes.CodeRule{StackEnv: "stacks/" + s + "/stack.env", Exclude: []string{}, Tests: []string{}, Excluded: []string{}}
		for _, f := range sizeStacks[s] {
			rule.Counted = append(rule.Counted, f.rel)
		}
		if s == "go-nethttp" {
			rule.Tests = []string{"*_test.go"}
		} else {
			rule.Exclude = []string{"packages.txt", "package-lock.json", "node_modules/"}
			rule.Excluded = []string{"package-lock.json", "packages.txt"}
		}
		if err := os.WriteFile(filepath.Join(sdir, sizes.CodeFile), sccJSON(sizeStacks[s]), 0o644); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(sdir, sizes.RuleFile), rule); err != nil {
			return err
		}
	}
	deps := map[string]string{
		"go-nethttp/deps/go-list.txt": "github.com/mattn/go-sqlite3 v1.14.53 /go/pkg/mod/github.com/mattn/go-sqlite3@v1.14.53\n",
		"go-nethttp/" + sizes.DepsCodeFile: string(sccJSON([]sizeFile{{"C", "sqlite3-binding.c", 177780, 77993, 15487},
			{"Go", "sqlite3.go", 11057, 2700, 1626}})),
		"go-nethttp/" + sizes.DepsCoverFile: `{"packages_with_source": 1, "packages": 1}`,
		"node-fastify/deps/npm-package-lock.json": `{"name":"app","lockfileVersion":3,"packages":{"":{"name":"app"},` +
			`"node_modules/fastify":{"version":"4.29.1"},"node_modules/ejs":{"version":"3.1.10"},` +
			`"node_modules/a/node_modules/ejs":{"version":"3.1.10"},"node_modules/@fastify/view":{"version":"9.1.0"}}}`,
		"node-fastify/deps/debian-packages.txt": "base-files=12.4+deb12u15\nlibc6=2.36-9+deb12u14\nnodejs=18.20.4+dfsg-1~deb12u3\n",
		"node-fastify/" + sizes.DepsCodeFile: string(sccJSON([]sizeFile{{"JavaScript", "fastify/fastify.js", 52100, 6100, 7000},
			{"TypeScript", "fastify/types/index.d.ts", 8100, 900, 700}})),
	}
	for rel, text := range deps {
		if err := os.WriteFile(filepath.Join(first, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
			return err
		}
	}
	for run := 1; run <= sp.Runs; run++ {
		m.Runs = append(m.Runs, manifest.Run{Run: run, Order: stacks, Discarded: []json.RawMessage{}})
		wobble := 1 + 0.02*float64((run*7)%5-2)
		for si, s := range stacks {
			sdir := filepath.Join(dir, "raw", "run-"+strconv.Itoa(run), s)
			slow := 1.0
			if si == 1 && sp.Slower > 0 {
				slow = sp.Slower
			}
			b := sizes.Build{CleanS: round3((41 + 100*float64(si)) * wobble * slow), RebuildS: round3((6.5 + 3*float64(si)) * wobble * slow),
				Touched: []string{"app.go", "app.js"}[si], CPUs: "0-1"}
			if err := writeJSON(filepath.Join(sdir, sizes.BuildFile), b); err != nil {
				return err
			}
			im := sizes.Image{Tag: fmt.Sprintf("stacklab-size/%s:run-%d", s, run), SizeBytes: []int64{9_000_000, 185_000_000}[si],
				GzippedBytes: []int64{4_100_000, 61_000_000}[si] + int64(run), Files: []int64{2, 10_480}[si]}
			if si == 0 {
				im.Binary, im.BinaryBytes = "/app/go-nethttp", 8_950_000
			}
			if err := writeJSON(filepath.Join(sdir, sizes.ImageFile), im); err != nil {
				return err
			}
		}
	}
	if err := manifest.Write(dir, m); err != nil {
		return err
	}
	return results.WriteChecksums(dir)
}

func round3(v float64) float64 {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	f, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f
}
