package vegeta

import (
	"strings"
	"testing"

	_ "stacklab/formats/golden" // knows -update
)

// The fixtures are real vegeta 12.13.0 output (testdata/versions.txt):
// ok, status500 and connerrors captured by testdata/capture against a
// small server on 127.0.0.1; bench-step and bench-step.wait100 are the two
// lanes of one capacity step of scripts/bench against go-nethttp (1,600
// req/s); truncated.json is ok.json cut short, corrupt.json is not JSON,
// oha.json is oha's output in a vegeta file's place.

func TestOK(t *testing.T) {
	r, err := Read("testdata/ok.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 400 || r.GoodWith(Is2xx) != 400 || len(r.BadWith(Is2xx)) != 0 {
		t.Errorf("requests %d, good %d, bad %v: want 400 good", r.Requests, r.GoodWith(Is2xx), r.BadWith(Is2xx))
	}
	if s := r.SentSeconds(); s < 1.9 || s > 2.1 {
		t.Errorf("sent over %.2f s, captured with -duration 2s", s)
	}
	if p := r.P99Ms(); p <= 0 || p > float64(r.Latencies.Max)/1e6 {
		t.Errorf("p99 %.3f ms, max %d ns", p, r.Latencies.Max)
	}
}

// vegeta counts any status below 400 as a success; the lab counts what
// the case accepts, and a 500 is not it.
func TestStatus500(t *testing.T) {
	r, err := Read("testdata/status500.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := r.BadWith(Is2xx)
	if len(bad) != 1 || bad[0].Code != 500 || bad[0].Count != 80 || r.Bad(Is2xx) != 80 {
		t.Fatalf("BadWith = %v, want 80 × 500", bad)
	}
	if r.GoodWith(func(s int) bool { return s == 200 || s == 500 }) != 400 {
		t.Error("a case that accepts 500 should count every answer good")
	}
}

// A request that got no answer is status 0 in vegeta: always bad.
func TestNoAnswer(t *testing.T) {
	r, err := Read("testdata/connerrors.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := r.BadWith(func(int) bool { return true })
	if len(bad) != 1 || bad[0].Code != 0 || bad[0].Count == 0 {
		t.Fatalf("BadWith(any status) = %v, want the status-0 requests", bad)
	}
	if len(r.Errors) == 0 || !strings.Contains(r.Errors[0], "Client.Timeout") {
		t.Errorf("errors %q", r.Errors)
	}
}

func TestBenchStep(t *testing.T) {
	main, err := Read("testdata/bench-step.json")
	if err != nil {
		t.Fatal(err)
	}
	wait, err := Read("testdata/bench-step.wait100.json")
	if err != nil {
		t.Fatal(err)
	}
	// 1,600 req/s for 2 s: 95% in the main lane, 5% waiting 100 ms on the upstream.
	if main.Requests != 3040 || wait.Requests != 160 {
		t.Errorf("requests %d + %d, want 3040 + 160", main.Requests, wait.Requests)
	}
	if wait.Latencies.Min < 100e6 {
		t.Errorf("the upstream lane's fastest answer took %d ns, under the mock's 100 ms", wait.Latencies.Min)
	}
}

func TestRefused(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/truncated.json": "truncated or corrupt JSON",
		"testdata/corrupt.json":   "truncated or corrupt JSON",
		"testdata/oha.json":       "truncated or corrupt JSON: json: unknown field",
		"testdata/missing.json":   "missing",
	} {
		_, err := Read(file)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), file+": ") {
			t.Errorf("%s: got %v, want an error naming the file with %q", file, err, want)
		}
	}
	for name, text := range map[string]string{
		"empty":        "  \n",
		"no status":    `{"requests":1,"latencies":{}}`,
		"nothing sent": `{"requests":0,"status_codes":{}}`,
		"bad status":   `{"requests":1,"status_codes":{"abc":1}}`,
		"sums differ":  `{"requests":5,"status_codes":{"200":4}}`,
		"two reports":  `{"requests":1,"status_codes":{"200":1}} {"requests":1}`,
	} {
		if _, err := Parse(name, []byte(text)); err == nil {
			t.Errorf("%s: accepted %s", name, text)
		}
	}
}
