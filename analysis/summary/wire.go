package summary

import (
	"stacklab/analysis/results"
	"stacklab/analysis/study"
	"stacklab/formats/answer"
	"stacklab/formats/oha"
)

// bytesPerAnswer is what one answer of case c put on the wire in run r:
// the head and the chunk framing of verify's capture of the same route
// (answers.json) plus oha's body bytes per answer (totalData ÷ answers).
// False when the run captured no answer to the case's method and path, or
// oha counted no answers.
func bytesPerAnswer(r results.Run, stack string, c *study.Case, res *oha.Result) (float64, bool) {
	var answers []answer.Answer
	for _, sr := range r.Stacks {
		if sr.Stack == stack {
			answers = sr.Answers
		}
	}
	a := answer.Of(answers, c.Method, c.Path) // the study sets GET when a case names none
	var n int64
	for _, k := range res.StatusCodeDistribution {
		n += k
	}
	if a == nil || n <= 0 {
		return 0, false
	}
	framing := a.BodyBytes - a.ContentBytes
	return float64(a.HeadBytes+framing) + float64(res.Summary.TotalData)/float64(n), true
}
