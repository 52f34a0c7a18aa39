package k6summary

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// testdata/step.json is what k6 1.8.1 wrote for a users step of the lab's
// script (bench/k6script) against a stack that answered some requests
// with a status its check refused: k6's own data object, unchanged.
func TestReadRealSummary(t *testing.T) {
	st, err := Read("testdata/step.json")
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests == 0 || st.Checks < st.Requests || st.VUsMax == 0 || st.DurationMs <= 0 || st.Iterations == 0 || st.AllRequests <= st.Requests {
		t.Errorf("%+v", st)
	}
	if !(st.P50Ms > 0 && st.P50Ms <= st.P90Ms && st.P90Ms <= st.P99Ms && st.P99Ms <= st.MaxMs) {
		t.Errorf("latencies out of order: %+v", st)
	}
	if st.ChecksFailed == 0 || len(st.FailedChecks) == 0 || st.FailedChecks[0].Fails == 0 {
		t.Errorf("the refused answers' checks: %+v", st)
	}
}

func summary(metrics map[string]any) string {
	b, _ := json.Marshal(map[string]any{"metrics": metrics, "state": map[string]any{"testRunDurationMs": 46000.5},
		"root_group": map[string]any{"name": "", "checks": []any{
			map[string]any{"name": "a: ok", "passes": 10, "fails": 0},
			map[string]any{"name": "a: body", "passes": 8, "fails": 2}}, "groups": []any{}}})
	return string(b)
}

func good() map[string]any {
	return map[string]any{
		Measured(Reqs):     map[string]any{"type": "counter", "contains": "default", "values": map[string]any{"count": 20, "rate": 0.43}},
		Measured(Failed):   map[string]any{"type": "rate", "contains": "default", "values": map[string]any{"rate": 0.05, "passes": 1, "fails": 19}},
		Measured(Checks):   map[string]any{"type": "rate", "contains": "default", "values": map[string]any{"rate": 0.9, "passes": 18, "fails": 2}},
		Measured(Duration): map[string]any{"type": "trend", "contains": "time", "values": map[string]any{"avg": 3.5, "min": 1, "med": 3, "max": 40, "p(90)": 6, "p(99)": 30, "count": 20}},
		"vus_max":          map[string]any{"type": "gauge", "contains": "default", "values": map[string]any{"value": 40, "min": 40, "max": 40}},
		"iterations":       map[string]any{"type": "counter", "contains": "default", "values": map[string]any{"count": 9, "rate": 0.2}},
		Reqs:               map[string]any{"type": "counter", "contains": "default", "values": map[string]any{"count": 31, "rate": 0.67}},
	}
}

func TestParse(t *testing.T) {
	st, err := Parse([]byte(summary(good())))
	if err != nil {
		t.Fatal(err)
	}
	want := Step{Requests: 20, Failed: 1, Checks: 20, ChecksFailed: 2, MeanMs: 3.5, P50Ms: 3, P90Ms: 6, P99Ms: 30, MaxMs: 40,
		VUsMax: 40, Iterations: 9, AllRequests: 31, DurationMs: 46000.5}
	got := *st
	got.FailedChecks = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if len(st.FailedChecks) != 1 || st.FailedChecks[0] != (Check{"a: body", 8, 2}) {
		t.Errorf("failed checks %+v", st.FailedChecks)
	}
	if ps := st.PerSec(10); ps != 2 {
		t.Errorf("per second %v", ps)
	}
}

// Corrupt or foreign summaries are refused in one line naming the fault.
func TestCorrupt(t *testing.T) {
	drop := func(name string) string {
		m := good()
		delete(m, name)
		return summary(m)
	}
	set := func(name string, v any) string {
		m := good()
		m[name] = v
		return summary(m)
	}
	noP99 := good()
	delete(noP99[Measured(Duration)].(map[string]any)["values"].(map[string]any), "p(99)")
	for _, tc := range []struct{ name, text, want string }{
		{"not JSON", "{", "not k6's summary JSON"},
		{"two values", summary(good()) + " {}", "more than one JSON value"},
		{"no metrics", `{"state":{}}`, `no "metrics"`},
		{"no phases", drop(Measured(Reqs)), `no metric "http_reqs{phase:measure}": the script did not measure its phases`},
		{"wrong type", set(Measured(Checks), map[string]any{"type": "counter", "values": map[string]any{}}), `metric "checks{phase:measure}" is a counter, want a rate`},
		{"half a request", set(Measured(Reqs), map[string]any{"type": "counter", "values": map[string]any{"count": 2.5}}), "count 2.5 is not a count"},
		{"more failed than sent", set(Measured(Failed), map[string]any{"type": "rate", "values": map[string]any{"passes": 30, "fails": 0}}), "30 failed requests of 20 sent"},
		{"no p99", summary(noP99), `has no p(99): the script did not ask for it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tc.want)
			}
		})
	}
	if _, err := Read("testdata/none.json"); err == nil {
		t.Error("a missing file read")
	}
}

// A script that measured each flow apart: each flow's requests, failures
// and latency, p(95) with them; a flow with its count but not the rest is
// not the lab's script.
func TestFlows(t *testing.T) {
	m := good()
	m[MeasuredFlow(Reqs, "browse")] = map[string]any{"type": "counter", "values": map[string]any{"count": 18}}
	m[MeasuredFlow(Failed, "browse")] = map[string]any{"type": "rate", "values": map[string]any{"passes": 1, "fails": 17}}
	m[MeasuredFlow(Duration, "browse")] = map[string]any{"type": "trend", "values": map[string]any{"med": 2, "p(95)": 9, "p(99)": 25}}
	m[MeasuredFlow(Reqs, "order")] = map[string]any{"type": "counter", "values": map[string]any{"count": 2}}
	m[MeasuredFlow(Failed, "order")] = map[string]any{"type": "rate", "values": map[string]any{"passes": 0, "fails": 2}}
	m[MeasuredFlow(Duration, "order")] = map[string]any{"type": "trend", "values": map[string]any{"med": 30, "p(99)": 40}}
	st, err := Parse([]byte(summary(m)))
	if err != nil {
		t.Fatal(err)
	}
	if b, o := st.Flows["browse"], st.Flows["order"]; len(st.Flows) != 2 || *b != (Flow{18, 1, 2, 9, 25}) || *o != (Flow{2, 0, 30, 0, 40}) {
		t.Errorf("flows %v", st.Flows)
	}
	if st, _ := Parse([]byte(summary(good()))); st.Flows != nil {
		t.Errorf("a script without flows measured apart: %v", st.Flows)
	}
	delete(m, MeasuredFlow(Duration, "order"))
	if _, err := Parse([]byte(summary(m))); err == nil || !strings.Contains(err.Error(), `no trend metric "http_req_duration{phase:measure,flow:order}"`) {
		t.Errorf("a flow without its latency: %v", err)
	}
}
