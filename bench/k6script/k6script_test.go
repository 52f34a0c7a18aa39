package k6script

import (
	"strings"
	"testing"
	"time"

	"stacklab/analysis/study"
	"stacklab/formats/golden" // -update rewrites testdata/*.golden
)

func flows(t *testing.T, path string) []*study.Flow {
	t.Helper()
	s, err := study.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s.Flows
}

// The lab's users study under a ramp of users: the script a change to the
// study or to the runner shows as a diff (go test ./bench/k6script -update).
func TestUsersStudyRamping(t *testing.T) {
	got, err := Write(flows(t, "../../studies/users.toml"), Options{Study: "users", URL: "http://127.0.0.1:8080",
		Stages: []Stage{{30 * time.Second, 10}, {time.Minute, 10}, {10 * time.Second, 0}}, TimeoutS: 5, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/users-ramping.golden", got)
}

// One step of a users ramp: 40 users for a 10 s lead-in, 30 s measured and
// a tail of the 5 s timeout and a second; each request tagged with its
// phase, the measured submetrics summarized, k6's data handed to the file
// $LAB_K6_SUMMARY names.
func TestUsersStep(t *testing.T) {
	got, err := Write(flows(t, "../../studies/users.toml"), Options{Study: "users", URL: "http://127.0.0.1:8080",
		VUs: 40, LeadS: 10, MeasureS: 30, TimeoutS: 5, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/users-step.golden", got)
	for _, want := range []string{`duration: "46s",`, "gracefulStop: '0s',", `"http_req_duration{phase:measure}": ["max\u003e=0"],`,
		"const LEAD_MS = 10000;", "const END_MS = 40000;", "export function handleSummary(data)"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the step's script lacks %q", want)
		}
	}
	for _, bad := range []Options{
		{URL: "http://127.0.0.1:8080", VUs: 40, LeadS: 10, MeasureS: 0.5},
		{URL: "http://127.0.0.1:8080", VUs: 40, LeadS: -1, MeasureS: 30},
		{URL: "http://127.0.0.1:8080", VUs: 40, LeadS: 10, MeasureS: 30, Duration: time.Minute},
		{URL: "http://127.0.0.1:8080", LeadS: 10, MeasureS: 30},
	} {
		if _, err := Write(flows(t, "../../studies/users.toml"), bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// Constant users, a constant think time, a captured id sent in a path
// and a JSON body, and a header that carries a value.
func TestCapturesConstant(t *testing.T) {
	s, err := study.Parse("ids.toml", []byte(`
[[flow]]
name = "edit"
weight = 3
think = { mean_s = 0.5, distribution = "constant" }
user_ids = [5, 9]

[[flow.step]]
name = "newest"
path = "/items"
capture = { id = '"id":(\d+)', title = '"title":"([^"]*)"' }

[[flow.step]]
name = "edit one"
method = "put"
path = "/items/{id}?by={user_id}"
content_type = "application/json"
headers = ["X-Title: {title}", "accept: text/html", "Accept: application/json"]
body = '{"title":"{title}","user":{user_id}}'
status = [200, 204]

[[flow]]
name = "up"
weight = 1

[[flow.step]]
path = "/up"
contains = "ok"
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Write(s.Flows, Options{Study: s.Name, URL: "http://127.0.0.1:18080", VUs: 50, Duration: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/captures-constant.golden", got)
	text := string(got)
	for _, want := range []string{
		`executor: 'constant-vus'`, `vus: 50,`, `duration: "1m30s"`, `const TIMEOUT = null;`,
		// One header of a name, as the request sends it.
		`"Accept":"text/html, application/json"`,
		// A constant think time is its mean, cut or not.
		`"think":{"mean_s":0.5,"distribution":"constant","cap_s":0.5}`,
		`"users":[5,9]`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the script lacks %s", want)
		}
	}
}

func TestRefused(t *testing.T) {
	fl := flows(t, "../../studies/users.toml")
	ok := Options{URL: "http://127.0.0.1:8080", VUs: 1, Duration: time.Minute}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"another host", func(o *Options) { o.URL = "http://10.0.0.2:8080" }, "the lab targets http://127.0.0.1:PORT only"},
		{"https", func(o *Options) { o.URL = "https://127.0.0.1:8443" }, "the lab targets http://127.0.0.1:PORT only"},
		{"no port", func(o *Options) { o.URL = "http://127.0.0.1" }, "the lab targets http://127.0.0.1:PORT only"},
		{"a path", func(o *Options) { o.URL = "http://127.0.0.1:8080/x" }, "the lab targets http://127.0.0.1:PORT only"},
		{"port 0", func(o *Options) { o.URL = "http://127.0.0.1:0" }, "port 0 is not a TCP port"},
		{"no users", func(o *Options) { o.VUs = 0 }, "constant-vus: want 1 to 100000 users (got 0)"},
		{"no time", func(o *Options) { o.Duration = 0 }, "constant-vus: want a duration of 1 s or more"},
		{"both executors", func(o *Options) { o.Stages = []Stage{{time.Minute, 5}} }, "not both"},
		{"a stage below 0", func(o *Options) { o.VUs, o.Duration, o.Stages = 0, 0, []Stage{{time.Minute, -1}} }, "stage 1: want"},
		{"a long timeout", func(o *Options) { o.TimeoutS = 601 }, "timeout 601 s"},
	} {
		o := ok
		tc.edit(&o)
		if _, err := Write(fl, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Write(nil, ok); err == nil {
		t.Error("no flows: accepted")
	}
}

// The same study and options give the same bytes.
func TestDeterministic(t *testing.T) {
	fl := flows(t, "../../studies/users.toml")
	o := Options{Study: "users", URL: "http://127.0.0.1:8080", VUs: 3, Duration: time.Minute}
	a, _ := Write(fl, o)
	b, _ := Write(fl, o)
	if string(a) != string(b) {
		t.Error("two writes differ")
	}
}
