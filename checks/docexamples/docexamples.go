// Package docexamples keeps the examples in README.md and docs/*.md true:
// each example output is marked with its source, and the package's test
// derives it again from there (a committed results folder's file, or a
// command run in the lab's root) and fails on any difference, so a format
// change that forgets the docs fails `./lab test`.
//
// A marker is an HTML comment on the line before the example:
//
//	<!-- example: results/RUN/summary.md lines 18-28 -->
//	<!-- example: results/RUN/summary.md section "### write" -->
//	<!-- example: results/RUN/summary.md table after "### up" -->
//	<!-- example: command -->
//
// The first three name a file of the repository and a part of it: a line
// range; a section (the line that is exactly the heading, up to the next
// heading of its level or above, blank lines at its end left out); or the
// first table (lines starting with "|") after the first line that is
// exactly the text. A section or a table stays found when lines are added
// above it. The example is the fenced block that follows the marker, or,
// when no fence follows, the lines up to the next blank one (a table). The second marks a fenced block whose first
// line is "$ COMMAND": the rest of the block is what COMMAND prints, run by
// bash in the lab's root. `go test ./checks/docexamples -update` rewrites
// every example from its source.
package docexamples

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"stacklab/formats/linediff"
	"strconv"
	"strings"
)

// Example is one marked example in a Markdown file.
type Example struct {
	File   string // the Markdown file, relative to the root
	Line   int    // the marker's line, from 1
	Source string // the file named, or "command"
	From   int    // first line of Source (a line range)
	To     int    // last line
	Part   string // "section" or "table" (else a line range)
	Anchor string // the heading or line a section or table is found by
	Cmd    string // the command (command examples)
	Start  int    // index of the example's first line in the file's lines
	End    int    // index after its last
	Text   string // the example as the Markdown holds it, newline-ended
}

var markerRE = regexp.MustCompile(`^<!-- example: (.+?) -->$`)
var linesRE = regexp.MustCompile(`^(\S+) lines ([0-9]+)-([0-9]+)$`)
var partRE = regexp.MustCompile(`^(\S+) (section|table after) "(.+)"$`)

// Parse finds the marked examples of one Markdown file.
func Parse(name string, text string) ([]Example, error) {
	lines := strings.Split(text, "\n")
	var out []Example
	for i, l := range lines {
		m := markerRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ex := Example{File: name, Line: i + 1}
		where := fmt.Sprintf("%s:%d", name, i+1)
		spec := m[1]
		if spec == "command" {
			ex.Source = "command"
		} else if lm := linesRE.FindStringSubmatch(spec); lm != nil {
			ex.Source = lm[1]
			ex.From, _ = strconv.Atoi(lm[2])
			ex.To, _ = strconv.Atoi(lm[3])
			if ex.From < 1 || ex.To < ex.From {
				return nil, fmt.Errorf("%s: lines %d-%d is no range", where, ex.From, ex.To)
			}
		} else if pm := partRE.FindStringSubmatch(spec); pm != nil {
			ex.Source, ex.Part, ex.Anchor = pm[1], strings.Fields(pm[2])[0], pm[3]
		} else {
			return nil, fmt.Errorf("%s: marker %q: want \"PATH lines A-B\", \"PATH section \\\"HEADING\\\"\", \"PATH table after \\\"LINE\\\"\" or \"command\"", where, spec)
		}
		j := i + 1
		if j < len(lines) && strings.HasPrefix(lines[j], "```") {
			k := j + 1
			for k < len(lines) && !strings.HasPrefix(lines[k], "```") {
				k++
			}
			if k == len(lines) {
				return nil, fmt.Errorf("%s: the fenced block after the marker never closes", where)
			}
			ex.Start, ex.End = j+1, k
		} else {
			if ex.Source == "command" {
				return nil, fmt.Errorf("%s: a command example must be a fenced block", where)
			}
			k := j
			for k < len(lines) && strings.TrimSpace(lines[k]) != "" {
				k++
			}
			ex.Start, ex.End = j, k
		}
		if ex.Start == ex.End {
			return nil, fmt.Errorf("%s: nothing follows the marker", where)
		}
		if ex.Source == "command" {
			first := lines[ex.Start]
			if !strings.HasPrefix(first, "$ ") {
				return nil, fmt.Errorf("%s: a command example's first line is \"$ COMMAND\", got %q", where, first)
			}
			ex.Cmd = strings.TrimPrefix(first, "$ ")
			ex.Start++
		}
		ex.Text = strings.Join(lines[ex.Start:ex.End], "\n") + "\n"
		out = append(out, ex)
	}
	return out, nil
}

// Derive gives what the example must say, from its source under root.
func Derive(root string, ex Example) (string, error) {
	if ex.Source == "command" {
		cmd := exec.Command("bash", "-c", ex.Cmd)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s:%d: `%s`: %v: %s", ex.File, ex.Line, ex.Cmd, err, strings.TrimSpace(stderr.String()))
		}
		return string(out), nil
	}
	b, err := os.ReadFile(filepath.Join(root, ex.Source))
	if err != nil {
		return "", fmt.Errorf("%s:%d: %v", ex.File, ex.Line, err)
	}
	lines := strings.Split(string(b), "\n")
	if ex.Part != "" {
		return part(lines, ex)
	}
	if ex.To > len(lines) || (ex.To == len(lines) && lines[len(lines)-1] == "") {
		return "", fmt.Errorf("%s:%d: %s has no line %d", ex.File, ex.Line, ex.Source, ex.To)
	}
	return strings.Join(lines[ex.From-1:ex.To], "\n") + "\n", nil
}

// part finds a section or a table of a file by its anchor line.
func part(lines []string, ex Example) (string, error) {
	at := -1
	for i, l := range lines {
		if l == ex.Anchor {
			at = i
			break
		}
	}
	if at < 0 {
		return "", fmt.Errorf("%s:%d: %s has no line %q", ex.File, ex.Line, ex.Source, ex.Anchor)
	}
	var out []string
	if ex.Part == "section" {
		level := len(ex.Anchor) - len(strings.TrimLeft(ex.Anchor, "#"))
		if level == 0 {
			return "", fmt.Errorf("%s:%d: section %q is no Markdown heading", ex.File, ex.Line, ex.Anchor)
		}
		out = append(out, lines[at])
		for _, l := range lines[at+1:] {
			if h := len(l) - len(strings.TrimLeft(l, "#")); h > 0 && h <= level && strings.HasPrefix(l[h:], " ") {
				break
			}
			out = append(out, l)
		}
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
	} else {
		i := at + 1
		for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
			i++
		}
		for i < len(lines) && strings.HasPrefix(lines[i], "|") {
			out = append(out, lines[i])
			i++
		}
		if len(out) == 0 {
			return "", fmt.Errorf("%s:%d: %s has no table after %q", ex.File, ex.Line, ex.Source, ex.Anchor)
		}
	}
	return strings.Join(out, "\n") + "\n", nil
}

// FirstDiff is "" when a and b are the same, else their first differing
// line, numbered from 1.
func FirstDiff(doc, derived string) string {
	n, x, y, ok := linediff.First(doc, derived)
	if !ok {
		return ""
	}
	return fmt.Sprintf("line %d of the example:\n  doc:     %q\n  derived: %q", n, x, y)
}

// Rewrite replaces each example's text in the file's text with its new one.
func Rewrite(text string, exs []Example, derived []string) string {
	lines := strings.Split(text, "\n")
	var out []string
	pos := 0
	for i, ex := range exs {
		out = append(out, lines[pos:ex.Start]...)
		out = append(out, strings.Split(strings.TrimSuffix(derived[i], "\n"), "\n")...)
		pos = ex.End
	}
	out = append(out, lines[pos:]...)
	return strings.Join(out, "\n")
}
