package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"stacklab/stacks"
)

// The fixture's signed-in routes (docs/app.md, "Signed-in routes"): a
// session row per sign-in behind a lab_session cookie, CSRF by a
// double-submit cookie, orders, and a worker goroutine; one fault at a time.

var (
	cancelPath  = regexp.MustCompile(`^/orders/[^/]+/cancel$`)
	amountRE    = regexp.MustCompile(`^[0-9]{1,7}(\.[0-9]{1,2})?$`)
	emailRE     = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	currencyRE  = regexp.MustCompile(`^[A-Z]{3}$`)
	fixtureHash = "$2b$10$" + strings.Repeat("x", 53) // no password matches it
)

func (f *fixture) signedInRoutes(mux *http.ServeMux) []string {
	mux.HandleFunc("GET /sign_in", f.signInForm)
	mux.HandleFunc("POST /sign_in", f.signIn)
	mux.HandleFunc("POST /sign_out", f.signOut)
	mux.HandleFunc("GET /account", f.account)
	mux.HandleFunc("POST /orders", f.placeOrder)
	mux.HandleFunc("POST /orders/{id}/cancel", f.cancelOrder)
	if f.fault != "no-worker" {
		stop := make(chan struct{})
		f.stopWorker = stop
		go f.worker(stop)
	}
	return []string{"/sign_in", "/sign_out", "/account", "/orders"}
}

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// csrf is the client's token (its lab_csrf cookie), set when missing.
func (f *fixture) csrf(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie("lab_csrf"); err == nil && c.Value != "" {
		return c.Value
	}
	t := randomToken()
	http.SetCookie(w, &http.Cookie{Name: "lab_csrf", Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return t
}

// csrfOK refuses a post whose token is not its client's.
func (f *fixture) csrfOK(w http.ResponseWriter, r *http.Request) bool {
	if f.fault == "no-csrf" {
		return true
	}
	c, err := r.Cookie("lab_csrf")
	if err != nil || c.Value == "" || r.PostFormValue(tokenField) != c.Value {
		http.Error(w, "forbidden", http.StatusForbidden)
		return false
	}
	return true
}

// user is the signed-in user's id and email, or 0.
func (f *fixture) user(r *http.Request) (int64, string) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return 0, ""
	}
	if f.fault == "any-cookie" {
		return 1, userEmail(1)
	}
	var id int64
	var email string
	err = f.db.QueryRow(`SELECT u.id, u.email FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token = ? AND s.expires_at > ?`, c.Value, time.Now().UnixMilli()).Scan(&id, &email)
	if err != nil {
		return 0, ""
	}
	return id, email
}

func htmlPage(w http.ResponseWriter, status int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><title>%s</title></head><body>\n%s</body></html>\n", title, body)
}

func signInBody(token, errLine string) string {
	return errLine + `<form method="post" action="/sign_in"><input type="hidden" name="csrf_token" value="` + token +
		`"><input name="email"><input type="password" name="password"></form>` + "\n"
}

func (f *fixture) signInForm(w http.ResponseWriter, r *http.Request) {
	htmlPage(w, 200, "Sign in", signInBody(f.csrf(w, r), ""))
}

func (f *fixture) signIn(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	if !f.csrfOK(w, r) {
		return
	}
	if _, ok := r.PostForm["email"]; !ok {
		http.Error(w, "bad request", 400)
		return
	}
	if _, ok := r.PostForm["password"]; !ok {
		http.Error(w, "bad request", 400)
		return
	}
	var id int64
	hash := fixtureHash
	err := f.db.QueryRow("SELECT id, password_hash FROM users WHERE email = ?", r.PostFormValue("email")).Scan(&id, &hash)
	if err != nil && f.fault == "enumeration" {
		htmlPage(w, 422, "Sign in", signInBody(f.csrf(w, r), `<p class="error">No such account.</p>`))
		return
	}
	if !stacks.CheckPassword(r.PostFormValue("password"), hash) || err != nil {
		htmlPage(w, 422, "Sign in", signInBody(f.csrf(w, r), `<p class="error">Invalid email or password.</p>`))
		return
	}
	token, now := randomToken(), time.Now().UnixMilli()
	if _, err := f.db.Exec("INSERT INTO sessions(token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)", token, id, now, now+sessionLifetime); err != nil {
		http.Error(w, "db", 503)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: f.fault != "cookie-not-httponly", SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}

func (f *fixture) signOut(w http.ResponseWriter, r *http.Request) {
	if !f.csrfOK(w, r) {
		return
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		f.db.Exec("DELETE FROM sessions WHERE token = ?", c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/sign_in", http.StatusSeeOther)
}

type fixtureOrder struct {
	ID         int64  `json:"id"`
	Email      string `json:"email"`
	Status     string `json:"status"`
	TotalCents int64  `json:"total_cents"`
	Currency   string `json:"currency"`
	PlacedAt   int64  `json:"placed_at"`
}

func (f *fixture) accountBody(id int64, email, token, errLine string) (string, []fixtureOrder, error) {
	rows, err := f.db.Query("SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 20", id)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	orders := []fixtureOrder{}
	var b strings.Builder
	fmt.Fprintf(&b, "<h1 data-user=\"%d\">%s</h1>\n<ul>\n", id, html.EscapeString(email))
	for rows.Next() {
		var o fixtureOrder
		if err := rows.Scan(&o.ID, &o.Email, &o.Status, &o.TotalCents, &o.Currency, &o.PlacedAt); err != nil {
			return "", nil, err
		}
		orders = append(orders, o)
		fmt.Fprintf(&b, "<li data-id=\"%d\" data-status=\"%s\">%d.%02d %s</li>\n", o.ID, o.Status, o.TotalCents/100, o.TotalCents%100, o.Currency)
	}
	b.WriteString("</ul>\n" + errLine)
	fmt.Fprintf(&b, `<form method="post" action="/orders"><input type="hidden" name="csrf_token" value="%s"><input name="email"><input name="amount"><input name="currency"></form>`+"\n", token)
	fmt.Fprintf(&b, `<form method="post" action="/sign_out"><input type="hidden" name="csrf_token" value="%s"></form>`+"\n", token)
	return b.String(), orders, rows.Err()
}

func wantsJSON(r *http.Request) bool { return r.Header.Get("Accept") == "application/json" }

func (f *fixture) account(w http.ResponseWriter, r *http.Request) {
	token := f.csrf(w, r)
	id, email := f.user(r)
	if id == 0 {
		if wantsJSON(r) {
			writeJSON(w, 401, `{"error":"unauthorized"}`)
			return
		}
		http.Redirect(w, r, "/sign_in", http.StatusSeeOther)
		return
	}
	body, orders, err := f.accountBody(id, email, token, "")
	if err != nil {
		http.Error(w, "db", 500)
		return
	}
	if wantsJSON(r) {
		b, _ := json.Marshal(struct {
			User struct {
				ID    int64  `json:"id"`
				Email string `json:"email"`
			} `json:"user"`
			Orders []fixtureOrder `json:"orders"`
			Token  string         `json:"csrf_token"`
		}{struct {
			ID    int64  `json:"id"`
			Email string `json:"email"`
		}{id, email}, orders, token})
		writeJSON(w, 200, string(b))
		return
	}
	htmlPage(w, 200, "Account", body)
}

// cents parses an amount as text, never through a float (but the fault's).
func (f *fixture) cents(s string) (int64, bool) {
	if f.fault == "float-amount" {
		v, err := strconv.ParseFloat(s, 64)
		return int64(v*100 + 0.5), err == nil && v > 0
	}
	if !amountRE.MatchString(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00")[:2]
	w, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt(frac, 10, 64)
	return w*100 + c, w*100+c > 0
}

func (f *fixture) placeOrder(w http.ResponseWriter, r *http.Request) {
	if !f.csrfOK(w, r) {
		return
	}
	id, email := f.user(r)
	if id == 0 {
		http.Redirect(w, r, "/sign_in", http.StatusSeeOther)
		return
	}
	to, amt, cur := r.PostFormValue("email"), r.PostFormValue("amount"), r.PostFormValue("currency")
	field := ""
	total, ok := f.cents(amt)
	switch {
	case len(to) > 254 || !emailRE.MatchString(to):
		field = "email"
	case !ok:
		field = "amount"
	case !currencyRE.MatchString(cur):
		field = "currency"
	}
	if field != "" {
		body, _, _ := f.accountBody(id, email, f.csrf(w, r), `<p class="error" data-field="`+field+`">invalid</p>`)
		htmlPage(w, 422, "Account", body)
		return
	}
	tx, err := f.db.Begin()
	if err != nil {
		http.Error(w, "db", 503)
		return
	}
	defer tx.Rollback() //nolint:errcheck
	now := time.Now().UnixMilli()
	res, err := tx.Exec("INSERT INTO orders(user_id, email, status, total_cents, currency, placed_at) VALUES (?, ?, 'PENDING', ?, ?, ?)", id, to, total, cur, now)
	if err != nil {
		http.Error(w, "db", 503)
		return
	}
	oid, _ := res.LastInsertId()
	if _, err := tx.Exec("INSERT INTO jobs(order_id, action, created_at) VALUES (?, 'placed', ?)", oid, now); err != nil {
		http.Error(w, "db", 503)
		return
	}
	if tx.Commit() != nil {
		http.Error(w, "db", 503)
		return
	}
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}

func (f *fixture) cancelOrder(w http.ResponseWriter, r *http.Request) {
	if !f.csrfOK(w, r) {
		return
	}
	id, _ := f.user(r)
	if id == 0 {
		http.Redirect(w, r, "/sign_in", http.StatusSeeOther)
		return
	}
	oid, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var status string
	q := "SELECT status FROM orders WHERE id = ? AND user_id = ?"
	args := []any{oid, id}
	if f.fault == "cancel-anyones" {
		q, args = "SELECT status FROM orders WHERE id = ?", []any{oid}
	}
	if err != nil || f.db.QueryRow(q, args...).Scan(&status) != nil {
		http.NotFound(w, r)
		return
	}
	if status != "PENDING" {
		http.Error(w, "conflict", http.StatusConflict)
		return
	}
	tx, err := f.db.Begin()
	if err != nil {
		http.Error(w, "db", 503)
		return
	}
	defer tx.Rollback() //nolint:errcheck
	now := time.Now().UnixMilli()
	tx.Exec("UPDATE orders SET status = 'CANCELLED' WHERE id = ?", oid)
	tx.Exec("INSERT INTO jobs(order_id, action, created_at) VALUES (?, 'cancelled', ?)", oid, now)
	tx.Commit()
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}

// worker drains the jobs into audit rows, one transaction a job.
func (f *fixture) worker(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		tx, err := f.db.Begin()
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		var id, order int64
		var action string
		if tx.QueryRow("SELECT id, order_id, action FROM jobs ORDER BY id LIMIT 1").Scan(&id, &order, &action) != nil {
			tx.Rollback()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		tx.Exec("INSERT INTO audit(order_id, action, at) VALUES (?, ?, ?)", order, action, time.Now().UnixMilli())
		tx.Exec("DELETE FROM jobs WHERE id = ?", id)
		tx.Commit()
	}
}

// Each signed-in fault fails the check that covers it, with a line that
// names the fault; other checks may fail too where the fault reaches them.
func TestEachSignedInFaultFailsItsCheck(t *testing.T) {
	cases := []struct {
		fault, check, gotContains string
	}{
		{"any-cookie", "account", "status 200"},
		{"no-csrf", "sign-in-refusals", "status 303"},
		{"enumeration", "sign-in-refusals", "No such account"},
		{"cookie-not-httponly", "sign-in", "HttpOnly false"},
		{"float-amount", "orders", "status 303"},
		{"cancel-anyones", "cancel", "status 303"},
		{"no-worker", "job", "jobs left"},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			results, _ := runVerify(t, tc.fault, mockUpstream(t))
			var r *result
			for i := range results {
				if results[i].Check == tc.check {
					r = &results[i]
				}
			}
			if r == nil || r.OK || !strings.Contains(r.Got, tc.gotContains) {
				t.Fatalf("want %q failed with %q in what came back, got %+v\n%s", tc.check, tc.gotContains, r, report("fixture", results, 4))
			}
			if f := failed(results); slices.ContainsFunc(f, func(c string) bool {
				return !slices.Contains([]string{"sign-in", "sign-in-refusals", "account", "orders", "cancel", "signed-in-methods", "job", "sign-out", "snapshot"}, c)
			}) {
				t.Errorf("a signed-in fault failed a check of the anonymous routes: %v", f)
			}
		})
	}
}
