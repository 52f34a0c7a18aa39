package main

// The signed-in routes' checks (docs/app.md, "Signed-in routes"): a user
// signs in with a form, keeps a session the server checks in the database,
// places and cancels orders with form posts that carry a CSRF token, and a
// worker writes each order's audit row. Each check drives the stack as a
// browser would (a cookie jar, redirects not followed) and reads the
// database to hold the answers to it.

import (
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"stacklab/bench/websession"
	"stacklab/formats/cli"
)

// What the spec fixes about a session.
const (
	sessionCookie   = "lab_session"
	sessionLifetime = 86_400_000 // ms
	tokenField      = "csrf_token"
	// A token of at least 128 bits takes at least 22 characters in any
	// cookie-safe encoding (base64's 6 bits a character).
	minTokenChars = 22
	badCredLine   = "Invalid email or password."
	// jobWait is how long an order's audit row may take on an idle app.
	jobWait = 5 * time.Second
)

// The users the checks sign in as: user 1 for the checks, user 2 for the
// parity snapshot, so neither sees the other's orders.
const (
	checkUser  = 1
	parityUser = 2
)

func userEmail(id int64) string    { return fmt.Sprintf("user%d@lab.example", id) }
func userPassword(id int64) string { return fmt.Sprintf("lab-password-%d", id) }

// browser is one client of the app: its own cookie jar, redirects answered
// to it rather than followed.
type browser struct {
	base   string
	client *http.Client
}

func (c *checker) newBrowser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{base: c.cfg.BaseURL, client: &http.Client{
		Jar: jar, Transport: c.client.Transport, Timeout: 15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// send makes one request; form (if not nil) is the form-encoded body,
// accept the Accept header ("" for none), cookie a Cookie header sent as
// is (for a client whose cookies are made up or kept from before).
func (b *browser) send(method, path string, form url.Values, accept, cookie string) (*answer, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		return nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	return roundTrip(b.client, req, path)
}

// within says where a failure happened, keeping it a failure (its
// expected and got) rather than turning it into a transport error.
func within(where string, err error) error {
	if f, ok := err.(*failure); ok {
		return &failure{expected: where + ": " + f.expected, got: f.got}
	}
	return fmt.Errorf("%s: %w", where, err)
}

// location is a redirect's target as a path ("" when there is none).
func location(base *url.URL, loc string) string {
	if loc == "" {
		return ""
	}
	u, err := base.Parse(loc)
	if err != nil {
		return loc
	}
	if u.Host != base.Host {
		return u.String()
	}
	return u.RequestURI()
}

// sessionCookieValue is the lab_session cookie this browser holds ("").
func (b *browser) sessionCookieValue() string {
	u, _ := url.Parse(b.base)
	for _, ck := range b.client.Jar.Cookies(u) {
		if ck.Name == sessionCookie {
			return ck.Value
		}
	}
	return ""
}

// cookieHeader is every cookie this browser holds, as a Cookie header.
func (b *browser) cookieHeader() string {
	u, _ := url.Parse(b.base)
	var parts []string
	for _, ck := range b.client.Jar.Cookies(u) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	return strings.Join(parts, "; ")
}

var (
	inputRE = regexp.MustCompile(`(?is)<input\b[^>]*>`)
	formRE  = regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`)
	h1RE    = regexp.MustCompile(`(?is)<h1\s+data-user="([0-9]+)"\s*>(.*?)</h1>`)
	orderRE = regexp.MustCompile(`(?is)<li\s+data-id="([0-9]+)"\s+data-status="([A-Z]+)"\s*>(.*?)</li>`)
	errorRE = regexp.MustCompile(`(?is)<p\s+class="error"(?:\s+data-field="([a-z_]+)")?\s*>(.*?)</p>`)
)

// attr is the value of an HTML attribute inside a tag, unescaped.
func attr(tag, name string) (string, bool) {
	re := regexp.MustCompile(`(?is)\s` + name + `\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
	m := re.FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1] + m[2] + m[3]), true
}

// form is one <form> of a page: where it posts and its inputs' names.
type form struct {
	method, action string
	inputs         []string
	token          string
}

func forms(body []byte) []form {
	var out []form
	for _, m := range formRE.FindAllStringSubmatch(string(body), -1) {
		f := form{}
		f.method, _ = attr("<form "+m[1], "method")
		f.method = strings.ToLower(f.method)
		f.action, _ = attr("<form "+m[1], "action")
		for _, in := range inputRE.FindAllString(m[2], -1) {
			name, ok := attr(in, "name")
			if !ok {
				continue
			}
			f.inputs = append(f.inputs, name)
			if name == tokenField {
				f.token, _ = attr(in, "value")
			}
		}
		sort.Strings(f.inputs)
		out = append(out, f)
	}
	return out
}

// formTo is the page's form that posts to action, or nil.
func formTo(body []byte, action string) *form {
	for _, f := range forms(body) {
		if f.action == action {
			return &f
		}
	}
	return nil
}

// wholePage checks an HTML answer: status, charset, a whole document, its title.
func wholePage(a *answer, status int, title string) error {
	if err := expect(a, status, "text/html"); err != nil {
		return err
	}
	_, params, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	if !strings.EqualFold(params["charset"], "utf-8") {
		return fail(a.String()+": Content-Type text/html; charset=utf-8", a.header.Get("Content-Type"))
	}
	lower := strings.ToLower(string(a.body))
	m := titleTextRE.FindStringSubmatch(string(a.body))
	if !strings.HasPrefix(strings.TrimSpace(lower), "<!doctype html") || !strings.Contains(lower, "</html>") ||
		m == nil || strings.TrimSpace(html.UnescapeString(m[1])) != title {
		return fail(fmt.Sprintf("%s: a whole HTML document (<!DOCTYPE html> ... </html>) titled %q", a, title), fmt.Sprintf("%q", cut(a.body)))
	}
	return nil
}

// needForm checks that the page has a post form to action with exactly
// these inputs (and the token), and returns it.
func needForm(a *answer, action string, inputs ...string) (*form, error) {
	want := append(slices.Clone(inputs), tokenField)
	sort.Strings(want)
	f := formTo(a.body, action)
	if f == nil || f.method != "post" || !slices.Equal(f.inputs, want) {
		got := "no such form"
		if f != nil {
			got = fmt.Sprintf("method %q, inputs %s", f.method, keysString(f.inputs))
		}
		return nil, fail(fmt.Sprintf(`%s: <form method="post" action="%s"> with inputs %s`, a, action, keysString(want)), got)
	}
	if f.token == "" {
		return nil, fail(fmt.Sprintf("%s: the %s form's hidden %s with a value", a, action, tokenField), "an empty token")
	}
	return f, nil
}

// redirect checks a 303 to path.
func redirect(a *answer, path string) error {
	if a.status != http.StatusSeeOther || a.location != path {
		return failf(fmt.Sprintf("%s: 303 to %s", a, path), "status %d, Location %q, body %q", a.status, a.location, cut(a.body))
	}
	return nil
}

// signInPage GETs /sign_in and returns the form's token.
func (b *browser) signInPage() (string, *answer, error) {
	a, err := b.send("GET", "/sign_in", nil, "", "")
	if err != nil {
		return "", nil, err
	}
	if err := wholePage(a, 200, "Sign in"); err != nil {
		return "", a, err
	}
	f, err := needForm(a, "/sign_in", "email", "password")
	if err != nil {
		return "", a, err
	}
	if !regexp.MustCompile(`(?is)<input\b[^>]*\bname\s*=\s*["']?password["']?[^>]*>`).MatchString(string(a.body)) ||
		!passwordTyped(a.body) {
		return "", a, fail(`GET /sign_in: the password input with type="password"`, "another type")
	}
	return f.token, a, nil
}

func passwordTyped(body []byte) bool {
	for _, in := range inputRE.FindAllString(string(body), -1) {
		if n, _ := attr(in, "name"); n == "password" {
			t, _ := attr(in, "type")
			return strings.EqualFold(t, "password")
		}
	}
	return false
}

// signIn signs the browser in as user id through the form; the answer.
func (b *browser) signIn(id int64) (*answer, error) {
	token, _, err := b.signInPage()
	if err != nil {
		return nil, err
	}
	a, err := b.send("POST", "/sign_in", url.Values{tokenField: {token}, "email": {userEmail(id)}, "password": {userPassword(id)}}, "", "")
	if err != nil {
		return nil, err
	}
	if err := redirect(a, "/account"); err != nil {
		return a, err
	}
	return a, nil
}

// accountToken GETs /account signed in and returns the order form's token.
func (b *browser) accountToken() (string, error) {
	a, err := b.send("GET", "/account", nil, "", "")
	if err != nil {
		return "", err
	}
	if err := wholePage(a, 200, "Account"); err != nil {
		return "", err
	}
	f, err := needForm(a, "/orders", "email", "amount", "currency")
	if err != nil {
		return "", err
	}
	return f.token, nil
}

// openDBWrite opens the stack's database for the few writes verify makes
// of its own: a session expired or deleted under the app.
func (c *checker) openDBWrite() (*sql.DB, error) {
	if c.cfg.DBURL != "" {
		return c.openDB()
	}
	db, err := sql.Open("sqlite3", "file:"+c.cfg.DBPath+"?mode=rw&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// query runs one statement that yields one row into dest.
func (c *checker) query(q string, args []any, dest ...any) error {
	db, err := c.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	if c.cfg.DBURL != "" {
		q = pgPlaceholders(q)
	}
	if err := db.QueryRow(q, args...).Scan(dest...); err != nil {
		return fmt.Errorf("database: %s: %v", q, err)
	}
	return nil
}

func (c *checker) exec(q string, args ...any) error {
	db, err := c.openDBWrite()
	if err != nil {
		return err
	}
	defer db.Close()
	if c.cfg.DBURL != "" {
		q = pgPlaceholders(q)
	}
	if _, err := db.Exec(q, args...); err != nil {
		return fmt.Errorf("database: %s: %v", q, err)
	}
	return nil
}

// pgPlaceholders turns ? into $1, $2, ... for Postgres.
func pgPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unchanged fails when table has other than before rows: what refused
// requests must not have written.
func (c *checker) unchanged(table string, before int64, what string) error {
	after, err := c.count("SELECT COUNT(*) FROM " + table)
	if err != nil {
		return err
	}
	if after != before {
		return failf(what+" add no "+table+" row", "%d added", after-before)
	}
	return nil
}

func (c *checker) count(q string, args ...any) (int64, error) {
	var n int64
	err := c.query(q, args, &n)
	return n, err
}

// newestSession is the id, token, user and lifetime of the newest session.
type dbSession struct {
	id, user, created, expires int64
	token                      string
}

func (c *checker) newestSession() (dbSession, error) {
	var s dbSession
	err := c.query("SELECT id, token, user_id, created_at, expires_at FROM sessions ORDER BY id DESC LIMIT 1", nil,
		&s.id, &s.token, &s.user, &s.created, &s.expires)
	return s, err
}

func (c *checker) checkSignIn() (string, error) {
	before, err := c.count("SELECT COUNT(*) FROM sessions")
	if err != nil {
		return "", err
	}
	b := c.newBrowser()
	a, err := b.signIn(checkUser)
	if err != nil {
		return "", err
	}
	var ck *http.Cookie
	for _, x := range a.cookies {
		if x.Name == sessionCookie {
			ck = x
		}
	}
	if ck == nil {
		return "", fail("POST /sign_in: Set-Cookie "+sessionCookie, fmt.Sprintf("cookies %v", cookieNames(a.cookies)))
	}
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
		return "", fail("POST /sign_in: the "+sessionCookie+" cookie HttpOnly, SameSite=Lax, Path=/",
			fmt.Sprintf("HttpOnly %v, SameSite %s, Path %q", ck.HttpOnly, sameSiteName(ck.SameSite), ck.Path))
	}
	after, err := c.count("SELECT COUNT(*) FROM sessions")
	if err != nil {
		return "", err
	}
	s, err := c.newestSession()
	if err != nil {
		return "", err
	}
	if after != before+1 || s.user != checkUser {
		return "", failf(fmt.Sprintf("POST /sign_in: one sessions row for user %d", checkUser), "%d rows added, the newest for user %d", after-before, s.user)
	}
	if len(s.token) < minTokenChars {
		return "", failf(fmt.Sprintf("sessions.token of at least %d characters (128 bits)", minTokenChars), "%d characters", len(s.token))
	}
	if d := s.expires - s.created; d < sessionLifetime-1000 || d > sessionLifetime+1000 {
		return "", failf("sessions.expires_at 24 h (86400000 ms) after created_at", "%d ms after", d)
	}
	b2 := c.newBrowser()
	if _, err := b2.signIn(checkUser); err != nil {
		return "", err
	}
	if b2.sessionCookieValue() == b.sessionCookieValue() {
		return "", fail("two sign-ins: two distinct session cookies", "the same value twice")
	}
	c.user1 = b
	return "", nil
}

func cookieNames(cs []*http.Cookie) []string {
	var n []string
	for _, c := range cs {
		n = append(n, c.Name)
	}
	return n
}

func sameSiteName(s http.SameSite) string {
	switch s {
	case http.SameSiteLaxMode:
		return "Lax"
	case http.SameSiteStrictMode:
		return "Strict"
	case http.SameSiteNoneMode:
		return "None"
	}
	return "(not set)"
}

// tokenValueRE finds a hidden token's value, to compare two pages but for it.
var tokenValueRE = regexp.MustCompile(`(?is)(name\s*=\s*["']?` + tokenField + `["']?[^>]*?value\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)|(value\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)([^>]*?name\s*=\s*["']?` + tokenField + `\b)`)

func withoutToken(body []byte) string {
	return tokenValueRE.ReplaceAllString(string(body), "${1}${3}TOKEN${5}")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func (c *checker) checkSignInRefusals() (string, error) {
	before, err := c.count("SELECT COUNT(*) FROM sessions")
	if err != nil {
		return "", err
	}
	b := c.newBrowser()
	token, _, err := b.signInPage()
	if err != nil {
		return "", err
	}
	post := func(v url.Values) (*answer, error) { return b.send("POST", "/sign_in", v, "", "") }
	var wrong, unknown []time.Duration
	var wrongBody, unknownBody string
	for range 3 {
		for _, kind := range []string{"wrong", "unknown"} {
			email, pw := userEmail(checkUser), "not-the-password"
			if kind == "unknown" {
				email, pw = "nobody@lab.example", userPassword(checkUser)
			}
			a, err := post(url.Values{tokenField: {token}, "email": {email}, "password": {pw}})
			if err != nil {
				return "", err
			}
			if err := wholePage(a, 422, "Sign in"); err != nil {
				return "", within(fmt.Sprintf("%s password", kind), err)
			}
			if !strings.Contains(string(a.body), badCredLine) {
				return "", fail(fmt.Sprintf("POST /sign_in, %s: the form again with %q", kindWords(kind), badCredLine), cut(a.body))
			}
			f, err := needForm(a, "/sign_in", "email", "password")
			if err != nil {
				return "", err
			}
			token = f.token
			if kind == "wrong" {
				wrong, wrongBody = append(wrong, a.elapsed), withoutToken(a.body)
			} else {
				unknown, unknownBody = append(unknown, a.elapsed), withoutToken(a.body)
			}
		}
	}
	if wrongBody != unknownBody {
		return "", failf("POST /sign_in: the same answer for an unknown email and a wrong password (no user enumeration)",
			"two answers: %q and %q", cut([]byte(wrongBody)), cut([]byte(unknownBody)))
	}
	mw, mu := median(wrong), median(unknown)
	if mu < mw/2 {
		return "", failf("POST /sign_in: an unknown email takes as long as a wrong password (a hash verified either way)",
			"median %s against %s", mu.Round(time.Microsecond), mw.Round(time.Microsecond))
	}
	// The token: none, and one issued to another client.
	a, err := post(url.Values{"email": {userEmail(checkUser)}, "password": {userPassword(checkUser)}})
	if err != nil {
		return "", err
	}
	if err := expect(a, 403, ""); err != nil {
		return "", within(fmt.Sprintf("no %s", tokenField), err)
	}
	other, _, err := c.newBrowser().signInPage()
	if err != nil {
		return "", err
	}
	a, err = post(url.Values{tokenField: {other}, "email": {userEmail(checkUser)}, "password": {userPassword(checkUser)}})
	if err != nil {
		return "", err
	}
	if a.status != 403 {
		return "", failf("POST /sign_in with a token issued to another client: 403", "status %d", a.status)
	}
	a, err = post(url.Values{tokenField: {token}, "email": {userEmail(checkUser)}})
	if err != nil {
		return "", err
	}
	if err := expect(a, 400, ""); err != nil {
		return "", within("no password field", err)
	}
	if err := c.unchanged("sessions", before, "refused sign-ins"); err != nil {
		return "", err
	}
	return fmt.Sprintf("unknown email %s, wrong password %s, medians of 3", mu.Round(time.Millisecond), mw.Round(time.Millisecond)), nil
}

func kindWords(kind string) string {
	if kind == "wrong" {
		return "a wrong password"
	}
	return "an unknown email"
}

// signedIn is user 1's browser the sign-in check left, for the checks
// after it; a failure saying so when sign-in failed.
func (c *checker) signedIn() (*browser, error) {
	if c.user1 == nil {
		return nil, fail("a signed-in browser (the sign-in check)", "none: sign-in failed")
	}
	return c.user1, nil
}

// dbOrder is an order as the database holds it.
type dbOrder struct {
	id, total, placed    int64
	email, status, curry string
}

func (c *checker) newestOrders(user int64) ([]dbOrder, error) {
	db, err := c.openDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	q := "SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 20"
	if c.cfg.DBURL != "" {
		q = pgPlaceholders(q)
	}
	rows, err := db.Query(q, user)
	if err != nil {
		return nil, fmt.Errorf("database: %v", err)
	}
	defer rows.Close()
	var out []dbOrder
	for rows.Next() {
		var o dbOrder
		if err := rows.Scan(&o.id, &o.email, &o.status, &o.total, &o.curry, &o.placed); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// amount is minor units as the spec writes them: two decimals.
func amount(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

func (c *checker) checkAccount() (string, error) {
	b, err := c.signedIn()
	if err != nil {
		return "", err
	}
	a, err := b.send("GET", "/account", nil, "", "")
	if err != nil {
		return "", err
	}
	if err := wholePage(a, 200, "Account"); err != nil {
		return "", err
	}
	m := h1RE.FindStringSubmatch(string(a.body))
	if m == nil || m[1] != strconv.Itoa(checkUser) || html.UnescapeString(strings.TrimSpace(m[2])) != userEmail(checkUser) {
		return "", fail(fmt.Sprintf(`GET /account: <h1 data-user="%d">%s</h1>`, checkUser, userEmail(checkUser)), fmt.Sprintf("%q", m))
	}
	want, err := c.newestOrders(checkUser)
	if err != nil {
		return "", err
	}
	lis := orderRE.FindAllStringSubmatch(string(a.body), -1)
	if len(lis) != len(want) {
		return "", fail(fmt.Sprintf(`GET /account: %d orders as <li data-id="ID" data-status="STATUS">AMOUNT CUR</li>`, len(want)), len(lis))
	}
	for i, l := range lis {
		w := want[i]
		text := fmt.Sprintf("%s %s", amount(w.total), w.curry)
		if l[1] != strconv.FormatInt(w.id, 10) || l[2] != w.status || strings.TrimSpace(html.UnescapeString(l[3])) != text {
			return "", failf(fmt.Sprintf(`GET /account: orders[%d] as in the database: <li data-id="%d" data-status="%s">%s</li>`, i, w.id, w.status, text), "%q", l[0])
		}
	}
	if _, err := needForm(a, "/orders", "email", "amount", "currency"); err != nil {
		return "", err
	}
	if _, err := needForm(a, "/sign_out"); err != nil {
		return "", err
	}
	if err := c.accountJSON(b, want); err != nil {
		return "", err
	}
	// Refused: no cookie, a made-up one, an expired and a deleted session.
	made := make([]byte, 32)
	rand.Read(made)
	if err := c.refusedAccount(c.newBrowser(), "", "no cookie"); err != nil {
		return "", err
	}
	if err := c.refusedAccount(c.newBrowser(), sessionCookie+"="+base64.RawURLEncoding.EncodeToString(made), "a made-up "+sessionCookie+" cookie"); err != nil {
		return "", err
	}
	for _, how := range []string{"expired", "deleted"} {
		x := c.newBrowser()
		if _, err := x.signIn(checkUser); err != nil {
			return "", err
		}
		s, err := c.newestSession()
		if err != nil {
			return "", err
		}
		if how == "expired" {
			err = c.exec("UPDATE sessions SET expires_at = ? WHERE id = ?", time.Now().UnixMilli()-1000, s.id)
		} else {
			err = c.exec("DELETE FROM sessions WHERE id = ?", s.id)
		}
		if err != nil {
			return "", err
		}
		if err := c.refusedAccount(x, "", "a session "+how+" in the database"); err != nil {
			return "", err
		}
	}
	return "", nil
}

// accountJSON checks /account's JSON twin against the orders in the file.
func (c *checker) accountJSON(b *browser, want []dbOrder) error {
	a, err := b.send("GET", "/account", nil, "application/json", "")
	if err != nil {
		return err
	}
	a.path = "/account (JSON)"
	o, err := jsonObject(a, 200)
	if err != nil {
		return err
	}
	if err := shape("GET /account (JSON)", o, "user", "orders", "csrf_token"); err != nil {
		return err
	}
	user, ok := o[0].Val.(object)
	if !ok || shape("user", user, "id", "email") != nil {
		return fail(`GET /account (JSON): "user":{"id":…,"email":…}`, short(o[0].Val))
	}
	if id, err := integer("user.id", user[0].Val); err != nil || id != checkUser || user[1].Val != userEmail(checkUser) {
		return fail(fmt.Sprintf("GET /account (JSON): user %d, %s", checkUser, userEmail(checkUser)), short(user))
	}
	list, ok := o[1].Val.([]any)
	if !ok || len(list) != len(want) {
		return fail(fmt.Sprintf("GET /account (JSON): %d orders", len(want)), short(o[1].Val))
	}
	for i, e := range list {
		where := fmt.Sprintf("GET /account (JSON): orders[%d]", i)
		eo, ok := e.(object)
		if !ok {
			return fail(where+" is an object", short(e))
		}
		if err := shape(where, eo, "id", "email", "status", "total_cents", "currency", "placed_at"); err != nil {
			return err
		}
		w := want[i]
		id, e1 := integer(where+".id", eo[0].Val)
		total, e2 := integer(where+".total_cents", eo[3].Val)
		placed, e3 := integer(where+".placed_at", eo[5].Val)
		if e1 != nil || e2 != nil || e3 != nil || id != w.id || eo[1].Val != w.email || eo[2].Val != w.status ||
			total != w.total || eo[4].Val != w.curry || placed != w.placed {
			return failf(fmt.Sprintf("%s as in the database: {id:%d email:%s status:%s total_cents:%d currency:%s placed_at:%d}",
				where, w.id, w.email, w.status, w.total, w.curry, w.placed), "%s", short(eo))
		}
	}
	if s, _ := o[2].Val.(string); s == "" {
		return fail("GET /account (JSON): a csrf_token", short(o[2].Val))
	}
	return nil
}

// refusedAccount checks that /account refuses a browser: 303 to /sign_in
// as HTML, 401 {"error":"unauthorized"} as JSON.
func (c *checker) refusedAccount(b *browser, cookie, why string) error {
	a, err := b.send("GET", "/account", nil, "", cookie)
	if err != nil {
		return err
	}
	if a.status != http.StatusSeeOther || a.location != "/sign_in" {
		return failf(fmt.Sprintf("GET /account with %s: 303 to /sign_in", why), "status %d, Location %q", a.status, a.location)
	}
	a, err = b.send("GET", "/account", nil, "application/json", cookie)
	if err != nil {
		return err
	}
	a.path = "/account (JSON)"
	o, err := jsonObject(a, 401)
	if err != nil {
		return within(fmt.Sprintf("with %s", why), err)
	}
	if !slices.Equal(canonical(o), canonical(object{{"error", "unauthorized"}})) {
		return fail(fmt.Sprintf(`GET /account (JSON) with %s: 401 {"error":"unauthorized"}`, why), short(o))
	}
	return nil
}

// orderForm is a valid order's fields, the token added.
func orderForm(token, email, amt, cur string) url.Values {
	v := url.Values{"email": {email}, "amount": {amt}, "currency": {cur}}
	if token != "" {
		v.Set(tokenField, token)
	}
	return v
}

func (c *checker) lastOrder(user int64) (dbOrder, error) {
	var o dbOrder
	err := c.query("SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 1",
		[]any{user}, &o.id, &o.email, &o.status, &o.total, &o.curry, &o.placed)
	return o, err
}

func (c *checker) checkOrders() (string, error) {
	b, err := c.signedIn()
	if err != nil {
		return "", err
	}
	token, err := b.accountToken()
	if err != nil {
		return "", err
	}
	for _, tc := range []struct {
		amount string
		cents  int64
	}{{"149.90", 14990}, {"149.9", 14990}, {"0.01", 1}} {
		email := "buyer@shop.example"
		a, err := b.send("POST", "/orders", orderForm(token, email, tc.amount, "EUR"), "", "")
		if err != nil {
			return "", err
		}
		if err := redirect(a, "/account"); err != nil {
			return "", within(fmt.Sprintf("amount %s", tc.amount), err)
		}
		o, err := c.lastOrder(checkUser)
		if err != nil {
			return "", err
		}
		if o.total != tc.cents || o.status != "PENDING" || o.email != email || o.curry != "EUR" || slices.Contains(c.placed, o.id) {
			return "", failf(fmt.Sprintf("POST /orders amount %s: a new PENDING order of %d EUR cents for %s", tc.amount, tc.cents, email),
				"order %d: %d %s cents, %s, %s", o.id, o.total, o.curry, o.status, o.email)
		}
		c.placed = append(c.placed, o.id)
	}
	before, err := c.count("SELECT COUNT(*) FROM orders")
	if err != nil {
		return "", err
	}
	for _, tc := range []struct{ email, amount, currency, field string }{
		{"buyer@shop.example", "149.901", "EUR", "amount"},
		{"buyer@shop.example", "0", "EUR", "amount"},
		{"buyer@shop.example", "0.00", "EUR", "amount"},
		{"buyer@shop.example", "1e2", "EUR", "amount"},
		{"buyer@shop.example", "12,50", "EUR", "amount"},
		{"buyer@shop.example", "-1", "EUR", "amount"},
		{"not-an-email", "10.00", "EUR", "email"},
		{"a@b@shop.example", "10.00", "EUR", "email"},
		{"buyer@shop.example", "10.00", "eur", "currency"},
		{"buyer@shop.example", "10.00", "EURO", "currency"},
	} {
		a, err := b.send("POST", "/orders", orderForm(token, tc.email, tc.amount, tc.currency), "", "")
		if err != nil {
			return "", err
		}
		if err := expect(a, 422, "text/html"); err != nil {
			return "", within(fmt.Sprintf("email %q amount %q currency %q", tc.email, tc.amount, tc.currency), err)
		}
		m := errorRE.FindStringSubmatch(string(a.body))
		if m == nil || m[1] != tc.field {
			return "", failf(fmt.Sprintf(`POST /orders email %q amount %q currency %q: 422 with <p class="error" data-field="%s">`, tc.email, tc.amount, tc.currency, tc.field), "%q", m)
		}
	}
	a, err := b.send("POST", "/orders", orderForm("", "buyer@shop.example", "10.00", "EUR"), "", "")
	if err != nil {
		return "", err
	}
	if a.status != 403 {
		return "", failf("POST /orders with no "+tokenField+": 403", "status %d", a.status)
	}
	// Signed out, with a token this client was given by the sign-in page.
	out := c.newBrowser()
	outToken, _, err := out.signInPage()
	if err != nil {
		return "", err
	}
	a, err = out.send("POST", "/orders", orderForm(outToken, "buyer@shop.example", "10.00", "EUR"), "", "")
	if err != nil {
		return "", err
	}
	if err := redirect(a, "/sign_in"); err != nil {
		return "", within("signed out", err)
	}
	if err := c.unchanged("orders", before, "refused orders"); err != nil {
		return "", err
	}
	return "", nil
}

func (c *checker) checkCancel() (string, error) {
	b := c.user1
	if b == nil || len(c.placed) == 0 {
		return "", fail("an order placed by the orders check", "none")
	}
	token, err := b.accountToken()
	if err != nil {
		return "", err
	}
	id := c.placed[0]
	cancel := func(path string) (*answer, error) {
		return b.send("POST", path, url.Values{tokenField: {token}}, "", "")
	}
	a, err := cancel(fmt.Sprintf("/orders/%d/cancel", id))
	if err != nil {
		return "", err
	}
	if err := redirect(a, "/account"); err != nil {
		return "", err
	}
	var status string
	if err := c.query("SELECT status FROM orders WHERE id = ?", []any{id}, &status); err != nil {
		return "", err
	}
	if status != "CANCELLED" {
		return "", fail(fmt.Sprintf("order %d CANCELLED after its cancel", id), status)
	}
	c.cancelled = append(c.cancelled, id)
	if a, err = cancel(fmt.Sprintf("/orders/%d/cancel", id)); err != nil {
		return "", err
	}
	if a.status != 409 {
		return "", failf(fmt.Sprintf("POST /orders/%d/cancel again: 409", id), "status %d", a.status)
	}
	var theirs int64
	if err := c.query("SELECT id FROM orders WHERE user_id <> ? AND status = 'PENDING' ORDER BY id LIMIT 1", []any{checkUser}, &theirs); err != nil {
		return "", err
	}
	var maxID int64
	if err := c.query("SELECT MAX(id) FROM orders", nil, &maxID); err != nil {
		return "", err
	}
	for _, p := range []string{fmt.Sprintf("/orders/%d/cancel", theirs), fmt.Sprintf("/orders/%d/cancel", maxID+1000), "/orders/abc/cancel"} {
		a, err := cancel(p)
		if err != nil {
			return "", err
		}
		if a.status != 404 {
			return "", failf(fmt.Sprintf("POST %s (another user's order, or none): 404", p), "status %d", a.status)
		}
	}
	if err := c.query("SELECT status FROM orders WHERE id = ?", []any{theirs}, &status); err != nil {
		return "", err
	}
	if status != "PENDING" {
		return "", fail(fmt.Sprintf("another user's order %d left PENDING", theirs), status)
	}
	return "", nil
}

func (c *checker) checkJob() (string, error) {
	if len(c.placed) == 0 {
		return "", fail("orders placed by the orders check", "none")
	}
	want := map[[2]string]bool{}
	for _, id := range c.placed {
		want[[2]string{strconv.FormatInt(id, 10), "placed"}] = true
	}
	for _, id := range c.cancelled {
		want[[2]string{strconv.FormatInt(id, 10), "cancelled"}] = true
	}
	start := time.Now()
	for {
		missing := 0
		for k := range want {
			n, err := c.count("SELECT COUNT(*) FROM audit WHERE order_id = ? AND action = ?", k[0], k[1])
			if err != nil {
				return "", err
			}
			if n != 1 {
				missing++
			}
		}
		jobs, err := c.count("SELECT COUNT(*) FROM jobs")
		if err != nil {
			return "", err
		}
		if missing == 0 && jobs == 0 {
			return fmt.Sprintf("%d audit rows, the queue empty within %s", len(want), time.Since(start).Round(100*time.Millisecond)), nil
		}
		if time.Since(start) > jobWait {
			return "", failf(fmt.Sprintf("an audit row for each of %d jobs, exactly once, and no job left, within %s", len(want), jobWait),
				"%d without exactly one audit row, %d jobs left", missing, jobs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *checker) checkSignOut() (string, error) {
	b, err := c.signedIn()
	if err != nil {
		return "", err
	}
	token, err := b.accountToken()
	if err != nil {
		return "", err
	}
	old := b.cookieHeader()
	value := b.sessionCookieValue()
	before, err := c.count("SELECT COUNT(*) FROM sessions")
	if err != nil {
		return "", err
	}
	a, err := b.send("POST", "/sign_out", url.Values{tokenField: {token}}, "", "")
	if err != nil {
		return "", err
	}
	if err := redirect(a, "/sign_in"); err != nil {
		return "", err
	}
	expired := false
	for _, ck := range a.cookies {
		if ck.Name == sessionCookie && (ck.MaxAge < 0 || (!ck.Expires.IsZero() && ck.Expires.Before(time.Now()))) {
			expired = true
		}
	}
	if !expired {
		return "", fail("POST /sign_out: the "+sessionCookie+" cookie expired (Max-Age=0 or an Expires in the past)", fmt.Sprintf("cookies %v", cookieNames(a.cookies)))
	}
	after, err := c.count("SELECT COUNT(*) FROM sessions")
	if err != nil {
		return "", err
	}
	if after != before-1 {
		return "", failf("POST /sign_out: its sessions row deleted", "%d rows removed", before-after)
	}
	if value != "" {
		if err := c.refusedAccount(c.newBrowser(), old, "the cookie from before signing out"); err != nil {
			return "", err
		}
	}
	c.user1 = nil
	return "", nil
}

// signedInWrongMethods are the signed-in routes' known paths with a method
// they do not take. They are sent signed in, with a token, so that neither
// a CSRF filter nor a sign-in redirect answers before the router does.
var signedInWrongMethods = [][2]string{
	{"POST", "/account"}, {"GET", "/orders"}, {"GET", "/sign_out"}, {"GET", "/orders/1/cancel"},
}

func (c *checker) checkSignedInMethods() (string, error) {
	b, err := c.signedIn()
	if err != nil {
		return "", err
	}
	token, err := b.accountToken()
	if err != nil {
		return "", err
	}
	for _, r := range signedInWrongMethods {
		var form url.Values
		if r[0] == "POST" {
			form = url.Values{tokenField: {token}}
		}
		a, err := b.send(r[0], r[1], form, "", "")
		if err != nil {
			return "", err
		}
		if err := expect(a, 405, ""); err != nil {
			return "", err
		}
	}
	return "", nil
}

// signedInExchanges are the parity snapshot's signed-in requests, as user 2
// (docs/app.md, "Parity"), each answer normalised by normaliseSignedIn.
func (c *checker) signedInExchanges() ([]exchange, error) {
	n, err := c.count("SELECT COUNT(*) FROM orders")
	if err != nil {
		return nil, err
	}
	c.seedOrders = n
	var theirs int64
	if err := c.query("SELECT id FROM orders WHERE user_id = 3 AND status = 'PENDING' ORDER BY id LIMIT 1", nil, &theirs); err != nil {
		return nil, err
	}
	b := c.newBrowser()
	var out []exchange
	token := ""
	step := func(name, method, path string, form url.Values, accept string) (*answer, error) {
		if form != nil {
			form.Set(tokenField, token)
		}
		a, err := b.send(method, path, form, accept, "")
		if err != nil {
			return nil, err
		}
		if f := forms(a.body); len(f) > 0 && f[0].token != "" {
			token = f[0].token
		}
		out = append(out, exchange{Name: name, Answer: c.normaliseSignedIn(a, accept)})
		return a, nil
	}
	creds := func(email, pw string) url.Values { return url.Values{"email": {email}, "password": {pw}} }
	steps := []struct {
		name, method, path string
		form               url.Values
		accept             string
	}{
		{"GET /sign_in", "GET", "/sign_in", nil, ""},
		{"POST /sign_in (wrong password)", "POST", "/sign_in", creds(userEmail(parityUser), "not-the-password"), ""},
		{"POST /sign_in (unknown email)", "POST", "/sign_in", creds("nobody@lab.example", userPassword(parityUser)), ""},
		{"POST /sign_in", "POST", "/sign_in", creds(userEmail(parityUser), userPassword(parityUser)), ""},
		{"GET /account", "GET", "/account", nil, ""},
		{"GET /account (JSON)", "GET", "/account", nil, "application/json"},
		{"POST /orders", "POST", "/orders", orderForm("", "parity@shop.example", "12.50", "USD"), ""},
		{"POST /orders (bad email)", "POST", "/orders", orderForm("", "parity.shop.example", "12.50", "USD"), ""},
		{"POST /orders (bad amount)", "POST", "/orders", orderForm("", "parity@shop.example", "12.505", "USD"), ""},
		{"POST /orders (bad currency)", "POST", "/orders", orderForm("", "parity@shop.example", "12.50", "usd"), ""},
		{"GET /account (JSON, the order placed)", "GET", "/account", nil, "application/json"},
	}
	for _, s := range steps {
		if s.path == "/orders" || strings.HasPrefix(s.name, "GET /account (JSON, the") {
			// The order form's token, from the account page.
			if token, err = b.accountToken(); err != nil {
				return nil, err
			}
		}
		if _, err := step(s.name, s.method, s.path, s.form, s.accept); err != nil {
			return nil, err
		}
	}
	placed, err := c.lastOrder(parityUser)
	if err != nil {
		return nil, err
	}
	if token, err = b.accountToken(); err != nil {
		return nil, err
	}
	cancel := fmt.Sprintf("/orders/%d/cancel", placed.id)
	more := []struct {
		name, method, path string
		form               url.Values
		accept             string
	}{
		{"POST /orders/ID/cancel", "POST", cancel, url.Values{}, ""},
		{"POST /orders/ID/cancel (again)", "POST", cancel, url.Values{}, ""},
		{"POST /orders/ID/cancel (another user's)", "POST", fmt.Sprintf("/orders/%d/cancel", theirs), url.Values{}, ""},
	}
	for _, r := range signedInWrongMethods {
		var form url.Values
		if r[0] == "POST" {
			form = url.Values{}
		}
		more = append(more, struct {
			name, method, path string
			form               url.Values
			accept             string
		}{r[0] + " " + r[1], r[0], r[1], form, ""})
	}
	more = append(more, []struct {
		name, method, path string
		form               url.Values
		accept             string
	}{
		{"POST /sign_out", "POST", "/sign_out", url.Values{}, ""},
		{"GET /account (signed out)", "GET", "/account", nil, ""},
		{"GET /account (JSON, signed out)", "GET", "/account", nil, "application/json"},
	}...)
	for _, s := range more {
		tok := token
		if _, err := step(s.name, s.method, s.path, s.form, s.accept); err != nil {
			return nil, err
		}
		token = tok // every post of these carries the account page's token
	}
	return out, nil
}

// normaliseSignedIn keeps of a signed-in route's answer what the spec
// fixes: the status; a redirect's target; for 400, 403, 404, 405 and 409
// nothing else (their bodies are the framework's); JSON without the token
// and the time of orders verify placed; a page as its title, user,
// orders, forms and error line.
func (c *checker) normaliseSignedIn(a *answer, accept string) any {
	out := object{{"status", json.Number(fmt.Sprint(a.status))}}
	switch {
	case a.status >= 300 && a.status < 400:
		return append(out, member{"location", a.location})
	case a.status == 400 || a.status == 403 || a.status == 404 || a.status == 405 || a.status == 409:
		return out
	}
	mt, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	out = append(out, member{"type", mt})
	switch mt {
	case "application/json":
		v, err := decodeOrdered(a.body)
		if err != nil {
			return append(out, member{"body", "not JSON: " + cut(a.body)})
		}
		return append(out, member{"body", c.dropSignedInVolatile(v)})
	case "text/html":
		return append(out, member{"page", signedInPage(a.body)})
	}
	return append(out, member{"body", string(a.body)})
}

func (c *checker) dropSignedInVolatile(v any) any {
	o, ok := v.(object)
	if !ok {
		return v
	}
	var out object
	for _, m := range o {
		switch m.Key {
		case tokenField:
			continue
		case "orders":
			list, _ := m.Val.([]any)
			kept := []any{}
			for _, e := range list {
				eo, ok := e.(object)
				if !ok {
					kept = append(kept, e)
					continue
				}
				id, _ := eo.get("id")
				n, _ := integer("", id)
				var ko object
				for _, f := range eo {
					if f.Key == "placed_at" && n > c.seedOrders {
						continue
					}
					ko = append(ko, f)
				}
				kept = append(kept, ko)
			}
			out = append(out, member{"orders", kept})
			continue
		}
		out = append(out, m)
	}
	return out
}

// signedInPage is what a sign-in or account page shows: its title, the
// user in its heading, its orders, its forms (where each posts and its
// inputs' names) and its error line; the markup around them is the stack's.
func signedInPage(body []byte) any {
	s := string(body)
	title := ""
	if m := titleTextRE.FindStringSubmatch(s); m != nil {
		title = strings.TrimSpace(html.UnescapeString(m[1]))
	}
	user := []any{}
	if m := h1RE.FindStringSubmatch(s); m != nil {
		user = []any{json.Number(m[1]), strings.TrimSpace(html.UnescapeString(m[2]))}
	}
	orders := []any{}
	for _, m := range orderRE.FindAllStringSubmatch(s, -1) {
		orders = append(orders, []any{json.Number(m[1]), m[2], strings.TrimSpace(html.UnescapeString(m[3]))})
	}
	fs := []any{}
	for _, f := range forms(body) {
		ins := []any{}
		for _, in := range f.inputs {
			ins = append(ins, in)
		}
		fs = append(fs, []any{f.method, f.action, ins})
	}
	// A field's error is compared by its field (its words are the
	// stack's); the sign-in error by its words, which the spec fixes.
	errs := []any{}
	for _, m := range errorRE.FindAllStringSubmatch(s, -1) {
		if m[1] != "" {
			errs = append(errs, []any{m[1]})
			continue
		}
		errs = append(errs, []any{"", strings.TrimSpace(html.UnescapeString(m[2]))})
	}
	return object{{"title", title}, {"user", user}, {"orders", orders}, {"forms", fs}, {"errors", errs}}
}

// signinMain is `verify signin`: sign a load in before its window, as a
// browser would (GET /sign_in; unless -form-only, POST it and GET
// /account for the order form's token), and write the cookies and the
// token for plan oha (bench/websession).
func signinMain(args []string) int {
	fs := flag.NewFlagSet("verify signin", flag.ContinueOnError)
	base := fs.String("url", "", "the running stack, http://127.0.0.1:PORT (required)")
	email := fs.String("email", "", "the user's email (required)")
	password := fs.String("password", "", "the user's password (required)")
	formOnly := fs.Bool("form-only", false, "only the sign-in form's cookies and token (for a load that posts the sign-in itself)")
	out := fs.String("out", "", "the session file to write (required)")
	cli.Parse(fs, args, usage)
	switch {
	case *base == "" || *email == "" || *password == "" || *out == "":
		cli.Usage("verify signin", "-url, -email, -password and -out are required (see -h)")
	}
	if err := loopbackURL(*base); err != nil {
		cli.Usage("verify signin", "-url %q: %v", *base, err)
	}
	c := newChecker(config{BaseURL: strings.TrimSuffix(*base, "/"), Concurrency: 1, WriteConcurrency: 1})
	b := c.newBrowser()
	token, _, err := b.signInPage()
	if err == nil && !*formOnly {
		var a *answer
		a, err = b.send("POST", "/sign_in", url.Values{tokenField: {token}, "email": {*email}, "password": {*password}}, "", "")
		if err == nil {
			err = redirect(a, "/account")
		}
		if err == nil {
			token, err = b.accountToken()
		}
	}
	if err != nil {
		cli.Fail("verify signin", "%s as %s: %v", *base, *email, err)
	}
	if err := websession.Write(*out, websession.Session{Cookie: b.cookieHeader(), Token: token}); err != nil {
		cli.Fail("verify signin", "-out %s: %v", *out, err)
	}
	return 0
}
