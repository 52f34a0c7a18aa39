package sizes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/results"
	"stacklab/analysis/stat"
)

// Summary is everything a size study's outputs show, computed from the
// raw files and the manifest alone.
type Summary struct {
	Folder           string               `json:"folder"`
	Study            string               `json:"study"`
	StudyHash        string               `json:"study_hash"`
	Profile          string               `json:"profile"`
	Label            string               `json:"label"`
	SharedHost       string               `json:"shared_host,omitempty"`
	LabCommit        string               `json:"lab_commit"`
	StartedAt        string               `json:"started_at"`
	EndedAt          string               `json:"ended_at"`
	Complete         bool                 `json:"complete"`
	IncompleteReason string               `json:"incomplete_reason,omitempty"`
	HostProfile      string               `json:"host_profile"`
	Host             manifest.Fingerprint `json:"host"`
	BuildCPUs        string               `json:"build_cpus"`
	Tools            []Tool               `json:"tools"`
	Runs             []int                `json:"runs"`
	Baseline         string               `json:"baseline"`
	Options          Options              `json:"options"`
	Builds           bool                 `json:"builds_measured"`
	Code             []CodeRow            `json:"code"`
	Deps             []DepsRow            `json:"dependencies"`
	Build            []BuildRow           `json:"builds,omitempty"`
	Artifacts        []ArtifactRow        `json:"artifacts,omitempty"`
	Failures         []Failure            `json:"failures"`
}

// Tool is a tool and its version, as the manifest records it.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Kinds are the columns of the code table, in order.
var Kinds = []string{"language", "templates", "sql", "config", "build"}

// CodeRow is one stack's app code: lines of code (scc's Code: not blank,
// not comment) by kind, tests apart, docs and text not counted.
type CodeRow struct {
	Stack    string           `json:"stack"`
	Measured bool             `json:"measured"`
	Kinds    map[string]int64 `json:"kinds"`
	Total    int64            `json:"total"` // the sum of Kinds
	Tests    int64            `json:"tests"`
	Other    int64            `json:"not_counted"` // docs and plain text
	Files    int              `json:"files"`       // files scc counted, tests included
	// Unknown are the files the rule let through that scc knows no
	// language of (so counts nothing in), e.g. .npmrc.
	Unknown  []string `json:"unknown_to_scc"`
	Excluded int      `json:"excluded"` // files the stack's rule left out
	Ratio    *float64 `json:"vs_baseline,omitempty"`
}

// DepsRow is one stack's resolved dependency tree.
type DepsRow struct {
	Stack       string         `json:"stack"`
	Measured    bool           `json:"measured"`
	ByEcosystem []EcosystemRow `json:"by_ecosystem"`
	// CargoTree: the cargo packages are cargo tree's for the image's
	// target, not every platform's in Cargo.lock (older runs copied it).
	CargoTree bool     `json:"cargo_tree,omitempty"`
	Packages  int      `json:"packages"`
	Ratio     *float64 `json:"vs_baseline,omitempty"`
	// Code is the lines of code of the dependencies' source where the
	// build has it at hand (nil: not at hand), From what it covers.
	Code *int64 `json:"code,omitempty"`
	From string `json:"code_from,omitempty"`
}

// EcosystemRow is how many packages one ecosystem's lock data holds.
type EcosystemRow struct {
	Ecosystem string `json:"ecosystem"`
	File      string `json:"file"`
	Packages  int    `json:"packages"`
}

// BuildRow is one stack's builds, median (min–max) over runs, and their
// ratios to the baseline's (within a run, then the median).
type BuildRow struct {
	Stack        string      `json:"stack"`
	Clean        stat.Range  `json:"clean_s"`
	Rebuild      stat.Range  `json:"rebuild_s"`
	CleanRatio   *stat.Range `json:"clean_vs_baseline,omitempty"`
	RebuildRatio *stat.Range `json:"rebuild_vs_baseline,omitempty"`
	Touched      string      `json:"touched"`
	// CleanRuns and RebuildRuns are the measured runs' values (compare
	// tests them).
	CleanRuns   []float64 `json:"clean_s_runs"`
	RebuildRuns []float64 `json:"rebuild_s_runs"`
}

// ArtifactRow is one stack's image (and binary), median over runs.
type ArtifactRow struct {
	Stack       string      `json:"stack"`
	Binary      string      `json:"binary,omitempty"`
	BinaryBytes *stat.Range `json:"binary_bytes,omitempty"`
	Size        stat.Range  `json:"size_bytes"`
	Gzipped     stat.Range  `json:"gzipped_bytes"`
	Files       stat.Range  `json:"files"`
	SizeRatio   *stat.Range `json:"size_vs_baseline,omitempty"`
	GzipRatio   *stat.Range `json:"gzipped_vs_baseline,omitempty"`
	SizeRuns    []float64   `json:"size_bytes_runs"`
	GzipRuns    []float64   `json:"gzipped_bytes_runs"`
}

// Failure is a measure the bench could not take, or one stated wrong: one
// line naming the run, the stack, the measure and the cause.
type Failure struct {
	Run     int    `json:"run"`
	Stack   string `json:"stack"`
	Measure string `json:"measure"`
	Reason  string `json:"reason"`
}

func (f Failure) String() string {
	return fmt.Sprintf("run %d, %s, %s: %s", f.Run, f.Stack, f.Measure, f.Reason)
}

// Options are summarize's flags that change the outputs.
type Options struct {
	Baseline string `json:"baseline"`
}

// Is tells whether the results folder dir holds a size study (its
// manifest's copy of the study has a [size] table).
func Is(dir string) bool {
	m, err := manifest.Read(dir)
	if err != nil {
		return false
	}
	st, err := results.StudyOf(filepath.Join(dir, manifest.FileName), m)
	return err == nil && st.Size != nil
}

// Load reads and checks a size study's results folder and computes its
// summary. Bad input (a missing or corrupt raw file, a checksum that does
// not match) is an error naming the file; a measure the bench could not
// take is a Failure in the summary.
func Load(dir string, opt Options) (*Summary, error) {
	m, err := manifest.Read(dir)
	if err != nil {
		return nil, err
	}
	if err := results.VerifyChecksums(dir); err != nil {
		return nil, err
	}
	mpath := filepath.Join(dir, manifest.FileName)
	st, err := results.StudyOf(mpath, m)
	if err != nil {
		return nil, err
	}
	if st.Size == nil {
		return nil, &results.Error{Path: mpath, Msg: "not a size study (its study has no [size] table)"}
	}
	s := &Summary{
		Folder: filepath.Base(filepath.Clean(dir)), Study: m.Study, StudyHash: m.StudyHash, Profile: m.Profile,
		Label: m.Label, SharedHost: m.SharedHost, LabCommit: m.LabCommit, StartedAt: m.StartedAt, EndedAt: m.EndedAt,
		Complete: m.Complete, IncompleteReason: m.IncompleteReason, HostProfile: m.Host.Profile,
		Host: m.Host.Fingerprint, BuildCPUs: m.Parameters.BuildCPUs(), Builds: st.Size.Build,
		Failures: []Failure{},
	}
	names := make([]string, 0, len(m.Tools))
	for k := range m.Tools {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s.Tools = append(s.Tools, Tool{k, m.Tools[k]})
	}
	stacks := m.Parameters.Stacks
	if len(stacks) == 0 {
		return nil, &results.Error{Path: mpath, Msg: "parameters.stacks is empty: no stack was measured"}
	}
	s.Baseline, s.Options = opt.Baseline, opt
	if s.Baseline == "" {
		s.Baseline = stacks[0]
	}
	if !contains(stacks, s.Baseline) {
		return nil, &results.Error{Path: mpath, Msg: fmt.Sprintf("--baseline %q is not a stack of this run (%s)", s.Baseline, strings.Join(stacks, ", "))}
	}
	if s.Runs, err = runNumbers(dir); err != nil {
		return nil, err
	}
	first := filepath.Join(dir, "raw", "run-"+strconv.Itoa(s.Runs[0]))
	for _, stk := range stacks {
		sdir := filepath.Join(first, stk)
		if s.stopped(sdir) {
			s.Code = append(s.Code, CodeRow{Stack: stk, Kinds: map[string]int64{}})
			s.Deps = append(s.Deps, DepsRow{Stack: stk})
			s.addFailure(s.Runs[0], stk, "all", "not measured: the bench stopped before this stack ("+s.IncompleteReason+")")
			continue
		}
		row, fail, err := readCode(sdir)
		if err != nil {
			return nil, err
		}
		row.Stack = stk
		s.Code = append(s.Code, row)
		s.addFailure(s.Runs[0], stk, "code", fail)
		drow, fail, err := readDeps(sdir)
		if err != nil {
			return nil, err
		}
		drow.Stack = stk
		s.Deps = append(s.Deps, drow)
		s.addFailure(s.Runs[0], stk, "dependencies", fail)
	}
	if s.Builds {
		if err := s.readBuilds(dir, stacks); err != nil {
			return nil, err
		}
	}
	s.ratios()
	return s, nil
}

// stopped tells whether a stack's folder is missing because the bench
// stopped early (an incomplete manifest); in a complete run it is bad input.
func (s *Summary) stopped(sdir string) bool {
	if s.Complete {
		return false
	}
	_, err := os.Stat(sdir)
	return errors.Is(err, fs.ErrNotExist)
}

func (s *Summary) addFailure(run int, stack, measure, reason string) {
	if reason != "" {
		s.Failures = append(s.Failures, Failure{Run: run, Stack: stack, Measure: measure, Reason: reason})
	}
}

// errorLine is the one line of a measure's .error file ("" when there is
// none): the bench writes it when it could not take the measure.
func errorLine(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if l == "" {
		l = "not measured (empty " + filepath.Base(p) + ")"
	}
	return l
}

func runNumbers(dir string) ([]int, error) {
	raw := filepath.Join(dir, "raw")
	ents, err := os.ReadDir(raw)
	if err != nil {
		return nil, &results.Error{Path: raw, Msg: "missing (no raw files)"}
	}
	var nums []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "run-")
		if !ok || !e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return nil, &results.Error{Path: filepath.Join(raw, e.Name()), Msg: "not a run folder (want run-N, N ≥ 1)"}
		}
		nums = append(nums, n)
	}
	if len(nums) == 0 {
		return nil, &results.Error{Path: raw, Msg: "no run-N folder: nothing was measured"}
	}
	sort.Ints(nums)
	return nums, nil
}

// readCode reads a stack's code.scc.json and the rule it was counted by.
func readCode(sdir string) (CodeRow, string, error) {
	row := CodeRow{Kinds: map[string]int64{}}
	if l := errorLine(filepath.Join(sdir, "code.error")); l != "" {
		return row, l, nil
	}
	var rule CodeRule
	if err := ReadJSON(filepath.Join(sdir, RuleFile), &rule); err != nil {
		return row, "", err
	}
	p := filepath.Join(sdir, CodeFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return row, "", fmt.Errorf("%s: missing", p)
	}
	langs, err := ParseSCC(b)
	if err != nil {
		return row, "", fmt.Errorf("%s: %v", p, err)
	}
	for _, k := range Kinds {
		row.Kinds[k] = 0
	}
	seen := map[string]bool{}
	for _, l := range langs {
		for _, f := range l.Files {
			rel := strings.TrimPrefix(filepath.ToSlash(f.Location), "./")
			seen[rel] = true
			row.Files++
			switch k := KindOf(l.Name, rel); {
			case Match(rule.Tests, rel):
				row.Tests += f.Code
			case k == "other":
				row.Other += f.Code
			default:
				row.Kinds[k] += f.Code
				row.Total += f.Code
			}
		}
	}
	row.Unknown = []string{}
	for _, c := range rule.Counted {
		if !seen[c] {
			row.Unknown = append(row.Unknown, c)
		}
	}
	row.Excluded = len(rule.Excluded)
	row.Measured = true
	return row, "", nil
}

// buildNames are files that say how the app is built or packaged,
// whatever language scc gives them.
var buildNames = map[string]bool{
	"Dockerfile": true, ".dockerignore": true, "Makefile": true, "build-image": true,
	"native-build": true, "native-start": true,
	"Cargo.toml": true, "package.json": true, ".npmrc": true, "pom.xml": true, "Gemfile": true,
	"requirements.in": true, "requirements.txt": true, "go.mod": true,
}

var templateLangs = map[string]bool{"HTML": true, "Ruby HTML": true, "EJS": true, "Jinja": true,
	"Handlebars": true, "Mustache": true, "Tera": true, "Twig": true}
var configLangs = map[string]bool{"YAML": true, "TOML": true, "JSON": true, "INI": true,
	"Properties File": true, "XML": true, "Docker ignore": true, "gitignore": true}
var otherLangs = map[string]bool{"Markdown": true, "Plain Text": true, "License": true, "ReStructuredText": true}
var buildLangs = map[string]bool{"Dockerfile": true, "Makefile": true, "BASH": true, "Shell": true, "Gemfile": true}

// KindOf puts one of scc's files in a column of the code table: build
// files by name, then templates, SQL, configuration, docs and text (not
// counted), and the app's own language for the rest.
func KindOf(lang, rel string) string {
	base := path.Base(rel)
	switch {
	case buildNames[base] || buildLangs[lang]:
		return "build"
	case templateLangs[lang] || strings.HasSuffix(base, ".ejs") || strings.HasSuffix(base, ".erb"):
		return "templates"
	case lang == "SQL":
		return "sql"
	case configLangs[lang]:
		return "config"
	case otherLangs[lang]:
		return "other"
	}
	return "language"
}

// readDeps reads a stack's copies of its lock data (deps/<ecosystem>-<file>)
// and the scc count of its dependencies' source, if the bench took one.
func readDeps(sdir string) (DepsRow, string, error) {
	row := DepsRow{}
	if l := errorLine(filepath.Join(sdir, "deps.error")); l != "" {
		return row, l, nil
	}
	ddir := filepath.Join(sdir, DepsDir)
	ents, err := os.ReadDir(ddir)
	if errors.Is(err, fs.ErrNotExist) {
		return row, "", fmt.Errorf("%s: missing (no lock data and no deps.error)", ddir)
	}
	if err != nil {
		return row, "", err
	}
	seen := map[Package]bool{}
	for _, e := range ents {
		eco, _, ok := strings.Cut(e.Name(), "-")
		p := filepath.Join(ddir, e.Name())
		if !ok || !contains(Ecosystems, eco) {
			return row, "", fmt.Errorf("%s: not <ecosystem>-<file> (ecosystems: %s)", p, strings.Join(Ecosystems, ", "))
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return row, "", err
		}
		pk, err := ParseDeps(e.Name(), b)
		if err != nil {
			return row, "", fmt.Errorf("%s: %v", p, err)
		}
		file := strings.TrimPrefix(e.Name(), eco+"-")
		switch {
		case eco == "go":
			file = "go list -deps"
		case e.Name() == CargoTreeFile:
			file = "cargo tree"
			row.CargoTree = true
		}
		row.ByEcosystem = append(row.ByEcosystem, EcosystemRow{Ecosystem: eco, File: file, Packages: len(pk)})
		for _, x := range pk {
			if !seen[x] {
				seen[x] = true
				row.Packages++
			}
		}
	}
	sort.SliceStable(row.ByEcosystem, func(i, j int) bool {
		return ecoIndex(row.ByEcosystem[i].Ecosystem) < ecoIndex(row.ByEcosystem[j].Ecosystem)
	})
	p := filepath.Join(sdir, DepsCodeFile)
	if b, err := os.ReadFile(p); err == nil {
		langs, err := ParseSCC(b)
		if err != nil {
			return row, "", fmt.Errorf("%s: %v", p, err)
		}
		// Docs and text in the packages are not code.
		var n int64
		var code []SCCLanguage
		for _, l := range langs {
			if l.Code > 0 && !otherLangs[l.Name] {
				n += l.Code
				code = append(code, l)
			}
		}
		sort.SliceStable(code, func(i, j int) bool { return code[i].Code > code[j].Code })
		var names []string
		for i, l := range code {
			if i == 3 {
				names = append(names, fmt.Sprintf("%d more", len(code)-3))
				break
			}
			names = append(names, fmt.Sprintf("%s %.0f%%", l.Name, 100*float64(l.Code)/float64(n)))
		}
		row.Code = &n
		row.From = strings.Join(names, ", ")
		var c Cover
		if _, err := os.Stat(filepath.Join(sdir, DepsCoverFile)); err == nil {
			if err := ReadJSON(filepath.Join(sdir, DepsCoverFile), &c); err != nil {
				return row, "", err
			}
			row.From = fmt.Sprintf("%s (source of %d of %d packages)", row.From, c.WithSource, c.Packages)
		}
	}
	row.Measured = true
	return row, "", nil
}

func ecoIndex(e string) int {
	for i, x := range Ecosystems {
		if x == e {
			return i
		}
	}
	return len(Ecosystems)
}

// readBuilds reads every run's build.json and image.json per stack.
func (s *Summary) readBuilds(dir string, stacks []string) error {
	type perRun struct {
		clean, rebuild, size, gz, files, bin []float64
	}
	vals := map[string]*perRun{}
	for _, stk := range stacks {
		vals[stk] = &perRun{}
	}
	touched, binary := map[string]string{}, map[string]string{}
	nan := func() float64 { var z float64; return z / z }
	for _, n := range s.Runs {
		for _, stk := range stacks {
			sdir := filepath.Join(dir, "raw", "run-"+strconv.Itoa(n), stk)
			v := vals[stk]
			if s.stopped(sdir) || s.stopped(filepath.Join(sdir, BuildFile)) && s.stopped(filepath.Join(sdir, "build.error")) {
				if n != s.Runs[0] || !s.stopped(sdir) {
					s.addFailure(n, stk, "build", "not measured: the bench stopped before it ("+s.IncompleteReason+")")
				}
				v.clean, v.rebuild = append(v.clean, nan()), append(v.rebuild, nan())
				v.size, v.gz, v.files, v.bin = append(v.size, nan()), append(v.gz, nan()), append(v.files, nan()), append(v.bin, nan())
				continue
			}
			if l := errorLine(filepath.Join(sdir, "build.error")); l != "" {
				s.addFailure(n, stk, "build", l)
				v.clean, v.rebuild = append(v.clean, nan()), append(v.rebuild, nan())
			} else {
				var b Build
				if err := ReadJSON(filepath.Join(sdir, BuildFile), &b); err != nil {
					return err
				}
				if b.CleanS <= 0 || b.RebuildS <= 0 {
					return fmt.Errorf("%s: clean_s and rebuild_s must be above 0", filepath.Join(sdir, BuildFile))
				}
				v.clean, v.rebuild = append(v.clean, b.CleanS), append(v.rebuild, b.RebuildS)
				touched[stk] = b.Touched
			}
			if l := errorLine(filepath.Join(sdir, "image.error")); l != "" {
				s.addFailure(n, stk, "image", l)
				v.size, v.gz, v.files, v.bin = append(v.size, nan()), append(v.gz, nan()), append(v.files, nan()), append(v.bin, nan())
				continue
			}
			var im Image
			if err := ReadJSON(filepath.Join(sdir, ImageFile), &im); err != nil {
				return err
			}
			v.size, v.gz, v.files = append(v.size, float64(im.SizeBytes)), append(v.gz, float64(im.GzippedBytes)), append(v.files, float64(im.Files))
			if im.Binary != "" {
				binary[stk] = im.Binary
				v.bin = append(v.bin, float64(im.BinaryBytes))
			} else {
				v.bin = append(v.bin, nan())
			}
		}
	}
	base := vals[s.Baseline]
	for _, stk := range stacks {
		v := vals[stk]
		br := BuildRow{Stack: stk, Clean: of(v.clean), Rebuild: of(v.rebuild), Touched: touched[stk],
			CleanRatio: ratio(v.clean, base.clean), RebuildRatio: ratio(v.rebuild, base.rebuild),
			CleanRuns: measured(v.clean), RebuildRuns: measured(v.rebuild)}
		s.Build = append(s.Build, br)
		ar := ArtifactRow{Stack: stk, Binary: binary[stk], Size: of(v.size), Gzipped: of(v.gz), Files: of(v.files),
			SizeRatio: ratio(v.size, base.size), GzipRatio: ratio(v.gz, base.gz),
			SizeRuns: measured(v.size), GzipRuns: measured(v.gz)}
		if b := of(v.bin); b.N > 0 {
			ar.BinaryBytes = &b
		}
		s.Artifacts = append(s.Artifacts, ar)
	}
	return nil
}

// measured drops the runs that were not measured (NaN).
func measured(vs []float64) []float64 {
	keep := []float64{}
	for _, v := range vs {
		if v == v {
			keep = append(keep, v)
		}
	}
	return keep
}

// of is stat.Of of the measured runs.
func of(vs []float64) stat.Range { return stat.Of(measured(vs)) }

func ratio(a, b []float64) *stat.Range {
	r := stat.Of(stat.Ratios(a, b))
	if r.N == 0 {
		return nil
	}
	return &r
}

// ratios sets the code and dependency ratios to the baseline's.
func (s *Summary) ratios() {
	var bc *CodeRow
	var bd *DepsRow
	for i := range s.Code {
		if s.Code[i].Stack == s.Baseline {
			bc, bd = &s.Code[i], &s.Deps[i]
		}
	}
	for i := range s.Code {
		if c := &s.Code[i]; c.Measured && bc.Measured && bc.Total > 0 {
			r := float64(c.Total) / float64(bc.Total)
			c.Ratio = &r
		}
		if d := &s.Deps[i]; d.Measured && bd.Measured && bd.Packages > 0 {
			r := float64(d.Packages) / float64(bd.Packages)
			d.Ratio = &r
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
