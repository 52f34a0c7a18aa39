package study

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Ramp is how a capacity case steps its open-loop rate up: geometric steps
// from Start until a step fails, then bisection between the last rate that
// passed and the first that failed. The decisions themselves are package
// ramp's; these are the study's parameters.
type Ramp struct {
	// P99Ms is the latency target: a step passes when its p99 (from each
	// request's send time, over the whole mix) is at most this.
	P99Ms float64
	// ThinkS is a simulated user's think time between two requests: the
	// capacity in users is req/s × (think time + mean response time).
	ThinkS float64
	// Start is the first step's rate (req/s); Growth multiplies it each
	// step until one fails; MaxRate caps the rates tried.
	Start, Growth, MaxRate float64
	// Resolution ends the bisection: it stops once the first failing rate
	// is within this share of the last passing one (0.1: 10%).
	Resolution float64
	// MaxSteps bounds the steps of one ramp, bisection included.
	MaxSteps int
	// TimeoutS is each request's timeout in the generator: a request
	// without an answer by then is an error, which fails the step.
	TimeoutS float64
	// Hold is the share of the step's planned requests the generator must
	// have sent for the step to count: below it the generator could not
	// hold the rate, and the step says nothing about the stack.
	Hold float64
	// Connections is the most connections each lane's generator opens
	// (vegeta -max-connections); a request beyond them waits for one, and
	// the wait counts in its latency. Without a bound, a generator that
	// falls behind opens tens of thousands and the ports run out for the
	// stacks that follow.
	Connections int
	// StallRedos is how many failed steps of one ramp may be measured once
	// more because their fail was one stall (ramp.LoneSlump: answers all
	// but stopped for a moment, and came at the rate otherwise); 0, the
	// default, measures none again.
	StallRedos int
	// Users makes the ramp count simulated users (the study's [[flow]]s,
	// closed users with their think time) instead of an open-loop rate:
	// Start and MaxRate are then user counts (ramp.max_users), and each
	// step runs its users for LeadS before the StepS it measures.
	Users        bool
	LeadS, StepS float64
}

// Unit is what the ramp's steps count: "req/s", or "users".
func (r *Ramp) Unit() string {
	if r.Users {
		return "users"
	}
	return "req/s"
}

// Defaults of a users ramp's own keys: a lead-in of a few think times (the
// users start spread over their first think) and a step long enough for
// its p99 to rest on hundreds of requests at the first user count.
const (
	DefaultUsersLeadS = 10
	DefaultUsersStepS = 30
	DefaultUsersStart = 10
	DefaultMaxUsers   = 5000
)

// MixEntry is one request of a capacity case's mix, sent in proportion
// to its weight.
type MixEntry struct {
	Name        string
	Method      string
	Path        string
	Body        string
	ContentType string
	Headers     []string
	Weight      int
	// UpstreamDelayMs says the request waits on the mock upstream (the
	// bench then starts it).
	UpstreamDelayMs int
}

// Defaults of a [case.ramp] (studies/README.md).
var rampDefaults = Ramp{P99Ms: 100, ThinkS: 3, Start: 50, Growth: 2, MaxRate: 100000,
	Resolution: 0.1, MaxSteps: 20, TimeoutS: 5, Hold: 0.98, Connections: 1024}

type rampShape struct {
	P99Ms      any `toml:"p99_ms"`
	ThinkS     any `toml:"think_s"`
	Start      any `toml:"start"`
	Growth     any `toml:"growth"`
	MaxRate    any `toml:"max_rate"`
	Resolution any `toml:"resolution"`
	MaxSteps   any `toml:"max_steps"`
	TimeoutS   any `toml:"timeout_s"`
	Hold       any `toml:"hold"`
	Conns      any `toml:"connections"`
	StallRedos any `toml:"stall_redos"`
	MaxUsers   any `toml:"max_users"`
	LeadS      any `toml:"lead_s"`
	StepS      any `toml:"step_s"`
}

type mixShape struct {
	Name            string   `toml:"name"`
	Method          string   `toml:"method"`
	Path            string   `toml:"path"`
	Body            string   `toml:"body"`
	ContentType     string   `toml:"content_type"`
	Headers         []string `toml:"headers"`
	Weight          int      `toml:"weight"`
	UpstreamDelayMs int      `toml:"upstream_delay_ms"`
}

// newRampCase finishes a case that has a [case.ramp] or [[case.mix]]: it
// takes its requests from the mix, so the keys of a single request or of
// a closed loop are refused rather than silently ignored.
func newRampCase(c *Case, cs caseShape, defErrors string) (*Case, error) {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	if cs.Users {
		return newUsersCase(c, cs, defErrors)
	}
	if cs.Ramp == nil {
		return nil, bad("ramp", "missing: a case with [[case.mix]] needs a [case.ramp] (an empty one takes the defaults)")
	}
	if cs.Ramp.MaxUsers != nil || cs.Ramp.LeadS != nil || cs.Ramp.StepS != nil {
		return nil, bad("ramp", "max_users, lead_s and step_s are a users ramp's (users = true)")
	}
	if len(cs.Mix) == 0 {
		return nil, bad("mix", "missing: a case with [case.ramp] needs at least one [[case.mix]] request")
	}
	if key := singleKey(cs); key != "" {
		return nil, bad(key, "not with [case.ramp]: a capacity case takes its requests and rates from [[case.mix]] and the ramp")
	}
	r, err := newRamp(cs.Ramp)
	if err != nil {
		return nil, err
	}
	c.Ramp, c.Method, c.Path = r, "", ""
	c.Errors = cs.Errors
	if c.Errors == "" {
		c.Errors = defErrors
	}
	if c.Errors != "gate" {
		return nil, bad("errors", "%q: a capacity step fails on any error, so a ramp case takes gate only", c.Errors)
	}
	for _, st := range cs.Status {
		if st < 100 || st > 599 {
			return nil, bad("status", "%d is not an HTTP status", st)
		}
	}
	names := map[string]bool{}
	for i, ms := range cs.Mix {
		key := fmt.Sprintf("mix %d", i+1)
		if ms.Name != "" {
			key = fmt.Sprintf("mix %q", ms.Name)
		}
		m := MixEntry{Name: ms.Name, Method: strings.ToUpper(ms.Method), Path: ms.Path, Body: ms.Body,
			ContentType: ms.ContentType, Headers: ms.Headers, Weight: ms.Weight, UpstreamDelayMs: ms.UpstreamDelayMs}
		switch {
		case m.Name == "":
			return nil, bad(key+": name", "missing (every request of the mix needs a name)")
		case !nameRe.MatchString(m.Name):
			return nil, bad(key+": name", "%q: lower-case letters, digits and '-' only", m.Name)
		case names[m.Name]:
			return nil, bad(key, "a second request of the mix with this name")
		case m.Weight < 1 || m.Weight > 1000:
			return nil, bad(key+": weight", "want a whole number from 1 to 1000 (got %d): the request's share of the mix", m.Weight)
		case m.UpstreamDelayMs < 0 || m.UpstreamDelayMs > 10000:
			return nil, bad(key+": upstream_delay_ms", "%d: want 1 to 10000 (the mock's range)", m.UpstreamDelayMs)
		}
		names[m.Name] = true
		if m.Method == "" {
			m.Method = "GET"
		}
		if !oneOf(m.Method, methods) {
			return nil, bad(key+": method", "%q: want one of %s", ms.Method, strings.Join(methods, ", "))
		}
		if err := checkPath(m.Path); err != nil {
			return nil, bad(key+": path", "%v", err)
		}
		for _, h := range m.Headers {
			if k, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(h, "\r\n") {
				return nil, bad(key+": headers", "%q: want \"Name: value\"", h)
			}
		}
		c.Mix = append(c.Mix, m)
	}
	return c, nil
}

// singleKey names the first key of a one-request case that cs sets ("" when
// none): a ramp takes its requests elsewhere.
func singleKey(cs caseShape) string {
	for _, k := range []struct {
		key string
		set bool
	}{
		{"method", cs.Method != ""}, {"path", cs.Path != ""}, {"body", cs.Body != ""},
		{"content_type", cs.ContentType != ""}, {"headers", len(cs.Headers) > 0},
		{"connections", cs.Connections != nil}, {"rate", cs.Rate != nil}, {"fresh_db", cs.FreshDB},
		{"rows", cs.Rows != ""}, {"upstream_delay_ms", cs.UpstreamDelayMs != 0}, {"ceiling", cs.Ceiling},
		{"alone", cs.Alone != ""}, {"companion", cs.Companion != nil}, {"check", cs.Check != nil}, {"session", cs.Session != nil}, {"job_pace", cs.JobPace},
	} {
		if k.set {
			return k.key
		}
	}
	return ""
}

// newUsersCase finishes a case with users = true: a ramp of simulated
// users who walk the study's [[flow]]s (checked against the study once its
// flows are read, checkRamps). Its [case.ramp] counts users: start and
// max_users, with lead_s and step_s; the open loop's keys are refused.
func newUsersCase(c *Case, cs caseShape, defErrors string) (*Case, error) {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	if len(cs.Mix) > 0 {
		return nil, bad("mix", "not with users = true: simulated users send the study's [[flow]]s")
	}
	if key := singleKey(cs); key != "" {
		return nil, bad(key, "not with users = true: simulated users send the study's [[flow]]s")
	}
	rs := cs.Ramp
	if rs == nil {
		rs = &rampShape{}
	}
	for _, k := range []struct {
		key string
		set bool
	}{{"max_rate", rs.MaxRate != nil}, {"think_s", rs.ThinkS != nil}, {"hold", rs.Hold != nil}, {"connections", rs.Conns != nil}} {
		if k.set {
			return nil, bad("ramp."+k.key, "not with users = true: users think as their flows say, and the ramp counts them (start, max_users)")
		}
	}
	shape := *rs
	if shape.Start == nil {
		shape.Start = int64(DefaultUsersStart)
	}
	shape.MaxRate = shape.MaxUsers
	if shape.MaxRate == nil {
		shape.MaxRate = int64(DefaultMaxUsers)
	}
	r, err := newRamp(&shape)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Key = strings.Replace(e.Key, "ramp.max_rate", "ramp.max_users", 1)
			e.Msg = strings.ReplaceAll(e.Msg, "req/s", "users")
		}
		return nil, err
	}
	r.Users, r.ThinkS, r.Hold, r.Connections = true, 0, 0, 0
	r.LeadS, r.StepS = DefaultUsersLeadS, DefaultUsersStepS
	for _, f := range []struct {
		key    string
		v      any
		dst    *float64
		lo, hi float64
	}{{"ramp.lead_s", rs.LeadS, &r.LeadS, 0, 600}, {"ramp.step_s", rs.StepS, &r.StepS, 5, 3600}} {
		if f.v == nil {
			continue
		}
		x, ok := number(f.v)
		if !ok || x < f.lo || x > f.hi || math.IsNaN(x) {
			return nil, bad(f.key, "want a number from %s to %s (seconds), got %v", formatNum(f.lo), formatNum(f.hi), f.v)
		}
		*f.dst = x
	}
	for _, x := range []float64{r.Start, r.MaxRate} {
		if x != math.Trunc(x) || x > 100000 {
			return nil, bad("ramp", "start and max_users want whole numbers of users up to 100000")
		}
	}
	c.Ramp, c.Method, c.Path = r, "", ""
	c.Errors = cs.Errors
	if c.Errors == "" {
		c.Errors = defErrors
	}
	if c.Errors != "gate" {
		return nil, bad("errors", "%q: a users step fails on any failed request or check, so a users case takes gate only", c.Errors)
	}
	if len(cs.Status) > 0 {
		return nil, bad("status", "not with users = true: each flow step says the answers it accepts")
	}
	switch cs.Flows {
	case "", FlowsStudy:
		c.FlowsFrom = FlowsStudy
	case FlowsRoutes:
		c.FlowsFrom = FlowsRoutes
	default:
		return nil, bad("flows", "%q: want %q (the study's [[flow]]s) or %q (one flow a GET case of the study)", cs.Flows, FlowsStudy, FlowsRoutes)
	}
	return c, nil
}

// A users case's flows: the study's [[flow]]s, or one a route.
const (
	FlowsStudy  = "study"
	FlowsRoutes = "routes"
)

// RouteFlows writes one flow a GET case of the study (its routes, as a
// user's own app lists them): the case's request as the flow's one step,
// held to the case's status and its check's body text, each flow of the
// same weight and the default think time. Ramp cases are not routes, nor
// are signed-in ones (a flow signs in with a sign_in step of its own).
func (s *Study) RouteFlows() ([]*Flow, error) {
	var out []*Flow
	for _, c := range s.Cases() {
		if c.Ramp != nil || c.Method != "GET" || c.Session != nil {
			continue
		}
		st := Step{Name: c.Name, Method: c.Method, Path: c.Path, Headers: c.Headers, Status: c.Status}
		if c.Check != nil {
			st.Contains = c.Check.BodyContains
			if c.Check.Status != 0 {
				st.Status = []int{c.Check.Status}
			}
		}
		if len(st.Uses()) > 0 {
			return nil, fmt.Errorf("case %q: its path or a header holds {...}, which a flow's step reads as a value to send", c.Name)
		}
		out = append(out, &Flow{Name: c.Name, Weight: 1, Think: Think{MeanS: DefaultThinkS, Distribution: ThinkExponential}, Steps: []Step{st}})
	}
	if len(out) == 0 {
		return nil, errors.New("the study has no GET case for its users to walk")
	}
	return out, nil
}

func newRamp(rs *rampShape) (*Ramp, error) {
	r := rampDefaults
	for _, f := range []struct {
		key     string
		v       any
		dst     *float64
		lo, hi  float64
		meaning string
	}{
		{"ramp.p99_ms", rs.P99Ms, &r.P99Ms, 0.1, 60000, "milliseconds"},
		{"ramp.think_s", rs.ThinkS, &r.ThinkS, 0, 3600, "seconds"},
		{"ramp.start", rs.Start, &r.Start, 1, 1e6, "req/s"},
		{"ramp.growth", rs.Growth, &r.Growth, 1.1, 10, "a factor"},
		{"ramp.max_rate", rs.MaxRate, &r.MaxRate, 1, 1e6, "req/s"},
		{"ramp.resolution", rs.Resolution, &r.Resolution, 0.005, 1, "a share of the rate"},
		{"ramp.timeout_s", rs.TimeoutS, &r.TimeoutS, 0.1, 600, "seconds"},
		{"ramp.hold", rs.Hold, &r.Hold, 0.5, 1, "a share of the planned requests"},
	} {
		if f.v == nil {
			continue
		}
		x, ok := number(f.v)
		if !ok || x < f.lo || x > f.hi || math.IsNaN(x) {
			return nil, &Error{Key: f.key, Msg: fmt.Sprintf("want a number from %s to %s (%s), got %v", formatNum(f.lo), formatNum(f.hi), f.meaning, f.v)}
		}
		*f.dst = x
	}
	if rs.MaxSteps != nil {
		n, ok := rs.MaxSteps.(int64)
		if !ok || n < 2 || n > 100 {
			return nil, &Error{Key: "ramp.max_steps", Msg: fmt.Sprintf("want a whole number from 2 to 100, got %v", rs.MaxSteps)}
		}
		r.MaxSteps = int(n)
	}
	if rs.Conns != nil {
		n, ok := rs.Conns.(int64)
		if !ok || n < 1 || n > 20000 {
			return nil, &Error{Key: "ramp.connections", Msg: fmt.Sprintf("want a whole number from 1 to 20000, got %v", rs.Conns)}
		}
		r.Connections = int(n)
	}
	if rs.StallRedos != nil {
		n, ok := rs.StallRedos.(int64)
		if !ok || n < 0 || n > 10 {
			return nil, &Error{Key: "ramp.stall_redos", Msg: fmt.Sprintf("want a whole number from 0 to 10 (failed steps measured again a ramp), got %v", rs.StallRedos)}
		}
		r.StallRedos = int(n)
	}
	if r.MaxRate < r.Start {
		return nil, &Error{Key: "ramp.max_rate", Msg: fmt.Sprintf("%s is below ramp.start (%s)", formatNum(r.MaxRate), formatNum(r.Start))}
	}
	return &r, nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// checkRamps applies the rules between a capacity case and the others: no
// case is read against one, nor is one the sampler check.
func (s *Study) checkRamps(path string) error {
	for _, c := range s.Cases() {
		if a := s.Case(c.Alone); a != nil && a.Ramp != nil {
			return &Error{Path: path, Key: fmt.Sprintf("case %q: alone", c.Name), Msg: fmt.Sprintf("%q is a capacity ramp, not one request to read against", c.Alone)}
		}
	}
	for _, c := range s.Cases() {
		if c.Ramp == nil || !c.Ramp.Users {
			continue
		}
		if c.FlowsFrom == FlowsRoutes {
			fl, err := s.RouteFlows()
			if err != nil {
				return &Error{Path: path, Key: fmt.Sprintf("case %q: flows", c.Name), Msg: err.Error()}
			}
			c.Flows = fl
			continue
		}
		if len(s.Flows) == 0 {
			return &Error{Path: path, Key: fmt.Sprintf("case %q: users", c.Name), Msg: "the study has no [[flow]] for its users to walk (or flows = \"routes\": one a GET case)"}
		}
		c.Flows = s.Flows
	}
	if c := s.Case(s.SamplerCheck); c != nil && c.Ramp != nil {
		return &Error{Path: path, Key: "sampler_check", Msg: fmt.Sprintf("%q is a capacity ramp; name a case with one window", c.Name)}
	}
	return nil
}

// HasRamp tells whether any case of the study is a capacity ramp.
func (s *Study) HasRamp() bool {
	for _, c := range s.Cases() {
		if c.Ramp != nil {
			return true
		}
	}
	return false
}

// Cycle is the lane's requests as the generator sends them: each
// repeated in proportion to its weight (weights divided by their greatest
// common divisor), interleaved by smooth weighted round-robin so that no
// request comes in a burst. The same mix gives the same cycle.
func (l Lane) Cycle() []MixEntry {
	g := 0
	for _, m := range l.Mix {
		g = gcd(g, m.Weight)
	}
	if g == 0 {
		return nil
	}
	total := 0
	for _, m := range l.Mix {
		total += m.Weight / g
	}
	cur := make([]int, len(l.Mix))
	out := make([]MixEntry, 0, total)
	for range total {
		best := 0
		for i, m := range l.Mix {
			cur[i] += m.Weight / g
			if cur[i] > cur[best] {
				best = i
			}
		}
		cur[best] -= total
		out = append(out, l.Mix[best])
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Lane is the part of a mix that shares one latency floor: the requests
// that wait on the mock upstream for the same delay. Each lane is its own
// generator process at its share of the rate, with its own latency
// distribution, so that a request that must wait 100 ms for the upstream
// is held to the target plus that wait, and does not by itself push the
// p99 of the rest over the target (5% of a mix at ≥ 100 ms would put its
// p99 at ≥ 100 ms at any rate).
type Lane struct {
	// Name is "main" for the lane without an upstream wait, else
	// "wait<ms>": it names the lane's raw files (step-NN.json for main,
	// else step-NN.<name>.json).
	Name    string
	DelayMs int
	Weight  int // the lane's requests' total weight
	Share   float64
	Mix     []MixEntry
}

// TargetMs is the lane's p99 target: the ramp's plus the lane's wait.
func (l Lane) TargetMs(r *Ramp) float64 { return r.P99Ms + float64(l.DelayMs) }

// Lanes splits the mix by upstream delay, the lane without one first.
func (c *Case) Lanes() []Lane {
	var out []Lane
	total := 0
	for _, m := range c.Mix {
		total += m.Weight
	}
	for _, m := range c.Mix {
		i := 0
		for i < len(out) && out[i].DelayMs != m.UpstreamDelayMs {
			i++
		}
		if i == len(out) {
			name := "main"
			if m.UpstreamDelayMs > 0 {
				name = fmt.Sprintf("wait%d", m.UpstreamDelayMs)
			}
			out = append(out, Lane{Name: name, DelayMs: m.UpstreamDelayMs})
		}
		out[i].Mix = append(out[i].Mix, m)
		out[i].Weight += m.Weight
	}
	for i := range out {
		out[i].Share = float64(out[i].Weight) / float64(total)
	}
	sortLanes(out)
	return out
}

func sortLanes(l []Lane) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].DelayMs < l[j-1].DelayMs; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// Lane finds a lane by name.
func (c *Case) Lane(name string) (Lane, bool) {
	for _, l := range c.Lanes() {
		if l.Name == name {
			return l, true
		}
	}
	return Lane{}, false
}

// Rate is the lane's share of a step's total rate, in the tenths of a
// request per second the generator is asked for (at least 0.1 req/s).
func (l Lane) Rate(total float64) float64 {
	return math.Max(1, math.Round(total*l.Share*10)) / 10
}
