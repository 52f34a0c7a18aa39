package main

import (
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"strings"

	"stacklab/formats/cli"
)

// answersIntro starts the line over the answers section of the report the
// check form prints (answersReport), and answersMain finds the section by it.
const answersIntro = "  answers ("

// answersMain prints, for each ROW=FILE, what scripts/verify shows of the
// row's report after the parity line: "ROW answers (...):", then the
// lines under it. A row whose report is not there (its checks never ran:
// no image, no start) prints nothing.
func answersMain(args []string, stdout io.Writer) int {
	if len(args) == 0 {
		cli.Usage("verify answers", "give ROW=FILE for each row (see -h)")
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			cli.Parse(flag.NewFlagSet("verify answers", flag.ContinueOnError), []string{"-h"}, usage) // prints the usage, exits 0
		}
	}
	for _, a := range args {
		row, path, ok := strings.Cut(a, "=")
		if !ok || row == "" || path == "" {
			cli.Usage("verify answers", "%q: want ROW=FILE (see -h)", a)
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			cli.Usage("verify answers", "%s: %v", path, err)
		}
		io.WriteString(stdout, answersSection(row, string(b)))
	}
	return 0
}

// answersSection is the row's name and its report's answers line without
// the indent, then every line after that one as written.
func answersSection(row, report string) string {
	lines := strings.SplitAfter(report, "\n")
	var intro []string
	under := len(lines)
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\n")
		if !strings.HasPrefix(l, answersIntro) {
			continue
		}
		under = min(under, i+1)
		if strings.HasSuffix(l, "):") {
			intro = append(intro, strings.TrimPrefix(l, "  "))
		}
	}
	return row + " " + strings.Join(intro, "\n") + "\n" + strings.Join(lines[under:], "")
}
