package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"stacklab/analysis/summary"
)

// Markdown renders summary.md: plain, aligned tables that read well in a
// terminal, a diff and on a code host.
func Markdown(s *summary.Summary) []byte { return markdownOf(blocks(s)) }

// markdownOf lays out any document's blocks (charts have no Markdown form).
func markdownOf(bls []block) []byte {
	var b bytes.Buffer
	for i, bl := range bls {
		if bl.kind == chart {
			continue
		}
		if i > 0 {
			b.WriteString("\n")
		}
		switch bl.kind {
		case heading:
			b.WriteString(strings.Repeat("#", bl.level) + " " + bl.text + "\n")
		case para:
			b.WriteString(bl.text + "\n")
		case list:
			for _, it := range bl.items {
				b.WriteString("- " + it + "\n")
			}
		case table:
			writeTable(&b, bl)
		}
	}
	return b.Bytes()
}

// Table lays out an aligned Markdown table; right marks the columns
// aligned to the right (numbers).
func Table(header []string, right []bool, rows [][]string) []byte {
	var b bytes.Buffer
	writeTable(&b, block{kind: table, header: header, right: right, rows: rows})
	return b.Bytes()
}

func writeTable(b *bytes.Buffer, t block) {
	width := make([]int, len(t.header))
	for i, hd := range t.header {
		width[i] = max(3, utf8.RuneCountInString(hd))
	}
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if t.right[i] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	line(t.header)
	b.WriteString("|")
	for i := range t.header {
		if t.right[i] {
			b.WriteString(" " + strings.Repeat("-", width[i]-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", width[i]) + " |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
}

// JSON renders summary.json: the Summary itself, indented, newline-ended.
func JSON(s *summary.Summary) []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		// A Summary holds no NaN or Inf and no unencodable type: this is
		// a bug in package summary, not a fault of the input.
		panic("render: summary does not encode: " + err.Error())
	}
	return append(b, '\n')
}

// File is one output file's name and bytes.
type File struct {
	Name string
	Data []byte
}

// Files renders every output of s, in a fixed order.
func Files(s *summary.Summary) []File {
	return []File{
		{"summary.md", Markdown(s)},
		{"summary.json", JSON(s)},
		{"report.html", HTML(s)},
	}
}
