package main

import (
	"bytes"
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

//go:embed page.html
var pageHTML string

var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

// writePayload is the 200 ASCII bytes each /bench/write stores.
var writePayload = strings.Repeat("stacklab-bench-event:", 10)[:200]

const (
	sqlItems = "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20"
	// One statement, so count and rows come from one snapshot even while
	// writers commit; an empty table gives no row and count 0.
	sqlRead   = "SELECT (SELECT count(*) FROM bench_events), id, created_at FROM bench_events ORDER BY id DESC LIMIT 20"
	sqlInsert = "INSERT INTO bench_events (payload, created_at) VALUES (?, ?)"
)

type app struct {
	db          *sql.DB
	items       *sql.Stmt
	read        *sql.Stmt
	insert      *sql.Stmt
	client      *http.Client
	upstreamURL string
	// acquire, when set, bounds how long a write waits for a pooled
	// connection (DB_ACQUIRE_TIMEOUT_MS); past it the write answers 503.
	acquire time.Duration
	// postgres: the database is the lab's Postgres (DATABASE_URL), not SQLite.
	postgres bool
	// dropEvery, when set, is the lab's planted fault (SELFTEST_DROP_EVERY):
	// every n-th write after the first 2n answers 200 with an id but is
	// rolled back, which the write case's rows check must catch (verify's
	// counted writes, the first 52, all land, so verify passes it).
	dropEvery int64
	writes    atomic.Int64

	// The signed-in routes (signedin.go): their statements, the CSRF
	// tokens' HMAC key (drawn from the OS random source at start, never
	// written anywhere), and the lab's planted faults for verify's own
	// test: anyCookie (SELFTEST_ANY_COOKIE) takes any lab_session cookie for
	// user 1's session, noCSRF (SELFTEST_NO_CSRF) skips the CSRF check.
	st        signedInStmts
	csrfKey   []byte
	anyCookie bool
	noCSRF    bool
}

type item struct {
	ID        int64  `json:"id"`
	Title     string `json:"title"`
	CreatedAt int64  `json:"created_at"`
}

type event struct {
	ID        int64 `json:"id"`
	CreatedAt int64 `json:"created_at"`
}

type readAnswer struct {
	OK     bool    `json:"ok"`
	Count  int64   `json:"count"`
	Latest []event `json:"latest"`
}

type failure struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// newApp prepares the hot statements once; database/sql re-prepares them
// lazily on each pooled connection.
func newApp(ctx context.Context, db *sql.DB, client *http.Client, upstreamURL string, postgres bool) (*app, error) {
	a := &app{db: db, client: client, upstreamURL: strings.TrimRight(upstreamURL, "/"), postgres: postgres, csrfKey: newCSRFKey()}
	insert := sqlInsert
	if postgres {
		insert = pgInsert
	}
	stmts := append([]stmtSQL{{&a.items, sqlItems}, {&a.read, sqlRead}, {&a.insert, insert}}, a.st.list(postgres)...)
	for _, s := range stmts {
		q := s.q
		if postgres {
			q = numbered(q)
		}
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("prepare %q: %w", q, err)
		}
		*s.dst = st
	}
	return a, nil
}

// routes uses Go 1.22 method patterns: a known path with another method
// gets 405 with an Allow header, anything else 404, both text/plain.
func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /up", a.up)
	mux.HandleFunc("GET /json", a.json)
	mux.HandleFunc("GET /items", a.itemsJSON)
	mux.HandleFunc("GET /page", a.page)
	mux.HandleFunc("GET /bench/upstream", a.benchUpstream)
	mux.HandleFunc("POST /bench/write", a.benchWrite)
	mux.HandleFunc("GET /bench/read", a.benchRead)
	mux.HandleFunc("GET /bench/pragmas", a.benchPragmas)
	mux.HandleFunc("GET /sign_in", a.signInForm)
	mux.HandleFunc("POST /sign_in", a.signIn)
	mux.HandleFunc("POST /sign_out", a.signOut)
	mux.HandleFunc("GET /account", a.account)
	mux.HandleFunc("POST /orders", a.placeOrder)
	mux.HandleFunc("POST /orders/{id}/cancel", a.cancelOrder)
	return mux
}

var upBody = []byte("ok")

func (a *app) up(w http.ResponseWriter, r *http.Request) {
	write(w, http.StatusOK, "text/plain; charset=utf-8", upBody)
}

func (a *app) json(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Message string `json:"message"`
	}{"Hello, World!"})
}

func (a *app) newestItems(ctx context.Context) ([]item, error) {
	rows, err := a.items.QueryContext(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := make([]item, 0, 20)
	for rows.Next() {
		var it item
		if err := rows.Scan(&it.ID, &it.Title, &it.CreatedAt); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

func (a *app) itemsJSON(w http.ResponseWriter, r *http.Request) {
	items, err := a.newestItems(r.Context())
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Items []item `json:"items"`
	}{items})
}

func (a *app) page(w http.ResponseWriter, r *http.Request) {
	items, err := a.newestItems(r.Context())
	if err != nil {
		http.Error(w, "database error", http.StatusServiceUnavailable)
		return
	}
	// Render into a buffer: a template error then becomes a 500 instead of
	// half a page, and the answer carries a Content-Length.
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, items); err != nil {
		http.Error(w, "template error", http.StatusInternalServerError)
		return
	}
	write(w, http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
}

func (a *app) benchUpstream(w http.ResponseWriter, r *http.Request) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, a.upstreamURL+"/delay?ms=100", nil)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, failure{Error: err.Error()})
		return
	}
	res, err := a.client.Do(req)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, failure{Error: err.Error()})
		return
	}
	// Drain the body so the connection goes back to the idle pool.
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil {
		writeJSON(w, http.StatusBadGateway, failure{Error: "upstream body: " + err.Error()})
		return
	}
	if res.StatusCode != http.StatusOK {
		writeJSON(w, http.StatusBadGateway, failure{Error: "upstream answered " + res.Status})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		OK       bool `json:"ok"`
		Upstream int  `json:"upstream"`
	}{true, res.StatusCode})
}

func (a *app) benchWrite(w http.ResponseWriter, r *http.Request) {
	id, err := a.insertEvent(r.Context())
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		OK bool  `json:"ok"`
		ID int64 `json:"id"`
	}{true, id})
}

// insertEvent runs in BEGIN IMMEDIATE (the DSN's _txlock). With an
// acquire timeout a write sheds load instead of queueing for the pool. On
// Postgres one INSERT ... RETURNING in its own implicit transaction (one
// round trip, as a pgx user writes it), but with the planted fault, which
// needs a transaction to roll back.
func (a *app) insertEvent(ctx context.Context) (int64, error) {
	if a.postgres && a.acquire == 0 && a.dropEvery == 0 {
		var id int64
		err := a.insert.QueryRowContext(ctx, writePayload, time.Now().UnixMilli()).Scan(&id)
		return id, err
	}
	var tx *sql.Tx
	var err error
	if a.acquire > 0 {
		actx, cancel := context.WithTimeout(ctx, a.acquire)
		conn, cerr := a.db.Conn(actx)
		cancel()
		if cerr != nil {
			return 0, fmt.Errorf("no database connection within %v: %w", a.acquire, cerr)
		}
		defer conn.Close()
		tx, err = conn.BeginTx(ctx, nil)
	} else {
		tx, err = a.db.BeginTx(ctx, nil)
	}
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var id int64
	if a.postgres {
		// RETURNING: Postgres has no last-insert id
		err = tx.StmtContext(ctx, a.insert).QueryRowContext(ctx, writePayload, time.Now().UnixMilli()).Scan(&id)
	} else {
		var res sql.Result
		if res, err = tx.StmtContext(ctx, a.insert).ExecContext(ctx, writePayload, time.Now().UnixMilli()); err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		return 0, err
	}
	if n := a.writes.Add(1); a.dropEvery > 0 && n > 2*a.dropEvery && n%a.dropEvery == 0 {
		return id, nil // the planted fault: answered, rolled back
	}
	return id, tx.Commit()
}

func (a *app) benchRead(w http.ResponseWriter, r *http.Request) {
	rows, err := a.read.QueryContext(r.Context())
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return
	}
	defer rows.Close()
	ans := readAnswer{OK: true, Latest: make([]event, 0, 20)}
	for rows.Next() {
		var e event
		if err := rows.Scan(&ans.Count, &e.ID, &e.CreatedAt); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
			return
		}
		ans.Latest = append(ans.Latest, e)
	}
	if err := rows.Err(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, ans)
}

func (a *app) benchPragmas(w http.ResponseWriter, r *http.Request) {
	c, err := a.db.Conn(r.Context())
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return
	}
	defer c.Close()
	if a.postgres {
		s, err := readPgSession(r.Context(), c)
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, s)
		return
	}
	p, err := readPragmas(r.Context(), c)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, failure{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own structs reach here; a failure is a programming error.
		http.Error(w, "encoding error", http.StatusInternalServerError)
		return
	}
	write(w, status, "application/json", b)
}

func write(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
