// Command resultsindex writes results/README.md (a table of every results
// folder: date, study, profile, host, stacks, quiet or not, runs kept) and
// results/index.html (the same folders, each linked to its report, and each
// stack linked to every folder that measured it), both from the folders'
// manifest.json alone, so that neither is kept by hand.
//
//	resultsindex [--check] [RESULTS_DIR]     (default: results)
//
// --check writes nothing and exits 1 when either file differs from what
// the folders give (the first differing line is printed): the test that
// keeps the committed index current. Exit status 2 on bad input: one line
// naming the file.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"stacklab/formats/linediff"
	"strings"

	"stacklab/analysis/manifest"
	"stacklab/analysis/render"
)

const usage = `usage: resultsindex [--check] [RESULTS_DIR]

Writes RESULTS_DIR/README.md and RESULTS_DIR/index.html (default: results)
from every folder's manifest.json. --check writes nothing and exits 1 when
either committed file is stale.
`

var stdout, stderr io.Writer = os.Stdout, os.Stderr

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	check, dir := false, "results"
	var rest []string
	for _, a := range args {
		switch {
		case a == "--check":
			check = true
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "resultsindex: %s: unknown flag (see --help)\n", a)
			return 2
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) > 1 {
		fmt.Fprintln(stderr, "resultsindex: one RESULTS_DIR at most, got "+strings.Join(rest, " "))
		return 2
	}
	if len(rest) == 1 {
		dir = rest[0]
	}
	files, err := Build(dir)
	if err != nil {
		fmt.Fprintln(stderr, "resultsindex: "+err.Error())
		return 2
	}
	code := 0
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if check {
			old, _ := os.ReadFile(path)
			if diff := firstDiff(old, f.Data); diff != "" {
				fmt.Fprintf(stdout, "resultsindex: %s is stale (`scripts/tool resultsindex` rewrites it): %s\n", path, diff)
				code = 1
			}
			continue
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			fmt.Fprintln(stderr, "resultsindex: "+err.Error())
			return 2
		}
		fmt.Fprintln(stdout, "wrote "+path)
	}
	return code
}

// File is one output, named relative to the results folder.
type File struct {
	Name string
	Data []byte
}

// Folder is one results folder as the index shows it.
type Folder struct {
	Name     string
	Manifest bool // false: a folder of logs without a manifest
	Others   []string
	Date     string
	Study    string
	Profile  string
	Host     string
	Stacks   []string
	Quiet    string
	Runs     string
	Summary  bool
	Report   bool
	Notes    bool
	Complete bool
}

// Build reads every folder under dir and returns README.md and index.html.
func Build(dir string) ([]File, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var folders []Folder
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		f, err := readFolder(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		folders = append(folders, f)
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("%s: no results folders", dir)
	}
	page, err := indexHTML(folders)
	if err != nil {
		return nil, err
	}
	return []File{{"README.md", readme(folders)}, {"index.html", page}}, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readFolder(dir string) (Folder, error) {
	f := Folder{Name: filepath.Base(dir)}
	f.Summary = exists(filepath.Join(dir, "summary.md"))
	f.Report = exists(filepath.Join(dir, "report.html"))
	f.Notes = exists(filepath.Join(dir, "NOTES.md"))
	m, err := manifest.Read(dir)
	if err != nil {
		if _, e := os.Stat(filepath.Join(dir, manifest.FileName)); !errors.Is(e, os.ErrNotExist) {
			return f, err
		}
		// A folder of another kind (e.g. the timed logs of a fresh clone):
		// listed by its files, with nothing read from them.
		ents, err := os.ReadDir(dir)
		if err != nil {
			return f, err
		}
		for _, e := range ents {
			if e.Name() != "NOTES.md" {
				f.Others = append(f.Others, e.Name())
			}
		}
		f.Date = dateOf(f.Name)
		return f, nil
	}
	f.Manifest, f.Complete = true, m.Complete
	f.Date = dateOf(m.StartedAt)
	f.Study, f.Profile = m.Study, m.Profile
	if m.Parameters.RunMode() == manifest.RunNative {
		// a native folder is never read as a Docker one
		f.Profile += ", native"
	}
	fp := m.Host.Fingerprint
	f.Host = fmt.Sprintf("%s (%s, %d cores)", m.Host.Profile, fp.CPUModel, fp.Cores)
	f.Stacks = m.Parameters.Stacks
	f.Quiet = quietOf(m)
	if m.SharedHost != "" {
		f.Quiet += ", host shared"
	}
	discarded := 0
	for _, r := range m.Runs {
		discarded += len(r.Discarded)
	}
	f.Runs = fmt.Sprint(len(m.Runs))
	if discarded > 0 {
		f.Runs += fmt.Sprintf(" (%d discarded)", discarded)
	}
	if !m.Complete {
		f.Runs += ", incomplete: " + m.IncompleteReason
	}
	return f, nil
}

// dateOf is the YYYY-MM-DD a timestamp or a folder name starts with.
func dateOf(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return s
}

// quietOf reads the quiet-host gate's evidence of every run with the
// summary's own rule (manifest.NotQuiet): "yes" when every run has
// evidence and it held, the runs that were not quiet otherwise, "no gate"
// when no run has any (a size study builds, it does not measure windows).
func quietOf(m *manifest.Manifest) string {
	var not []string
	gated := 0
	for _, r := range m.Runs {
		q, err := manifest.ParseQuiet(r.Quiet)
		if err != nil {
			not = append(not, fmt.Sprintf("run %d (evidence unreadable)", r.Run))
			continue
		}
		if q == nil {
			continue
		}
		gated++
		if len(manifest.NotQuiet(q, m.RunHost(r).QuietLoad())) > 0 {
			not = append(not, fmt.Sprintf("run %d", r.Run))
		}
	}
	switch {
	case len(not) > 0:
		return "no: " + strings.Join(not, ", ")
	case gated == 0:
		return "no gate"
	case gated < len(m.Runs):
		return fmt.Sprintf("yes (%d of %d runs gated)", gated, len(m.Runs))
	}
	return "yes"
}

const readmeHead = `# results/

One folder per run of a study, committed with its raw files. Everything a
reader sees in a folder (summary.md, summary.json, report.html) is derived
from its raw/ and manifest.json by analysis/, and ` + "`just reproduce results/<run>`" + `
re-derives it byte for byte. What a person found in a run is in its
NOTES.md. Every file's format: [docs/results.md](../docs/results.md).
[index.html](index.html) links every folder's report, and each stack to
every run that measured it.

The table below is written by ` + "`scripts/tool resultsindex`" + ` (analysis/resultsindex)
from each folder's manifest.json; ` + "`go test ./analysis/resultsindex`" + ` (in
` + "`./lab test`" + `) fails when it is stale. "quiet": whether the quiet-host gate
held for every kept run (summary.md names the cause when it did not),
and "host shared" when whoever ran it declared other work on the machine;
"runs kept" counts the runs in the tables, and the runs the gate discarded
and measured again.

`

func readme(folders []Folder) []byte {
	var rows [][]string
	for _, f := range folders {
		name := f.Name
		switch {
		case f.Summary:
			name = fmt.Sprintf("[%s](%s/summary.md)", f.Name, f.Name)
		default:
			name = fmt.Sprintf("[%s](%s/)", f.Name, f.Name)
		}
		notes := ""
		if f.Notes {
			notes = fmt.Sprintf("[NOTES.md](%s/NOTES.md)", f.Name)
		}
		if !f.Manifest {
			rows = append(rows, []string{name, f.Date, "no manifest.json: " + strings.Join(f.Others, ", "), "", "", "", "", "", notes})
			continue
		}
		rows = append(rows, []string{name, f.Date, f.Study, f.Profile, f.Host, strings.Join(f.Stacks, ", "), f.Quiet, f.Runs, notes})
	}
	var b bytes.Buffer
	b.WriteString(readmeHead)
	b.Write(render.Table(
		[]string{"folder", "date", "study", "profile", "host", "stacks", "quiet", "runs kept", "notes"},
		[]bool{false, false, false, false, false, false, false, true, false}, rows))
	return b.Bytes()
}

var page = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>stacklab results</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; max-width: 84rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #c9ced6; padding: .2rem .5rem; text-align: left; vertical-align: top; }
td.stacks { font-size: 13px; }
td.date { white-space: nowrap; }
a { color: #245a96; }
</style>
</head>
<body>
<h1>stacklab results</h1>
<p>Every folder under results/, from its manifest.json (written by analysis/resultsindex; README.md holds the same table). A folder's report is its report.html; summary.md holds the same tables as text.</p>
<table>
<tr><th>folder</th><th>date</th><th>study</th><th>profile</th><th>host</th><th>stacks</th><th>quiet</th><th>runs kept</th><th>read</th></tr>
{{- range .Folders}}
<tr id="{{.Name}}"><td>{{if .Report}}<a href="{{.Name}}/report.html">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td class="date">{{.Date}}</td>
{{- if .Manifest}}<td>{{.Study}}</td><td>{{.Profile}}</td><td>{{.Host}}</td><td class="stacks">{{range $i, $s := .Stacks}}{{if $i}}, {{end}}<a href="#stack-{{$s}}">{{$s}}</a>{{end}}</td><td>{{.Quiet}}</td><td>{{.Runs}}</td>
{{- else}}<td colspan="6">no manifest.json: {{$d := .Name}}{{range $i, $o := .Others}}{{if $i}}, {{end}}<a href="{{$d}}/{{$o}}">{{$o}}</a>{{end}}</td>{{end -}}
<td>{{if .Report}}<a href="{{.Name}}/report.html">report</a> {{end}}{{if .Summary}}<a href="{{.Name}}/summary.md">summary.md</a> {{end}}{{if .Notes}}<a href="{{.Name}}/NOTES.md">NOTES.md</a>{{end}}</td></tr>
{{- end}}
</table>
<h2>By stack</h2>
<p>Each stack folder, and every results folder whose tables hold it (itself or a variant of it).</p>
<table>
<tr><th>stack</th><th>runs</th></tr>
{{- range .Stacks}}
<tr id="stack-{{.Name}}"><td>{{.Name}}</td><td>{{range $i, $f := .Folders}}{{if $i}}, {{end}}<a href="{{$f.Link}}">{{$f.Name}}</a>{{end}}</td></tr>
{{- end}}
</table>
</body>
</html>
`))

type stackRow struct {
	Name    string
	Folders []link
}

type link struct{ Name, Link string }

type pageData struct {
	Folders []Folder
	Stacks  []stackRow
}

func indexHTML(folders []Folder) ([]byte, error) {
	by := map[string][]link{}
	for _, f := range folders {
		target := f.Name + "/summary.md"
		if f.Report {
			target = f.Name + "/report.html"
		}
		seen := map[string]bool{}
		for _, s := range f.Stacks {
			// A variant's row (go-nethttp[O0]) is its stack's folder.
			if i := strings.IndexByte(s, '['); i > 0 {
				s = s[:i]
			}
			if !seen[s] {
				seen[s] = true
				by[s] = append(by[s], link{f.Name, target})
			}
		}
	}
	var stacks []stackRow
	for s, l := range by {
		stacks = append(stacks, stackRow{s, l})
	}
	slices.SortFunc(stacks, func(a, b stackRow) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	if err := page.Execute(&b, pageData{Folders: folders, Stacks: stacks}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// firstDiff is "" when a and b are equal, else the first differing line.
func firstDiff(a, b []byte) string {
	n, x, y, ok := linediff.First(string(a), string(b))
	if !ok {
		return ""
	}
	return fmt.Sprintf("line %d: committed %q, derived %q", n, x, y)
}
