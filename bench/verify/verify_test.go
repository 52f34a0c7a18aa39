package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"stacklab/formats/verdict"
	"stacklab/stacks"
)

// The tests run the checker against a small stack of our own (an httptest
// server on 127.0.0.1 over a real, seeded SQLite file) that gets one thing
// wrong per case, and assert that exactly the check a user would expect
// fails, and that the correct stack passes.

const fixturePragmas = `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;
PRAGMA cache_size = 2000; PRAGMA mmap_size = 134217728; PRAGMA journal_size_limit = 67108864; PRAGMA foreign_keys = ON;`

// pragmasOnFirstOnly makes the "first" driver set the pragmas on the first
// connection it opens and forget them on the others: a pool bug.
var pragmasOnFirstOnly atomic.Bool

func init() {
	sql.Register("sqlite3_fixture", &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec(fixturePragmas, nil)
		return err
	}})
	sql.Register("sqlite3_fixture_first", &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if pragmasOnFirstOnly.Swap(false) {
			_, err := c.Exec(fixturePragmas, nil)
			return err
		}
		return nil
	}})
}

// seedDB writes a freshly seeded lab database (stacks/schema.sql and the
// lab's seed rows) and returns its path.
func seedDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// A small seed: three users, enough orders for /account's 20 and a
	// PENDING one of another user's.
	if err := stacks.SeedSQLite(tx, stacks.Size{Items: 1000, Events: 1000, Users: 3, OrdersPerUser: 30}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture is the lab app with at most one fault.
type fixture struct {
	db         *sql.DB
	fault      string
	upstream   string
	http       *http.Client
	startCount int64
	fakeIDs    atomic.Int64
	stopWorker chan struct{}
}

func startFixture(t *testing.T, fault, upstream string) (baseURL, dbPath string) {
	t.Helper()
	dbPath = seedDB(t)
	drv := "sqlite3_fixture"
	if fault == "pragmas-first-conn-only" {
		drv = "sqlite3_fixture_first"
		pragmasOnFirstOnly.Store(true)
	}
	open := dbPath
	if fault == "writes-to-another-file" { // e.g. a stack that ignores DATABASE_PATH
		b, err := os.ReadFile(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		open = filepath.Join(t.TempDir(), "other.db")
		if err := os.WriteFile(open, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open(drv, open+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	f := &fixture{db: db, fault: fault, upstream: upstream, http: &http.Client{Timeout: 5 * time.Second}}
	if err := db.QueryRow("SELECT COUNT(*) FROM bench_events").Scan(&f.startCount); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.routes())
	t.Cleanup(func() {
		if f.stopWorker != nil {
			close(f.stopWorker)
		}
		srv.Close()
		f.http.CloseIdleConnections()
		db.Close()
	})
	return srv.URL, dbPath
}

func (f *fixture) routes() http.Handler {
	mux := http.NewServeMux()
	route := func(method, path string, h http.HandlerFunc) {
		if f.fault == "wrong-method-404" {
			mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != method {
					http.NotFound(w, r)
					return
				}
				h(w, r)
			})
			return
		}
		mux.HandleFunc(method+" "+path, h)
	}
	route("GET", "/up", f.up)
	route("GET", "/json", f.json)
	route("GET", "/items", f.items)
	route("GET", "/page", f.page)
	route("GET", "/bench/upstream", f.upstreamCall)
	route("POST", "/bench/write", f.write)
	route("GET", "/bench/read", f.read)
	route("GET", "/bench/pragmas", f.pragmas)
	known := []string{"/up", "/json", "/items", "/page", "/bench/upstream", "/bench/write", "/bench/read", "/bench/pragmas"}
	signedIn := f.signedInRoutes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// A catch-all pattern also catches a known path with another
		// method: without this, ServeMux answers those 404.
		if (f.fault != "wrong-method-404" && slices.Contains(known, r.URL.Path)) || slices.Contains(signedIn, r.URL.Path) || cancelPath.MatchString(r.URL.Path) {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		switch f.fault {
		case "not-found-200":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "ok")
		case "no-content-type-404":
			w.Header()["Content-Type"] = nil // no sniffing either
			w.WriteHeader(404)
			fmt.Fprint(w, "not found")
		default:
			http.NotFound(w, r)
		}
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

func (f *fixture) up(w http.ResponseWriter, r *http.Request) {
	if f.fault == "up-content-type" {
		w.Header().Set("Content-Type", "text/html")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	fmt.Fprint(w, "ok")
}

func (f *fixture) json(w http.ResponseWriter, r *http.Request) {
	if f.fault == "json-missing-key" {
		writeJSON(w, 200, `{}`)
		return
	}
	writeJSON(w, 200, `{"message":"Hello, World!"}`)
}

type fixtureItem struct {
	ID        int64  `json:"id"`
	Title     string `json:"title"`
	CreatedAt int64  `json:"created_at"`
}

func (f *fixture) newest(order string) ([]fixtureItem, error) {
	rows, err := f.db.Query("SELECT id, title, created_at FROM items ORDER BY id " + order + " LIMIT 20")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var items []fixtureItem
	for rows.Next() {
		var it fixtureItem
		if err := rows.Scan(&it.ID, &it.Title, &it.CreatedAt); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

func (f *fixture) items(w http.ResponseWriter, r *http.Request) {
	items, err := f.newest("DESC")
	if err != nil {
		writeJSON(w, 500, `{"ok":false,"error":"db"}`)
		return
	}
	if f.fault == "items-key-order" {
		var parts []string
		for _, it := range items {
			t, _ := json.Marshal(it.Title)
			parts = append(parts, fmt.Sprintf(`{"title":%s,"id":%d,"created_at":%d}`, t, it.ID, it.CreatedAt))
		}
		writeJSON(w, 200, `{"items":[`+strings.Join(parts, ",")+`]}`)
		return
	}
	b, _ := json.Marshal(struct {
		Items []fixtureItem `json:"items"`
	}{items})
	writeJSON(w, 200, string(b))
}

func (f *fixture) page(w http.ResponseWriter, r *http.Request) {
	order := "DESC"
	if f.fault == "page-wrong-ids" {
		order = "ASC"
	}
	items, err := f.newest(order)
	if err != nil {
		http.Error(w, "db", 500)
		return
	}
	if f.fault == "page-no-charset" {
		w.Header().Set("Content-Type", "text/html")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>Items</title></head><body><ul>\n")
	for _, it := range items {
		title := html.EscapeString(it.Title)
		switch f.fault {
		case "page-unescaped":
			title = it.Title
		case "page-quote-unescaped": // escapes < > & but not quotes
			title = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(it.Title)
		}
		fmt.Fprintf(&b, "<li data-id=\"%d\">%s</li>\n", it.ID, title)
	}
	if f.fault == "page-li-class" {
		b.WriteString("<li class=\"extra\">not an item</li>\n")
	}
	b.WriteString("</ul></body></html>\n")
	fmt.Fprint(w, b.String())
}

func (f *fixture) upstreamCall(w http.ResponseWriter, r *http.Request) {
	if f.fault == "upstream-no-call" {
		writeJSON(w, 200, `{"ok":true,"upstream":200}`)
		return
	}
	resp, err := f.http.Get(f.upstream + "/delay?ms=100")
	if err != nil {
		if f.fault == "upstream-500-on-failure" {
			writeJSON(w, 500, `{"ok":false,"error":"upstream"}`)
			return
		}
		writeJSON(w, 502, `{"ok":false,"error":"upstream unreachable"}`)
		return
	}
	resp.Body.Close()
	writeJSON(w, 200, fmt.Sprintf(`{"ok":true,"upstream":%d}`, resp.StatusCode))
}

func (f *fixture) write(w http.ResponseWriter, r *http.Request) {
	payload := strings.Repeat("p", 200)
	if f.fault == "write-payload-short" {
		payload = "short"
	}
	rows := 1
	if f.fault == "write-double-insert" {
		rows = 2
	}
	tx, err := f.db.Begin() // BEGIN IMMEDIATE through _txlock
	if err != nil {
		writeJSON(w, 503, `{"ok":false,"error":"begin"}`)
		return
	}
	defer tx.Rollback() //nolint:errcheck
	var id int64
	if f.fault == "write-no-insert" {
		id = 5000 + f.fakeIDs.Add(1) // distinct ids, no row
	} else {
		for range rows {
			res, err := tx.Exec("INSERT INTO bench_events (payload, created_at) VALUES (?, ?)", payload, time.Now().UnixMilli())
			if err != nil {
				writeJSON(w, 503, `{"ok":false,"error":"insert"}`)
				return
			}
			id, _ = res.LastInsertId()
		}
	}
	if err := tx.Commit(); err != nil {
		writeJSON(w, 503, `{"ok":false,"error":"commit"}`)
		return
	}
	writeJSON(w, 200, fmt.Sprintf(`{"ok":true,"id":%d}`, id))
}

func (f *fixture) read(w http.ResponseWriter, r *http.Request) {
	var count int64
	if err := f.db.QueryRow("SELECT COUNT(*) FROM bench_events").Scan(&count); err != nil {
		writeJSON(w, 500, `{"ok":false,"error":"count"}`)
		return
	}
	switch f.fault {
	case "read-count-off-by-one":
		count--
	case "read-stale-count":
		count = f.startCount
	}
	rows, err := f.db.Query("SELECT id, created_at FROM bench_events ORDER BY id DESC LIMIT 20")
	if err != nil {
		writeJSON(w, 500, `{"ok":false,"error":"latest"}`)
		return
	}
	defer rows.Close()
	var latest []string
	for rows.Next() {
		var id, created int64
		if err := rows.Scan(&id, &created); err != nil {
			writeJSON(w, 500, `{"ok":false,"error":"scan"}`)
			return
		}
		latest = append(latest, fmt.Sprintf(`{"id":%d,"created_at":%d}`, id, created))
	}
	writeJSON(w, 200, fmt.Sprintf(`{"ok":true,"count":%d,"latest":[%s]}`, count, strings.Join(latest, ",")))
}

func (f *fixture) pragmas(w http.ResponseWriter, r *http.Request) {
	conn, err := f.db.Conn(r.Context())
	if err != nil {
		writeJSON(w, 503, `{"ok":false,"error":"conn"}`)
		return
	}
	defer conn.Close()
	names := []string{"journal_mode", "synchronous", "busy_timeout", "cache_size", "mmap_size", "journal_size_limit", "foreign_keys"}
	var parts []string
	for _, n := range names {
		var v any
		if err := conn.QueryRowContext(r.Context(), "PRAGMA "+n).Scan(&v); err != nil {
			writeJSON(w, 500, `{"ok":false,"error":"pragma"}`)
			return
		}
		b, _ := json.Marshal(v)
		if s, ok := v.([]byte); ok {
			b, _ = json.Marshal(string(s))
		}
		parts = append(parts, fmt.Sprintf("%q:%s", n, b))
	}
	var id string
	conn.Raw(func(dc any) error { id = fmt.Sprintf("%p", dc); return nil })
	parts = append(parts, fmt.Sprintf(`"connection":%q`, id))
	writeJSON(w, 200, "{"+strings.Join(parts, ",")+"}")
}

// mockUpstream answers GET /delay?ms=N like stacks/upstream.
func mockUpstream(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		writeJSON(w, 200, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// deadUpstream is a loopback URL nothing listens on.
func deadUpstream(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func runVerify(t *testing.T, fault, upstream string) ([]result, *snapshot) {
	t.Helper()
	base, dbPath := startFixture(t, fault, upstream)
	return verify(config{Stack: "fixture-" + fault, BaseURL: base, DBPath: dbPath, UpstreamURL: upstream, Writes: 20, Samples: 64, Concurrency: 8, LoadWrites: 40, LoadTime: 300 * time.Millisecond, WriteConcurrency: 8})
}

func failed(results []result) []string {
	var f []string
	for _, r := range results {
		if !r.OK {
			f = append(f, r.Check)
		}
	}
	return f
}

func TestCorrectStackPasses(t *testing.T) {
	for name, upstream := range map[string]func(*testing.T) string{
		"upstream up":   mockUpstream,
		"upstream down": deadUpstream,
	} {
		t.Run(name, func(t *testing.T) {
			results, snap := runVerify(t, "", upstream(t))
			if f := failed(results); len(f) != 0 {
				t.Fatalf("a correct stack failed %v:\n%s", f, report("fixture", results, 4))
			}
			if len(results) != 18 || snap == nil {
				t.Fatalf("want 18 checks and a snapshot, got %d and %v", len(results), snap)
			}
		})
	}
}

func TestUpstreamSkippedWithoutURL(t *testing.T) {
	results, _ := runVerify(t, "", "")
	var r result
	for _, x := range results {
		if x.Check == "upstream" {
			r = x
		}
	}
	if r.Check != "upstream" || !r.Skipped || !r.OK {
		t.Fatalf("want the upstream check skipped, got %+v", r)
	}
	if !strings.Contains(report("fixture", results, 4), "upstream: no upstream URL given") {
		t.Fatalf("the report does not say the upstream check was skipped:\n%s", report("fixture", results, 4))
	}
}

// Each fault must fail exactly the check that covers it.
func TestEachFaultFailsItsCheck(t *testing.T) {
	cases := []struct {
		fault, check string
		upstreamUp   bool
		gotContains  string
	}{
		{"up-content-type", "up", true, "text/html"},
		{"json-missing-key", "json", true, "{}"},
		{"items-key-order", "items", true, "[title id created_at]"},
		{"page-unescaped", "page", true, `fox <&\"'>`},
		{"page-quote-unescaped", "page", true, `fox &lt;&amp;\"'&gt;`},
		{"page-wrong-ids", "page", true, "[1 2 3"},
		{"page-no-charset", "page", true, "text/html"},
		{"page-li-class", "page", true, "21 <li"},
		{"not-found-200", "not-found", true, "status 200"},
		{"no-content-type-404", "not-found", true, "none"},
		{"wrong-method-404", "method-not-allowed", true, "status 404"},
		{"read-count-off-by-one", "read", true, "999"},
		{"write-no-insert", "writes", true, "1000"},
		{"write-double-insert", "writes", true, "1040"},
		{"read-stale-count", "writes", true, "1000"},
		{"writes-to-another-file", "writes", true, "1000"},
		{"write-payload-short", "writes", true, "5 bytes"},
		{"pragmas-first-conn-only", "pragmas", true, "connections at other settings: 0x"},
		{"upstream-no-call", "upstream", true, " ms"},
		{"upstream-500-on-failure", "upstream", false, "status 500"},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			up := deadUpstream(t)
			if tc.upstreamUp {
				up = mockUpstream(t)
			}
			results, _ := runVerify(t, tc.fault, up)
			f := failed(results)
			if tc.fault == "writes-to-another-file" {
				// The signed-in checks read the same other file: they fail too.
				f = slices.DeleteFunc(f, func(c string) bool { return c != "writes" })
			}
			if !slices.Equal(f, []string{tc.check}) {
				t.Fatalf("want only %q to fail, failed: %v\n%s", tc.check, f, report("fixture", results, 4))
			}
			for _, r := range results {
				if r.Check == tc.check && (r.Expected == "" || !strings.Contains(r.Got, tc.gotContains)) {
					t.Errorf("the failure should say what came back (containing %q): expected %q, got %q", tc.gotContains, r.Expected, r.Got)
				}
			}
			line := strings.SplitN(report("fixture-"+tc.fault, results, 4), "\n", 2)[0]
			if !strings.HasPrefix(line, "fixture-"+tc.fault+": FAIL") || !strings.Contains(line, tc.check+": expected") {
				t.Errorf("the verdict line should name the stack and the check: %q", line)
			}
		})
	}
}

// A pool that ran its pragmas once: sampled under the write load, every
// connection the pool opened answers, and each one at the wrong settings
// is named; the record says how many there were.
func TestPragmasNameEachWrongConnection(t *testing.T) {
	base, dbPath := startFixture(t, "pragmas-first-conn-only", "")
	c := newChecker(config{Stack: "once", BaseURL: base, DBPath: dbPath, Writes: 20, Samples: 64, Concurrency: 8, LoadWrites: 40, LoadTime: 300 * time.Millisecond, WriteConcurrency: 8})
	results, _ := c.verify()
	if f := failed(results); !slices.Equal(f, []string{"pragmas"}) {
		t.Fatalf("want only pragmas to fail, failed %v", f)
	}
	// the fixture's pool holds 4: the first at docs/app.md's settings, 3 not
	if c.connections < 2 || len(c.wrong) != c.connections-1 {
		t.Fatalf("want every connection but the first named as wrong, got %d connections, wrong %v", c.connections, c.wrong)
	}
	var got string
	for _, r := range results {
		if r.Check == "pragmas" {
			got = r.Got
		}
	}
	for _, id := range c.wrong {
		if !strings.Contains(got, id+" (cache_size -2000 (want 2000), mmap_size 0 (want 134217728)") {
			t.Errorf("the failure should name %s and its settings: %s", id, got)
		}
	}
	if want := fmt.Sprintf("%d of %d connections at other settings", len(c.wrong), c.connections); !strings.Contains(got, want) {
		t.Errorf("the failure should count them (%q): %s", want, got)
	}
	rec := rowRecord("once", results, c)
	if rec.Pass || rec.Connections != c.connections || !slices.Equal(rec.Wrong, c.wrong) || !regexp.MustCompile(`^pragmas: expected GET /bench/pragmas while [0-9]+ writes ran, 8 in flight`).MatchString(rec.First) {
		t.Errorf("the row record does not say what failed: %+v", rec)
	}
}

func TestParitySnapshots(t *testing.T) {
	dir := t.TempDir()
	_, a := runVerify(t, "", "")
	_, b := runVerify(t, "", "")
	b.Stack = "other"
	_, c := runVerify(t, "json-missing-key", "")
	var paths []string
	for _, s := range []*snapshot{a, b, c} {
		p := filepath.Join(dir, s.Stack+".json")
		if err := os.WriteFile(p, s.encode(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var snaps []*snapshot
	for _, p := range paths {
		s, err := readSnapshot(p)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	if string(snaps[0].encode()) != string(a.encode()) {
		t.Fatalf("a snapshot does not read back as written:\n%s\n%s", snaps[0].encode(), a.encode())
	}
	// every GET route, 3 404s, 8 405s, two writes each read back, /items
	// again; then the signed-in requests (signedInExchanges): 11 before the
	// cancel, 3 cancels, 4 wrong methods, the sign-out and 2 signed out
	if n := len(a.Exchanges); n != 6+3+8+5+11+3+4+3 {
		t.Fatalf("want 43 answers in the snapshot, got %d:\n%s", n, a.encode())
	}
	if p := compareSnapshots(snaps[:2]); p.mismatched != 0 || p.identical != len(a.Exchanges) {
		t.Fatalf("two correct stacks after the same requests differ: %+v", p)
	}
	p := compareSnapshots(snaps)
	if p.mismatched != 1 || p.identical != 2*len(a.Exchanges)-1 || len(p.diffs) != 1 ||
		!strings.Contains(p.diffs[0], "fixture-json-missing-key differs from fixture- at GET /json.body: keys [message] vs []") {
		t.Fatalf("want the /json difference named and counted, got %+v", p)
	}
	if !strings.Contains(p.first, `fixture- answered {"status":200,"type":"application/json","body":{"message":"Hello, World!"}}; fixture-json-missing-key answered {"status":200,"type":"application/json","body":{}}`) {
		t.Fatalf("the first difference should show both answers in full, got %q", p.first)
	}
	if line := parityLine(snaps, p); !strings.HasPrefix(line, "parity: 85 identical, 1 mismatched (43 answers of each of 2 other stacks against fixture-'s") {
		t.Fatalf("got %q", line)
	}

	// The same bytes after normalisation: whitespace and \u escapes do not count.
	x, _ := decodeOrdered([]byte(`{"title": "caf\u00e9 <b>", "id": 1}`))
	y, _ := decodeOrdered([]byte(`{"title":"café <b>","id":1}`))
	if d := firstDifference("", x, y); d != "" {
		t.Fatalf("normalised JSON should be equal: %s", d)
	}
	z, _ := decodeOrdered([]byte(`{"id":1,"title":"café <b>"}`))
	if d := firstDifference("items", x, z); d != `items: key 0 is "title" vs "id"` {
		t.Fatalf("key order must count, got %q", d)
	}
	w, _ := decodeOrdered([]byte(`{"title":"café <b>","id":2}`))
	if d := firstDifference("items", y, w); d != "items.id: 1 vs 2" {
		t.Fatalf("got %q", d)
	}
}

func TestReadSnapshotRejectsOtherFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(p, []byte(`{"items":[]}`), 0o644)
	if _, err := readSnapshot(p); err == nil || !strings.Contains(err.Error(), "not a parity snapshot") {
		t.Fatalf("want a clear error, got %v", err)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for s, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://127.0.0.1:8080/": true,
		"http://localhost:8080": false, "http://10.0.0.1:8080": false, "https://127.0.0.1:8080": false,
		"http://127.0.0.1": false, "http://127.0.0.1:1/x": false,
	} {
		if err := loopbackURL(s); (err == nil) != ok {
			t.Errorf("loopbackURL(%q) = %v", s, err)
		}
	}
}

func TestNothingListening(t *testing.T) {
	results, snap := verify(config{Stack: "gone", BaseURL: deadUpstream(t), DBPath: seedDB(t), Writes: 1, Samples: 1, Concurrency: 1})
	if len(results) != 1 || results[0].OK || snap != nil || !strings.Contains(results[0].Got, "connection refused") {
		t.Fatalf("want one failed check saying the connection was refused, got %+v", results)
	}
}

// collect gathers a run's row records and compares the snapshots beside
// them into the run's record, whose header the summary prints.
func TestCollect(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "raw")
	for _, fault := range []string{"", "json-missing-key"} {
		base, dbPath := startFixture(t, fault, "")
		c := newChecker(config{Stack: "fixture-" + fault, BaseURL: base, DBPath: dbPath, Writes: 20, Samples: 64, Concurrency: 8, LoadWrites: 40, LoadTime: 300 * time.Millisecond, WriteConcurrency: 8})
		results, snap := c.verify()
		dir := filepath.Join(raw, "run-1", "row-"+fault)
		os.MkdirAll(dir, 0o755)
		if err := verdict.Write(filepath.Join(dir, verdict.RowFile), rowRecord(c.cfg.Stack, results, c)); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, verdict.SnapshotFile), snap.encode(), 0o644)
	}
	out := filepath.Join(raw, "verify.json")
	if rc := collectMain([]string{"-out", out, "-raw", raw}); rc != 1 {
		t.Fatalf("a failed row and a mismatch: want status 1, got %d", rc)
	}
	rec, err := verdict.Read(filepath.Dir(raw))
	if err != nil || rec == nil {
		t.Fatalf("no record: %v", err)
	}
	h := rec.Header()
	if !strings.HasPrefix(h, "verify: 1/2 PASS (fixture-json-missing-key FAIL in run 1: json: expected GET /json:") ||
		!strings.Contains(h, "parity: 42 identical, 1 mismatched; first: run 1: fixture-json-missing-key differs from fixture- at GET /json.body") {
		t.Fatalf("got %q", h)
	}
}

// A pool that sheds a request answers 503 {"ok":false,"error":…} as docs/app.md
// says; anything else at 503 is not that answer.
func TestDBBusyIsAPPmdsAnswerOnly(t *testing.T) {
	ans := func(status int, ct, body string) *answer {
		return &answer{method: "POST", path: "/bench/write", status: status, header: http.Header{"Content-Type": {ct}}, body: []byte(body), framed: true}
	}
	for _, c := range []struct {
		a    *answer
		want bool
	}{
		{ans(503, "application/json", `{"ok":false,"error":"no database connection within 25ms"}`), true},
		{ans(200, "application/json", `{"ok":true,"id":7}`), false},
		{ans(503, "text/plain", `busy`), false},
		{ans(503, "application/json", `{"ok":false}`), false},
		{ans(500, "application/json", `{"ok":false,"error":"x"}`), false},
	} {
		if got := dbBusy(c.a); got != c.want {
			t.Errorf("dbBusy(%d %s) = %v, want %v", c.a.status, c.a.body, got, c.want)
		}
	}
}
