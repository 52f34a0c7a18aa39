package results_test

import (
	"path/filepath"
	"strings"
	"testing"

	"stacklab/analysis/results"
	"stacklab/analysis/synth"
)

// A capacity step's record of the upstream's own lateness is read with
// it; a corrupt one stops the folder with its path and line, as any raw
// file would.
func TestStepReadsTheUpstreamsLateness(t *testing.T) {
	dir := synth.Temp(t, "capacity", synth.Capacity())
	step := filepath.Join(dir, "raw/run-1/go-nethttp/capacity/step-01.upstream.jsonl")
	head := `{"format":"stacklab-upstream/1","bucket_ms":100,"from_unix_ms":1000,"to_unix_ms":2000,"answers":3,"late_5ms":1,"late_50ms":1,"max_late_us":61000}`
	synth.File(t, step, head+"\n"+`{"t_unix_ms":1000,"answers":3,"late_5ms":1,"late_50ms":1,"max_late_us":61000}`+"\n")
	if err := results.WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	f, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got *results.Step
	for _, w := range f.Runs[0].Stacks[0].Windows {
		if len(w.Steps) > 0 {
			got = &w.Steps[0]
		}
	}
	if got == nil || got.Upstream == nil || got.Upstream.Header.Late50ms != 1 {
		t.Fatalf("step 1's upstream record: %+v", got)
	}
	synth.File(t, step, head+"\n") // its bucket line lost
	if err := results.WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := results.Load(dir); err == nil || !strings.Contains(err.Error(), step+": the header counts") {
		t.Errorf("a truncated record: %v", err)
	}
}
