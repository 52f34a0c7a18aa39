package speed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendThenRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.canary.jsonl")
	for _, l := range []string{"before app", "before loadgen"} {
		if err := Append(path, Reading{Label: l, CPUs: "0", Rounds: 1000, Tries: 1, BestNs: int64(Measure(1000, 1))}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := ReadFile(path)
	if err != nil || len(rs) != 2 || rs[1].Label != "before loadgen" || rs[0].BestNs <= 0 {
		t.Fatalf("%+v, %v", rs, err)
	}
}

// A corrupt, truncated or empty canary file is one error naming the file
// and the line.
func TestReadFaults(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"truncated": {`{"label":"before app","cpus":"0","rounds":1000,"tries":1,"best_ns":5}` + "\n" + `{"label":"af`, ":2: not a canary reading"},
		"zero time": {`{"label":"before app","cpus":"0","rounds":1000,"tries":1,"best_ns":0}`, ":1: a canary reading needs"},
		"unknown":   {`{"label":"x","rounds":1,"best_ns":1,"speed":3}`, ":1: not a canary reading"},
		"empty":     {"\n", ":1: no readings"},
	} {
		p := filepath.Join(dir, name+".canary.jsonl")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
