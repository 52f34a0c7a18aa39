package main

// The signed-in routes (docs/app.md, "Signed-in routes: sessions, forms and a
// job"). Go's standard library has no sessions and no CSRF protection, so
// both are written here on what it does have: the session is a row of the
// lab's sessions table named by a random token in the lab_session cookie,
// and the CSRF token is an HMAC, under a key drawn at process start, of a
// random value in a second cookie (lab_csrf). README.md, "Signed in", says
// why. Passwords: golang.org/x/crypto/bcrypt.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	_ "embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

const (
	sessionCookie = "lab_session"
	csrfCookie    = "lab_csrf"
	// sessionTTL is how long a session row lives (expires_at - created_at).
	sessionTTL = 24 * time.Hour
	// maxForm bounds a form post's body; the largest real one is well
	// under 1 KiB.
	maxForm = 64 << 10
)

// dummyHash is verified against when no user has the email, so an unknown
// email costs one bcrypt verification at cost 10 like a wrong password
// (made once with bcrypt.GenerateFromPassword at cost 10 from a random
// password nobody kept).
var dummyHash = []byte("$2a$10$2EvnZUGdq71qNMlpHmdIyuwnDGqloCQcIQ..zjEQJ.rLITTp76joK")

var (
	//go:embed sign_in.html
	signInHTML string
	//go:embed account.html
	accountHTML string

	signInTmpl  = template.Must(template.New("sign_in").Parse(signInHTML))
	accountTmpl = template.Must(template.New("account").Parse(accountHTML))
)

// The form's fields (docs/app.md): email as the regular expression says and at
// most 254 bytes; amount as text to minor units; currency three capitals.
var (
	emailRE    = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	amountRE   = regexp.MustCompile(`^[0-9]{1,7}(\.[0-9]{1,2})?$`)
	currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
)

// The signed-in statements, written with ? and numbered ($1, ...) for
// Postgres by newApp.
const (
	sqlSessionUser  = "SELECT user_id FROM sessions WHERE token = ? AND expires_at > ?"
	sqlUserByID     = "SELECT id, email FROM users WHERE id = ?"
	sqlUserByEmail  = "SELECT id, password_hash FROM users WHERE email = ?"
	sqlSessionNew   = "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)"
	sqlSessionDel   = "DELETE FROM sessions WHERE token = ?"
	sqlUserOrders   = "SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 20"
	sqlOrderNew     = "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) VALUES (?, ?, 'PENDING', ?, ?, ?) RETURNING id"
	sqlJobNew       = "INSERT INTO jobs (order_id, action, created_at) VALUES (?, ?, ?)"
	sqlOrderCancel  = "UPDATE orders SET status = 'CANCELLED' WHERE id = ? AND user_id = ? AND status = 'PENDING'"
	sqlOrderStatus  = "SELECT status FROM orders WHERE id = ? AND user_id = ?"
	sqlAuditNew     = "INSERT INTO audit (order_id, action, at) VALUES (?, ?, ?)"
	sqlJobTake      = "DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1) RETURNING order_id, action"
	pgJobTake       = "DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING order_id, action"
	actionPlaced    = "placed"
	actionCancelled = "cancelled"
)

// signedInStmts are the signed-in routes' and the worker's statements,
// prepared once like the bench routes' (newApp).
type signedInStmts struct {
	sessionUser, userByID, userByEmail, sessionNew, sessionDel *sql.Stmt
	userOrders, orderNew, jobNew, orderCancel, orderStatus     *sql.Stmt
	auditNew, jobTake                                          *sql.Stmt
}

func (s *signedInStmts) list(postgres bool) []stmtSQL {
	take := sqlJobTake
	if postgres {
		take = pgJobTake
	}
	return []stmtSQL{
		{&s.sessionUser, sqlSessionUser}, {&s.userByID, sqlUserByID}, {&s.userByEmail, sqlUserByEmail},
		{&s.sessionNew, sqlSessionNew}, {&s.sessionDel, sqlSessionDel}, {&s.userOrders, sqlUserOrders},
		{&s.orderNew, sqlOrderNew}, {&s.jobNew, sqlJobNew}, {&s.orderCancel, sqlOrderCancel},
		{&s.orderStatus, sqlOrderStatus}, {&s.auditNew, sqlAuditNew}, {&s.jobTake, take},
	}
}

type stmtSQL struct {
	dst **sql.Stmt
	q   string
}

// numbered rewrites ? placeholders as Postgres's $1, $2, ...
func numbered(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

type user struct {
	ID    int64  `json:"id"`
	Email string `json:"email"`
}

type order struct {
	ID         int64  `json:"id"`
	Email      string `json:"email"`
	Status     string `json:"status"`
	TotalCents int64  `json:"total_cents"`
	Currency   string `json:"currency"`
	PlacedAt   int64  `json:"placed_at"`
}

// Amount is the total in major units with exactly two decimals.
func (o order) Amount() string { return formatCents(o.TotalCents) }

func formatCents(c int64) string {
	frac := strconv.FormatInt(c%100, 10)
	if len(frac) < 2 {
		frac = "0" + frac
	}
	return strconv.FormatInt(c/100, 10) + "." + frac
}

// parseAmount reads the form's amount as text into minor units, never
// through a float: "149.90" and "149.9" give 14990, "149" 14900, "0.01" 1.
// ok is false for anything the pattern refuses, and for zero.
func parseAmount(s string) (cents int64, ok bool) {
	if !amountRE.MatchString(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00")[:2]
	w, _ := strconv.ParseInt(whole, 10, 64) // at most 7 digits
	f, _ := strconv.ParseInt(frac, 10, 64)
	cents = w*100 + f
	return cents, cents > 0
}

// randomToken is 256 bits from the OS random source, base64url without
// padding (43 characters, cookie-safe).
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// tokenShaped says whether v could be a token randomToken made; a cookie
// of any other shape is no session and no CSRF cookie, without a read.
func tokenShaped(v string) bool {
	if len(v) != 43 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func newCSRFKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// csrfFor is the form token for the CSRF cookie's value v: an HMAC-SHA256
// of it under the process's key, so only this process can make it and only
// a client holding v can send it back.
func (a *app) csrfFor(v string) string {
	m := hmac.New(sha256.New, a.csrfKey)
	m.Write([]byte("lab_csrf\x00"))
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrfToken is the token for this answer's forms. A client without a CSRF
// cookie gets one with this answer; one that has it keeps it, so its token
// stays the same across requests, sign-in and sign-out.
func (a *app) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && tokenShaped(c.Value) {
		return a.csrfFor(c.Value)
	}
	v := randomToken()
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return a.csrfFor(v)
}

// checkForm parses a form post and checks its csrf_token against the
// client's CSRF cookie, before anything is read from the database; on a
// refusal it has answered 403 and returns false. SELFTEST_NO_CSRF skips the
// check (the lab's planted fault).
func (a *app) checkForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	perr := r.ParseForm()
	if a.noCSRF {
		return true
	}
	if perr == nil {
		if c, err := r.Cookie(csrfCookie); err == nil && tokenShaped(c.Value) {
			if got := r.PostForm.Get("csrf_token"); got != "" && hmac.Equal([]byte(got), []byte(a.csrfFor(c.Value))) {
				return true
			}
		}
	}
	write(w, http.StatusForbidden, "text/plain; charset=utf-8", []byte("invalid or missing CSRF token\n"))
	return false
}

// signedIn reads the request's session from the database (its token, not
// expired) and then its user: two reads, no cache, so a session deleted or
// expired in the database is refused on the next request. SELFTEST_ANY_COOKIE
// (the lab's planted fault) takes any lab_session cookie for user 1's
// session without reading the sessions table.
func (a *app) signedIn(r *http.Request) (u user, ok bool, err error) {
	c, cerr := r.Cookie(sessionCookie)
	if cerr != nil || c.Value == "" {
		return u, false, nil
	}
	ctx := r.Context()
	var uid int64
	switch {
	case a.anyCookie:
		uid = 1
	case !tokenShaped(c.Value):
		return u, false, nil
	default:
		err = a.st.sessionUser.QueryRowContext(ctx, c.Value, time.Now().UnixMilli()).Scan(&uid)
		if errors.Is(err, sql.ErrNoRows) {
			return u, false, nil
		} else if err != nil {
			return u, false, err
		}
	}
	err = a.st.userByID.QueryRowContext(ctx, uid).Scan(&u.ID, &u.Email)
	if errors.Is(err, sql.ErrNoRows) {
		return u, false, nil
	}
	return u, err == nil, err
}

// writeTx runs fn in one write transaction: BEGIN IMMEDIATE on SQLite
// (the DSN's _txlock), the default isolation on Postgres.
func (a *app) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// writeOne runs one write statement as its own transaction: in BEGIN
// IMMEDIATE on SQLite, its implicit one on Postgres (one round trip).
func (a *app) writeOne(ctx context.Context, st *sql.Stmt, args ...any) error {
	if a.postgres {
		_, err := st.ExecContext(ctx, args...)
		return err
	}
	return a.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...)
		return err
	})
}

// seeOther answers 303 to path, with a small HTML body naming it.
func seeOther(w http.ResponseWriter, path string) {
	w.Header().Set("Location", path)
	write(w, http.StatusSeeOther, "text/html; charset=utf-8", []byte(`<a href="`+path+`">See Other</a>.`+"\n"))
}

func dbError(w http.ResponseWriter) {
	write(w, http.StatusServiceUnavailable, "text/plain; charset=utf-8", []byte("database error\n"))
}

func render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		http.Error(w, "template error", http.StatusInternalServerError)
		return
	}
	write(w, status, "text/html; charset=utf-8", buf.Bytes())
}

type signInPage struct {
	CSRF   string
	Failed bool
}

func (a *app) signInForm(w http.ResponseWriter, r *http.Request) {
	render(w, http.StatusOK, signInTmpl, signInPage{CSRF: a.csrfToken(w, r)})
}

func (a *app) signIn(w http.ResponseWriter, r *http.Request) {
	if !a.checkForm(w, r) {
		return
	}
	email, hasEmail := r.PostForm["email"]
	password, hasPassword := r.PostForm["password"]
	if !hasEmail || !hasPassword {
		write(w, http.StatusBadRequest, "text/plain; charset=utf-8", []byte("email and password are required\n"))
		return
	}
	ctx := r.Context()
	var uid int64
	var hash string
	err := a.st.userByEmail.QueryRowContext(ctx, email[0]).Scan(&uid, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		// The same work as a wrong password: no answer or timing tells
		// whether the account exists.
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password[0]))
		a.signInFailed(w, r)
		return
	} else if err != nil {
		dbError(w)
		return
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password[0])) != nil {
		a.signInFailed(w, r)
		return
	}
	token := randomToken()
	now := time.Now().UnixMilli()
	if err := a.writeOne(ctx, a.st.sessionNew, token, uid, now, now+sessionTTL.Milliseconds()); err != nil {
		dbError(w)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", MaxAge: int(sessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode})
	seeOther(w, "/account")
}

func (a *app) signInFailed(w http.ResponseWriter, r *http.Request) {
	render(w, http.StatusUnprocessableEntity, signInTmpl, signInPage{CSRF: a.csrfToken(w, r), Failed: true})
}

func (a *app) signOut(w http.ResponseWriter, r *http.Request) {
	if !a.checkForm(w, r) {
		return
	}
	if c, err := r.Cookie(sessionCookie); err == nil && tokenShaped(c.Value) {
		if err := a.writeOne(r.Context(), a.st.sessionDel, c.Value); err != nil {
			dbError(w)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	seeOther(w, "/sign_in")
}

// wantsJSON: the account's JSON twin when the request's Accept names
// application/json before (or without) text/html.
func wantsJSON(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json":
				return true
			case "text/html":
				return false
			}
		}
	}
	return false
}

func (a *app) userOrders(ctx context.Context, uid int64) ([]order, error) {
	rows, err := a.st.userOrders.QueryContext(ctx, uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	orders := make([]order, 0, 20)
	for rows.Next() {
		var o order
		if err := rows.Scan(&o.ID, &o.Email, &o.Status, &o.TotalCents, &o.Currency, &o.PlacedAt); err != nil {
			return nil, err
		}
		orders = append(orders, o)
	}
	return orders, rows.Err()
}

type orderForm struct{ Email, Amount, Currency string }

type invalidField struct{ Field, Message string }

type accountPage struct {
	User    user
	Orders  []order
	CSRF    string
	Invalid *invalidField
	Form    orderForm
}

type accountJSON struct {
	User      user    `json:"user"`
	Orders    []order `json:"orders"`
	CSRFToken string  `json:"csrf_token"`
}

var unauthorized = []byte(`{"error":"unauthorized"}`)

func (a *app) account(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	asJSON := wantsJSON(r)
	u, ok, err := a.signedIn(r)
	if err != nil {
		dbError(w)
		return
	}
	if !ok {
		if asJSON {
			write(w, http.StatusUnauthorized, "application/json", unauthorized)
		} else {
			seeOther(w, "/sign_in")
		}
		return
	}
	orders, err := a.userOrders(r.Context(), u.ID)
	if err != nil {
		dbError(w)
		return
	}
	token := a.csrfToken(w, r)
	if asJSON {
		writeJSON(w, http.StatusOK, accountJSON{User: u, Orders: orders, CSRFToken: token})
		return
	}
	render(w, http.StatusOK, accountTmpl, accountPage{User: u, Orders: orders, CSRF: token})
}

// validOrder checks the fields in docs/app.md's order; the first invalid one is
// named. An absent field is invalid.
func validOrder(f orderForm) (cents int64, bad *invalidField) {
	if len(f.Email) > 254 || !emailRE.MatchString(f.Email) {
		return 0, &invalidField{"email", "Invalid email."}
	}
	cents, ok := parseAmount(f.Amount)
	if !ok {
		return 0, &invalidField{"amount", "Invalid amount."}
	}
	if !currencyRE.MatchString(f.Currency) {
		return 0, &invalidField{"currency", "Invalid currency."}
	}
	return cents, nil
}

func (a *app) placeOrder(w http.ResponseWriter, r *http.Request) {
	if !a.checkForm(w, r) {
		return
	}
	u, ok, err := a.signedIn(r)
	if err != nil {
		dbError(w)
		return
	}
	if !ok {
		seeOther(w, "/sign_in")
		return
	}
	ctx := r.Context()
	f := orderForm{r.PostForm.Get("email"), r.PostForm.Get("amount"), r.PostForm.Get("currency")}
	cents, bad := validOrder(f)
	if bad != nil {
		orders, err := a.userOrders(ctx, u.ID)
		if err != nil {
			dbError(w)
			return
		}
		render(w, http.StatusUnprocessableEntity, accountTmpl,
			accountPage{User: u, Orders: orders, CSRF: a.csrfToken(w, r), Invalid: bad, Form: f})
		return
	}
	now := time.Now().UnixMilli()
	err = a.writeTx(ctx, func(tx *sql.Tx) error {
		var id int64
		if err := tx.StmtContext(ctx, a.st.orderNew).QueryRowContext(ctx, u.ID, f.Email, cents, f.Currency, now).Scan(&id); err != nil {
			return err
		}
		_, err := tx.StmtContext(ctx, a.st.jobNew).ExecContext(ctx, id, actionPlaced, now)
		return err
	})
	if err != nil {
		dbError(w)
		return
	}
	seeOther(w, "/account")
}

var (
	errNoOrder    = errors.New("no such order of this user")
	errNotPending = errors.New("order is not pending")
)

// orderID reads {id}: a positive integer in decimal digits, else ok false.
func orderID(s string) (int64, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

func (a *app) cancelOrder(w http.ResponseWriter, r *http.Request) {
	if !a.checkForm(w, r) {
		return
	}
	u, ok, err := a.signedIn(r)
	if err != nil {
		dbError(w)
		return
	}
	if !ok {
		seeOther(w, "/sign_in")
		return
	}
	id, ok := orderID(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	ctx := r.Context()
	err = a.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, a.st.orderCancel).ExecContext(ctx, id, u.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			// Not cancelled: missing (or another user's), or not pending.
			var status string
			err := tx.StmtContext(ctx, a.st.orderStatus).QueryRowContext(ctx, id, u.ID).Scan(&status)
			if errors.Is(err, sql.ErrNoRows) {
				return errNoOrder
			} else if err != nil {
				return err
			}
			return errNotPending
		}
		_, err = tx.StmtContext(ctx, a.st.jobNew).ExecContext(ctx, id, actionCancelled, time.Now().UnixMilli())
		return err
	})
	switch {
	case errors.Is(err, errNoOrder):
		http.NotFound(w, r)
	case errors.Is(err, errNotPending):
		write(w, http.StatusConflict, "text/plain; charset=utf-8", []byte("order is not pending\n"))
	case err != nil:
		dbError(w)
	default:
		seeOther(w, "/account")
	}
}
