// Package study reads a study file (studies/*.toml): its cases, sweeps,
// variants and checks. It is the one owner of the format: the bench asks
// bench/plan, which uses this package, what to run, and analysis reads
// the copy of the study that the manifest holds. studies/README.md
// documents every key.
package study

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"stacklab/analysis/stackenv"
	"stacklab/formats/seedsize"
)

// Error is a fault in a study file, worded for one line: the file, where,
// and what is wrong.
type Error struct {
	Path string
	Line int    // 0 when not known
	Key  string // the key at fault, as a reader would find it
	Msg  string
}

func (e *Error) Error() string {
	s := e.Path
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// Study is a study file read, its includes resolved and checked.
type Study struct {
	Name string // the file's base name without .toml
	Path string // as given
	Text []byte // the file's bytes
	// Files are the study's own file and those it includes, in that
	// order: what the manifest keeps, so analysis and a re-run read the
	// study as it was measured.
	Files       []File
	Description string
	Sections    []Section
	Stacks      []string // rows asked for (stacks and variants); empty: every stack
	// Lead is the row measured first (Rows puts it first), so that a
	// first look opens on a row whose numbers mean something ("": the
	// rows in their order).
	Lead      string
	StacksDir string // an extra folder of stack folders, resolved against the file's folder
	Variants  []Variant
	// SamplerCheck is the window measured a second time without the cgroup
	// sampler, once per run, to show what watching costs ("" for none).
	SamplerCheck string
	// PairedCheck is what the paired profile's slice beside each measured
	// one of SamplerCheck runs without: "all" (every instrument: the
	// sampler, oha's store of every answer, the hiccup meters; "" too),
	// "timeline" (oha's store and the hiccup meters, the sampler on) or
	// "hiccup" (the hiccup meters alone).
	PairedCheck string
	// SelfTest names the rows of an A/A self-test (nil: not one).
	SelfTest *SelfTest
	// Guard is the margins analysis/guard holds each route to (guard.go):
	// the study's [guard], else DefaultGuard.
	Guard Guard
	// Size makes it a size study (size.go): code, dependencies, builds and
	// artifacts per stack instead of load cases.
	Size *Size
	// Flows are simulated users' flows (flow.go), in the file's order.
	Flows []*Flow
	// Seed is the size of the seed every session starts from: the study's
	// [seed], else seedsize.Default.
	Seed seedsize.Size
}

// SelfTest is a study that measures the lab itself: A and Twin are the
// same image under two names, so any difference the comparison flags
// between them is a false positive; each Planted row is A with a slowdown
// of known size, which the comparison should flag.
type SelfTest struct {
	A, Twin string
	Planted []string
	// Pause is the row that stops answering for a fixed time at a fixed
	// period (SELFTEST_PAUSE_MS, SELFTEST_PAUSE_EVERY_MS): the summary
	// must find that pause in its latency timelines; "" when the study
	// plants none.
	Pause string
}

// Section is one study's cases: the including study's own, or an included one.
type Section struct {
	Name  string
	Cases []*Case
}

// Case is one kind of request and how it is measured.
type Case struct {
	Name        string
	Method      string
	Path        string
	Body        string
	ContentType string
	Headers     []string
	// Connections are the closed-loop connection counts, one window each
	// (nil: the study's, else the host profile's default).
	Connections []int
	// Rates are open-loop arrival rates in req/s (nil: closed loop).
	Rates   []float64
	FreshDB bool
	// Rows names a table whose row gain over the window must equal the 2xx
	// count ("" for no such check).
	Rows string
	// Status lists the answers that count as good (nil: any 2xx).
	Status []int
	// Errors is "gate" (any other answer fails the summary) or "report"
	// (the error rate is a result column and the gate passes).
	Errors string
	// UpstreamDelayMs is the mock upstream's delay each request waits on:
	// with it the summary shows the Little's-law ceiling.
	UpstreamDelayMs int
	// Ceiling asks for oha straight at the mock upstream with the same
	// connections, once per run and setting.
	Ceiling bool
	// Alone names the case this one is read against (the same request
	// without the companion load).
	Alone     string
	Companion *Companion
	Check     *Check
	// Session signs the load in through the app before the window
	// (docs/app.md, "Signed-in routes"; nil: anonymous requests).
	Session *Session
	// JobPace measures the app's worker (docs/app.md): the audit rows it
	// wrote from the window's start to JobPaceAfterS after its end, and the
	// jobs left then.
	JobPace bool
	// Ramp and Mix make the case a capacity ramp (ramp.go): an open-loop
	// request mix whose rate the bench steps up until p99 passes a target.
	Ramp *Ramp
	Mix  []MixEntry
	// Flows are a users case's flows (Ramp.Users): the study's, which its
	// users walk, or with FlowsFrom "routes" one a route (RouteFlows).
	Flows     []*Flow
	FlowsFrom string
}

// Companion is a second load during the window (e.g. writers capped at a
// rate while the case's own requests read).
type Companion struct {
	Method      string
	Path        string
	Body        string
	ContentType string
	Connections int
	Rate        float64
}

// Session is how a case's load signs in: before the window the lab's
// browser GETs /sign_in and, with SignIn, posts the form with these
// credentials; every request then carries its cookies as one Cookie
// header, and {csrf_token} in the body becomes the form's token. Per is
// "row": one session for the row's whole window (oha sends one header to
// every connection).
type Session struct {
	Email    string
	Password string
	SignIn   bool
	Per      string
}

// JobPaceAfterS is how long after a window the job pace keeps counting
// (the twin report's 10 s).
const JobPaceAfterS = 10

// TokenPlaceholder is what a body writes where the form's CSRF token goes.
const TokenPlaceholder = "{csrf_token}"

// Check is a response check made once per stack before measuring, as the
// docs/app.md verifier does for the lab's own stacks.
type Check struct {
	Status       int
	ContentType  string
	BodyContains string
}

// Variant is a stack run under other environment, or built with other
// build arguments (its own image): its own row.
type Variant struct {
	Stack string
	Name  string
	Env   map[string]string
	// Build is the environment the stack's build-image gets (names the
	// stack's BUILD_ARGS declares); empty: the stack's own image.
	Build map[string]string
	// Slots overrides the stack's REQUEST_SLOTS (0: keep the stack's).
	Slots int
	// Database is the row's database: "" (the stack's SQLite file) or
	// "postgres" (the lab's Postgres server role, docs/postgres.md).
	Database string
}

// Databases a row may run on: SQLite (the default) and the lab's Postgres.
const (
	DatabaseSQLite   = "sqlite"
	DatabasePostgres = "postgres"
)

// RunsOn is nil when the stack runs on database db (its DATABASES; one that
// states none runs on SQLite alone), else the one line saying it does not.
func RunsOn(s *stackenv.Stack, db string) error {
	dbs := s.Words("DATABASES")
	if len(dbs) == 0 {
		dbs = []string{DatabaseSQLite}
	}
	if slices.Contains(dbs, db) {
		return nil
	}
	return &stackenv.Error{Msg: fmt.Sprintf("stacks/%s does not run on %s (DATABASES in its stack.env: %s)", s.Name, db, s.Values["DATABASES"])}
}

// DatabaseOf is the database a row runs on: "sqlite" unless its variant
// names "postgres".
func (s *Study) DatabaseOf(row string) string {
	if v := s.Variant(row); v != nil && v.Database != "" {
		return v.Database
	}
	return DatabaseSQLite
}

// Row is the name a variant's row gets: stack[name].
func (v Variant) Row() string { return v.Stack + "[" + v.Name + "]" }

// Window is one measured setting of a case: the unit the bench runs and
// analysis reads (raw/run-N/<stack>/<window id>.json).
type Window struct {
	ID          string
	Case        *Case
	Connections int
	Rate        float64 // 0: closed loop
	// Setting says what distinguishes this window from the case's others
	// ("" when the case has one window).
	Setting string
}

// File is one study file's name (without .toml) and bytes.
type File struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Hash is the sha256 over the study's files (name, NUL, text, NUL each),
// as the manifest records it.
func (s *Study) Hash() string {
	return HashFiles(s.Files)
}

// HashFiles is Hash for files held elsewhere (a manifest's copy).
func HashFiles(files []File) string {
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Name + "\x00" + f.Text + "\x00"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// FromFiles parses a study from a manifest's copy of its files: the first
// is the study, the rest what it includes.
func FromFiles(where string, files []File) (*Study, error) {
	if len(files) == 0 {
		return nil, &Error{Path: where, Msg: "no study files"}
	}
	return Parse(files[0].Name+".toml", []byte(files[0].Text), func(name string) (string, []byte, error) {
		for _, f := range files[1:] {
			if f.Name == name {
				return f.Name + ".toml", []byte(f.Text), nil
			}
		}
		return "", nil, fmt.Errorf("not in %s", where)
	})
}

// Cases lists every case, section by section.
func (s *Study) Cases() []*Case {
	var out []*Case
	for _, sec := range s.Sections {
		out = append(out, sec.Cases...)
	}
	return out
}

// Case finds a case by name (nil when there is none).
func (s *Study) Case(name string) *Case {
	for _, c := range s.Cases() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Windows expands every case into its windows, in the file's order;
// defaultConns is the host profile's connection count.
func (s *Study) Windows(defaultConns int) []Window {
	var out []Window
	for _, c := range s.Cases() {
		out = append(out, c.Windows(defaultConns)...)
	}
	return out
}

// Windows expands c: one per connection count and rate.
func (c *Case) Windows(defaultConns int) []Window {
	conns := c.Connections
	if len(conns) == 0 {
		conns = []int{defaultConns}
	}
	rates := c.Rates
	if len(rates) == 0 {
		rates = []float64{0}
	}
	var out []Window
	for _, n := range conns {
		for _, r := range rates {
			w := Window{ID: c.Name, Case: c, Connections: n, Rate: r}
			var parts, words []string
			if len(c.Connections) > 1 {
				parts = append(parts, "c"+strconv.Itoa(n))
				words = append(words, strconv.Itoa(n)+" connections")
			}
			if len(c.Rates) > 1 {
				parts = append(parts, "r"+formatNum(r))
				words = append(words, formatNum(r)+" req/s")
			}
			if len(parts) > 0 {
				w.ID += "-" + strings.Join(parts, "-")
				w.Setting = strings.Join(words, ", ")
			}
			out = append(out, w)
		}
	}
	return out
}

// Window finds a window by id (false when the study has none).
func (s *Study) Window(id string, defaultConns int) (Window, bool) {
	for _, w := range s.Windows(defaultConns) {
		if w.ID == id {
			return w, true
		}
	}
	return Window{}, false
}

// Variant finds the variant whose row is name (nil for a plain stack).
func (s *Study) Variant(row string) *Variant {
	for i := range s.Variants {
		if s.Variants[i].Row() == row {
			return &s.Variants[i]
		}
	}
	return nil
}

// ExtraStackDirs is where the study's stack folders are looked for after
// the lab's stacks/: its stacks_dir, then extra (a test's fixture stacks,
// the bench's LAB_EXTRA_STACKS), each when there is one.
func (s *Study) ExtraStackDirs(extra string) []string {
	var out []string
	for _, d := range []string{s.StacksDir, extra} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// StackOf is the stack folder a row runs: the row itself, or a variant's stack.
func (s *Study) StackOf(row string) string {
	if v := s.Variant(row); v != nil {
		return v.Stack
	}
	return row
}

// Good tells whether an answer with this status counts as good for c.
func (c *Case) Good(status int) bool { return goodStatus(c.Status, status) }

// goodStatus is the one rule for a case's and a flow step's good answers:
// one of the listed statuses, or any 2xx when none is listed.
func goodStatus(listed []int, status int) bool {
	if len(listed) == 0 {
		return status >= 200 && status < 300
	}
	return slices.Contains(listed, status)
}

func formatNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// The file's shape, as a reader writes it. Every key is documented in
// studies/README.md; an unknown key is refused.
type fileShape struct {
	Description  string         `toml:"description"`
	Include      []string       `toml:"include"`
	Stacks       []string       `toml:"stacks"`
	Lead         string         `toml:"lead"`
	StacksDir    string         `toml:"stacks_dir"`
	Connections  any            `toml:"connections"`
	Errors       string         `toml:"errors"`
	SamplerCheck string         `toml:"sampler_check"`
	PairedCheck  string         `toml:"paired_check"`
	Cases        []caseShape    `toml:"case"`
	Variants     []variantShape `toml:"variant"`
	SelfTest     *selftestShape `toml:"selftest"`
	Guard        *guardShape    `toml:"guard"`
	Size         *sizeShape     `toml:"size"`
	Flows        []flowShape    `toml:"flow"`
	Seed         *seedShape     `toml:"seed"`
}

// seedShape is a study's [seed]: any of the seed's counts (docs/app.md,
// "Schema and seed"); the others keep their default.
type seedShape struct {
	Items         *int `toml:"items"`
	Events        *int `toml:"events"`
	Users         *int `toml:"users"`
	OrdersPerUser *int `toml:"orders_per_user"`
}

type selftestShape struct {
	A       string   `toml:"a"`
	Twin    string   `toml:"twin"`
	Planted []string `toml:"planted"`
	Pause   string   `toml:"pause"`
}

type caseShape struct {
	Name            string          `toml:"name"`
	Method          string          `toml:"method"`
	Path            string          `toml:"path"`
	Body            string          `toml:"body"`
	ContentType     string          `toml:"content_type"`
	Headers         []string        `toml:"headers"`
	Connections     any             `toml:"connections"`
	Rate            any             `toml:"rate"`
	FreshDB         bool            `toml:"fresh_db"`
	Rows            string          `toml:"rows"`
	Status          []int           `toml:"status"`
	Errors          string          `toml:"errors"`
	UpstreamDelayMs int             `toml:"upstream_delay_ms"`
	Ceiling         bool            `toml:"ceiling"`
	Alone           string          `toml:"alone"`
	Companion       *companionShape `toml:"companion"`
	Check           *checkShape     `toml:"check"`
	Session         *sessionShape   `toml:"session"`
	JobPace         bool            `toml:"job_pace"`
	Ramp            *rampShape      `toml:"ramp"`
	Mix             []mixShape      `toml:"mix"`
	Users           bool            `toml:"users"`
	Flows           string          `toml:"flows"`
}

type sessionShape struct {
	Email    string `toml:"email"`
	Password string `toml:"password"`
	SignIn   *bool  `toml:"sign_in"`
	Per      string `toml:"per"`
}

type companionShape struct {
	Method      string  `toml:"method"`
	Path        string  `toml:"path"`
	Body        string  `toml:"body"`
	ContentType string  `toml:"content_type"`
	Connections int     `toml:"connections"`
	Rate        float64 `toml:"rate"`
}

type checkShape struct {
	Status       int    `toml:"status"`
	ContentType  string `toml:"content_type"`
	BodyContains string `toml:"body_contains"`
}

type variantShape struct {
	Stack    string            `toml:"stack"`
	Name     string            `toml:"name"`
	Env      map[string]string `toml:"env"`
	Build    map[string]string `toml:"build"`
	Slots    int               `toml:"slots"`
	Database string            `toml:"database"`
}

// Load reads the study file at path, and the studies it includes from the
// same folder.
func Load(path string) (*Study, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &Error{Path: path, Msg: "no such study file"}
	}
	if err != nil {
		return nil, &Error{Path: path, Msg: err.Error()}
	}
	dir := filepath.Dir(path)
	return Parse(path, b, func(name string) (string, []byte, error) {
		p := filepath.Join(dir, name+".toml")
		b, err := os.ReadFile(p)
		return p, b, err
	})
}

// Includer reads an included study by name: its path and bytes.
type Includer func(name string) (string, []byte, error)

var (
	nameRe     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	variantRe  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	stackRe    = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	envKeyRe   = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	tableRe    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	methods    = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}
	errorModes = []string{"gate", "report"}
)

// Parse reads a study held in memory; path names it in errors and gives
// its name. include reads included studies (nil: the study may include none).
func Parse(path string, b []byte, include Includer) (*Study, error) {
	f, err := decode(path, b)
	if err != nil {
		return nil, err
	}
	s := &Study{
		Name: strings.TrimSuffix(filepath.Base(path), ".toml"), Path: path, Text: b,
		Description: f.Description, Stacks: f.Stacks,
		Files: []File{{Name: strings.TrimSuffix(filepath.Base(path), ".toml"), Text: string(b)}},
	}
	s.Seed = seedsize.Default
	if z := f.Seed; z != nil {
		for _, c := range []struct {
			v   *int
			dst *int
		}{{z.Items, &s.Seed.Items}, {z.Events, &s.Seed.Events}, {z.Users, &s.Seed.Users}, {z.OrdersPerUser, &s.Seed.OrdersPerUser}} {
			if c.v != nil {
				*c.dst = *c.v
			}
		}
		if err := s.Seed.Check(); err != nil {
			return nil, &Error{Path: path, Key: "seed", Msg: err.Error()}
		}
	}
	s.Lead = f.Lead
	if f.StacksDir != "" {
		s.StacksDir = f.StacksDir
		if !filepath.IsAbs(s.StacksDir) {
			s.StacksDir = filepath.Join(filepath.Dir(path), s.StacksDir)
		}
	}
	if len(f.Include) > 0 && len(f.Cases) > 0 {
		return nil, &Error{Path: path, Key: "include", Msg: "a study either includes others or has cases of its own, not both"}
	}
	if f.Size != nil && len(f.Flows) > 0 {
		return nil, &Error{Path: path, Key: "flow", Msg: "a size study sends no load: it has no [[flow]]"}
	}
	if f.Size != nil {
		return parseSize(s, path, f)
	}
	if s.Flows, err = parseFlows(path, f.Flows); err != nil {
		return nil, err
	}
	if len(f.Include) == 0 && len(f.Cases) == 0 && len(f.Flows) == 0 {
		return nil, &Error{Path: path, Msg: "no [[case]], no include and no [size] (and no [[flow]]): nothing to measure"}
	}
	for _, name := range f.Include {
		if !nameRe.MatchString(name) {
			return nil, &Error{Path: path, Key: "include", Msg: fmt.Sprintf("%q is not a study name (a file name in the same folder, without .toml)", name)}
		}
		if include == nil {
			return nil, &Error{Path: path, Key: "include", Msg: "this study cannot include others here"}
		}
		ipath, ib, err := include(name)
		if err != nil {
			return nil, &Error{Path: path, Key: "include", Msg: fmt.Sprintf("study %q: %v", name, err)}
		}
		inc, err := decode(ipath, ib)
		if err != nil {
			return nil, err
		}
		s.Files = append(s.Files, File{Name: name, Text: string(ib)})
		if len(inc.Include) > 0 || len(inc.Variants) > 0 || len(inc.Stacks) > 0 || inc.Lead != "" || inc.StacksDir != "" || inc.SelfTest != nil || inc.Guard != nil || len(inc.Flows) > 0 || inc.Seed != nil {
			return nil, &Error{Path: ipath, Msg: "an included study may hold cases and their defaults only (no include, stacks, lead, stacks_dir, [[variant]], [[flow]], [selftest], [guard] or [seed])"}
		}
		sec, err := section(ipath, name, inc)
		if err != nil {
			return nil, err
		}
		s.Sections = append(s.Sections, sec)
		if s.SamplerCheck == "" {
			s.SamplerCheck = inc.SamplerCheck
		}
	}
	if len(f.Cases) > 0 {
		sec, err := section(path, s.Name, f)
		if err != nil {
			return nil, err
		}
		s.Sections = append(s.Sections, sec)
	}
	if f.SamplerCheck != "" {
		s.SamplerCheck = f.SamplerCheck
	}
	s.PairedCheck = f.PairedCheck
	if err := s.check(path, f); err != nil {
		return nil, err
	}
	return s, nil
}

// decode parses the TOML strictly: a syntax error, a value of the wrong
// type or an unknown key is one Error with its line.
func decode(path string, b []byte) (*fileShape, error) {
	var f fileShape
	d := toml.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	err := d.Decode(&f)
	var sm *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case err == nil:
		return &f, nil
	case errors.As(err, &sm) && len(sm.Errors) > 0:
		e := sm.Errors[0]
		row, _ := e.Position()
		return nil, &Error{Path: path, Line: row, Key: strings.Join(e.Key(), "."), Msg: "unknown key (studies/README.md lists the keys)"}
	case errors.As(err, &de):
		row, _ := de.Position()
		key, msg := typeFault(de.Error())
		if k := strings.Join(de.Key(), "."); k != "" {
			key = k
		}
		return nil, &Error{Path: path, Line: row, Key: key, Msg: msg}
	default:
		return nil, &Error{Path: path, Msg: "not a valid study: " + err.Error()}
	}
}

var typeFaultRe = regexp.MustCompile(`cannot decode TOML (\w+) into struct field study\.(\w+)\.(\w+) of type (\S+)`)

// typeFault words go-toml's type mismatch in the file's own terms: the
// key as written and the kind of value it wants.
func typeFault(msg string) (key, text string) {
	m := typeFaultRe.FindStringSubmatch(msg)
	if m == nil {
		return "", strings.TrimPrefix(msg, "toml: ")
	}
	shapes := map[string]reflect.Type{
		"fileShape": reflect.TypeOf(fileShape{}), "caseShape": reflect.TypeOf(caseShape{}),
		"companionShape": reflect.TypeOf(companionShape{}), "checkShape": reflect.TypeOf(checkShape{}),
		"variantShape": reflect.TypeOf(variantShape{}), "rampShape": reflect.TypeOf(rampShape{}),
		"sizeShape": reflect.TypeOf(sizeShape{}), "guardShape": reflect.TypeOf(guardShape{}),
		"mixShape": reflect.TypeOf(mixShape{}), "flowShape": reflect.TypeOf(flowShape{}),
		"thinkShape": reflect.TypeOf(thinkShape{}), "stepShape": reflect.TypeOf(stepShape{}),
	}
	key = m[3]
	if t, ok := shapes[m[2]]; ok {
		if f, ok := t.FieldByName(m[3]); ok {
			key = f.Tag.Get("toml")
		}
	}
	want := map[string]string{"bool": "true or false", "string": "a quoted string", "int": "a whole number",
		"float64": "a number", "[]string": "a list of quoted strings", "[]int": "a list of whole numbers",
		"map[string]string": "a table of quoted strings", "*bool": "true or false", "*int": "a whole number", "*float64": "a number"}[m[4]]
	if want == "" {
		want = m[4]
	}
	return key, fmt.Sprintf("want %s, got a TOML %s", want, m[1])
}

func section(path, name string, f *fileShape) (Section, error) {
	sec := Section{Name: name}
	defConns, err := intList(f.Connections)
	if err != nil {
		return sec, &Error{Path: path, Key: "connections", Msg: err.Error()}
	}
	if len(defConns) > 1 {
		return sec, &Error{Path: path, Key: "connections", Msg: "the study's default is one number; list several on a case to sweep"}
	}
	defErrors := f.Errors
	if defErrors == "" {
		defErrors = "gate"
	}
	if !oneOf(defErrors, errorModes) {
		return sec, &Error{Path: path, Key: "errors", Msg: fmt.Sprintf("%q: want gate or report", f.Errors)}
	}
	for i, cs := range f.Cases {
		c, err := newCase(cs, defConns, defErrors)
		if err != nil {
			key := fmt.Sprintf("case %d", i+1)
			if cs.Name != "" {
				key = fmt.Sprintf("case %q", cs.Name)
			}
			var se *Error
			if errors.As(err, &se) {
				se.Path, se.Key = path, key+": "+se.Key
				return sec, se
			}
			return sec, &Error{Path: path, Key: key, Msg: err.Error()}
		}
		sec.Cases = append(sec.Cases, c)
	}
	return sec, nil
}

func newCase(cs caseShape, defConns []int, defErrors string) (*Case, error) {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	c := &Case{Name: cs.Name, Method: strings.ToUpper(cs.Method), Path: cs.Path, Body: cs.Body,
		ContentType: cs.ContentType, Headers: cs.Headers, FreshDB: cs.FreshDB, Rows: cs.Rows,
		Status: cs.Status, Errors: cs.Errors, UpstreamDelayMs: cs.UpstreamDelayMs, Ceiling: cs.Ceiling, Alone: cs.Alone,
		JobPace: cs.JobPace}
	if c.Name == "" {
		return nil, bad("name", "missing (every case needs a name)")
	}
	if !nameRe.MatchString(c.Name) {
		return nil, bad("name", "%q: lower-case letters, digits and '-' only", c.Name)
	}
	if cs.Flows != "" && !cs.Users {
		return nil, bad("flows", "only a users case (users = true) walks flows")
	}
	if cs.Ramp != nil || len(cs.Mix) > 0 || cs.Users {
		return newRampCase(c, cs, defErrors)
	}
	if c.Method == "" {
		c.Method = "GET"
	}
	if !oneOf(c.Method, methods) {
		return nil, bad("method", "%q: want one of %s", cs.Method, strings.Join(methods, ", "))
	}
	if err := checkPath(c.Path); err != nil {
		return nil, bad("path", "%v", err)
	}
	for _, h := range c.Headers {
		if k, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(h, "\r\n") {
			return nil, bad("headers", "%q: want \"Name: value\"", h)
		}
	}
	var err error
	if c.Connections, err = intList(cs.Connections); err != nil {
		return nil, bad("connections", "%v", err)
	}
	if len(c.Connections) == 0 {
		c.Connections = defConns
	}
	if c.Rates, err = numList(cs.Rate); err != nil {
		return nil, bad("rate", "%v", err)
	}
	if dup := firstDup(c.Connections); dup != "" {
		return nil, bad("connections", "%s is listed twice", dup)
	}
	if c.Errors == "" {
		c.Errors = defErrors
	}
	if !oneOf(c.Errors, errorModes) {
		return nil, bad("errors", "%q: want gate or report", cs.Errors)
	}
	if c.Rows != "" && !tableRe.MatchString(c.Rows) {
		return nil, bad("rows", "%q is not a table name", c.Rows)
	}
	for _, st := range c.Status {
		if st < 100 || st > 599 {
			return nil, bad("status", "%d is not an HTTP status", st)
		}
	}
	if c.UpstreamDelayMs < 0 || c.UpstreamDelayMs > 10000 {
		return nil, bad("upstream_delay_ms", "%d: want 1 to 10000 (the mock's range)", c.UpstreamDelayMs)
	}
	if c.Ceiling && c.UpstreamDelayMs == 0 {
		return nil, bad("ceiling", "needs upstream_delay_ms (the ceiling is oha straight at the mock with that delay)")
	}
	if cs.Companion != nil {
		cp := cs.Companion
		c.Companion = &Companion{Method: strings.ToUpper(cp.Method), Path: cp.Path, Body: cp.Body,
			ContentType: cp.ContentType, Connections: cp.Connections, Rate: cp.Rate}
		if c.Companion.Method == "" {
			c.Companion.Method = "GET"
		}
		if !oneOf(c.Companion.Method, methods) {
			return nil, bad("companion.method", "%q: want one of %s", cp.Method, strings.Join(methods, ", "))
		}
		if err := checkPath(cp.Path); err != nil {
			return nil, bad("companion.path", "%v", err)
		}
		if cp.Connections < 1 || cp.Connections > 100000 {
			return nil, bad("companion.connections", "missing or out of range (want 1 to 100000)")
		}
		if cp.Rate < 0 || math.IsInf(cp.Rate, 0) || math.IsNaN(cp.Rate) {
			return nil, bad("companion.rate", "want a rate above 0 in req/s (or leave it out)")
		}
	}
	if err := newSession(c, cs.Session); err != nil {
		return nil, err
	}
	if cs.Check != nil {
		c.Check = &Check{Status: cs.Check.Status, ContentType: cs.Check.ContentType, BodyContains: cs.Check.BodyContains}
		if c.Check.Status == 0 {
			c.Check.Status = 200
		}
		if c.Check.Status < 100 || c.Check.Status > 599 {
			return nil, bad("check.status", "%d is not an HTTP status", c.Check.Status)
		}
	}
	return c, nil
}

// newSession reads a case's [case.session]: credentials required, one
// session per row, and a token in the body exactly when a session gives one.
func newSession(c *Case, ss *sessionShape) error {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	hasToken := strings.Contains(c.Body, TokenPlaceholder)
	if ss == nil {
		if hasToken {
			return bad("body", "%s needs a [case.session] to take the token from", TokenPlaceholder)
		}
		return nil
	}
	s := &Session{Email: ss.Email, Password: ss.Password, SignIn: ss.SignIn == nil || *ss.SignIn, Per: ss.Per}
	if s.Per == "" {
		s.Per = "row"
	}
	switch {
	case s.Email == "" || s.Password == "":
		return bad("session", "email and password are required (a signed-in case signs in with credentials)")
	case s.Per != "row":
		return bad("session.per", "%q: want row (oha sends one Cookie header on every connection)", ss.Per)
	case c.Method != "GET" && c.Method != "HEAD" && !hasToken:
		return bad("body", "a %s with a session must carry the form's token: put %s where it goes", c.Method, TokenPlaceholder)
	}
	c.Session = s
	return nil
}

// check applies the rules that span cases: unique names and windows,
// references between cases, variants, stacks.
func (s *Study) check(path string, f *fileShape) error {
	seen := map[string]bool{}
	for _, c := range s.Cases() {
		if seen[c.Name] {
			return &Error{Path: path, Key: fmt.Sprintf("case %q", c.Name), Msg: "a second case with this name"}
		}
		seen[c.Name] = true
	}
	ids := map[string]string{}
	for _, w := range s.Windows(1) {
		if other, ok := ids[w.ID]; ok {
			return &Error{Path: path, Key: fmt.Sprintf("case %q", w.Case.Name), Msg: fmt.Sprintf("its window %q has the name of a window of case %q", w.ID, other)}
		}
		ids[w.ID] = w.Case.Name
	}
	for _, sec := range s.Sections {
		for _, c := range sec.Cases {
			if c.Alone == "" {
				continue
			}
			a := s.Case(c.Alone)
			if a == nil || a == c {
				return &Error{Path: path, Key: fmt.Sprintf("case %q: alone", c.Name), Msg: fmt.Sprintf("%q is not another case of this study", c.Alone)}
			}
			if len(a.Windows(1)) != 1 || len(c.Windows(1)) != 1 {
				return &Error{Path: path, Key: fmt.Sprintf("case %q: alone", c.Name), Msg: "a case read against another may not sweep, nor may the other"}
			}
		}
	}
	if err := s.checkRamps(path); err != nil {
		return err
	}
	if s.SamplerCheck != "" {
		c := s.Case(s.SamplerCheck)
		if c == nil {
			return &Error{Path: path, Key: "sampler_check", Msg: fmt.Sprintf("%q is not a case of this study", s.SamplerCheck)}
		}
		if len(c.Windows(1)) != 1 {
			return &Error{Path: path, Key: "sampler_check", Msg: fmt.Sprintf("case %q sweeps; name a case with one window", s.SamplerCheck)}
		}
	}
	switch s.PairedCheck {
	case "", "all", "timeline", "hiccup":
	default:
		return &Error{Path: path, Key: "paired_check", Msg: fmt.Sprintf("%q: want all, timeline or hiccup", s.PairedCheck)}
	}
	if s.PairedCheck != "" && s.SamplerCheck == "" {
		return &Error{Path: path, Key: "paired_check", Msg: "needs sampler_check, the case it measures again"}
	}
	rows := map[string]bool{}
	for _, vs := range f.Variants {
		v := Variant{Stack: vs.Stack, Name: vs.Name, Env: vs.Env, Build: vs.Build, Slots: vs.Slots, Database: vs.Database}
		if v.Database == DatabaseSQLite {
			v.Database = ""
		}
		key := fmt.Sprintf("variant %q", v.Row())
		switch {
		case !stackRe.MatchString(v.Stack):
			return &Error{Path: path, Key: "variant: stack", Msg: fmt.Sprintf("%q is not a stack name", v.Stack)}
		case !variantRe.MatchString(v.Name):
			return &Error{Path: path, Key: fmt.Sprintf("variant of %s: name", v.Stack), Msg: fmt.Sprintf("%q: letters, digits, '.', '_' and '-' only", v.Name)}
		case rows[v.Row()]:
			return &Error{Path: path, Key: key, Msg: "a second variant with this name"}
		case v.Database != "" && v.Database != DatabasePostgres:
			return &Error{Path: path, Key: key + ": database", Msg: fmt.Sprintf("%q: want \"sqlite\" or \"postgres\"", v.Database)}
		case len(v.Env) == 0 && len(v.Build) == 0 && v.Database == "":
			return &Error{Path: path, Key: key + ": env", Msg: "a variant needs at least one environment variable (env), build argument (build) or a database"}
		case v.Slots < 0:
			return &Error{Path: path, Key: key + ": slots", Msg: "want a count of 0 or more"}
		}
		for _, k := range sortedKeys(v.Env) {
			if !envKeyRe.MatchString(k) {
				return &Error{Path: path, Key: key + ": env", Msg: fmt.Sprintf("%q is not an environment variable name", k)}
			}
			if stackenv.IsReserved(k) {
				return &Error{Path: path, Key: key + ": env", Msg: fmt.Sprintf("%s is set by the lab for every stack; a variant may not change it", k)}
			}
		}
		for _, k := range sortedKeys(v.Build) {
			switch {
			case !envKeyRe.MatchString(k):
				return &Error{Path: path, Key: key + ": build", Msg: fmt.Sprintf("%q is not an environment variable name", k)}
			case strings.ContainsAny(v.Build[k], "\n\r"):
				return &Error{Path: path, Key: key + ": build", Msg: fmt.Sprintf("%s: a build argument is one line", k)}
			}
		}
		rows[v.Row()] = true
		s.Variants = append(s.Variants, v)
	}
	if err := s.checkSelfTest(path, f.SelfTest, rows); err != nil {
		return err
	}
	if err := s.checkGuard(path, f.Guard); err != nil {
		return err
	}
	seenRow := map[string]bool{}
	for _, r := range s.Stacks {
		base, variant, isVariant := strings.Cut(r, "[")
		switch {
		case seenRow[r]:
			return &Error{Path: path, Key: "stacks", Msg: fmt.Sprintf("%q is listed twice", r)}
		case isVariant && !rows[r]:
			return &Error{Path: path, Key: "stacks", Msg: fmt.Sprintf("%q names no [[variant]] of this study (stack %q, name %q)", r, base, strings.TrimSuffix(variant, "]"))}
		case !isVariant && !stackRe.MatchString(r):
			return &Error{Path: path, Key: "stacks", Msg: fmt.Sprintf("%q is not a stack name", r)}
		}
		seenRow[r] = true
	}
	return nil
}

// checkSelfTest reads [selftest]: every row it names is a row the study
// runs, and none is named twice.
func (s *Study) checkSelfTest(path string, st *selftestShape, variants map[string]bool) error {
	if st == nil {
		return nil
	}
	runs := map[string]bool{}
	for _, r := range s.Rows(nil) {
		runs[r] = true
	}
	named := map[string]string{}
	check := func(key, row string) error {
		switch {
		case row == "":
			return &Error{Path: path, Key: key, Msg: "missing (a row of this study: a stack or a variant such as go-nethttp[a])"}
		case named[row] != "":
			return &Error{Path: path, Key: key, Msg: fmt.Sprintf("%q is already selftest.%s: every role needs a row of its own", row, named[row])}
		case strings.Contains(row, "[") && !variants[row]:
			return &Error{Path: path, Key: key, Msg: fmt.Sprintf("%q names no [[variant]] of this study", row)}
		case len(runs) > 0 && !runs[row]:
			return &Error{Path: path, Key: key, Msg: fmt.Sprintf("%q is not among the rows the study runs (its stacks list)", row)}
		}
		named[row] = strings.TrimPrefix(key, "selftest.")
		return nil
	}
	if err := check("selftest.a", st.A); err != nil {
		return err
	}
	if err := check("selftest.twin", st.Twin); err != nil {
		return err
	}
	if len(st.Planted) == 0 {
		return &Error{Path: path, Key: "selftest.planted", Msg: "missing: at least one row with a slowdown of known size"}
	}
	for _, p := range st.Planted {
		if err := check("selftest.planted", p); err != nil {
			return err
		}
	}
	if st.Pause != "" {
		if err := check("selftest.pause", st.Pause); err != nil {
			return err
		}
	}
	s.SelfTest = &SelfTest{A: st.A, Twin: st.Twin, Planted: st.Planted, Pause: st.Pause}
	return nil
}

// Rows are the rows the study runs: its stacks list, else its variants,
// else all (the lab's stack folders); its lead first when it is one of
// them.
func (s *Study) Rows(all []string) []string {
	rows := all
	if len(s.Stacks) > 0 {
		rows = s.Stacks
	} else if len(s.Variants) > 0 {
		rows = nil
		for _, v := range s.Variants {
			rows = append(rows, v.Row())
		}
	}
	if s.Lead == "" || !slices.Contains(rows, s.Lead) {
		return rows
	}
	out := []string{s.Lead}
	for _, r := range rows {
		if r != s.Lead {
			out = append(out, r)
		}
	}
	return out
}

func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("missing (every request needs a path, e.g. /up)")
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("%q: want a path starting with / (the lab always targets 127.0.0.1)", p)
	case strings.ContainsAny(p, " \t\r\n#"):
		return fmt.Errorf("%q: no spaces or '#' in a path", p)
	}
	return nil
}

// intList reads a whole number or a non-empty list of them, each 1 to 100,000.
func intList(v any) ([]int, error) {
	return oneOrList(v, "an empty list: leave the key out for the default", func(x any) (int, error) {
		n, ok := x.(int64)
		if !ok || n < 1 || n > 100000 {
			return 0, fmt.Errorf("want a whole number from 1 to 100000, or a list of them (got %v)", x)
		}
		return int(n), nil
	})
}

// numList reads a rate above 0 or a non-empty list of them.
func numList(v any) ([]float64, error) {
	return oneOrList(v, "an empty list: leave the key out for a closed loop", func(x any) (float64, error) {
		var f float64
		switch n := x.(type) {
		case int64:
			f = float64(n)
		case float64:
			f = n
		}
		if !(f > 0) || math.IsInf(f, 0) || f > 1e7 {
			return 0, fmt.Errorf("want a rate in req/s above 0, or a list of them (got %v)", x)
		}
		return f, nil
	})
}

// oneOrList reads a TOML value that is one item or a non-empty list of
// them, each checked by one; nil for an absent key.
func oneOrList[T any](v any, empty string, one func(any) (T, error)) ([]T, error) {
	if v == nil {
		return nil, nil
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	} else if len(list) == 0 {
		return nil, errors.New(empty)
	}
	out := make([]T, 0, len(list))
	for _, x := range list {
		t, err := one(x)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func firstDup(xs []int) string {
	seen := map[int]bool{}
	for _, x := range xs {
		if seen[x] {
			return strconv.Itoa(x)
		}
		seen[x] = true
	}
	return ""
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
