// Package k6script writes the k6 script for a study's flows (study.Flow):
// closed users, each picking a flow by weight, sending its steps in order
// with a think time after each, checking every answer with k6's check()
// and taking the values later steps send from earlier answers. It is the
// one owner of the generated script's format; the study stays the one
// owner of what is sent, and no study has a script written by hand.
//
// The script is data and one fixed runner: FLOWS holds the study's flows
// as JSON, so a golden file shows a study's change as a change of data.
package k6script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"stacklab/analysis/study"
	"stacklab/formats/k6summary"
)

// Stage is one stage of a ramping-vus executor: reach Target users over
// Duration.
type Stage struct {
	Duration time.Duration
	Target   int
}

// Options are what a script takes besides the flows: the app's address,
// the executor (constant-vus when Stages is empty, else ramping-vus) and
// the users' random seed.
type Options struct {
	Study string // the study's name, for the script's first line
	URL   string // http://127.0.0.1:PORT, the only target the lab sends to
	// VUs and Duration make a constant-vus executor.
	VUs      int
	Duration time.Duration
	// StartVUs and Stages make a ramping-vus executor.
	StartVUs int
	Stages   []Stage
	// TimeoutS is each request's timeout in seconds (0: k6's own, 60 s).
	TimeoutS float64
	// Seed seeds every user's random numbers (flow, {user_id}, think
	// time), so the same seed and user count send the same sequence.
	Seed uint32
	// LeadS and MeasureS make a users step (constant-vus, no Duration):
	// the users run LeadS, then the MeasureS the step is read from, then
	// a tail of TailS; each request is tagged with the phase it was sent
	// in and the summary, written to the file $LAB_K6_SUMMARY names,
	// keeps the measured phase apart (formats/k6summary).
	LeadS, MeasureS float64
}

// TailS is how long a users step runs after its measured span: a request's
// timeout and a second, so that every request sent in the span has its
// answer or its timeout before k6 stops the users (gracefulStop 0s).
func TailS(timeoutS float64) float64 {
	if timeoutS <= 0 {
		timeoutS = 60 // k6's own
	}
	return timeoutS + 1
}

// SummaryEnv names the environment variable that tells a users step's
// script where to write k6's end-of-test summary.
const SummaryEnv = "LAB_K6_SUMMARY"

func (o Options) phases() bool { return o.MeasureS > 0 }

// MaxVUs is the most users a script may hold.
const MaxVUs = 100000

var urlRe = regexp.MustCompile(`^http://127\.0\.0\.1:([0-9]{1,5})$`)

func (o Options) check() error {
	m := urlRe.FindStringSubmatch(o.URL)
	if m == nil {
		return fmt.Errorf("url %q: the lab targets http://127.0.0.1:PORT only", o.URL)
	}
	if p, _ := strconv.Atoi(m[1]); p < 1 || p > 65535 {
		return fmt.Errorf("url %q: port %d is not a TCP port", o.URL, p)
	}
	if o.TimeoutS < 0 || o.TimeoutS > 600 {
		return fmt.Errorf("timeout %v s: want 0 (k6's own) to 600", o.TimeoutS)
	}
	if o.phases() || o.LeadS != 0 {
		switch {
		case o.LeadS < 0 || o.LeadS > 3600 || o.MeasureS < 1 || o.MeasureS > 3600:
			return fmt.Errorf("a users step wants a lead-in of 0 to 3600 s and a measured span of 1 to 3600 s (got %v and %v)", o.LeadS, o.MeasureS)
		case len(o.Stages) > 0 || o.Duration != 0:
			return fmt.Errorf("a users step's length is its lead-in, measured span and tail: no duration or stages")
		case o.VUs < 1 || o.VUs > MaxVUs:
			return fmt.Errorf("a users step: want 1 to %d users (got %d)", MaxVUs, o.VUs)
		}
		return nil
	}
	if len(o.Stages) == 0 {
		switch {
		case o.VUs < 1 || o.VUs > MaxVUs:
			return fmt.Errorf("constant-vus: want 1 to %d users (got %d)", MaxVUs, o.VUs)
		case o.Duration < time.Second:
			return fmt.Errorf("constant-vus: want a duration of 1 s or more (got %s)", o.Duration)
		case o.StartVUs != 0:
			return fmt.Errorf("start users apply to stages (ramping-vus) only")
		}
		return nil
	}
	if o.VUs != 0 || o.Duration != 0 {
		return fmt.Errorf("give users and a duration (constant-vus) or stages (ramping-vus), not both")
	}
	if o.StartVUs < 0 || o.StartVUs > MaxVUs {
		return fmt.Errorf("ramping-vus: start users want 0 to %d (got %d)", MaxVUs, o.StartVUs)
	}
	for i, s := range o.Stages {
		if s.Duration < 0 || s.Target < 0 || s.Target > MaxVUs {
			return fmt.Errorf("stage %d: want a duration of 0 or more and 0 to %d users", i+1, MaxVUs)
		}
	}
	return nil
}

// The flows as the script's FLOWS holds them.
type flowJS struct {
	Name   string   `json:"name"`
	Weight int      `json:"weight"`
	Think  thinkJS  `json:"think"`
	Users  []int    `json:"users"` // [first, last] of {user_id}, or null
	Steps  []stepJS `json:"steps"`
}

type thinkJS struct {
	MeanS        float64 `json:"mean_s"`
	Distribution string  `json:"distribution"`
	CapS         float64 `json:"cap_s"` // the exponential's cut (the mean for constant)
}

type stepJS struct {
	Name    string            `json:"name"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Body    *string           `json:"body"` // null: no body
	Form    bool              `json:"form"` // values in the body are form-escaped
	Headers map[string]string `json:"headers"`
	Status  []int             `json:"status"` // empty: any 2xx
	Text    string            `json:"contains"`
	Capture [][2]string       `json:"capture"` // [name, regex] pairs
}

// Write returns the k6 script for flows under o.
func Write(flows []*study.Flow, o Options) ([]byte, error) {
	if len(flows) == 0 {
		return nil, fmt.Errorf("the study has no [[flow]]")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	data := make([]flowJS, 0, len(flows))
	for _, f := range flows {
		fj := flowJS{Name: f.Name, Weight: f.Weight, Think: thinkJS{MeanS: f.Think.MeanS, Distribution: f.Think.Distribution, CapS: f.Think.MeanS}}
		if f.Think.Distribution == study.ThinkExponential {
			fj.Think.CapS = study.ThinkCap * f.Think.MeanS
		}
		if f.UserIDs != nil {
			fj.Users = []int{f.UserIDs.From, f.UserIDs.To}
		}
		for _, st := range f.Steps {
			// No compression, as with oha and vegeta.
			h := map[string]string{"Accept-Encoding": "identity"}
			if st.ContentType != "" {
				h["Content-Type"] = st.ContentType
			}
			for _, line := range st.Headers {
				k, v, _ := strings.Cut(line, ":")
				k, v = http.CanonicalHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v)
				if h[k] != "" && k != "Accept-Encoding" {
					v = h[k] + ", " + v
				}
				h[k] = v
			}
			sj := stepJS{Name: st.Name, Method: st.Method, Path: st.Path, Headers: h, Status: st.Status,
				Text: st.Contains, Form: strings.HasPrefix(st.ContentType, study.FormContentType), Capture: [][2]string{}}
			if st.Body != "" || (st.Method != "GET" && st.Method != "HEAD") {
				b := st.Body
				sj.Body = &b
			}
			if sj.Status == nil {
				sj.Status = []int{}
			}
			for _, c := range st.Captures {
				sj.Capture = append(sj.Capture, [2]string{c.Name, c.Regex})
			}
			fj.Steps = append(fj.Steps, sj)
		}
		data = append(data, fj)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// The k6 script for the flows of study %s, written by bench/k6script (plan k6):\n", strings.ReplaceAll(o.Study, "\n", " "))
	fmt.Fprintf(&b, "// the study is the one owner of what is sent; do not edit this file.\n")
	b.WriteString("import http from 'k6/http';\nimport { check, sleep } from 'k6';\n")
	if o.phases() {
		b.WriteString("import exec from 'k6/execution';\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "const BASE = %s;\nconst SEED = %d;\n", jsString(o.URL), o.Seed)
	if o.TimeoutS > 0 {
		fmt.Fprintf(&b, "const TIMEOUT = %s;\n", jsString(strconv.FormatFloat(o.TimeoutS, 'f', -1, 64)+"s"))
	} else {
		b.WriteString("const TIMEOUT = null; // k6's own\n")
	}
	if o.phases() {
		// Milliseconds from the scenario's start: a request sent before
		// LEAD_MS is the lead-in's, from END_MS on the tail's.
		fmt.Fprintf(&b, "const LEAD_MS = %d;\nconst END_MS = %d;\nconst SUMMARY = __ENV.%s;\n",
			int64(math.Round(o.LeadS*1000)), int64(math.Round((o.LeadS+o.MeasureS)*1000)), SummaryEnv)
	}
	b.WriteString("\nexport const options = {\n  scenarios: {\n    users: {\n")
	if o.phases() {
		run := time.Duration(math.Round((o.LeadS + o.MeasureS + TailS(o.TimeoutS)) * float64(time.Second)))
		fmt.Fprintf(&b, "      executor: 'constant-vus',\n      vus: %d,\n      duration: %s,\n      gracefulStop: '0s',\n", o.VUs, jsString(run.String()))
	} else if len(o.Stages) == 0 {
		fmt.Fprintf(&b, "      executor: 'constant-vus',\n      vus: %d,\n      duration: %s,\n", o.VUs, jsString(o.Duration.String()))
	} else {
		fmt.Fprintf(&b, "      executor: 'ramping-vus',\n      startVUs: %d,\n      stages: [\n", o.StartVUs)
		for _, s := range o.Stages {
			fmt.Fprintf(&b, "        { duration: %s, target: %d },\n", jsString(s.Duration.String()), s.Target)
		}
		b.WriteString("      ],\n")
	}
	b.WriteString("    },\n  },\n" + optionsTail)
	if o.phases() {
		// A threshold on each measured submetric makes k6 summarize it
		// apart; none can fail.
		stats, _ := json.Marshal(k6summary.TrendStats)
		fmt.Fprintf(&b, "  summaryTrendStats: %s,\n  thresholds: {\n", strings.ReplaceAll(string(stats), ",", ", "))
		for _, t := range [][2]string{{k6summary.Reqs, "count>=0"}, {k6summary.Duration, "max>=0"}, {k6summary.Failed, "rate>=0"}, {k6summary.Checks, "rate>=0"}} {
			fmt.Fprintf(&b, "    %s: [%s],\n", jsString(k6summary.Measured(t[0])), jsString(t[1]))
		}
		// Each flow's requests apart too: the guard holds a flow (an own
		// app's route, with flows = "routes") as it holds a case.
		for _, f := range flows {
			for _, t := range [][2]string{{k6summary.Reqs, "count>=0"}, {k6summary.Duration, "max>=0"}, {k6summary.Failed, "rate>=0"}} {
				fmt.Fprintf(&b, "    %s: [%s],\n", jsString(k6summary.MeasuredFlow(t[0], f.Name)), jsString(t[1]))
			}
		}
		b.WriteString("  },\n")
	}
	b.WriteString("};\n\n")
	b.WriteString("const FLOWS = [\n")
	for _, fj := range data {
		steps := fj.Steps
		fj.Steps = nil
		head := compact(fj)
		// The flow's fields, then its steps one a line.
		fmt.Fprintf(&b, "  %s\"steps\": [\n", strings.TrimSuffix(head, "\"steps\":null}"))
		for i, st := range steps {
			sep := ","
			if i == len(steps)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "    %s%s\n", compact(st), sep)
		}
		b.WriteString("  ]},\n")
	}
	b.WriteString("];\n")
	if o.phases() {
		b.WriteString(phased)
	} else {
		b.WriteString(unphased)
	}
	b.WriteString(runner)
	if o.phases() {
		b.WriteString(summary)
	}
	return b.Bytes(), nil
}

// compact is v as one line of JSON, which JavaScript reads as a literal;
// the HTML characters stay as written.
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings, numbers and slices only
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsString is s as a JavaScript string literal (JSON's, which escapes
// U+2028 and U+2029 too).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// optionsTail: a 303 is an answer to check, not a page to follow; bodies
// are kept only for a step that checks or captures from one (runner).
const optionsTail = `  maxRedirects: 0,
  discardResponseBodies: true,
`

// phased and unphased say which phase of a users step a request is sent
// in (k6summary's tag values), or that the script has none.
const phased = `
function phaseNow() {
  const t = Date.now() - exec.scenario.startTime;
  return t < LEAD_MS ? '` + k6summary.Lead + `' : t < END_MS ? '` + k6summary.Measure + `' : '` + k6summary.After + `';
}
`

const unphased = `
function phaseNow() {
  return null;
}
`

// summary hands k6's end-of-test data to the file the bench names, as k6
// made it: the step's raw record.
const summary = `
export function handleSummary(data) {
  if (!SUMMARY) return { stdout: JSON.stringify(data) + '\n' };
  return { [SUMMARY]: JSON.stringify(data) };
}
`

// runner is the script's fixed part: it walks FLOWS.
const runner = `
const TOTAL = FLOWS.reduce((sum, f) => sum + f.weight, 0);

// Each user's random numbers come from its own xorshift32 seeded by SEED
// and the user's number, so a run's flows, ids and pauses repeat.
let state = 0;
function random() {
  if (state === 0) {
    state = (Math.imul(SEED, 0x9e3779b1) ^ Math.imul(__VU, 0x85ebca6b)) >>> 0 || 1;
  }
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
}

function pick() {
  let r = random() * TOTAL;
  for (const f of FLOWS) {
    r -= f.weight;
    if (r < 0) return f;
  }
  return FLOWS[FLOWS.length - 1];
}

// think is the pause after a step: the mean, or an exponential draw cut
// at cap_s.
function think(t) {
  if (t.distribution === 'constant') return t.mean_s;
  return Math.min(-t.mean_s * Math.log(1 - random()), t.cap_s);
}

function fill(text, values, escape) {
  return text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name) => escape(values[name]));
}

function asIs(v) {
  return String(v);
}

// A value taken from an HTML answer is the one a browser would send: its
// character references decoded (a template may write '/' as &#x2F;).
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function unescapeHTML(s) {
  return s.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g, (ref, e) => {
    if (e[0] !== '#') return ENTITIES[e];
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : ref;
  });
}

// send makes one step's request and checks its answer; it returns false
// when a check failed (the flow stops: a later step may need what this
// one did not get).
function send(flow, step, values) {
  const headers = {};
  for (const k of Object.keys(step.headers)) headers[k] = fill(step.headers[k], values, asIs);
  const tags = { name: step.name, flow: flow.name };
  const phase = phaseNow();
  if (phase !== null) tags.phase = phase;
  const params = {
    headers: headers,
    tags: tags,
    responseType: step.contains !== '' || step.capture.length > 0 ? 'text' : 'none',
  };
  if (TIMEOUT !== null) params.timeout = TIMEOUT;
  const body = step.body === null ? null : fill(step.body, values, step.form ? encodeURIComponent : asIs);
  const res = http.request(step.method, BASE + fill(step.path, values, encodeURIComponent), body, params);
  const label = flow.name + ': ' + step.name + ': ';
  const checks = {};
  if (step.status.length === 0) {
    checks[label + 'status 2xx'] = (r) => r.status >= 200 && r.status < 300;
  } else {
    checks[label + 'status ' + step.status.join(' or ')] = (r) => step.status.includes(r.status);
  }
  if (step.contains !== '') {
    checks[label + 'body holds ' + JSON.stringify(step.contains)] = (r) => typeof r.body === 'string' && r.body.includes(step.contains);
  }
  const html = String(res.headers['Content-Type'] || '').startsWith('text/html');
  for (const [name, re] of step.capture) {
    const m = typeof res.body === 'string' ? new RegExp(re).exec(res.body) : null;
    const got = m === null ? undefined : m.slice(1).find((g) => g !== undefined);
    if (got !== undefined) values[name] = html ? unescapeHTML(got) : got;
    checks[label + 'captures ' + name] = () => got !== undefined;
  }
  const checkTags = { flow: flow.name };
  if (phase !== null) checkTags.phase = phase;
  return check(res, checks, checkTags);
}

export default function () {
  const flow = pick();
  if (__ITER === 0) {
    // Users that start together would otherwise send in step.
    sleep(random() * flow.think.mean_s);
  }
  const values = {};
  if (flow.users !== null) {
    values.user_id = flow.users[0] + Math.floor(random() * (flow.users[1] - flow.users[0] + 1));
  }
  for (const step of flow.steps) {
    const ok = send(flow, step, values);
    sleep(think(flow.think));
    if (!ok) return;
  }
}
`
