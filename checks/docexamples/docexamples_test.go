package docexamples

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite every marked example from its source")

const root = "../.."

// docs are the Markdown files whose examples must stay true: the README,
// analysis's manual and docs/.
func docs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md", "analysis/README.md"}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		out = append(out, rel)
	}
	return out
}

// parseDoc reads a document of the repository and its marked examples.
func parseDoc(t *testing.T, name string) ([]byte, []Example) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	exs, err := Parse(name, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return b, exs
}

// Every marked example in README.md and docs/*.md is what its source gives
// today: a committed results folder's lines, or a command's output.
func TestExamplesAreDerived(t *testing.T) {
	total := 0
	for _, name := range docs(t) {
		b, exs := parseDoc(t, name)
		var derived []string
		for _, ex := range exs {
			got, err := Derive(root, ex)
			if err != nil {
				t.Error(err)
				derived = append(derived, ex.Text)
				continue
			}
			derived = append(derived, got)
			if d := FirstDiff(ex.Text, got); d != "" && !*update {
				t.Errorf("%s:%d: the example differs from %s (go test ./checks/docexamples -update rewrites it; check the prose around it too): %s",
					ex.File, ex.Line, sourceName(ex), d)
			}
		}
		total += len(exs)
		if *update && len(exs) > 0 {
			if err := os.WriteFile(filepath.Join(root, name), []byte(Rewrite(string(b), exs, derived)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if total == 0 {
		t.Fatal("no marked example in README.md or docs/: the markers were lost")
	}
	t.Logf("%d examples derived", total)
}

func sourceName(ex Example) string {
	if ex.Source == "command" {
		return "`" + ex.Cmd + "`"
	}
	return ex.Source
}

// tableRuleRE is the rule under a table's header as analysis writes it
// (render.Table: padded cells), unlike the hand-written |---|.
var tableRuleRE = regexp.MustCompile(`^\| -{3,}:? \|`)

// A table pasted from a summary and left unmarked would go stale unseen:
// every table in analysis's layout must be inside a marked example.
func TestSummaryTablesAreMarked(t *testing.T) {
	for _, name := range docs(t) {
		b, exs := parseDoc(t, name)
		inside := map[int]bool{}
		for _, ex := range exs {
			for i := ex.Start; i < ex.End; i++ {
				inside[i] = true
			}
		}
		for i, l := range strings.Split(string(b), "\n") {
			if tableRuleRE.MatchString(l) && !inside[i] {
				t.Errorf("%s:%d: a table in the summary's layout with no <!-- example: ... --> marker naming its source", name, i+1)
			}
		}
	}
}

// The examples' own rules, on a made-up page: a file excerpt, a table, a
// command; a stale one is found and -update's rewrite puts the source back.
func TestParseDeriveRewrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "src.txt"), []byte("| one |\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := "# p\n\n<!-- example: src.txt lines 2-3 -->\n```\ntwo\nTHREE\n```\n\n<!-- example: src.txt lines 1-1 -->\n| one |\n\ntext\n\n<!-- example: command -->\n```\n$ echo hi\nhi\n```\n"
	exs, err := Parse("p.md", page)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 3 {
		t.Fatalf("%d examples, want 3", len(exs))
	}
	var derived []string
	stale := 0
	for _, ex := range exs {
		got, err := Derive(dir, ex)
		if err != nil {
			t.Fatal(err)
		}
		if FirstDiff(ex.Text, got) != "" {
			stale++
		}
		derived = append(derived, got)
	}
	if stale != 1 {
		t.Fatalf("%d stale examples, want 1 (THREE)", stale)
	}
	want := strings.Replace(page, "THREE", "three", 1)
	if got := Rewrite(page, exs, derived); got != want {
		t.Fatalf("rewrite:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{
		"<!-- example: src.txt lines 3-1 -->\nx\n",
		"<!-- example: src.txt -->\nx\n",
		"<!-- example: command -->\n| x |\n",
		"<!-- example: command -->\n```\nno dollar\n```\n",
		"<!-- example: src.txt lines 1-1 -->\n```\nnever closed\n",
	} {
		if _, err := Parse("bad.md", bad); err == nil {
			t.Errorf("Parse accepted %q", bad)
		}
	}
	if _, err := Derive(dir, Example{File: "p.md", Source: "src.txt", From: 1, To: 9}); err == nil {
		t.Error("Derive accepted a range past the file's end")
	}

	// A section and a table are found by their anchor, wherever it moved.
	sum := "# s\n\n## io\n\n### write\n\n| a |\n| b |\n\nnote\n\n### read\n\n| c |\n"
	if err := os.WriteFile(filepath.Join(dir, "sum.md"), []byte("added\n"+sum), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ part, anchor, want string }{
		{"section", "### write", "### write\n\n| a |\n| b |\n\nnote\n"},
		{"section", "## io", "## io\n\n### write\n\n| a |\n| b |\n\nnote\n\n### read\n\n| c |\n"},
		{"table", "### read", "| c |\n"},
	} {
		got, err := Derive(dir, Example{File: "p.md", Source: "sum.md", Part: c.part, Anchor: c.anchor})
		if err != nil || got != c.want {
			t.Errorf("%s %q: %q, %v; want %q", c.part, c.anchor, got, err, c.want)
		}
	}
	if _, err := Derive(dir, Example{File: "p.md", Source: "sum.md", Part: "section", Anchor: "### gone"}); err == nil {
		t.Error("Derive accepted a section that is not there")
	}
	exs, err = Parse("q.md", "<!-- example: sum.md table after \"### read\" -->\n| c |\n")
	if err != nil || len(exs) != 1 || exs[0].Part != "table" || exs[0].Anchor != "### read" {
		t.Errorf("Parse of a table marker: %+v, %v", exs, err)
	}
}

// Every stack's README points its author at the app's contract.
func TestStackReadmesLinkTheApp(t *testing.T) {
	envs, err := filepath.Glob(filepath.Join(root, "stacks", "*", "stack.env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range envs {
		dir := filepath.Dir(env)
		if b := filepath.Base(dir); b == "upstream" || b == "base" || b == "postgres" {
			continue // the mock upstream, the base image and the database server are not the app
		}
		b, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err != nil {
			t.Errorf("%s: no README.md", dir)
			continue
		}
		if !strings.Contains(string(b), "](../../docs/app.md)") {
			t.Errorf("%s/README.md: no link to docs/app.md", strings.TrimPrefix(dir, root+"/"))
		}
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// A relative link in README.md, docs/ or a run's NOTES.md names a file that
// exists: pages moved (findings into run notes, formats into docs/) and a
// dead link would not say so.
func TestRelativeLinksResolve(t *testing.T) {
	files := docs(t)
	notes, _ := filepath.Glob(filepath.Join(root, "results", "*", "NOTES.md"))
	for _, n := range append(notes, filepath.Join(root, "results", "README.md")) {
		rel, _ := filepath.Rel(root, n)
		files = append(files, rel)
	}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Join(root, filepath.Dir(name), target)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: link to %s: no such file", name, target)
			}
		}
	}
}

var issueRE = regexp.MustCompile(`(?i)\bissues? #?[0-9]+\b|\(#[0-9]+\)`)

// No page a reader gets names an issue by its number: the reader cannot
// see the issues (README.md, docs/, and every README.md outside results/).
func TestNoIssueNumbers(t *testing.T) {
	files := docs(t)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		// (not results/, nor what a build or a package manager wrote)
		if d.IsDir() && (rel == "results" || d.Name() == "node_modules" || d.Name() == "target" || strings.HasPrefix(d.Name(), ".") && rel != ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "README.md" && rel != "README.md" && rel != "analysis/README.md" {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := issueRE.FindString(line); m != "" {
				t.Errorf("%s:%d: names an issue by number (%q): say what it was instead", name, i+1, m)
			}
		}
	}
}
