package study

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Flow is one kind of simulated user: requests in order, a think time
// after each, and a weight among the study's flows. Each user picks a flow
// by weight, walks its steps, and picks again; values an answer carries (an
// id, a form's token) are captured by a step and sent by a later one as
// {name}. bench/k6script writes the generator's script from these, so the
// study stays the one owner of what is sent.
type Flow struct {
	Name   string
	Weight int // 1 to 1000: the flow's share is its weight over the sum
	Think  Think
	// UserIDs is the range {user_id} is drawn from, each time the flow
	// starts (nil: the flow uses no {user_id}).
	UserIDs *IDRange
	// Steps are the requests in order, a sign-in step already written out
	// as its two requests (SignInSteps).
	Steps []Step
}

// Think is the pause after each step: a constant, or drawn from an
// exponential with this mean and cut at ThinkCap times the mean, as the
// nine-stack report's generator does.
type Think struct {
	MeanS        float64
	Distribution string // ThinkExponential or ThinkConstant
}

// The think time's distributions, and the exponential's cut.
const (
	ThinkExponential = "exponential"
	ThinkConstant    = "constant"
	ThinkCap         = 5
	// DefaultThinkS is the mean a flow without [flow.think] gets: the
	// nine-stack report's 3 s.
	DefaultThinkS = 3.0
)

// IDRange is a range of whole numbers, both ends included.
type IDRange struct{ From, To int }

// Step is one request of a flow and what its answer must show.
type Step struct {
	// Name names the step in the generator's metrics and checks (default
	// "METHOD path" as written, placeholders and all).
	Name        string
	Method      string
	Path        string
	Body        string
	ContentType string
	Headers     []string
	// Status lists the answers that pass (nil: any 2xx). Redirects are
	// never followed: a 303 is the answer.
	Status []int
	// Contains is a text the body must hold ("" for no such check).
	Contains string
	// Captures are values taken from the answer's body, by name order.
	Captures []Capture
}

// Capture takes a value from an answer: the first group of Regex that
// matched, in the body. A later step sends it as {Name}.
type Capture struct {
	Name  string
	Regex string
}

// Good tells whether an answer with this status passes the step's check.
func (st Step) Good(status int) bool { return goodStatus(st.Status, status) }

// Uses are the values the step sends: the {name}s in its path, body and
// headers, each once, in the order they first appear.
func (st Step) Uses() []string {
	var out []string
	seen := map[string]bool{}
	for _, text := range append([]string{st.Path, st.Body}, st.Headers...) {
		for _, m := range placeholderRe.FindAllStringSubmatch(text, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	return out
}

// UserIDValue is the per-user value a flow with user_ids may send.
const UserIDValue = "user_id"

// signInToken is what the sign-in form's step captures for the sign-in
// post; a flow's own steps may not capture or use it.
const signInToken = "sign_in_token"

// The seeded users' credentials (docs/app.md, "Users and orders";
// stacks.UserEmail and stacks.UserPassword seed them), with {user_id}.
const (
	SeedEmail    = "user{user_id}@lab.example"
	SeedPassword = "lab-password-{user_id}"
)

// FormContentType is the sign-in post's content type; a value sent in a
// body of this type is form-escaped (bench/k6script).
const FormContentType = "application/x-www-form-urlencoded"

// signInTokenRe finds the sign-in form's hidden token, name before value
// or after (docs/app.md: the stacks' templates write either).
const signInTokenRe = `name="csrf_token"[^>]*?value="([^"]*)"|value="([^"]*)"[^>]*?name="csrf_token"`

// SignInSteps are the two requests a `sign_in = true` step stands for, as
// the lab's browser signs in (docs/app.md, "Signed-in routes"): the form,
// its token captured, then the post with the seeded credentials of
// {user_id}, answered by 303 and the session's cookie, which the
// generator's cookie jar keeps for the rest of the flow.
func SignInSteps() []Step {
	return []Step{
		{Name: "sign-in form", Method: "GET", Path: "/sign_in", Status: []int{200}, Contains: "csrf_token",
			Captures: []Capture{{Name: signInToken, Regex: signInTokenRe}}},
		{Name: "sign-in", Method: "POST", Path: "/sign_in", ContentType: FormContentType,
			Body:   "csrf_token={" + signInToken + "}&email=" + strings.ReplaceAll(SeedEmail, "@", "%40") + "&password=" + SeedPassword,
			Status: []int{303}},
	}
}

type flowShape struct {
	Name    string      `toml:"name"`
	Weight  int         `toml:"weight"`
	Think   *thinkShape `toml:"think"`
	UserIDs []int       `toml:"user_ids"`
	Steps   []stepShape `toml:"step"`
}

type thinkShape struct {
	MeanS        *float64 `toml:"mean_s"`
	Distribution string   `toml:"distribution"`
}

type stepShape struct {
	Name        string            `toml:"name"`
	SignIn      bool              `toml:"sign_in"`
	Method      string            `toml:"method"`
	Path        string            `toml:"path"`
	Body        string            `toml:"body"`
	ContentType string            `toml:"content_type"`
	Headers     []string          `toml:"headers"`
	Status      []int             `toml:"status"`
	Contains    string            `toml:"contains"`
	Capture     map[string]string `toml:"capture"`
}

var (
	placeholderRe = regexp.MustCompile(`\{([a-z_][a-z0-9_]*)\}`)
	valueNameRe   = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	// A capture runs in the generator's JavaScript: what RE2 and
	// JavaScript read alike, so no inline flags, \A, \z, \Q or classes
	// of RE2's own.
	jsOnlyRe = regexp.MustCompile(`\(\?[^:]|\\[AzQCpP]|\[\[:`)
)

// MaxUserID is the largest {user_id} a range may hold (the seed's most users).
const MaxUserID = 1000000

// parseFlows reads a study's [[flow]]s: every fault one Error naming the
// flow and its key.
func parseFlows(path string, shapes []flowShape) ([]*Flow, error) {
	var out []*Flow
	seen := map[string]bool{}
	for i, fs := range shapes {
		key := fmt.Sprintf("flow %d", i+1)
		if fs.Name != "" {
			key = fmt.Sprintf("flow %q", fs.Name)
		}
		fl, err := newFlow(fs)
		if err != nil {
			se := err.(*Error)
			se.Path, se.Key = path, key+": "+se.Key
			return nil, se
		}
		if seen[fl.Name] {
			return nil, &Error{Path: path, Key: key, Msg: "a second flow with this name"}
		}
		seen[fl.Name] = true
		out = append(out, fl)
	}
	return out, nil
}

func newFlow(fs flowShape) (*Flow, error) {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	fl := &Flow{Name: fs.Name, Weight: fs.Weight, Think: Think{MeanS: DefaultThinkS, Distribution: ThinkExponential}}
	switch {
	case fl.Name == "":
		return nil, bad("name", "missing (every flow needs a name)")
	case !nameRe.MatchString(fl.Name):
		return nil, bad("name", "%q: lower-case letters, digits and '-' only", fl.Name)
	case fl.Weight < 1 || fl.Weight > 1000:
		return nil, bad("weight", "want a whole number from 1 to 1000 (got %d): the flow's share is its weight over the sum", fl.Weight)
	}
	if t := fs.Think; t != nil {
		if t.MeanS != nil {
			fl.Think.MeanS = *t.MeanS
		}
		if !(fl.Think.MeanS > 0) || math.IsInf(fl.Think.MeanS, 0) || fl.Think.MeanS > 3600 {
			return nil, bad("think.mean_s", "%v: want a think time in seconds above 0 (at most 3600)", fl.Think.MeanS)
		}
		if t.Distribution != "" {
			fl.Think.Distribution = t.Distribution
		}
		if fl.Think.Distribution != ThinkExponential && fl.Think.Distribution != ThinkConstant {
			return nil, bad("think.distribution", "%q: want %s (capped at %d× the mean) or %s", t.Distribution, ThinkExponential, ThinkCap, ThinkConstant)
		}
	}
	if fs.UserIDs != nil {
		if len(fs.UserIDs) != 2 || fs.UserIDs[0] < 1 || fs.UserIDs[1] < fs.UserIDs[0] || fs.UserIDs[1] > MaxUserID {
			return nil, bad("user_ids", "%v: want [FIRST, LAST], seeded user ids from 1 to %d, e.g. [1, 100]", fs.UserIDs, MaxUserID)
		}
		fl.UserIDs = &IDRange{From: fs.UserIDs[0], To: fs.UserIDs[1]}
	}
	if len(fs.Steps) == 0 {
		return nil, bad("step", "missing: a flow needs at least one [[flow.step]]")
	}
	// known: the values a step may send, and the step that captured each.
	known := map[string]string{}
	if fl.UserIDs != nil {
		known[UserIDValue] = "user_ids"
	}
	for i, ss := range fs.Steps {
		key := fmt.Sprintf("step %d", i+1)
		if ss.Name != "" {
			key = fmt.Sprintf("step %q", ss.Name)
		}
		steps, err := newSteps(ss, fl.UserIDs != nil, known)
		if err != nil {
			se := err.(*Error)
			se.Key = key + ": " + se.Key
			return nil, se
		}
		for _, st := range steps {
			for _, c := range st.Captures {
				known[c.Name] = st.Name
			}
		}
		fl.Steps = append(fl.Steps, steps...)
	}
	return fl, nil
}

// newSteps reads one [[flow.step]]: a request, or the sign-in's two.
// known holds the values earlier steps captured.
func newSteps(ss stepShape, hasUsers bool, known map[string]string) ([]Step, error) {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	if ss.SignIn {
		if ss.Method != "" || ss.Path != "" || ss.Body != "" || ss.ContentType != "" || len(ss.Headers) > 0 ||
			len(ss.Status) > 0 || ss.Contains != "" || len(ss.Capture) > 0 {
			return nil, bad("sign_in", "a sign-in step is the lab's own (GET /sign_in, then POST it with the seeded credentials): it takes a name only")
		}
		if !hasUsers {
			return nil, bad("sign_in", "signs in as a seeded user: the flow needs user_ids, e.g. user_ids = [1, 100]")
		}
		steps := SignInSteps()
		if ss.Name != "" {
			steps[0].Name, steps[1].Name = ss.Name+" form", ss.Name
		}
		return steps, nil
	}
	st := Step{Name: ss.Name, Method: strings.ToUpper(ss.Method), Path: ss.Path, Body: ss.Body,
		ContentType: ss.ContentType, Headers: ss.Headers, Status: ss.Status, Contains: ss.Contains}
	if st.Method == "" {
		st.Method = "GET"
	}
	if !oneOf(st.Method, methods) {
		return nil, bad("method", "%q: want one of %s", ss.Method, strings.Join(methods, ", "))
	}
	if err := checkPath(st.Path); err != nil {
		return nil, bad("path", "%v", err)
	}
	if st.Name == "" {
		st.Name = st.Method + " " + st.Path
	}
	for _, h := range st.Headers {
		if k, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(h, "\r\n") {
			return nil, bad("headers", "%q: want \"Name: value\"", h)
		}
	}
	for _, s := range st.Status {
		if s < 100 || s > 599 {
			return nil, bad("status", "%d is not an HTTP status", s)
		}
	}
	for _, name := range st.Uses() {
		if known[name] != "" {
			continue
		}
		if name == UserIDValue {
			return nil, bad(usedIn(st, name), "sends {%s}: the flow needs user_ids, e.g. user_ids = [1, 100]", name)
		}
		return nil, bad(usedIn(st, name), "sends {%s}, which no earlier step captures (capture = { %s = 'REGEX' } on a step before it)", name, name)
	}
	names := make([]string, 0, len(ss.Capture))
	for name := range ss.Capture {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		re := ss.Capture[name]
		switch {
		case !valueNameRe.MatchString(name):
			return nil, bad("capture", "%q: a value's name is lower-case letters, digits and '_'", name)
		case name == UserIDValue || name == signInToken:
			return nil, bad("capture", "%q is the lab's own value; name it otherwise", name)
		}
		rx, err := regexp.Compile(re)
		switch {
		case err != nil:
			return nil, bad("capture."+name, "%q is not a regular expression: %v", re, err)
		case rx.NumSubexp() < 1:
			return nil, bad("capture."+name, "%q has no group: the value captured is the first group that matched, e.g. '\"id\":(\\d+)'", re)
		case jsOnlyRe.MatchString(re):
			return nil, bad("capture."+name, "%q: write what RE2 and JavaScript read alike (no inline flags, \\A, \\z, \\Q, \\C, \\p or [[:class:]])", re)
		}
		st.Captures = append(st.Captures, Capture{Name: name, Regex: re})
	}
	return []Step{st}, nil
}

// usedIn names the key of st whose text sends {name}.
func usedIn(st Step, name string) string {
	ph := "{" + name + "}"
	switch {
	case strings.Contains(st.Path, ph):
		return "path"
	case strings.Contains(st.Body, ph):
		return "body"
	}
	return "headers"
}
