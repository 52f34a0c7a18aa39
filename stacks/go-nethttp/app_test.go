package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The schema of APP.md; the lab's seeder owns the real one, the tests seed
// their own small file so they do not depend on it.
const testSchema = `
CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE bench_events(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL);`

// nastyTitle holds every character /page must escape, and non-ASCII text.
const nastyTitle = `Tom & Jerry's <b>"quoted"</b> — naïve 日本`

type fixture struct {
	srv  *httptest.Server
	db   *sql.DB
	path string
}

// newFixture seeds a real SQLite file with 30 items (item 30 has
// nastyTitle) and 5 bench_events, and serves the app over real HTTP.
func newFixture(t testing.TB, upstreamURL string, pool int) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.db")
	seed, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Exec(testSchema); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 30; i++ {
		title := fmt.Sprintf("item %d", i)
		if i == 30 {
			title = nastyTitle
		}
		if _, err := seed.Exec("INSERT INTO items VALUES (?, ?, 'body', ?)", i, title, 1700000000+i); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 5; i++ {
		if _, err := seed.Exec("INSERT INTO bench_events VALUES (?, 'p', ?)", i, 1700000000000+i); err != nil {
			t.Fatal(err)
		}
	}
	seed.Close()

	db, err := openDB(context.Background(), path, pool)
	if err != nil {
		t.Fatal(err)
	}
	client := newUpstreamClient()
	a, err := newApp(context.Background(), db, client, upstreamURL, false)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(func() {
		srv.Close()
		client.CloseIdleConnections()
		db.Close()
	})
	return &fixture{srv: srv, db: db, path: path}
}

func (f *fixture) do(t testing.TB, method, path string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, f.srv.URL+path, nil)
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("Content-Type") == "" {
		t.Errorf("%s %s: no Content-Type", method, path)
	}
	if res.ContentLength < 0 && len(res.TransferEncoding) == 0 {
		t.Errorf("%s %s: neither Content-Length nor chunked", method, path)
	}
	return res.StatusCode, res.Header, string(b)
}

func expect(t *testing.T, f *fixture, method, path string, status int, ctype, body string) {
	t.Helper()
	st, h, b := f.do(t, method, path)
	if st != status || h.Get("Content-Type") != ctype || b != body {
		t.Errorf("%s %s: got %d %q %q\nwant %d %q %q", method, path, st, h.Get("Content-Type"), b, status, ctype, body)
	}
}

func TestStaticRoutes(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 4)
	expect(t, f, "GET", "/up", 200, "text/plain; charset=utf-8", "ok")
	expect(t, f, "GET", "/json", 200, "application/json", `{"message":"Hello, World!"}`)
}

func TestNotFoundAndWrongMethod(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 4)
	for _, p := range []string{"/", "/nope", "/up/", "/bench", "/bench/other", "/items/1"} {
		expect(t, f, "GET", p, 404, "text/plain; charset=utf-8", "404 page not found\n")
	}
	for _, c := range []struct{ method, path, allow string }{
		{"POST", "/up", "GET, HEAD"},
		{"DELETE", "/items", "GET, HEAD"},
		{"POST", "/page", "GET, HEAD"},
		{"GET", "/bench/write", "POST"},
		{"PUT", "/bench/pragmas", "GET, HEAD"},
	} {
		st, h, b := f.do(t, c.method, c.path)
		if st != 405 || h.Get("Allow") != c.allow || b != "Method Not Allowed\n" {
			t.Errorf("%s %s: got %d Allow=%q %q, want 405 Allow=%q", c.method, c.path, st, h.Get("Allow"), b, c.allow)
		}
	}
}

func TestItemsNewestTwentyInKeyOrder(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 4)
	st, h, b := f.do(t, "GET", "/items")
	if st != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /items: %d %s", st, h.Get("Content-Type"))
	}
	// Byte-level check of key order: APP.md fixes it, and the parity check
	// normalises JSON but readers diff the raw answers.
	wantStart := `{"items":[{"id":30,"title":"Tom \u0026 Jerry's \u003cb\u003e\"quoted\"\u003c/b\u003e — naïve 日本","created_at":1700000030},{"id":29,"title":"item 29","created_at":1700000029},`
	if !strings.HasPrefix(b, wantStart) {
		t.Errorf("GET /items starts %q\nwant %q", b[:min(len(b), 200)], wantStart)
	}
	var got struct{ Items []item }
	if err := json.Unmarshal([]byte(b), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 20 || got.Items[0].ID != 30 || got.Items[19].ID != 11 || got.Items[0].Title != nastyTitle {
		t.Errorf("GET /items: %d items, first %+v", len(got.Items), got.Items[0])
	}
}

func TestPageEscapesAndListsTheSameItems(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 4)
	st, h, b := f.do(t, "GET", "/page")
	if st != 200 || h.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /page: %d %s", st, h.Get("Content-Type"))
	}
	if !strings.HasPrefix(b, "<!DOCTYPE html>") || !strings.Contains(b, "<title>Items</title>") || !strings.HasSuffix(b, "</html>\n") {
		t.Errorf("GET /page is not a whole document titled Items:\n%s", b)
	}
	lis := regexp.MustCompile(`<li data-id="(\d+)">([^<]*)</li>`).FindAllStringSubmatch(b, -1)
	if len(lis) != 20 {
		t.Fatalf("GET /page lists %d items, want 20:\n%s", len(lis), b)
	}
	for i, li := range lis {
		if want := fmt.Sprint(30 - i); li[1] != want {
			t.Errorf("li %d has data-id %s, want %s", i, li[1], want)
		}
	}
	escaped := lis[0][2]
	for _, c := range []string{"<", ">", `"`, "'"} {
		if strings.Contains(escaped, c) {
			t.Errorf("title %q left %q unescaped", escaped, c)
		}
	}
	if html.UnescapeString(escaped) != nastyTitle {
		t.Errorf("title %q unescapes to %q, want %q", escaped, html.UnescapeString(escaped), nastyTitle)
	}
}

type readAns struct {
	OK     bool    `json:"ok"`
	Count  int64   `json:"count"`
	Latest []event `json:"latest"`
}

func readBench(t *testing.T, f *fixture) readAns {
	t.Helper()
	st, _, b := f.do(t, "GET", "/bench/read")
	if st != 200 {
		t.Fatalf("GET /bench/read: %d %s", st, b)
	}
	if !strings.HasPrefix(b, `{"ok":true,"count":`) || !strings.Contains(b, `"latest":[{"id":`) {
		t.Errorf("GET /bench/read key order: %s", b)
	}
	var r readAns
	if err := json.Unmarshal([]byte(b), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWritesRaiseCountByExactlyN(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 4)
	before := readBench(t, f)
	if before.Count != 5 || len(before.Latest) != 5 || before.Latest[0].ID != 5 {
		t.Fatalf("seeded /bench/read: %+v", before)
	}
	const n = 200
	start := time.Now().UnixMilli()
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[int64]bool{}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 16 {
				res, err := f.srv.Client().Post(f.srv.URL+"/bench/write", "", nil)
				if err != nil {
					t.Error(err)
					return
				}
				var ans struct {
					OK bool  `json:"ok"`
					ID int64 `json:"id"`
				}
				err = json.NewDecoder(res.Body).Decode(&ans)
				res.Body.Close()
				if err != nil || res.StatusCode != 200 || !ans.OK || res.Header.Get("Content-Type") != "application/json" {
					t.Errorf("POST /bench/write: %d %+v %v", res.StatusCode, ans, err)
					return
				}
				mu.Lock()
				ids[ans.ID] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	want := int64(5 + n/16*16)
	after := readBench(t, f)
	if after.Count != want || int64(len(ids)) != want-5 {
		t.Errorf("after %d writes: count %d, %d distinct ids; want count %d", n/16*16, after.Count, len(ids), want)
	}
	if len(after.Latest) != 20 || after.Latest[0].ID != want || after.Latest[19].ID != want-19 {
		t.Errorf("latest after writes: %+v", after.Latest)
	}
	if ca := after.Latest[0].CreatedAt; ca < start || ca > time.Now().UnixMilli() {
		t.Errorf("created_at %d is not Unix milliseconds of now", ca)
	}
	// The file itself, through a connection of its own, holds the rows.
	other, err := sql.Open("sqlite3", f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var rows, badLen int64
	other.QueryRow("SELECT count(*), sum(length(payload) != 200) FROM bench_events WHERE id > 5").Scan(&rows, &badLen)
	if rows != want-5 || badLen != 0 {
		t.Errorf("database file: %d new rows (%d with payload not 200 bytes), want %d", rows, badLen, want-5)
	}
}

// TestPragmasOnEveryPooledConnection holds every pooled connection at once,
// so each is a distinct physical connection, and checks each one; then
// checks the HTTP answer under concurrent load.
func TestPragmasOnEveryPooledConnection(t *testing.T) {
	const pool = 6
	f := newFixture(t, "http://127.0.0.1:1", pool)
	want := pragmas{"wal", 1, 5000, 2000, 134217728, 67108864, 1, ""}
	ctx := context.Background()
	var conns []*sql.Conn
	for range pool {
		c, err := f.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if open := f.db.Stats().OpenConnections; open != pool {
		t.Errorf("%d open connections, want %d", open, pool)
	}
	ids := map[string]bool{}
	for i, c := range conns {
		got, err := readPragmas(ctx, c)
		ids[got.Connection] = true
		if got.Connection == "" || !strings.HasPrefix(got.Connection, "0x") {
			t.Errorf("connection %d: id %q, want the driver connection's address", i, got.Connection)
		}
		got.Connection = ""
		if err != nil || got != want {
			t.Errorf("connection %d: %+v %v, want %+v", i, got, err, want)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	if len(ids) != pool {
		t.Errorf("%d distinct connection ids over %d held connections, want %d", len(ids), pool, pool)
	}

	wantBody := regexp.MustCompile(`^\{"journal_mode":"wal","synchronous":1,"busy_timeout":5000,"cache_size":2000,"mmap_size":134217728,"journal_size_limit":67108864,"foreign_keys":1,"connection":"0x[0-9a-f]+"\}$`)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				res, err := f.srv.Client().Get(f.srv.URL + "/bench/pragmas")
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || !wantBody.Match(b) {
					t.Errorf("GET /bench/pragmas: %d %s", res.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	// Equal open and idle limits: the burst must not have closed any.
	if st := f.db.Stats(); st.MaxIdleClosed != 0 || st.OpenConnections != pool {
		t.Errorf("pool after burst: %d open, %d closed as idle-surplus", st.OpenConnections, st.MaxIdleClosed)
	}
}

func TestBenchUpstream(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	status := 200
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.RequestURI())
		st := status
		mu.Unlock()
		w.WriteHeader(st)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer up.Close()
	f := newFixture(t, up.URL+"/", 4)
	expect(t, f, "GET", "/bench/upstream", 200, "application/json", `{"ok":true,"upstream":200}`)
	if len(asked) != 1 || asked[0] != "GET /delay?ms=100" {
		t.Errorf("upstream was asked %q", asked)
	}
	mu.Lock()
	status = 500
	mu.Unlock()
	expect(t, f, "GET", "/bench/upstream", 502, "application/json", `{"ok":false,"error":"upstream answered 500 Internal Server Error"}`)

	down := newFixture(t, "http://127.0.0.1:1", 4)
	st, h, b := down.do(t, "GET", "/bench/upstream")
	if st != 502 || h.Get("Content-Type") != "application/json" || !strings.HasPrefix(b, `{"ok":false,"error":"`) {
		t.Errorf("upstream down: %d %s %s", st, h.Get("Content-Type"), b)
	}
}

func TestWriteFailureIs503(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 4)
	other, err := sql.Open("sqlite3", f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec("DROP TABLE bench_events"); err != nil {
		t.Fatal(err)
	}
	st, h, b := f.do(t, "POST", "/bench/write")
	if st != 503 || h.Get("Content-Type") != "application/json" || !strings.HasPrefix(b, `{"ok":false,"error":"`) {
		t.Errorf("write to a dropped table: %d %s %s", st, h.Get("Content-Type"), b)
	}
}

func TestOpenRefusesMissingOrUnseededFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := openDB(context.Background(), filepath.Join(dir, "none.db"), 2); err == nil || !strings.Contains(err.Error(), "DATABASE_PATH") {
		t.Errorf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.db")
	db, _ := sql.Open("sqlite3", empty)
	db.Exec("CREATE TABLE x(a)")
	db.Close()
	if _, err := openDB(context.Background(), empty, 2); err == nil || !strings.Contains(err.Error(), "seed it first") {
		t.Errorf("unseeded file: %v", err)
	}
}

// BenchmarkRoutes measures the handlers alone (no network), for comparing
// changes: go test -run '^$' -bench . ./stacks/go-nethttp
func BenchmarkRoutes(b *testing.B) {
	f := newFixture(b, "http://127.0.0.1:1", 4)
	h := f.srv.Config.Handler
	for _, path := range []string{"/up", "/json", "/items", "/page", "/bench/read"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			req := httptest.NewRequest("GET", path, nil)
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("GET %s: %d", path, w.Code)
				}
			}
		})
	}
}
