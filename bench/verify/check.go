package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
)

// config is one verification of one running stack.
type config struct {
	Stack       string
	BaseURL     string // http://127.0.0.1:PORT
	DBPath      string // the stack's database file, on this host
	DBURL       string // or its Postgres database, postgres://... (docs/postgres.md)
	UpstreamURL string // "" skips the /bench/upstream check
	Writes      int    // POST /bench/write requests
	Samples     int    // GET /bench/pragmas requests, at least
	Concurrency int    // requests in flight for writes and pragmas
	// The write load the pragma samples run under: LoadWrites POST
	// /bench/write, WriteConcurrency in flight (the bench's own write
	// concurrency), so writers wait on the lock while holding connections
	// and the pool opens what it opens in the write case.
	LoadWrites       int
	LoadTime         time.Duration
	WriteConcurrency int
}

// result is the outcome of one check.
type result struct {
	Stack    string `json:"stack"`
	Check    string `json:"check"`
	OK       bool   `json:"ok"`
	Skipped  bool   `json:"skipped,omitempty"`
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	Note     string `json:"note,omitempty"`
}

// failure is what a check found wrong: the contract's value and the answer's.
type failure struct{ expected, got string }

func (f *failure) Error() string { return "expected " + f.expected + ", got " + f.got }

func fail(expected string, got any) error {
	return &failure{expected: expected, got: fmt.Sprint(got)}
}

func failf(expected, format string, a ...any) error {
	return &failure{expected: expected, got: fmt.Sprintf(format, a...)}
}

// pragmaWant is docs/app.md's per-connection setup, as /bench/pragmas reports
// it: SQLite's pragmas, or on Postgres the session settings.
func (c *checker) pragmaWant() object {
	if c.cfg.DBURL != "" {
		return pgSettingsWant
	}
	return sqlitePragmaWant
}

// pgSettingsWant is what /bench/pragmas reports on Postgres (docs/app.md): the
// session's settings that decide what a request waits for and sees.
var pgSettingsWant = object{
	{"transaction_isolation", "read committed"},
	{"synchronous_commit", "on"},
	{"statement_timeout", "5s"},
	{"client_encoding", "UTF8"},
}

var sqlitePragmaWant = object{
	{"journal_mode", "wal"},
	{"synchronous", json.Number("1")},
	{"busy_timeout", json.Number("5000")},
	{"cache_size", json.Number("2000")},
	{"mmap_size", json.Number("134217728")},
	{"journal_size_limit", json.Number("67108864")},
	{"foreign_keys", json.Number("1")},
}

// The upstream route must wait for the mock's 100 ms, so a faster answer did
// not make the call.
const upstreamDelay = 100 * time.Millisecond

// anAnswer is what a check expected when the request itself failed.
const anAnswer = "an HTTP answer"

type checker struct {
	cfg     config
	client  *http.Client
	items   []any // /items' entries, for /page
	results []result
	// What checkPragmas saw: the distinct connections, and those at other
	// settings than docs/app.md's.
	connections int
	wrong       []string
	// The signed-in checks' state: user 1's browser (nil once signed out
	// or when sign-in failed), the orders it placed and cancelled, and the
	// seed's order count (orders past it were placed by verify).
	user1      *browser
	placed     []int64
	cancelled  []int64
	seedOrders int64
}

func newChecker(cfg config) *checker {
	tr := &http.Transport{
		DisableCompression:  true, // like the load generator: no Accept-Encoding
		MaxIdleConnsPerHost: cfg.Concurrency + cfg.WriteConcurrency + 1,
	}
	return &checker{cfg: cfg, client: &http.Client{Transport: tr, Timeout: 15 * time.Second}}
}

// verify runs every check in order and returns their results and the parity
// snapshot taken after the writes (nil if it could not be taken).
func verify(cfg config) ([]result, *snapshot) {
	c := newChecker(cfg)
	return c.verify()
}

func (c *checker) verify() ([]result, *snapshot) {
	cfg := c.cfg
	defer c.client.CloseIdleConnections()
	c.run("up", c.checkUp)
	if r := c.results[0]; !r.OK && r.Expected == anAnswer {
		return c.results, nil // nothing answers: every other check would say the same
	}
	c.run("json", c.checkJSON)
	c.run("items", c.checkItems)
	c.run("page", c.checkPage)
	c.run("not-found", c.checkNotFound)
	c.run("method-not-allowed", c.checkMethodNotAllowed)
	c.run("read", c.checkRead)
	c.run("writes", c.checkWrites)
	// Before the write load, whose number of rows is the stack's own.
	snap, err := c.snapshot()
	c.run("pragmas", c.checkPragmas)
	if cfg.UpstreamURL == "" {
		c.results = append(c.results, result{Stack: cfg.Stack, Check: "upstream", OK: true, Skipped: true, Note: "no upstream URL given"})
	} else {
		c.run("upstream", c.checkUpstream)
	}
	c.run("sign-in", c.checkSignIn)
	c.run("sign-in-refusals", c.checkSignInRefusals)
	c.run("account", c.checkAccount)
	c.run("orders", c.checkOrders)
	c.run("cancel", c.checkCancel)
	c.run("signed-in-methods", c.checkSignedInMethods)
	c.run("job", c.checkJob)
	c.run("sign-out", c.checkSignOut)
	if err != nil {
		c.results = append(c.results, result{Stack: cfg.Stack, Check: "snapshot", Expected: "every parity request answered", Got: err.Error()})
	}
	return c.results, snap
}

func (c *checker) run(name string, check func() (string, error)) {
	note, err := check()
	r := result{Stack: c.cfg.Stack, Check: name, OK: err == nil, Note: note}
	if f, ok := err.(*failure); ok {
		r.Expected, r.Got = f.expected, f.got
	} else if err != nil {
		r.Expected, r.Got = anAnswer, err.Error()
	}
	c.results = append(c.results, r)
}

// answer is one HTTP exchange, read to the end.
type answer struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
	framed       bool // Content-Length or chunked
	elapsed      time.Duration
	cookies      []*http.Cookie // Set-Cookie, parsed (a browser's requests)
	location     string         // a redirect's target as a path (a browser's requests)
}

func (a *answer) String() string { return a.method + " " + a.path }

func (c *checker) do(method, path string) (*answer, error) {
	req, err := http.NewRequest(method, c.cfg.BaseURL+path, nil)
	if err != nil {
		return nil, err
	}
	return roundTrip(c.client, req, path)
}

// roundTrip sends req with client and reads its answer to the end; path is
// how the answer names the request.
func roundTrip(client *http.Client, req *http.Request, path string) (*answer, error) {
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", req.Method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the body: %v", req.Method, path, err)
	}
	return &answer{
		method: req.Method, path: path, status: resp.StatusCode, header: resp.Header, body: body,
		framed:   resp.ContentLength >= 0 || slices.Contains(resp.TransferEncoding, "chunked"),
		elapsed:  time.Since(start),
		cookies:  resp.Cookies(),
		location: location(req.URL, resp.Header.Get("Location")),
	}, nil
}

// expect checks what every answer must have: the status, a Content-Type of
// the given media type ("" for any), and a Content-Length or chunked body.
func expect(a *answer, status int, mediaType string) error {
	if a.status != status {
		return failf(fmt.Sprintf("%s: status %d", a, status), "status %d, body %q", a.status, cut(a.body))
	}
	ct := a.header.Get("Content-Type")
	if ct == "" {
		return fail(a.String()+": a Content-Type", "none")
	}
	if mediaType != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != mediaType {
			return fail(fmt.Sprintf("%s: Content-Type %s", a, mediaType), ct)
		}
	}
	if !a.framed {
		return fail(a.String()+": a Content-Length or a chunked body", "neither (body delimited by closing the connection)")
	}
	return nil
}

// getJSON GETs path and decodes a 200 application/json answer.
func (c *checker) getJSON(path string) (object, *answer, error) {
	a, err := c.do("GET", path)
	if err != nil {
		return nil, nil, err
	}
	o, err := jsonObject(a, http.StatusOK)
	return o, a, err
}

// jsonObject checks a's status and JSON content type and decodes its object.
func jsonObject(a *answer, status int) (object, error) {
	if err := expect(a, status, "application/json"); err != nil {
		return nil, err
	}
	v, err := decodeOrdered(a.body)
	if err != nil {
		return nil, failf(a.String()+": a JSON object", "%q (%v)", cut(a.body), err)
	}
	o, ok := v.(object)
	if !ok {
		return nil, fail(a.String()+": a JSON object", short(v))
	}
	return o, nil
}

// shape checks an object's keys and their order.
func shape(where string, o object, keys ...string) error {
	if !slices.Equal(o.keys(), keys) {
		return fail(where+" keys "+keysString(keys), keysString(o.keys()))
	}
	return nil
}

func integer(where string, v any) (int64, error) {
	n, ok := v.(json.Number)
	if ok {
		if i, err := n.Int64(); err == nil && !strings.ContainsAny(string(n), ".eE") {
			return i, nil
		}
	}
	return 0, fail(where+": an integer", short(v))
}

func cut(b []byte) string {
	if len(b) > 200 {
		return string(b[:197]) + "..."
	}
	return string(b)
}

func (c *checker) checkUp() (string, error) {
	a, err := c.do("GET", "/up")
	if err != nil {
		return "", err
	}
	if err := expect(a, 200, "text/plain"); err != nil {
		return "", err
	}
	if string(a.body) != "ok" {
		return "", fail(`GET /up: body "ok"`, fmt.Sprintf("%q", cut(a.body)))
	}
	return "", nil
}

func (c *checker) checkJSON() (string, error) {
	o, _, err := c.getJSON("/json")
	if err != nil {
		return "", err
	}
	want := object{{"message", "Hello, World!"}}
	if !slices.Equal(canonical(o), canonical(want)) {
		return "", fail("GET /json: "+short(want), short(o))
	}
	return "", nil
}

// dbItem is an item as the database file holds it.
type dbItem struct {
	id        int64
	title     string
	createdAt int64
}

func (c *checker) checkItems() (string, error) {
	o, _, err := c.getJSON("/items")
	if err != nil {
		return "", err
	}
	if err := shape("GET /items", o, "items"); err != nil {
		return "", err
	}
	list, ok := o[0].Val.([]any)
	if !ok {
		return "", fail("GET /items: items is an array", short(o[0].Val))
	}
	want, err := c.newestItems()
	if err != nil {
		return "", err
	}
	if len(list) != len(want) {
		return "", fail(fmt.Sprintf("GET /items: %d items", len(want)), len(list))
	}
	for i, e := range list {
		where := fmt.Sprintf("GET /items: items[%d]", i)
		it, ok := e.(object)
		if !ok {
			return "", fail(where+" is an object", short(e))
		}
		if err := shape(where, it, "id", "title", "created_at"); err != nil {
			return "", err
		}
		id, err := integer(where+".id", it[0].Val)
		if err != nil {
			return "", err
		}
		created, err := integer(where+".created_at", it[2].Val)
		if err != nil {
			return "", err
		}
		title, _ := it[1].Val.(string)
		w := want[i]
		if id != w.id || title != w.title || created != w.createdAt {
			got := object{{"id", json.Number(fmt.Sprint(id))}, {"title", it[1].Val}, {"created_at", json.Number(fmt.Sprint(created))}}
			return "", failf(fmt.Sprintf("%s as in the database: {id:%d title:%q created_at:%d}", where, w.id, w.title, w.createdAt), "%s", short(got))
		}
	}
	c.items = list
	return "", nil
}

var (
	liRE    = regexp.MustCompile(`(?s)<li data-id="([0-9]+)">(.*?)</li>`)
	titleRE = regexp.MustCompile(`(?is)<title>\s*Items\s*</title>`)
	// titleTextRE is the title's text, for the parity snapshot.
	titleTextRE = regexp.MustCompile(`(?is)<title>(.*?)</title>`)
	anyLiRE     = regexp.MustCompile(`(?i)<li[\s>/]`) // not <link>
	// entityRE is an HTML character reference; a '&' that starts none is raw.
	entityRE = regexp.MustCompile(`^&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);`)
)

// specials are the characters a title must never show raw inside an <li>.
const specials = `<>&"'`

func (c *checker) checkPage() (string, error) {
	a, err := c.do("GET", "/page")
	if err != nil {
		return "", err
	}
	if err := expect(a, 200, "text/html"); err != nil {
		return "", err
	}
	_, params, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	if !strings.EqualFold(params["charset"], "utf-8") {
		return "", fail("GET /page: Content-Type text/html; charset=utf-8", a.header.Get("Content-Type"))
	}
	body := string(a.body)
	lower := strings.ToLower(body)
	if !strings.HasPrefix(strings.TrimSpace(lower), "<!doctype html") || !strings.Contains(lower, "</html>") || !titleRE.MatchString(body) {
		return "", fail("GET /page: a whole HTML document (<!DOCTYPE html> ... </html>) titled Items", fmt.Sprintf("%q", cut(a.body)))
	}
	want, err := c.newestItems()
	if err != nil {
		return "", err
	}
	lis := liRE.FindAllStringSubmatch(body, -1)
	if n := len(anyLiRE.FindAllString(body, -1)); n != len(lis) {
		return "", fail(`GET /page: every <li> written as <li data-id="ID">TITLE</li>`, fmt.Sprintf("%d <li of which %d match", n, len(lis)))
	}
	var ids, wantIDs []string
	for _, m := range lis {
		ids = append(ids, m[1])
	}
	for _, w := range want {
		wantIDs = append(wantIDs, fmt.Sprint(w.id))
	}
	if !slices.Equal(ids, wantIDs) {
		return "", fail("GET /page: the ids of /items "+keysString(wantIDs), keysString(ids))
	}
	seen := map[rune]bool{}
	for i, m := range lis {
		inner, title := m[2], want[i].title
		if err := escaped(inner); err != nil || html.UnescapeString(inner) != title {
			return "", failf(fmt.Sprintf("GET /page: data-id %s with its title HTML-escaped (%q)", m[1], title), "%q", inner)
		}
		for _, r := range title {
			if strings.ContainsRune(specials, r) {
				seen[r] = true
			}
		}
	}
	var missing []string
	for _, r := range specials {
		if !seen[r] {
			missing = append(missing, string(r))
		}
	}
	if len(missing) > 0 {
		return "the seeded titles on /page lack " + strings.Join(missing, " ") + ": escaping of those was not tested", nil
	}
	return "", nil
}

// escaped reports a special character left raw in an element's text.
func escaped(inner string) error {
	for i, r := range inner {
		switch r {
		case '<', '>', '"', '\'':
			return fmt.Errorf("raw %q", r)
		case '&':
			if !entityRE.MatchString(inner[i:]) {
				return fmt.Errorf("raw '&'")
			}
		}
	}
	return nil
}

// notFoundRequests are paths docs/app.md does not serve; wrongMethodRequests
// known paths with a method they do not take.
var (
	notFoundRequests    = [][2]string{{"GET", "/no-such-route"}, {"GET", "/bench"}, {"GET", "/items/1"}}
	wrongMethodRequests = [][2]string{
		{"POST", "/up"}, {"POST", "/json"}, {"DELETE", "/items"}, {"POST", "/page"},
		{"POST", "/bench/upstream"}, {"GET", "/bench/write"}, {"POST", "/bench/read"}, {"PUT", "/bench/pragmas"},
	}
)

func (c *checker) checkNotFound() (string, error) {
	for _, r := range notFoundRequests {
		a, err := c.do(r[0], r[1])
		if err != nil {
			return "", err
		}
		if err := expect(a, 404, ""); err != nil {
			return "", err
		}
	}
	return "", nil
}

func (c *checker) checkMethodNotAllowed() (string, error) {
	for _, r := range wrongMethodRequests {
		a, err := c.do(r[0], r[1])
		if err != nil {
			return "", err
		}
		if err := expect(a, 405, ""); err != nil {
			return "", err
		}
	}
	return "", nil
}

// benchRead is a checked /bench/read answer.
type benchRead struct {
	count  int64
	ids    []int64
	latest []dbEvent
}

type dbEvent struct{ id, createdAt int64 }

func (c *checker) read() (*benchRead, error) {
	o, _, err := c.getJSON("/bench/read")
	if err != nil {
		return nil, err
	}
	if err := shape("GET /bench/read", o, "ok", "count", "latest"); err != nil {
		return nil, err
	}
	if o[0].Val != true {
		return nil, fail("GET /bench/read: ok true", short(o[0].Val))
	}
	count, err := integer("GET /bench/read: count", o[1].Val)
	if err != nil {
		return nil, err
	}
	list, ok := o[2].Val.([]any)
	if !ok {
		return nil, fail("GET /bench/read: latest is an array", short(o[2].Val))
	}
	r := &benchRead{count: count}
	for i, e := range list {
		where := fmt.Sprintf("GET /bench/read: latest[%d]", i)
		ev, ok := e.(object)
		if !ok {
			return nil, fail(where+" is an object", short(e))
		}
		if err := shape(where, ev, "id", "created_at"); err != nil {
			return nil, err
		}
		id, err := integer(where+".id", ev[0].Val)
		if err != nil {
			return nil, err
		}
		created, err := integer(where+".created_at", ev[1].Val)
		if err != nil {
			return nil, err
		}
		r.ids = append(r.ids, id)
		r.latest = append(r.latest, dbEvent{id, created})
	}
	return r, nil
}

func (c *checker) checkRead() (string, error) {
	r, err := c.read()
	if err != nil {
		return "", err
	}
	count, latest, err := c.dbEvents()
	if err != nil {
		return "", err
	}
	if r.count != count {
		return "", fail(fmt.Sprintf("GET /bench/read: count %d (the database's)", count), r.count)
	}
	if !slices.Equal(r.latest, latest) {
		return "", failf(fmt.Sprintf("GET /bench/read: latest as in the database %v", latest), "%v", r.latest)
	}
	return "", nil
}

func (c *checker) checkWrites() (string, error) {
	before, err := c.read()
	if err != nil {
		return "", err
	}
	rowsBefore, _, err := c.dbEvents()
	if err != nil {
		return "", err
	}
	start := time.Now()
	ids, err := parallel(c.cfg.Writes, c.cfg.Concurrency, c.write)
	end := time.Now()
	if err != nil {
		return "", err
	}
	n := int64(c.cfg.Writes)
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		return "", fail(fmt.Sprintf("%d distinct ids from POST /bench/write", n), fmt.Sprint(ids))
	}
	after, err := c.read()
	if err != nil {
		return "", err
	}
	if after.count-before.count != n {
		return "", fail(fmt.Sprintf("GET /bench/read: count %d + %d writes = %d", before.count, n, before.count+n), after.count)
	}
	rowsAfter, _, err := c.dbEvents()
	if err != nil {
		return "", err
	}
	if rowsAfter-rowsBefore != n {
		return "", fail(fmt.Sprintf("database file: %d + %d writes = %d bench_events rows", rowsBefore, n, rowsBefore+n), rowsAfter)
	}
	return "", c.checkWrittenRows(ids, start, end)
}

// write is one POST /bench/write, its answer checked; the new row's id.
func (c *checker) write() (int64, error) {
	a, err := c.do("POST", "/bench/write")
	if err != nil {
		return 0, err
	}
	return writeAnswer(a)
}

// dbBusy says a is docs/app.md's answer to a database error: 503 with
// {"ok":false,"error":"…"}. A pool that sheds a request it cannot give a
// connection in time (a stack's DB_POOL_TIMEOUT) answers so under load.
func dbBusy(a *answer) bool {
	if a.status != http.StatusServiceUnavailable {
		return false
	}
	o, err := jsonObject(a, http.StatusServiceUnavailable)
	if err != nil || shape("", o, "ok", "error") != nil {
		return false
	}
	_, isText := o[1].Val.(string)
	return o[0].Val == false && isText
}

// writeAnswer checks a POST /bench/write answer and returns its row's id.
func writeAnswer(a *answer) (int64, error) {
	o, err := jsonObject(a, 200)
	if err != nil {
		return 0, err
	}
	if err := shape("POST /bench/write", o, "ok", "id"); err != nil {
		return 0, err
	}
	if o[0].Val != true {
		return 0, fail("POST /bench/write: ok true", short(o[0].Val))
	}
	return integer("POST /bench/write: id", o[1].Val)
}

// checkWrittenRows reads the rows the writes answered with from the file: a
// 200-byte ASCII payload and created_at in Unix milliseconds of the window.
func (c *checker) checkWrittenRows(ids []int64, start, end time.Time) error {
	db, err := c.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	lo, hi := start.Add(-2*time.Second).UnixMilli(), end.Add(2*time.Second).UnixMilli()
	for _, id := range ids {
		var payload string
		var created int64
		q := "SELECT payload, created_at FROM bench_events WHERE id = ?"
		if c.cfg.DBURL != "" {
			q = "SELECT payload, created_at FROM bench_events WHERE id = $1"
		}
		err := db.QueryRow(q, id).Scan(&payload, &created)
		if err != nil {
			return fail(fmt.Sprintf("database file: bench_events row %d (an id POST /bench/write answered)", id), err)
		}
		if len(payload) != 200 || strings.IndexFunc(payload, func(r rune) bool { return r > 127 }) >= 0 {
			return failf(fmt.Sprintf("database file: row %d payload of 200 ASCII bytes", id), "%d bytes %q", len(payload), cut([]byte(payload)))
		}
		if created < lo || created > hi {
			return fail(fmt.Sprintf("database file: row %d created_at in Unix ms within [%d, %d]", id, lo, hi), created)
		}
	}
	return nil
}

// pragmaConn is one connection /bench/pragmas named.
type pragmaConn struct {
	id      string
	answers int
	wrong   object // its first answer at other settings than docs/app.md's
}

// checkPragmas samples /bench/pragmas while a write load runs: writers,
// WriteConcurrency in flight for LoadWrites writes and LoadTime at least,
// wait on SQLite's lock holding their connections, so the pool opens the connections the write case gets, and
// the samples (Concurrency in flight, until the writes are done and at
// least Samples answered) meet them as they come free. Each answer names
// its connection; every connection must be at docs/app.md's settings.
func (c *checker) checkPragmas() (string, error) {
	var (
		mu       sync.Mutex
		conns    = map[string]*pragmaConn{}
		order    []string
		answered atomic.Int64
		firstErr error
		wg       sync.WaitGroup
	)
	done := make(chan struct{})
	var (
		writeErr      error
		writes, tries atomic.Int64
		shedW, shedS  atomic.Int64 // writes and samples answered "database busy"
		writers       sync.WaitGroup
	)
	start := time.Now()
	for range c.cfg.WriteConcurrency {
		writers.Go(func() {
			for tries.Add(1) <= int64(c.cfg.LoadWrites) || time.Since(start) < c.cfg.LoadTime {
				a, err := c.do("POST", "/bench/write")
				if err == nil && dbBusy(a) {
					// the load is the point, not the write: a pool that
					// sheds it under 32 writers answers as docs/app.md says
					shedW.Add(1)
					continue
				}
				if err == nil {
					_, err = writeAnswer(a)
				}
				if err != nil {
					mu.Lock()
					if writeErr == nil {
						writeErr = err
					}
					mu.Unlock()
					return
				}
				writes.Add(1)
			}
		})
	}
	wg.Go(func() {
		writers.Wait()
		close(done)
	})
	pragmaWant := c.pragmaWant()
	want := append(pragmaWant.keys(), "connection")
	// sample reads one answer; busy when the pool shed it (not counted)
	sample := func() (busy bool, err error) {
		a, err := c.do("GET", "/bench/pragmas")
		if err != nil {
			return false, err
		}
		if dbBusy(a) {
			shedS.Add(1)
			return true, nil
		}
		o, err := jsonObject(a, http.StatusOK)
		if err != nil {
			return false, err
		}
		if err := shape("GET /bench/pragmas", o, want...); err != nil {
			return false, err
		}
		id, _ := o[len(o)-1].Val.(string)
		if id == "" {
			return false, fail("GET /bench/pragmas: connection, a non-empty string naming the SQLite connection", short(o[len(o)-1].Val))
		}
		settings := o[:len(o)-1]
		mu.Lock()
		defer mu.Unlock()
		k := conns[id]
		if k == nil {
			k = &pragmaConn{id: id}
			conns[id] = k
			order = append(order, id)
		}
		k.answers++
		if k.wrong == nil && !slices.Equal(canonical(settings), canonical(pragmaWant)) {
			k.wrong = settings
		}
		return false, nil
	}
	for range c.cfg.Concurrency {
		wg.Go(func() {
			for {
				select {
				case <-done:
					if answered.Load() >= int64(c.cfg.Samples) {
						return
					}
				default:
				}
				busy, err := sample()
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					<-done
					return
				}
				if !busy {
					answered.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return "", firstErr
	}
	if writeErr != nil {
		return "", writeErr
	}
	c.connections = len(order)
	load := fmt.Sprintf("while %d writes ran, %d in flight", writes.Load(), c.cfg.WriteConcurrency)
	var bad []string
	for _, id := range order {
		if k := conns[id]; k.wrong != nil {
			c.wrong = append(c.wrong, id)
			bad = append(bad, fmt.Sprintf("%s (%s)", id, settingsDiff(pragmaWant, k.wrong)))
		}
	}
	if len(bad) > 0 {
		return "", failf(fmt.Sprintf("GET /bench/pragmas %s: %s on every connection", load, short(pragmaWant)),
			"%d of %d connections at other settings: %s", len(bad), len(order), strings.Join(bad, "; "))
	}
	note := fmt.Sprintf("%s over %d answers %s", plural(len(order), "distinct connection"), answered.Load(), load)
	if n, m := shedW.Load(), shedS.Load(); n+m > 0 {
		note += fmt.Sprintf("; %d writes and %d samples answered 503, no database connection in time (docs/app.md's answer to a database error: the pool shed them), not counted", n, m)
	}
	if len(order) == 1 {
		note += "; the pool opened no other connection under the write load"
	}
	return note, nil
}

// settingsDiff names the settings of o that differ from docs/app.md's.
func settingsDiff(pragmaWant, o object) string {
	var d []string
	for _, w := range pragmaWant {
		v, ok := o.get(w.Key)
		if !ok || !slices.Equal(canonical(v), canonical(w.Val)) {
			d = append(d, fmt.Sprintf("%s %s (want %s)", w.Key, canonical(v), canonical(w.Val)))
		}
	}
	return strings.Join(d, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (c *checker) checkUpstream() (string, error) {
	if c.upstreamUp() {
		a, err := c.do("GET", "/bench/upstream")
		if err != nil {
			return "", err
		}
		o, err := jsonObject(a, 200)
		if err != nil {
			return "", err
		}
		want := object{{"ok", true}, {"upstream", json.Number("200")}}
		if !slices.Equal(canonical(o), canonical(want)) {
			return "", fail("GET /bench/upstream: "+short(want), short(o))
		}
		if a.elapsed < upstreamDelay {
			return "", fail("GET /bench/upstream: at least the upstream's 100 ms", fmt.Sprintf("%d ms", a.elapsed.Milliseconds()))
		}
		return "200 through the mock in " + a.elapsed.Round(time.Millisecond).String(), nil
	}
	// The stack was given the same URL: it must report the failure.
	a, err := c.do("GET", "/bench/upstream")
	if err != nil {
		return "", err
	}
	o, err := jsonObject(a, 502)
	if err != nil {
		return "", err
	}
	if err := shape("GET /bench/upstream (upstream down)", o, "ok", "error"); err != nil {
		return "", err
	}
	if msg, _ := o[1].Val.(string); o[0].Val != false || msg == "" {
		return "", fail(`GET /bench/upstream (upstream down): {"ok":false,"error":"…"}`, short(o))
	}
	return "mock not reachable, the 502 answer checked", nil
}

func (c *checker) upstreamUp() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", c.cfg.UpstreamURL+"/delay?ms=0", nil)
	if err != nil {
		return false
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == 200
}

// parallel runs f n times with at most conc calls in flight and returns the
// values, or the first error.
func parallel(n, conc int, f func() (int64, error)) ([]int64, error) {
	var (
		mu    sync.Mutex
		out   []int64
		first error
		wg    sync.WaitGroup
	)
	jobs := make(chan struct{})
	for range min(conc, n) {
		wg.Go(func() {
			for range jobs {
				v, err := f()
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				out = append(out, v)
				mu.Unlock()
			}
		})
	}
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	return out, first
}

// openDB opens the stack's database file read-only: the checker never
// writes it, and reads through the WAL as the stack's connections do. On
// Postgres, the app's database on the server role.
func (c *checker) openDB() (*sql.DB, error) {
	if c.cfg.DBURL != "" {
		db, err := sql.Open("pgx", c.cfg.DBURL)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		return db, nil
	}
	db, err := sql.Open("sqlite3", "file:"+c.cfg.DBPath+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func (c *checker) newestItems() ([]dbItem, error) {
	db, err := c.openDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query("SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20")
	if err != nil {
		return nil, fmt.Errorf("database file %s: %v", c.cfg.DBPath, err)
	}
	defer rows.Close()
	var items []dbItem
	for rows.Next() {
		var it dbItem
		if err := rows.Scan(&it.id, &it.title, &it.createdAt); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

func (c *checker) dbEvents() (int64, []dbEvent, error) {
	db, err := c.openDB()
	if err != nil {
		return 0, nil, err
	}
	defer db.Close()
	// One snapshot for both reads: SQLite's read transaction; on Postgres
	// a repeatable-read one (read committed takes one per statement).
	var opts *sql.TxOptions
	if c.cfg.DBURL != "" {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	tx, err := db.BeginTx(context.Background(), opts)
	if err != nil {
		return 0, nil, fmt.Errorf("database file %s: %v", c.cfg.DBPath, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	var count int64
	if err := tx.QueryRow("SELECT COUNT(*) FROM bench_events").Scan(&count); err != nil {
		return 0, nil, fmt.Errorf("database file %s: %v", c.cfg.DBPath, err)
	}
	rows, err := tx.Query("SELECT id, created_at FROM bench_events ORDER BY id DESC LIMIT 20")
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var latest []dbEvent
	for rows.Next() {
		var e dbEvent
		if err := rows.Scan(&e.id, &e.createdAt); err != nil {
			return 0, nil, err
		}
		latest = append(latest, e)
	}
	return count, latest, rows.Err()
}
