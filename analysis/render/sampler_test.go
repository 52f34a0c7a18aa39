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
