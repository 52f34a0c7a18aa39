package study

import (
	"strings"
	"testing"

	_ "stacklab/formats/golden" // knows -update
)

const rampStudy = `
[[case]]
name = "capacity"
[case.ramp]
p99_ms = 50
start = 10
[[case.mix]]
name = "page"
path = "/page"
weight = 40
[[case.mix]]
name = "write"
method = "post"
path = "/bench/write"
body = "x"
content_type = "text/plain"
weight = 10
[[case.mix]]
name = "upstream"
path = "/bench/upstream"
upstream_delay_ms = 100
weight = 5
[[case.mix]]
name = "json"
path = "/json"
weight = 20
`

func TestRampCase(t *testing.T) {
	s := parse(t, rampStudy)
	c := s.Case("capacity")
	if c == nil || c.Ramp == nil || !s.HasRamp() {
		t.Fatal("no ramp")
	}
	r := c.Ramp
	// Given keys, and the defaults of the others (studies/README.md).
	if r.P99Ms != 50 || r.Start != 10 || r.ThinkS != 3 || r.Growth != 2 || r.Resolution != 0.1 || r.MaxSteps != 20 || r.Hold != 0.98 {
		t.Errorf("ramp %+v", *r)
	}
	if ws := s.Windows(32); len(ws) != 1 || ws[0].ID != "capacity" {
		t.Errorf("windows %+v: a capacity case is one window", ws)
	}
	lanes := c.Lanes()
	if len(lanes) != 2 || lanes[0].Name != "main" || lanes[1].Name != "wait100" || lanes[1].TargetMs(r) != 150 {
		t.Fatalf("lanes %+v", lanes)
	}
	if lanes[0].Weight != 70 || lanes[1].Share != 5.0/75 {
		t.Errorf("lane weights %d, share %g", lanes[0].Weight, lanes[1].Share)
	}
	// 40:10:20 is 4:1:2; spread out, never the same request 3 times running.
	var names []string
	for _, m := range lanes[0].Cycle() {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, " "); got != "page json page write page json page" {
		t.Errorf("cycle %q", got)
	}
	if w := lanes[0].Cycle()[3]; w.Method != "POST" || w.Body != "x" || w.ContentType != "text/plain" {
		t.Errorf("write entry %+v", w)
	}
	// 5% of 50 req/s is 3.3 req/s, kept to a tenth.
	if got := lanes[1].Rate(50); got != 3.3 {
		t.Errorf("lane rate %g, want 3.3", got)
	}
	if got := lanes[1].Rate(0.1); got != 0.1 {
		t.Errorf("lane rate %g, want the 0.1 req/s floor", got)
	}
}

// The lab's own capacity study reads, with the mix.
func TestCapacityStudy(t *testing.T) {
	s, err := Load("../../studies/capacity.toml")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Case("capacity")
	var total int
	for _, m := range c.Mix {
		total += m.Weight
	}
	if total != 100 || c.Ramp.P99Ms != 100 || c.Ramp.ThinkS != 3 {
		t.Errorf("weights %d, ramp %+v", total, *c.Ramp)
	}
}

func TestRampFaults(t *testing.T) {
	mix := "\n[[case.mix]]\nname='m'\npath='/m'\nweight=1"
	for _, tc := range []struct{ name, text, want string }{
		{"mix without ramp", "[[case]]\nname='c'" + mix, `case "c": ramp: missing`},
		{"ramp without mix", "[[case]]\nname='c'\n[case.ramp]", `case "c": mix: missing`},
		{"path on a ramp case", "[[case]]\nname='c'\npath='/x'\n[case.ramp]" + mix, `case "c": path: not with [case.ramp]`},
		{"rate on a ramp case", "[[case]]\nname='c'\nrate=5\n[case.ramp]" + mix, `case "c": rate: not with [case.ramp]`},
		{"errors reported", "[[case]]\nname='c'\nerrors='report'\n[case.ramp]" + mix, `case "c": errors: "report": a capacity step fails on any error`},
		{"unknown ramp key", "[[case]]\nname='c'\n[case.ramp]\np99='1'" + mix, `study.toml:4: case.ramp.p99: unknown key`},
		{"unknown mix key", "[[case]]\nname='c'\n[case.ramp]" + mix + "\nrate=3", `case.mix.rate: unknown key`},
		{"bad target", "[[case]]\nname='c'\n[case.ramp]\np99_ms=-1" + mix, `case "c": ramp.p99_ms: want a number from 0.1 to 60000 (milliseconds), got -1`},
		{"target as string", "[[case]]\nname='c'\n[case.ramp]\np99_ms='100'" + mix, `ramp.p99_ms: want a number`},
		{"growth of one", "[[case]]\nname='c'\n[case.ramp]\ngrowth=1" + mix, `ramp.growth: want a number from 1.1 to 10`},
		{"max below start", "[[case]]\nname='c'\n[case.ramp]\nstart=100\nmax_rate=50" + mix, `ramp.max_rate: 50 is below ramp.start (100)`},
		{"max_steps float", "[[case]]\nname='c'\n[case.ramp]\nmax_steps=2.5" + mix, `ramp.max_steps: want a whole number from 2 to 100`},
		{"connections zero", "[[case]]\nname='c'\n[case.ramp]\nconnections=0" + mix, `ramp.connections: want a whole number from 1 to 20000, got 0`},
		{"no weight", "[[case]]\nname='c'\n[case.ramp]\n[[case.mix]]\nname='m'\npath='/m'", `case "c": mix "m": weight: want a whole number from 1 to 1000 (got 0)`},
		{"mix path", "[[case]]\nname='c'\n[case.ramp]\n[[case.mix]]\nname='m'\npath='m'\nweight=1", `case "c": mix "m": path: "m": want a path starting with /`},
		{"mix name twice", "[[case]]\nname='c'\n[case.ramp]" + mix + mix, `case "c": mix "m": a second request of the mix`},
		{"mix unnamed", "[[case]]\nname='c'\n[case.ramp]\n[[case.mix]]\npath='/m'\nweight=1", `case "c": mix 1: name: missing`},
		{"read against a ramp", "[[case]]\nname='c'\n[case.ramp]" + mix + "\n[[case]]\nname='a'\npath='/a'\nalone='c'", `case "a": alone: "c" is a capacity ramp`},
		{"sampler check a ramp", "sampler_check='c'\n[[case]]\nname='c'\n[case.ramp]" + mix, `sampler_check: "c" is a capacity ramp`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("study.toml", []byte(tc.text), nil)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "study.toml") {
				t.Errorf("error %q\nwant one line from study.toml containing %q", msg, tc.want)
			}
		})
	}
}

func TestUsersCase(t *testing.T) {
	flow := "[[flow]]\nname='browse'\nweight=1\n[[flow.step]]\npath='/page'\n"
	s := parse(t, flow+"[[case]]\nname='users'\nusers=true\n[case.ramp]\nstart=20\nmax_users=400\nlead_s=5\nstep_s=20\np99_ms=50\n")
	c := s.Case("users")
	r := c.Ramp
	if r == nil || !r.Users || r.Start != 20 || r.MaxRate != 400 || r.LeadS != 5 || r.StepS != 20 || r.P99Ms != 50 || r.Unit() != "users" || len(c.Flows) != 1 {
		t.Fatalf("users case %+v", r)
	}
	if r.Hold != 0 || r.Connections != 0 || r.ThinkS != 0 {
		t.Errorf("a users ramp keeps none of the open loop's keys: %+v", *r)
	}
	// Without [case.ramp]: the users defaults.
	r = parse(t, flow+"[[case]]\nname='users'\nusers=true\n").Case("users").Ramp
	if r.Start != DefaultUsersStart || r.MaxRate != DefaultMaxUsers || r.LeadS != DefaultUsersLeadS || r.StepS != DefaultUsersStepS || r.P99Ms != 100 {
		t.Errorf("defaults %+v", *r)
	}
	if u := (&Ramp{}).Unit(); u != "req/s" {
		t.Errorf("a rate ramp's unit %q", u)
	}
}

func TestUsersFaults(t *testing.T) {
	flow := "[[flow]]\nname='browse'\nweight=1\n[[flow.step]]\npath='/page'\n"
	users := "[[case]]\nname='u'\nusers=true\n"
	for _, tc := range []struct{ name, text, want string }{
		{"no flows", users, `case "u": users: the study has no [[flow]] for its users to walk`},
		{"a mix", flow + users + "[[case.mix]]\nname='m'\npath='/m'\nweight=1", `case "u": mix: not with users = true`},
		{"a path", flow + users + "path='/x'", `case "u": path: not with users = true`},
		{"max_rate", flow + users + "[case.ramp]\nmax_rate=100", `case "u": ramp.max_rate: not with users = true`},
		{"think_s", flow + users + "[case.ramp]\nthink_s=1", `case "u": ramp.think_s: not with users = true`},
		{"max below start", flow + users + "[case.ramp]\nstart=100\nmax_users=50", `case "u": ramp.max_users: 50 is below ramp.start (100)`},
		{"start zero", flow + users + "[case.ramp]\nstart=0", `case "u": ramp.start: want a number from 1 to 1000000 (users), got 0`},
		{"half a user", flow + users + "[case.ramp]\nstart=2.5", `case "u": ramp: start and max_users want whole numbers of users`},
		{"step too short", flow + users + "[case.ramp]\nstep_s=1", `case "u": ramp.step_s: want a number from 5 to 3600 (seconds), got 1`},
		{"status", flow + users + "status=[200]", `case "u": status: not with users = true`},
		{"users keys on a rate ramp", "[[case]]\nname='c'\n[case.ramp]\nmax_users=5\n[[case.mix]]\nname='m'\npath='/m'\nweight=1", `case "c": ramp: max_users, lead_s and step_s are a users ramp's`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("study.toml", []byte(tc.text), nil)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "study.toml") {
				t.Errorf("error %q\nwant one line from study.toml containing %q", msg, tc.want)
			}
		})
	}
}

// flows = "routes": one flow a GET case, its request the flow's one step,
// held to the case's check.
func TestUsersRouteFlows(t *testing.T) {
	s := parse(t, `
[[case]]
name = "contact"
path = "/contacts/4242"
headers = ["Accept: application/json"]
[case.check]
status = 200
body_contains = '"id":4242'

[[case]]
name = "write"
method = "POST"
path = "/w"

[[case]]
name = "list"
path = "/contacts"

[[case]]
name = "users"
users = true
flows = "routes"
`)
	fl := s.Case("users").Flows
	if len(fl) != 2 || fl[0].Name != "contact" || fl[1].Name != "list" {
		t.Fatalf("flows %+v: want one a GET case", fl)
	}
	st := fl[0].Steps[0]
	if st.Path != "/contacts/4242" || st.Contains != `"id":4242` || len(st.Status) != 1 || st.Status[0] != 200 || st.Headers[0] != "Accept: application/json" ||
		fl[0].Weight != 1 || fl[0].Think.MeanS != DefaultThinkS {
		t.Errorf("step %+v of flow %+v", st, fl[0])
	}
	for _, tc := range []struct{ name, text, want string }{
		{"no GET case", "[[case]]\nname='u'\nusers=true\nflows='routes'", `case "u": flows: the study has no GET case`},
		{"a brace in a route", "[[case]]\nname='a'\npath='/a/{x}'\n[[case]]\nname='u'\nusers=true\nflows='routes'", `case "u": flows: case "a": its path or a header holds {...}`},
		{"unknown source", "[[case]]\nname='u'\nusers=true\nflows='mine'", `case "u": flows: "mine": want "study"`},
		{"flows without users", "[[case]]\nname='a'\npath='/a'\nflows='routes'", `case "a": flows: only a users case`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("study.toml", []byte(tc.text), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
