package synth

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	_ "stacklab/formats/golden" // knows -update
	"stacklab/formats/oha"
)

// keys lists the object keys of a JSON document down to depth 2
// ("summary.total"), leaving out the keys of distributions and histograms,
// whose names are data.
func keys(t *testing.T, b []byte) []string {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k, v := range doc {
		out = append(out, k)
		if strings.HasSuffix(k, "Distribution") || strings.HasSuffix(k, "Histogram") {
			continue
		}
		var sub map[string]json.RawMessage
		if json.Unmarshal(v, &sub) == nil {
			for s := range sub {
				out = append(out, k+"."+s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Every key synth writes is one that real oha 1.16.0 writes, with the same
// nesting, so the fixtures built from it exercise the real format.
func TestOhaShapeMatchesRealOutput(t *testing.T) {
	real, err := os.ReadFile("../../formats/oha/testdata/ok.json")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, k := range keys(t, real) {
		have[k] = true
	}
	for _, k := range keys(t, Oha(Window{Seconds: 15, OK: 1000, P50: 0.001, P99: 0.004})) {
		if !have[k] {
			t.Errorf("synth writes %q, which oha 1.16.0 does not", k)
		}
	}
	for _, k := range []string{"latencyPercentiles.p99.9", "summary.total", "summary.requestsPerSec"} {
		if !have[k] {
			t.Errorf("real oha output lacks %q", k)
		}
	}
	if _, err := oha.Parse("synth", Oha(Window{Seconds: 15, OK: 1000, Cut: 3, P50: 0.001, P99: 0.004})); err != nil {
		t.Errorf("synth's oha JSON does not read: %v", err)
	}
}
