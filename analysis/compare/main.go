// Command compare sets two results folders side by side: per stack and
// case, the change of the median req/s and p99 from A to B, tested with
// the Mann-Whitney U test of golang.org/x/perf's benchmath. A difference
// that is not significant at α = 0.05 is shown as "~".
//
//	compare [--cross-host] [--modes] A B
//	compare --within DIR [--baseline ROW]
//	    one folder's rows against its baseline run by run (a paired
//	    folder's runs are slices): the ratio's spread beside the rows'
//
// Exit status: 0 compared; 1 a window of A or B failed a correctness gate
// (the table is still printed, the cells marked ✗); 2 bad input, or two
// hosts without --cross-host.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"stacklab/analysis/compare/table"
	"stacklab/analysis/manifest"
	"stacklab/analysis/render"
	"stacklab/analysis/results"
	"stacklab/analysis/sizes"
	"stacklab/analysis/summary"
)

const usage = `usage: compare [--cross-host] [--anyway] [--modes] A B
       compare --within DIR [--baseline ROW]

Compares two results folders: per stack and case, the median req/s and p99
of B against A, with a Mann-Whitney U test (α = 0.05); "~" marks a difference
that is not significant. Folders from two hosts are refused unless
--cross-host, and then every row is labelled cross-host. Folders whose
Postgres server role ran at other settings (the manifest's
postgres_settings, stacks/postgres/postgresql.conf) are refused unless
--anyway. A folder whose stacks ran in Docker and one whose stacks ran
natively are refused unless --modes, and then the table says which is
which: each change is what the other run mode costs or gives that stack,
and a last table gives each stack's B ÷ A over its cases (req/s and CPU
per request, the median case and the lowest and highest).

With --within, one folder: each row against the baseline (its first row,
or ROW) run by run, as ratios, with the ratio's spread and each row's own
(interquartile range ÷ median). In a paired folder the runs are slices.

Exit status: 0 compared; 1 a window failed a correctness gate; 2 bad input.

Example:
  compare --cross-host results/2026-11-29-local-all-reference results/2026-11-30-local-all-reference-rerun
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	bad := func(msg string) int {
		fmt.Fprintln(stderr, "compare: "+msg)
		return 2
	}
	var dirs []string
	cross, within, anyway, modes, baseline := false, false, false, false, ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case a == "--cross-host" || a == "-cross-host":
			cross = true
		case a == "--within":
			within = true
		case a == "--modes" || a == "-modes":
			modes = true
		case a == "--anyway" || a == "-anyway":
			anyway = true
		case a == "--baseline":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return bad("--baseline needs a row name")
			}
			i++
			baseline = args[i]
		case strings.HasPrefix(a, "-"):
			return bad(a + ": unknown flag (see --help)")
		default:
			dirs = append(dirs, a)
		}
	}
	if within {
		if len(dirs) != 1 {
			return bad("--within reads one folder")
		}
		return compareWithin(dirs[0], baseline, stdout, stderr)
	}
	if baseline != "" {
		return bad("--baseline goes with --within")
	}
	if len(dirs) != 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if sizes.Is(dirs[0]) || sizes.Is(dirs[1]) {
		return compareSizes(dirs, cross, stdout, stderr)
	}
	var sums [2]*summary.Summary
	var mans [2]*manifest.Manifest
	for i, d := range dirs {
		f, err := results.Load(d)
		if err != nil {
			return bad(err.Error())
		}
		s, err := summary.Compute(f, summary.Options{})
		if err != nil {
			return bad(err.Error())
		}
		sums[i], mans[i] = s, f.Manifest
	}
	ma, mb := mans[0].Parameters.RunMode(), mans[1].Parameters.RunMode()
	if ma != mb && !modes {
		return bad(fmt.Sprintf("%s ran its stacks %s and %s %s: a table never mixes the two modes (Docker costs each runtime differently); pass --modes to set them side by side, each change what the mode costs", dirs[0], manifest.ModeWords(ma), dirs[1], manifest.ModeWords(mb)))
	}
	if ma, mb := cpuMode(sums[0]), cpuMode(sums[1]); ma != mb {
		return bad(fmt.Sprintf("%s ran in %s mode and %s in %s mode: a table never mixes the two (a quota lets the app burst and be throttled, a cpuset does not)", dirs[0], ma, dirs[1], mb))
	}
	if pa, pb := pgSettings(mans[0]), pgSettings(mans[1]); pa != pb && pa != "" && pb != "" && !anyway {
		return bad(fmt.Sprintf("%s and %s ran Postgres at other settings (%s vs %s): a [pg] row's numbers are the server's too; pass --anyway to compare them", dirs[0], dirs[1], pa, pb))
	}
	sameHost := manifest.SameHost(mans[0], mans[1])
	if !sameHost && !cross {
		return bad(fmt.Sprintf("%s and %s come from different hosts (%s vs %s): numbers from two hosts are not comparable; pass --cross-host to compare anyway, every row labelled",
			dirs[0], dirs[1], table.HostLine(sums[0])+enginesNote(mans[0], mans[1]), table.HostLine(sums[1])+enginesNote(mans[1], mans[0])))
	}
	c := table.Compare(sums[0], sums[1], !sameHost)
	if ma != mb {
		fmt.Fprintf(stdout, "Run modes: A (%s) ran its stacks %s; B (%s) %s. Each change is B against A, the same stack and case in the other mode: what the mode costs or gives it.\n\n",
			dirs[0], manifest.ModeWords(ma), dirs[1], manifest.ModeWords(mb))
	}
	stdout.Write(table.Markdown(c))
	if ma != mb {
		stdout.Write(table.ModesMarkdown(sums[0], sums[1]))
	}
	if c.Failed {
		return 1
	}
	return 0
}

// pgSettings is the Postgres settings a folder's [pg] rows ran at ("" for
// a folder without rows on Postgres).
func pgSettings(m *manifest.Manifest) string {
	if m == nil {
		return ""
	}
	return m.Parameters.PostgresSettings()
}

// compareSizes compares two size studies' folders (a size folder against
// a load study's is refused: they share no measure).
func compareSizes(dirs []string, cross bool, stdout, stderr io.Writer) int {
	bad := func(msg string) int {
		fmt.Fprintln(stderr, "compare: "+msg)
		return 2
	}
	if !sizes.Is(dirs[0]) || !sizes.Is(dirs[1]) {
		return bad(fmt.Sprintf("%s and %s: one is a size study and the other is not; they share no measure", dirs[0], dirs[1]))
	}
	var sums [2]*sizes.Summary
	var mans [2]*manifest.Manifest
	for i, d := range dirs {
		z, err := sizes.Load(d, sizes.Options{})
		if err != nil {
			return bad(err.Error())
		}
		m, err := manifest.Read(d)
		if err != nil {
			return bad(err.Error())
		}
		sums[i], mans[i] = z, m
	}
	sameHost := manifest.SameHost(mans[0], mans[1])
	if !sameHost && !cross {
		return bad(fmt.Sprintf("%s and %s come from different hosts (%s vs %s): build times from two hosts are not comparable; pass --cross-host to compare anyway, every row labelled",
			dirs[0], dirs[1], sums[0].HostProfile+": "+sums[0].Host.CPUModel, sums[1].HostProfile+": "+sums[1].Host.CPUModel))
	}
	out, failed := table.SizeMarkdown(sums[0], sums[1], !sameHost)
	stdout.Write(out)
	if failed {
		return 1
	}
	return 0
}

// cpuMode is a summary's app CPU mode, "cpuset" unless it ran under a quota.
func cpuMode(s *summary.Summary) string {
	if s.CPUMode == "" {
		return "cpuset"
	}
	return s.CPUMode
}

// compareWithin prints one folder's rows against its baseline, run by run.
func compareWithin(dir, baseline string, stdout, stderr io.Writer) int {
	bad := func(msg string) int {
		fmt.Fprintln(stderr, "compare: "+msg)
		return 2
	}
	if sizes.Is(dir) {
		return bad(dir + ": a size study has no runs of load to set side by side")
	}
	f, err := results.Load(dir)
	if err != nil {
		return bad(err.Error())
	}
	s, err := summary.Compute(f, summary.Options{Baseline: baseline})
	if err != nil {
		return bad(err.Error())
	}
	w := summary.WithinRun(s, "")
	if w == nil {
		return bad(fmt.Sprintf("%s: no row shares 3 or more measured runs with %s in a case", dir, s.Options.Baseline))
	}
	stdout.Write(render.WithinMarkdown(s, w))
	return 0
}

// enginesNote: "; engines: …" of a run whose engine set differs from the
// other's (two sets never share a table), nothing when the sets are the same
func enginesNote(m, other *manifest.Manifest) string {
	if manifest.SameEngines(m.Host.Engines, other.Host.Engines) {
		return ""
	}
	return "; engines: " + manifest.EnginesLine(m.Host.Engines)
}
