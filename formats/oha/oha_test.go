package oha

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "stacklab/formats/golden" // knows -update
)

// The fixtures are real oha 1.16.0 output (testdata/versions.txt), captured
// by testdata/capture against small servers on 127.0.0.1.

func TestAllGood(t *testing.T) {
	r, err := Read("testdata/ok.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Good() == 0 || len(r.Bad()) != 0 || len(r.ConnErrors()) != 0 {
		t.Errorf("good=%d bad=%v conn=%v; want only 2xx", r.Good(), r.Bad(), r.ConnErrors())
	}
	if r.Summary.Total < 1.9 || r.Summary.Total > 2.5 {
		t.Errorf("window %.2f s, captured with -z 2s", r.Summary.Total)
	}
	for _, k := range []string{"p50", "p99", "p99.9"} {
		if v, ok := r.Percentile(k); !ok || v <= 0 {
			t.Errorf("latencyPercentiles[%s] = %v, %v", k, v, ok)
		}
	}
}

// oha counts a 500 as a success and as a request per second: the lab must
// not.
func TestStatus500(t *testing.T) {
	r, err := Read("testdata/status500.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := r.Bad()
	if len(bad) != 1 || bad[0].Code != 500 || bad[0].Count == 0 {
		t.Fatalf("Bad() = %v, want the 500s", bad)
	}
	if r.Summary.SuccessRate < 0.99 {
		t.Errorf("oha's successRate %.3f: this fixture is meant to show oha counting 500s as success", r.Summary.SuccessRate)
	}
	if r.GoodPerSec() >= r.Summary.RequestsPerSec*0.9 {
		t.Errorf("GoodPerSec %.0f should leave out the 500s that oha's requestsPerSec %.0f counts", r.GoodPerSec(), r.Summary.RequestsPerSec)
	}
}

func TestConnectionErrors(t *testing.T) {
	r, err := Read("testdata/connerrors.json")
	if err != nil {
		t.Fatal(err)
	}
	ce := r.ConnErrors()
	if len(ce) == 0 {
		t.Fatalf("no connection errors read; errorDistribution = %v", r.ErrorDistribution)
	}
	for _, e := range ce {
		if e.Message == DeadlineError {
			t.Errorf("deadline aborts must be counted apart")
		}
	}
}

func TestBadFiles(t *testing.T) {
	ok, err := os.ReadFile("testdata/ok.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, body, msg string
	}{
		{"truncated.json", string(ok[:len(ok)/2]), "truncated or corrupt JSON: unexpected end of JSON input"},
		{"empty.json", "", "empty file"},
		{"other.json", `{"requests": 3}`, "no statusCodeDistribution (not oha 1.16 --output-format json?)"},
		{"status.json", strings.Replace(string(ok), `"statusCodeDistribution": {`, `"statusCodeDistribution": {"abc": 1,`, 1), `statusCodeDistribution has a key "abc" that is not an HTTP status`},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(p)
		if err == nil || err.Error() != p+": "+c.msg {
			t.Errorf("%s: got %v, want %q", c.name, err, p+": "+c.msg)
		}
	}
	if _, err := Read(filepath.Join(dir, "absent.json")); err == nil || !strings.HasSuffix(err.Error(), "absent.json: missing") {
		t.Errorf("absent file: %v", err)
	}
}
