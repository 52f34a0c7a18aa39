package render

import (
	"strings"
	"testing"

	"stacklab/analysis/summary"
)

// A paired run's pairs are every instrument against none, and the section
// says so; a full run's sampler check pairs only the sampler.
func TestSamplerPairsSayWhatWasOff(t *testing.T) {
	pairs := []summary.SamplerPair{{Run: 1, Stack: "go-nethttp", Case: "json", With: 99, Without: 100, AllInstruments: true},
		{Run: 2, Stack: "go-nethttp", Case: "json", With: 101, Without: 100, AllInstruments: true}}
	text := func(ps []summary.SamplerPair) string {
		var b strings.Builder
		for _, bl := range samplerBlocks(&summary.Summary{SamplerCost: ps}) {
			b.WriteString(bl.text + "\n")
		}
		return b.String()
	}
	if s := text(pairs); !strings.Contains(s, "without any instrument") || !strings.Contains(s, "over 2 pairs, what the three cost together") {
		t.Errorf("paired pairs:\n%s", s)
	}
	pairs[1].AllInstruments = false
	if s := text(pairs); !strings.Contains(s, "measured again without the cgroup sampler, right after") {
		t.Errorf("sampler-check pairs:\n%s", s)
	}
}

// A paired run of paired_check = timeline or hiccup names what its pairs
// left off, and how many pairs its median is over.
func TestPairedCostsApart(t *testing.T) {
	pairs := []summary.SamplerPair{{Run: 1, Stack: "go-nethttp", Case: "json", With: 99, Without: 100},
		{Run: 2, Stack: "go-nethttp", Case: "json", With: 98, Without: 100}, {Run: 3, Stack: "go-nethttp", Case: "json", With: 101, Without: 100}}
	text := func(bls []block) string {
		var b strings.Builder
		for _, bl := range bls {
			b.WriteString(bl.text + "\n")
		}
		return b.String()
	}
	s := &summary.Summary{Profile: "paired", TimelineCost: pairs}
	if got := text(timelineCostBlocks(s)); !strings.Contains(got, "right before the measured slice in even slices") ||
		!strings.Contains(got, "median change -1.0% in req/s over 3 pairs, what the latency timeline costs") {
		t.Errorf("timeline pairs:\n%s", got)
	}
	s = &summary.Summary{Profile: "paired", HiccupCost: pairs}
	if got := text(hiccupCostBlocks(s)); !strings.Contains(got, "but without the hiccup meters") || !strings.Contains(got, "-1.0% in req/s over 3 pairs") {
		t.Errorf("hiccup pairs:\n%s", got)
	}
	if hiccupCostBlocks(&summary.Summary{}) != nil {
		t.Error("a hiccup-cost section with no pairs")
	}
}
