package study

import (
	"strconv"
	"strings"
	"testing"

	"stacklab/stacks"
)

func TestUsersStudyFlows(t *testing.T) {
	s, err := Load("../../studies/users.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Flows) != 2 || len(s.Cases()) != 1 || s.Cases()[0].Ramp == nil || !s.Cases()[0].Ramp.Users {
		t.Fatalf("users: %d flows and %d cases, want 2 and its users case", len(s.Flows), len(s.Cases()))
	}
	browse, order := s.Flows[0], s.Flows[1]
	if browse.Name != "browse" || browse.Weight != 95 || browse.UserIDs != nil || len(browse.Steps) != 2 {
		t.Errorf("browse: %+v", browse)
	}
	if browse.Think != (Think{MeanS: 3, Distribution: ThinkExponential}) {
		t.Errorf("browse: think %+v", browse.Think)
	}
	if order.UserIDs == nil || *order.UserIDs != (IDRange{1, 100}) {
		t.Errorf("order: user_ids %+v, want 1 to 100", order.UserIDs)
	}
	// sign_in = true is the form and its post, then the flow's own steps.
	var names []string
	for _, st := range order.Steps {
		names = append(names, st.Method+" "+st.Path)
	}
	if got, want := strings.Join(names, ", "), "GET /sign_in, POST /sign_in, GET /account, POST /orders, GET /account"; got != want {
		t.Errorf("order: steps %q, want %q", got, want)
	}
	if got := order.Steps[3].Uses(); len(got) != 1 || got[0] != "csrf_token" {
		t.Errorf("place order: uses %v, want [csrf_token]", got)
	}
	if order.Steps[3].Good(200) || !order.Steps[3].Good(303) || !browse.Steps[0].Good(204) || browse.Steps[0].Good(303) {
		t.Error("a step's status: its list, else any 2xx")
	}
}

// The sign-in step posts the credentials the seeder writes.
func TestSignInCredentialsAreTheSeeds(t *testing.T) {
	for _, id := range []int64{1, 42, 100000} {
		n := strconv.FormatInt(id, 10)
		if got := strings.ReplaceAll(SeedEmail, "{user_id}", n); got != stacks.UserEmail(id) {
			t.Errorf("SeedEmail for %d: %q, the seed's %q", id, got, stacks.UserEmail(id))
		}
		if got := strings.ReplaceAll(SeedPassword, "{user_id}", n); got != stacks.UserPassword(id) {
			t.Errorf("SeedPassword for %d: %q, the seed's %q", id, got, stacks.UserPassword(id))
		}
	}
	post := SignInSteps()[1]
	if !strings.Contains(post.Body, "email=user{user_id}%40lab.example") || !strings.Contains(post.Body, "password=lab-password-{user_id}") {
		t.Errorf("the sign-in post's body %q", post.Body)
	}
}

// Every malformed flow is one line naming the file, the flow, the step
// and the key.
func TestBadFlows(t *testing.T) {
	const step = "\n[[flow.step]]\npath = \"/items\"\n"
	for _, tc := range []struct{ name, text, want string }{
		{"value no earlier step captures", `
[[flow]]
name = "order"
weight = 5
[[flow.step]]
path = "/account"
[[flow.step]]
method = "POST"
path = "/orders"
body = "csrf_token={csrf_token}"
status = [303]
`, `study.toml: flow "order": step 2: body: sends {csrf_token}, which no earlier step captures (capture = { csrf_token = 'REGEX' } on a step before it)`},
		{"a value the same step captures", `
[[flow]]
name = "order"
weight = 5
[[flow.step]]
name = "self"
path = "/orders/{id}"
capture = { id = '"id":(\d+)' }
`, `study.toml: flow "order": step "self": path: sends {id}, which no earlier step captures (capture = { id = 'REGEX' } on a step before it)`},
		{"think time 0", `
[[flow]]
name = "browse"
weight = 1
think = { mean_s = 0 }
` + step, `study.toml: flow "browse": think.mean_s: 0: want a think time in seconds above 0 (at most 3600)`},
		{"think time below 0", `
[[flow]]
name = "browse"
weight = 1
think = { mean_s = -3, distribution = "constant" }
` + step, `study.toml: flow "browse": think.mean_s: -3: want a think time in seconds above 0 (at most 3600)`},
		{"unknown distribution", `
[[flow]]
name = "browse"
weight = 1
think = { mean_s = 3, distribution = "normal" }
` + step, `study.toml: flow "browse": think.distribution: "normal": want exponential (capped at 5× the mean) or constant`},
		{"unknown key", `
[[flow]]
name = "browse"
weight = 1
think_s = 3
` + step, `study.toml:5: flow.think_s: unknown key (studies/README.md lists the keys)`},
		{"unknown step key", `
[[flow]]
name = "browse"
weight = 1
[[flow.step]]
path = "/items"
check = "ok"
`, `study.toml:7: flow.step.check: unknown key (studies/README.md lists the keys)`},
		{"no steps", `
[[flow]]
name = "browse"
weight = 1
`, `study.toml: flow "browse": step: missing: a flow needs at least one [[flow.step]]`},
		{"no weight", `
[[flow]]
name = "browse"
` + step, `study.toml: flow "browse": weight: want a whole number from 1 to 1000 (got 0): the flow's share is its weight over the sum`},
		{"sign-in without users", `
[[flow]]
name = "order"
weight = 1
[[flow.step]]
sign_in = true
`, `study.toml: flow "order": step 1: sign_in: signs in as a seeded user: the flow needs user_ids, e.g. user_ids = [1, 100]`},
		{"sign-in with a path", `
[[flow]]
name = "order"
weight = 1
user_ids = [1, 100]
[[flow.step]]
sign_in = true
path = "/login"
`, `study.toml: flow "order": step 1: sign_in: a sign-in step is the lab's own (GET /sign_in, then POST it with the seeded credentials): it takes a name only`},
		{"user id without users", `
[[flow]]
name = "me"
weight = 1
[[flow.step]]
path = "/users/{user_id}"
`, `study.toml: flow "me": step 1: path: sends {user_id}: the flow needs user_ids, e.g. user_ids = [1, 100]`},
		{"a backwards id range", `
[[flow]]
name = "me"
weight = 1
user_ids = [100, 1]
` + step, `study.toml: flow "me": user_ids: [100 1]: want [FIRST, LAST], seeded user ids from 1 to 1000000, e.g. [1, 100]`},
		{"a capture without a group", `
[[flow]]
name = "list"
weight = 1
[[flow.step]]
path = "/items"
capture = { id = '"id":\d+' }
`, `study.toml: flow "list": step 1: capture.id: "\"id\":\\d+" has no group: the value captured is the first group that matched, e.g. '"id":(\d+)'`},
		{"a capture JavaScript cannot read", `
[[flow]]
name = "list"
weight = 1
[[flow.step]]
path = "/items"
capture = { id = '(?i)"ID":(\d+)' }
`, `study.toml: flow "list": step 1: capture.id: "(?i)\"ID\":(\\d+)": write what RE2 and JavaScript read alike (no inline flags, \A, \z, \Q, \C, \p or [[:class:]])`},
		{"a capture of the lab's own value", `
[[flow]]
name = "list"
weight = 1
user_ids = [1, 2]
[[flow.step]]
path = "/items"
capture = { user_id = '"id":(\d+)' }
`, `study.toml: flow "list": step 1: capture: "user_id" is the lab's own value; name it otherwise`},
		{"two flows of one name", `
[[flow]]
name = "browse"
weight = 1
` + step + `
[[flow]]
name = "browse"
weight = 1
` + step, `study.toml: flow "browse": a second flow with this name`},
		{"a think time of the wrong type", `
[[flow]]
name = "browse"
weight = 1
think = { mean_s = "3s" }
` + step, `study.toml:5: mean_s: want a number, got a TOML string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("study.toml", []byte(tc.text), nil)
			if err == nil {
				t.Fatal("accepted")
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("%T, want *Error", err)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Error("more than one line")
			}
		})
	}
}

func TestFlowsNotInAnIncludedStudy(t *testing.T) {
	_, err := Parse("study.toml", []byte("include = [\"other\"]\n"), func(string) (string, []byte, error) {
		return "other.toml", []byte("[[flow]]\nname = \"browse\"\nweight = 1\n[[flow.step]]\npath = \"/items\"\n"), nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "other.toml: an included study may hold cases") {
		t.Errorf("got %v", err)
	}
}
