package render

import (
	"fmt"

	"stacklab/analysis/summary"
	"stacklab/analysis/units"
)

// headroomBlocks show the load generator's headroom and each row's
// fastest window against it; nothing for a run that measured none.
func headroomBlocks(s *summary.Summary) []block {
	hr := s.Headroom
	if hr == nil {
		return nil
	}
	var limit string
	switch {
	case hr.Limited:
		limit = fmt.Sprintf("The generator was at its limit (over %s of its CPUs in every run): this is as far as it drives on this host.", units.Percent(hr.Threshold))
	case hr.GeneratorShare > 0:
		limit = fmt.Sprintf("The generator used as little as %s of its CPUs, so in that run the stub, not the generator, was the limit: the generator can drive more than this.", units.Percent(hr.GeneratorShare))
	default:
		limit = "The generator's CPU time was not recorded, so whether it or the mock was the limit is not known."
	}
	if hr.Errors > 0 {
		limit += fmt.Sprintf(" The headroom windows had %s errors (raw/run-N/headroom.json).", units.Group(hr.Errors))
	}
	past := 0
	for _, r := range hr.Rows {
		if r.Share > 1 {
			past++
		}
	}
	if past > 0 {
		limit += fmt.Sprintf(" %s went past it: the stub is not the fastest server this generator met, so the figure is a floor of what the generator drives, not its ceiling.", plural(past, "One row", fmt.Sprintf("%d rows", past)))
	}
	out := []block{h(2, "generator headroom"),
		p("Once a run, before its first row, oha drove a stub standing in the app's place (the mock upstream answering every request at once, on the app's CPUs, address and port, with no CPU quota) at %d connections from the generator's CPUs: **%s req/s** (%s). %s Each row's fastest window against it:",
			hr.Connections, rangeRate(hr.ReqPerSec), plural(hr.ReqPerSec.N, "one run", fmt.Sprintf("median (min–max) of %d runs", hr.ReqPerSec.N)), limit)}
	t := block{kind: table, header: []string{"stack", "fastest window", "req/s", "of the headroom", "generator CPUs"}, right: []bool{false, false, true, true, true}}
	for _, r := range hr.Rows {
		gen := "not measured"
		if r.GeneratorShare > 0 {
			gen = "≤" + units.Percent(r.GeneratorShare)
		}
		t.rows = append(t.rows, []string{r.Stack, r.Case, units.Rate(r.ReqPerSec), units.Percent(r.Share), gen})
	}
	out = append(out, t)
	if np := hr.NetPath; np != nil {
		us := func(v float64) string { return units.Seconds(v / 1e6) }
		out = append(out, p("The raw network path to the app's address (%s; bench/netpath: an echo in the app's place, from the generator's CPUs): one byte there and back in **%s** (p99 %s), and one connection streamed **%s/s** each way (%s).",
			np.Addr, rangeWith(np.RTTP50Us, us), rangeWith(np.RTTP99Us, us), rangeWith(np.StreamBytesPerS, units.Bytes),
			plural(np.RTTP50Us.N, "one run", fmt.Sprintf("median (min–max) of %d runs", np.RTTP50Us.N))))
	}
	return out
}
