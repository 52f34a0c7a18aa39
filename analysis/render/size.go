package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"stacklab/analysis/sizes"
	"stacklab/analysis/stat"
	"stacklab/analysis/units"
)

// SizeFiles renders a size study's outputs, in the same fixed order and
// with the same table and chart layout as a load study's.
func SizeFiles(z *sizes.Summary) []File {
	bl := sizeBlocks(z)
	j, err := json.MarshalIndent(z, "", "  ")
	if err != nil {
		panic("render: size summary does not encode: " + err.Error())
	}
	return []File{
		{"summary.md", markdownOf(bl)},
		{"summary.json", append(j, '\n')},
		{"report.html", htmlOf(z.Folder, bl)},
	}
}

func sizeBlocks(z *sizes.Summary) []block {
	title := fmt.Sprintf("stacklab: %s study, %s profile", z.Study, z.Profile)
	if z.Label != "" {
		title += ", " + z.Label
	}
	out := []block{h(1, title)}
	out = append(out, sharedHostBlocks(z.SharedHost)...)
	out = append(out, sizeHeader(z))
	if !z.Complete {
		out = append(out, p("**Incomplete run**: %s. The tables hold what was measured.", z.IncompleteReason))
	}
	out = append(out, h(2, "app code"),
		p("Lines of code (scc: neither blank nor comment) of the files each stack folder's rule counts (SIZE_EXCLUDE in its stack.env leaves generated and vendored files out), by kind; tests (SIZE_TESTS) apart and not in the total; docs and plain text are not code and not counted."),
		codeTable(z))
	out = append(out, unknownNote(z)...)
	out = append(out, chartBlock(codeChart(z)))
	out = append(out, h(2, "dependencies"),
		p("Packages of the resolved dependency tree, from each ecosystem's own lock data (the file each stack's SIZE_LOCK names, copied under raw/), deduplicated by name and version within an ecosystem; the Debian packages are the image's. Dependency code: lines of code of the dependencies' source where the build has it at hand (the Go module cache, cargo's sources, the image's node_modules, site-packages or gems), — where it has not (jars, Debian's binaries)."),
	)
	if cargoTree(z) {
		out = append(out, p("Cargo's packages are those `cargo tree` lists for the image's target, normal and build dependencies under the features the image is built with (deps/cargo-tree.txt under raw/, its command on the first line), not every platform's in Cargo.lock; the app and its workspace members are its own code."))
	}
	out = append(out, depsTable(z), chartBlock(depsChart(z)))
	if z.Builds {
		out = append(out, h(2, "builds"),
			p("A clean image build with no cache from the local base (no layer reused, no cargo target/, an empty Go build cache for the Go app; packages already downloaded are not fetched again, Debian packages in a Dockerfile are), then a rebuild after a one-line change to the handler file each stack names (SIZE_TOUCH); wall seconds on the build CPUs %s, median (min–max) over %s.", orDash(z.BuildCPUs), plural(len(z.Runs), "run", "runs")),
			buildTable(z), chartBlock(buildChart(z)),
			h(2, "artifacts"),
			p("The image unpacked (docker's size) and as docker save piped through gzip, the regular files in its file system, and the binary where the stack ships one (SIZE_BINARY)."),
			artifactTable(z), chartBlock(imageChart(z)))
	}
	out = append(out, h(2, "correctness"))
	if len(z.Failures) == 0 {
		out = append(out, p("Every stack stated its rules and lock data, and every measure was taken."))
	} else {
		out = append(out, p("**FAILED**: %d measure(s) not taken; their cells read —.", len(z.Failures)))
		var items []string
		for _, f := range z.Failures {
			items = append(items, f.String())
		}
		out = append(out, block{kind: list, items: items})
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func sizeHeader(z *sizes.Summary) block {
	fp := z.Host
	var tools []string
	for _, t := range z.Tools {
		tools = append(tools, t.Name+" "+t.Version)
	}
	runs := make([]string, len(z.Runs))
	for i, r := range z.Runs {
		runs[i] = fmt.Sprint(r)
	}
	study := z.Study
	if z.StudyHash != "" {
		study += " (" + z.StudyHash[:min(len(z.StudyHash), 19)] + "…, its text is in manifest.json)"
	}
	return block{kind: list, items: []string{
		"folder: " + z.Folder,
		"study: " + study,
		fmt.Sprintf("host: %s (%s, %d cores, %s, kernel %s)", z.HostProfile, fp.CPUModel, fp.Cores, units.Bytes(float64(fp.MemoryBytes)), fp.Kernel),
		"lab commit: " + z.LabCommit,
		"dates: " + z.StartedAt + " – " + z.EndedAt,
		"tools: " + strings.Join(tools, ", "),
		"runs: " + strings.Join(runs, ", ") + " (builds and images each run; code and dependencies from the first)",
		"baseline: " + z.Baseline + " (build and image ratios are taken within each run, then the median over runs)",
	}}
}

func count(n int64) string { return units.Group(n) }

func ratioCell(r *float64) string {
	if r == nil {
		return "—"
	}
	return units.Ratio(*r)
}

var kindHeads = map[string]string{"language": "language", "templates": "templates", "sql": "SQL", "config": "config", "build": "build files"}

func codeTable(z *sizes.Summary) block {
	hd := []string{"stack"}
	right := []bool{false}
	for _, k := range sizes.Kinds {
		hd, right = append(hd, kindHeads[k]), append(right, true)
	}
	hd = append(hd, "app total", "vs "+z.Baseline, "tests", "files", "excluded by rule", "docs, text")
	right = append(right, true, true, true, true, true, true)
	var rows [][]string
	for _, c := range z.Code {
		row := []string{c.Stack}
		if !c.Measured {
			for range hd[1:] {
				row = append(row, "—")
			}
			rows = append(rows, row)
			continue
		}
		for _, k := range sizes.Kinds {
			row = append(row, count(c.Kinds[k]))
		}
		row = append(row, count(c.Total), ratioCell(c.Ratio), count(c.Tests), fmt.Sprint(c.Files), fmt.Sprint(c.Excluded), count(c.Other))
		rows = append(rows, row)
	}
	return block{kind: table, header: hd, right: right, rows: rows}
}

// unknownNote names the files a stack's rule let through that scc has no
// language for: they count nothing, and a reader checking by hand should
// know.
func unknownNote(z *sizes.Summary) []block {
	var parts []string
	for _, c := range z.Code {
		if len(c.Unknown) > 0 {
			parts = append(parts, c.Stack+": "+strings.Join(c.Unknown, ", "))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []block{p("Files scc has no language for, so they count nothing: %s.", strings.Join(parts, "; "))}
}

func one(v float64) stat.Range { return stat.Range{Median: v, Min: v, Max: v, N: 1} }

func codeChart(z *sizes.Summary) *chartSpec {
	c := &chartSpec{id: "code", title: "app code: lines of code, app and tests", series: []string{"app", "tests"},
		format: func(v float64) string { return count(int64(v)) }}
	for _, r := range z.Code {
		c.bars = append(c.bars, bar{label: r.Stack, series: 0, r: one(float64(r.Total)), missing: !r.Measured},
			bar{label: r.Stack, series: 1, r: one(float64(r.Tests)), missing: !r.Measured})
	}
	return c
}

func depsTable(z *sizes.Summary) block {
	hd := []string{"stack", "packages", "vs " + z.Baseline, "by lock data", "dependency code", "by language"}
	right := []bool{false, true, true, false, true, false}
	var rows [][]string
	for _, d := range z.Deps {
		if !d.Measured {
			rows = append(rows, []string{d.Stack, "—", "—", "—", "—", "—"})
			continue
		}
		var by []string
		for _, e := range d.ByEcosystem {
			by = append(by, fmt.Sprintf("%s %d (%s)", e.Ecosystem, e.Packages, e.File))
		}
		code, from := "—", "—"
		if d.Code != nil {
			code, from = count(*d.Code), orDash(d.From)
		}
		rows = append(rows, []string{d.Stack, fmt.Sprint(d.Packages), ratioCell(d.Ratio), strings.Join(by, ", "), code, from})
	}
	return block{kind: table, header: hd, right: right, rows: rows}
}

func depsChart(z *sizes.Summary) *chartSpec {
	c := &chartSpec{id: "packages", title: "dependencies: packages in the resolved tree",
		format: func(v float64) string { return count(int64(v)) }}
	for _, d := range z.Deps {
		c.bars = append(c.bars, bar{label: d.Stack, r: one(float64(d.Packages)), missing: !d.Measured})
	}
	return c
}

func secs(r stat.Range) string { return rangeWith(r, units.Seconds) }

func buildTable(z *sizes.Summary) block {
	hd := []string{"stack", "clean build", "vs " + z.Baseline, "rebuild", "vs " + z.Baseline, "file changed"}
	right := []bool{false, true, true, true, true, false}
	var rows [][]string
	for _, b := range z.Build {
		rows = append(rows, []string{b.Stack, secs(b.Clean), cellRatio(b.CleanRatio), secs(b.Rebuild), cellRatio(b.RebuildRatio), orDash(b.Touched)})
	}
	return block{kind: table, header: hd, right: right, rows: rows}
}

func buildChart(z *sizes.Summary) *chartSpec {
	c := &chartSpec{id: "builds", title: "builds: clean and after a one-line change, seconds, median with min–max over runs",
		series: []string{"clean", "rebuild"}, format: units.Seconds}
	for _, b := range z.Build {
		c.bars = append(c.bars, bar{label: b.Stack, series: 0, r: b.Clean, missing: b.Clean.N == 0},
			bar{label: b.Stack, series: 1, r: b.Rebuild, missing: b.Rebuild.N == 0})
	}
	return c
}

func bytesCell(r stat.Range) string { return rangeWith(r, units.Bytes) }

func artifactTable(z *sizes.Summary) block {
	hd := []string{"stack", "binary", "image unpacked", "vs " + z.Baseline, "image gzipped", "vs " + z.Baseline, "files"}
	right := []bool{false, true, true, true, true, true, true}
	var rows [][]string
	for _, a := range z.Artifacts {
		bin := "—"
		if a.BinaryBytes != nil {
			bin = bytesCell(*a.BinaryBytes)
		}
		rows = append(rows, []string{a.Stack, bin, bytesCell(a.Size), cellRatio(a.SizeRatio), bytesCell(a.Gzipped), cellRatio(a.GzipRatio),
			rangeWith(a.Files, func(v float64) string { return count(int64(v)) })})
	}
	return block{kind: table, header: hd, right: right, rows: rows}
}

func imageChart(z *sizes.Summary) *chartSpec {
	c := &chartSpec{id: "images", title: "images: unpacked and gzipped, median with min–max over runs",
		series: []string{"unpacked", "gzipped"}, format: units.Bytes}
	for _, a := range z.Artifacts {
		c.bars = append(c.bars, bar{label: a.Stack, series: 0, r: a.Size, missing: a.Size.N == 0},
			bar{label: a.Stack, series: 1, r: a.Gzipped, missing: a.Gzipped.N == 0})
	}
	return c
}

// cargoTree: some stack's cargo packages come from cargo tree (a run of
// the size study before that copied Cargo.lock whole, and says nothing).
func cargoTree(z *sizes.Summary) bool {
	for _, d := range z.Deps {
		if d.CargoTree {
			return true
		}
	}
	return false
}
