/* The signed-in routes (docs/app.md, "Signed-in routes"): the parts that touch
 * no database. The form parser, the checks of a field, the random tokens,
 * bcrypt, the CSRF token, and the sign-in and account pages and JSON.
 *
 * CSRF: a signed double-submit cookie. Every client that is shown a form
 * gets a `lab_csrf` cookie, 16 bytes from getrandom(2); the form's
 * csrf_token is HMAC-SHA256(secret, that cookie) from OpenSSL's libcrypto,
 * the secret 32 bytes from getrandom(2) at the start, kept in memory only.
 * A POST is taken when its csrf_token equals (CRYPTO_memcmp) the HMAC of
 * the cookie it sends, so a token is good for as long as the client keeps
 * its cookie, across sign-in and sign-out, and is worth nothing to a client
 * with another cookie. */
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "app.h"

static unsigned char secret[32];
/* A bcrypt cost-10 hash of a random password, made at the start: an
 * unknown email is checked against it, so it costs one bcrypt too. */
static char dummy_hash[CRYPT_OUTPUT_SIZE];

static const char field_names[NFIELDS][12] = {
	[F_CSRF] = "csrf_token", [F_EMAIL] = "email", [F_PASSWORD] = "password",
	[F_AMOUNT] = "amount",   [F_CURRENCY] = "currency",
};

long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool random_bytes(unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = getrandom(p, n, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += k;
		n -= (size_t)k;
	}
	return true;
}

size_t base64url(char *out, const unsigned char *in, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0, i = 0;
	for (; i + 2 < n; i += 3) {
		unsigned long v = (unsigned long)in[i] << 16 | (unsigned long)in[i + 1] << 8 | in[i + 2];
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
		out[o++] = a[v & 63];
	}
	if (n - i == 1) {
		unsigned long v = (unsigned long)in[i] << 16;
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
	} else if (n - i == 2) {
		unsigned long v = (unsigned long)in[i] << 16 | (unsigned long)in[i + 1] << 8;
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
	}
	out[o] = 0;
	return o;
}

bool new_session_token(char out[SESSION_TOKEN_MAX + 1])
{
	unsigned char b[32]; /* 256 bits; 43 characters */
	if (!random_bytes(b, sizeof b))
		return false;
	base64url(out, b, sizeof b);
	return true;
}

/* A cookie value as this app writes them: base64url, 1 to max bytes. */
static bool token_shape(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);
	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return false;
	}
	return true;
}

static void csrf_for(const char *client, char out[CSRF_TOKEN_LEN + 1])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0;
	char msg[16 + CLIENT_ID_LEN];
	int n = snprintf(msg, sizeof msg, "lab_csrf:%s", client);
	if (!HMAC(EVP_sha256(), secret, sizeof secret, (const unsigned char *)msg, (size_t)n, mac, &maclen) ||
	    maclen != 32)
		abort(); /* libcrypto without SHA-256: nothing to serve */
	base64url(out, mac, 32);
}

bool web_init(char *err, size_t errlen)
{
	unsigned char salt[16], pw[16];
	if (!random_bytes(secret, sizeof secret) || !random_bytes(salt, sizeof salt) || !random_bytes(pw, sizeof pw)) {
		snprintf(err, errlen, "getrandom: %s", strerror(errno));
		return false;
	}
	char setting[CRYPT_GENSALT_OUTPUT_SIZE], pwtext[32];
	base64url(pwtext, pw, sizeof pw);
	if (!crypt_gensalt_rn("$2b$", 10, (const char *)salt, sizeof salt, setting, sizeof setting)) {
		snprintf(err, errlen, "crypt_gensalt_rn $2b$ 10: %s", strerror(errno));
		return false;
	}
	struct crypt_data *cd = calloc(1, sizeof *cd);
	if (!cd)
		abort();
	const char *h = crypt_rn(pwtext, setting, cd, sizeof *cd);
	if (!h || strlen(h) != 60) {
		snprintf(err, errlen, "crypt_rn: no bcrypt $2b$ in this libcrypt");
		free(cd);
		return false;
	}
	snprintf(dummy_hash, sizeof dummy_hash, "%s", h);
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	return true;
}

bool password_check(const char *password, size_t len, const char *hash)
{
	const char *setting = hash ? hash : dummy_hash;
	struct crypt_data *cd = calloc(1, sizeof *cd);
	if (!cd)
		abort();
	/* A password with a NUL inside still costs one bcrypt (of what comes
	 * before the NUL) and never matches. */
	const char *out = crypt_rn(password, setting, cd, sizeof *cd);
	bool ok = false;
	if (out) {
		size_t n = strlen(setting);
		ok = strlen(out) == n && CRYPTO_memcmp(out, setting, n) == 0;
	}
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	return ok && hash && len == strlen(password);
}

/* ---- the form ---------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* decode: application/x-www-form-urlencoded, '+' a space; out holds n+1
 * bytes. false: a '%' without two hex digits. */
static bool decode(char *out, size_t *outlen, const char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '+') {
			c = ' ';
		} else if (c == '%') {
			if (i + 2 >= n)
				return false;
			int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0)
				return false;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		out[o++] = c;
	}
	out[o] = 0;
	*outlen = o;
	return true;
}

bool form_parse(struct form *f, const char *body, size_t n)
{
	bool clean = true;
	const char *end = body + n;
	for (const char *p = body; p < end;) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *pe = amp ? amp : end;
		const char *eq = memchr(p, '=', (size_t)(pe - p));
		const char *ke = eq ? eq : pe;
		const char *v = eq ? eq + 1 : pe;
		char key[16];
		size_t klen;
		if ((size_t)(ke - p) < sizeof key && decode(key, &klen, p, (size_t)(ke - p))) {
			for (int i = 0; i < NFIELDS; i++) {
				if (f->f[i].p || klen != strlen(field_names[i]) || memcmp(key, field_names[i], klen) != 0)
					continue;
				char *val = malloc((size_t)(pe - v) + 1);
				if (!val)
					abort();
				if (decode(val, &f->f[i].len, v, (size_t)(pe - v))) {
					f->f[i].p = val;
				} else { /* a bad escape: the pair is skipped, as Go's ParseQuery does */
					free(val);
					clean = false;
				}
				break;
			}
		}
		p = amp ? amp + 1 : end;
	}
	return clean;
}

void form_free(struct form *f)
{
	for (int i = 0; i < NFIELDS; i++) {
		free(f->f[i].p);
		f->f[i].p = NULL;
		f->f[i].len = 0;
	}
}

bool valid_utf8(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t k;
		unsigned min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			k = 1, min = 0x80, c &= 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2, min = 0x800, c &= 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3, min = 0x10000, c &= 0x07;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			c = c << 6 | (s[i + j] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

/* ^[^@\s]+@[^@\s]+\.[^@\s]+$ (\s as Go's: \t \n \f \r and space), at most
 * 254 bytes, no NUL, and UTF-8 (what the database stores as text). */
bool valid_email(const char *s, size_t n)
{
	if (!s || n == 0 || n > 254 || !valid_utf8(s, n))
		return false;
	size_t at = n;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r')
			return false;
		if (c == '@') {
			if (at != n)
				return false;
			at = i;
		}
	}
	if (at == n || at == 0)
		return false;
	for (size_t j = at + 2; j + 1 < n; j++)
		if (s[j] == '.')
			return true;
	return false;
}

bool valid_currency(const char *s, size_t n)
{
	if (!s || n != 3)
		return false;
	for (size_t i = 0; i < 3; i++)
		if (s[i] < 'A' || s[i] > 'Z')
			return false;
	return true;
}

/* ^[0-9]{1,7}(\.[0-9]{1,2})?$ as text into minor units, above 0. */
long long parse_amount(const char *s, size_t n)
{
	if (!s)
		return -1;
	size_t i = 0;
	long long whole = 0, frac = 0;
	int nd = 0, fd = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (++nd > 7)
			return -1;
		whole = whole * 10 + (s[i] - '0');
	}
	if (nd == 0)
		return -1;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			if (++fd > 2)
				return -1;
			frac = frac * 10 + (s[i] - '0');
		}
		if (fd == 0)
			return -1;
		if (fd == 1)
			frac *= 10;
	}
	if (i != n)
		return -1;
	long long cents = whole * 100 + frac;
	return cents > 0 ? cents : -1;
}

void buf_amount(struct buf *b, long long cents)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%lld.%02lld", cents / 100, cents % 100);
	buf_put(b, tmp, (size_t)n);
}

const char *order_error(const struct form *f, long long *cents)
{
	if (!valid_email(f->f[F_EMAIL].p, f->f[F_EMAIL].len))
		return "email";
	*cents = parse_amount(f->f[F_AMOUNT].p, f->f[F_AMOUNT].len);
	if (*cents <= 0)
		return "amount";
	if (!valid_currency(f->f[F_CURRENCY].p, f->f[F_CURRENCY].len))
		return "currency";
	return NULL;
}

/* ---- the request, on the I/O thread -------------------------------------- */

static void add_cookie(struct request *r, const char *name, const char *value, const char *max_age)
{
	if (r->ncookies >= 2)
		return;
	char *c = r->cookies[r->ncookies++];
	if (max_age)
		snprintf(c, COOKIE_MAX, "%s=%s; Path=/; Max-Age=%s; HttpOnly; SameSite=Lax", name, value, max_age);
	else
		snprintf(c, COOKIE_MAX, "%s=%s; Path=/; HttpOnly; SameSite=Lax", name, value);
}

void web_begin(struct request *r, struct MHD_Connection *conn)
{
	const char *s = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, "lab_session");
	if (s && token_shape(s, 1, SESSION_TOKEN_MAX))
		snprintf(r->session, sizeof r->session, "%s", s);
	const char *c = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, "lab_csrf");
	if (c && token_shape(c, CLIENT_ID_LEN, CLIENT_ID_LEN)) {
		csrf_for(c, r->csrf);
	} else if (r->job == JOB_SIGN_IN_FORM || r->job == JOB_ACCOUNT) {
		/* A page with a form, to a client without the cookie: a new one. */
		unsigned char id[16];
		char text[CLIENT_ID_LEN + 1];
		if (random_bytes(id, sizeof id)) {
			base64url(text, id, sizeof id);
			add_cookie(r, "lab_csrf", text, NULL);
			csrf_for(text, r->csrf);
		}
	}
	const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	r->want_json = a && strstr(a, "application/json");
	const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	static const char urlenc[] = "application/x-www-form-urlencoded";
	r->form_encoded = ct && strncasecmp(ct, urlenc, sizeof urlenc - 1) == 0 &&
		(ct[sizeof urlenc - 1] == 0 || ct[sizeof urlenc - 1] == ';' || ct[sizeof urlenc - 1] == ' ');
}

void web_body(struct request *r, const char *data, size_t n)
{
	if (r->in_too_big || n > FORM_MAX - r->in.len) {
		r->in_too_big = true;
		return;
	}
	buf_put(&r->in, data, n);
}

static void sign_in_page(struct request *r, unsigned status, bool error);

bool web_ready(struct request *r)
{
	if (r->job == JOB_SIGN_IN_FORM) {
		sign_in_page(r, 200, false);
		return true;
	}
	if (r->job == JOB_ACCOUNT)
		return false;
	/* A POST: the token before anything else is read or written. */
	if (r->in_too_big) {
		answer_text(r, 413, "Request Entity Too Large\n");
		return true;
	}
	if (r->form_encoded)
		form_parse(&r->form, r->in.p ? r->in.p : "", r->in.len);
	const struct form *f = &r->form;
	if (!r->csrf[0] || !f->f[F_CSRF].p || f->f[F_CSRF].len != CSRF_TOKEN_LEN ||
	    CRYPTO_memcmp(f->f[F_CSRF].p, r->csrf, CSRF_TOKEN_LEN) != 0) {
		answer_text(r, 403, "Forbidden: missing or invalid CSRF token\n");
		return true;
	}
	if (r->job == JOB_SIGN_IN && (!f->f[F_EMAIL].p || !f->f[F_PASSWORD].p)) {
		answer_text(r, 400, "Bad Request: email and password are required\n");
		return true;
	}
	return false;
}

void web_free(struct request *r)
{
	buf_free(&r->in);
	form_free(&r->form);
}

/* ---- answers ------------------------------------------------------------ */

static const char html[] = "text/html; charset=utf-8";

void answer_text(struct request *r, unsigned status, const char *text)
{
	buf_free(&r->body);
	buf_puts(&r->body, text);
	request_finish(r, status, "text/plain; charset=utf-8");
}

void answer_redirect(struct request *r, const char *location)
{
	buf_free(&r->body);
	buf_puts(&r->body, "<a href=\"");
	buf_puts(&r->body, location);
	buf_puts(&r->body, "\">See Other</a>.\n");
	r->location = location;
	request_finish(r, 303, html);
}

void answer_signed_in(struct request *r, const char *token)
{
	add_cookie(r, "lab_session", token, "86400");
	answer_redirect(r, "/account");
}

void answer_signed_out(struct request *r)
{
	add_cookie(r, "lab_session", "", "0");
	answer_redirect(r, "/sign_in");
}

void answer_not_signed_in(struct request *r)
{
	if (r->job == JOB_ACCOUNT && r->want_json) {
		buf_free(&r->body);
		buf_puts(&r->body, "{\"error\":\"unauthorized\"}");
		request_finish(r, 401, "application/json");
		return;
	}
	answer_redirect(r, "/sign_in");
}

static void doc_head(struct buf *b, const char *title)
{
	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	buf_puts(b, title);
	buf_puts(b, "</title>\n</head>\n<body>\n");
}

static void csrf_input(struct buf *b, const char *token)
{
	buf_puts(b, "<input type=\"hidden\" name=\"csrf_token\" value=\"");
	buf_html_text(b, token);
	buf_puts(b, "\">\n");
}

/* The same bytes, but for the token, for an unknown email and a wrong
 * password: nothing sent is written back. */
static void sign_in_page(struct request *r, unsigned status, bool error)
{
	struct buf *b = &r->body;
	buf_free(b);
	doc_head(b, "Sign in");
	buf_puts(b, "<h1>Sign in</h1>\n");
	if (error)
		buf_puts(b, "<p class=\"error\">Invalid email or password.</p>\n");
	buf_puts(b, "<form method=\"post\" action=\"/sign_in\">\n");
	csrf_input(b, r->csrf);
	buf_puts(b, "<label>Email <input type=\"email\" name=\"email\" autocomplete=\"username\" required></label>\n"
		    "<label>Password <input type=\"password\" name=\"password\" autocomplete=\"current-password\" "
		    "required></label>\n"
		    "<button type=\"submit\">Sign in</button>\n</form>\n</body>\n</html>\n");
	request_finish(r, status, html);
}

void answer_sign_in_failed(struct request *r) { sign_in_page(r, 422, true); }

static bool account_json(const struct request *r) { return r->job == JOB_ACCOUNT && r->want_json; }

void account_head(struct request *r, long long uid, const char *email)
{
	struct buf *b = &r->body;
	buf_free(b);
	if (account_json(r)) {
		buf_puts(b, "{\"user\":{\"id\":");
		buf_int(b, uid);
		buf_puts(b, ",\"email\":");
		buf_json_string(b, email);
		buf_puts(b, "},\"orders\":[");
		return;
	}
	doc_head(b, "Account");
	buf_puts(b, "<h1 data-user=\"");
	buf_int(b, uid);
	buf_puts(b, "\">");
	buf_html_text(b, email);
	buf_puts(b, "</h1>\n<ul>");
}

void account_order(struct request *r, int i, long long id, const char *email, const char *status, long long cents,
		   const char *currency, long long placed_at)
{
	struct buf *b = &r->body;
	if (account_json(r)) {
		buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
		buf_int(b, id);
		buf_puts(b, ",\"email\":");
		buf_json_string(b, email);
		buf_puts(b, ",\"status\":");
		buf_json_string(b, status);
		buf_puts(b, ",\"total_cents\":");
		buf_int(b, cents);
		buf_puts(b, ",\"currency\":");
		buf_json_string(b, currency);
		buf_puts(b, ",\"placed_at\":");
		buf_int(b, placed_at);
		buf_puts(b, "}");
		return;
	}
	buf_puts(b, "\n<li data-id=\"");
	buf_int(b, id);
	buf_puts(b, "\" data-status=\"");
	buf_html_text(b, status);
	buf_puts(b, "\">");
	buf_amount(b, cents);
	buf_puts(b, " ");
	buf_html_text(b, currency);
	buf_puts(b, "</li>");
}

static void value_attr(struct buf *b, const struct form *f, enum field i, bool keep)
{
	if (!keep || !f->f[i].p)
		return;
	buf_puts(b, " value=\"");
	buf_html_text(b, f->f[i].p);
	buf_puts(b, "\"");
}

void account_finish(struct request *r, const char *error_field)
{
	struct buf *b = &r->body;
	if (account_json(r)) {
		buf_puts(b, "],\"csrf_token\":");
		buf_json_string(b, r->csrf);
		buf_puts(b, "}");
		request_finish(r, 200, "application/json");
		return;
	}
	buf_puts(b, "\n</ul>\n");
	bool keep = error_field != NULL;
	if (error_field) {
		buf_puts(b, "<p class=\"error\" data-field=\"");
		buf_puts(b, error_field);
		buf_puts(b, "\">");
		/* The words python-fastapi chose, so parity's error lines agree. */
		buf_puts(b, strcmp(error_field, "email") == 0	 ? "Enter a valid email address."
			    : strcmp(error_field, "amount") == 0 ? "Enter an amount such as 149.90."
								 : "Enter a three-letter currency code such as EUR.");
		buf_puts(b, "</p>\n");
	}
	buf_puts(b, "<form method=\"post\" action=\"/orders\">\n");
	csrf_input(b, r->csrf);
	buf_puts(b, "<label>Email <input type=\"email\" name=\"email\"");
	value_attr(b, &r->form, F_EMAIL, keep);
	buf_puts(b, " required></label>\n<label>Amount <input name=\"amount\" inputmode=\"decimal\"");
	value_attr(b, &r->form, F_AMOUNT, keep);
	buf_puts(b, " required></label>\n<label>Currency <input name=\"currency\" maxlength=\"3\"");
	value_attr(b, &r->form, F_CURRENCY, keep);
	buf_puts(b, " required></label>\n<button type=\"submit\">Place order</button>\n</form>\n"
		    "<form method=\"post\" action=\"/sign_out\">\n");
	csrf_input(b, r->csrf);
	buf_puts(b, "<button type=\"submit\">Sign out</button>\n</form>\n</body>\n</html>\n");
	request_finish(r, error_field ? 422 : 200, html);
}
