package summary

import (
	"fmt"
	"path/filepath"
	"strconv"

	"stacklab/analysis/study"
	"stacklab/formats/oha"
)

// CeilingStack names a ceiling window in the failure lines: oha straight
// at the mock upstream, no stack in between.
const CeilingStack = "ceiling (oha → mock upstream)"

// ceilingGate applies the correctness gates to run n's ceiling window of
// w: a non-2xx answer or a connection error fails the summary as a
// stack's window does (the ceiling is a measurement too, and every stack's
// row is read against it), unless the case reports its errors instead.
func (s *Summary) ceilingGate(row *Row, n int, w study.Window, res *oha.Result) {
	report := w.Case.Errors == "report"
	file := filepath.Join("raw", "run-"+strconv.Itoa(n), w.ID+"-ceiling.json")
	for _, b := range res.Bad() {
		row.Errors += b.Count
		if !report {
			s.fail(row, Failure{n, CeilingStack, w.ID, fmt.Sprintf("%d answers with status %d (%s)", b.Count, b.Code, file)})
		}
	}
	for _, e := range res.ConnErrors() {
		row.Errors += e.Count
		if !report {
			s.fail(row, Failure{n, CeilingStack, w.ID, fmt.Sprintf("%d connection errors: %s (%s)", e.Count, e.Message, file)})
		}
	}
}
