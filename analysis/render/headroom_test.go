package render

import (
	"strings"
	"testing"

	"stacklab/analysis/stat"
	"stacklab/analysis/summary"
)

// A row faster than the stub makes the headroom a floor, and the section
// says so; with every row under it, nothing is said.
func TestHeadroomSaysWhenARowPassedIt(t *testing.T) {
	hr := &summary.Headroom{ReqPerSec: stat.Range{N: 1, Median: 100000, Min: 100000, Max: 100000}, Connections: 32, GeneratorShare: 0.97, Limited: true, Threshold: 0.9,
		Rows: []summary.HeadroomRow{{Stack: "c", Case: "json", ReqPerSec: 117000, Share: 1.17, GeneratorShare: 0.97}, {Stack: "go", Case: "json", ReqPerSec: 76000, Share: 0.76, GeneratorShare: 0.89}}}
	text := func() string {
		var b strings.Builder
		for _, bl := range headroomBlocks(&summary.Summary{Headroom: hr}) {
			b.WriteString(bl.text + "\n")
		}
		return b.String()
	}
	if s := text(); !strings.Contains(s, "One row went past it: the stub is not the fastest server this generator met, so the figure is a floor") {
		t.Errorf("a row past the headroom:\n%s", s)
	}
	hr.Rows = hr.Rows[1:]
	if s := text(); strings.Contains(s, "went past it") {
		t.Errorf("no row past the headroom:\n%s", s)
	}
}
