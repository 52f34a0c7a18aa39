package table

import (
	"bytes"
	"fmt"

	"stacklab/analysis/render"
	"stacklab/analysis/sizes"
	"stacklab/analysis/stat"
	"stacklab/analysis/units"
)

// SizeMarkdown compares two size studies' folders, stack by stack and
// measure by measure: the builds and images over their runs with the U
// test, the code and dependency counts (one value a side) as a change.
// failed is true when either folder has a measure not taken.
func SizeMarkdown(a, b *sizes.Summary, crossHost bool) (out []byte, failed bool) {
	var buf bytes.Buffer
	buf.WriteString("# compare: " + a.Folder + " vs " + b.Folder + "\n\n")
	for _, side := range []struct {
		name string
		s    *sizes.Summary
	}{{"A", a}, {"B", b}} {
		s := side.s
		fmt.Fprintf(&buf, "- %s: %s (%s study, %s profile, %d runs, lab commit %s; host %s: %s, %d cores, kernel %s)\n",
			side.name, s.Folder, s.Study, s.Profile, len(s.Runs), s.LabCommit, s.HostProfile, s.Host.CPUModel, s.Host.Cores, s.Host.Kernel)
	}
	fmt.Fprintf(&buf, "- test: Mann-Whitney U, α = %g, for the builds and images; Δ is the change of the median from A to B; \"~\" means no significant difference; code and packages are one count a side\n", Alpha)
	if crossHost {
		buf.WriteString("- **cross-host**: A and B come from different hosts; a build time may differ by the host, not the stack\n")
	}
	buf.WriteString("\n")
	type pair struct {
		a, b []float64
	}
	rows := [][]string{}
	tooFew := ""
	count := func(v float64) string { return units.Group(int64(v)) }
	// counted: one count a side (code, packages), shown as a change;
	// the rest are per-run measurements, tested.
	add := func(stack, measure string, p pair, f func(float64) string, counted bool) {
		if len(p.a) == 0 && len(p.b) == 0 {
			return
		}
		cell := func(vs []float64) string {
			if len(vs) == 0 {
				return "—"
			}
			return f(stat.Median(vs))
		}
		d, tf := Delta(Metric{A: p.a, B: p.b})
		switch {
		case counted && len(p.a) == 1 && len(p.b) == 1:
			d, tf = change(p.a[0], p.b[0]), ""
		case allEqual(p.a, p.b):
			// The U test has nothing to rank; the same bytes every run is no change.
			d, tf = "0% (every run the same)", ""
		}
		if tf != "" {
			tooFew = tf
		}
		rows = append(rows, []string{stack, measure, cell(p.a), cell(p.b), d})
	}
	for _, stack := range stacksOf(a, b) {
		ca, cb := codeOf(a, stack), codeOf(b, stack)
		add(stack, "app code lines", pair{ca, cb}, count, true)
		add(stack, "packages", pair{depsOf(a, stack), depsOf(b, stack)}, count, true)
		ba, bb := buildOf(a, stack), buildOf(b, stack)
		add(stack, "clean build", pair{ba.CleanRuns, bb.CleanRuns}, units.Seconds, false)
		add(stack, "rebuild", pair{ba.RebuildRuns, bb.RebuildRuns}, units.Seconds, false)
		ia, ib := imageOf(a, stack), imageOf(b, stack)
		add(stack, "image unpacked", pair{ia.SizeRuns, ib.SizeRuns}, units.Bytes, false)
		add(stack, "image gzipped", pair{ia.GzipRuns, ib.GzipRuns}, units.Bytes, false)
	}
	buf.Write(render.Table([]string{"stack", "measure", "A", "B", "Δ"}, []bool{false, false, true, true, false}, rows))
	if tooFew != "" {
		fmt.Fprintf(&buf, "\nToo few runs to tell (benchmath: %s). \"~\" there means \"cannot tell\", not \"the same\".\n", tooFew)
	}
	failed = len(a.Failures)+len(b.Failures) > 0
	if failed {
		buf.WriteString("\nSome measures were not taken (—); see each folder's summary.md.\n")
	}
	return buf.Bytes(), failed
}

func allEqual(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, v := range append(append([]float64{}, a...), b...) {
		if v != a[0] {
			return false
		}
	}
	return true
}

func change(a, b float64) string {
	if a == 0 {
		return "—"
	}
	if a == b {
		return "0%"
	}
	return fmt.Sprintf("%+.1f%%", 100*(b-a)/a)
}

// stacksOf is A's stacks, then B's that A has not.
func stacksOf(a, b *sizes.Summary) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range []*sizes.Summary{a, b} {
		for _, c := range s.Code {
			if !seen[c.Stack] {
				seen[c.Stack] = true
				out = append(out, c.Stack)
			}
		}
	}
	return out
}

func codeOf(s *sizes.Summary, stack string) []float64 {
	for _, c := range s.Code {
		if c.Stack == stack && c.Measured {
			return []float64{float64(c.Total)}
		}
	}
	return nil
}

func depsOf(s *sizes.Summary, stack string) []float64 {
	for _, d := range s.Deps {
		if d.Stack == stack && d.Measured {
			return []float64{float64(d.Packages)}
		}
	}
	return nil
}

func buildOf(s *sizes.Summary, stack string) sizes.BuildRow {
	for _, b := range s.Build {
		if b.Stack == stack {
			return b
		}
	}
	return sizes.BuildRow{}
}

func imageOf(s *sizes.Summary, stack string) sizes.ArtifactRow {
	for _, a := range s.Artifacts {
		if a.Stack == stack {
			return a
		}
	}
	return sizes.ArtifactRow{}
}
