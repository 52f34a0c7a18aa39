/* make check: the signed-in routes' parts that touch no database (web.c):
 * the form parser, amounts, emails, currencies, UTF-8, base64url, bcrypt
 * through libxcrypt, the CSRF check, and the pages. Prints "N passed, N
 * failed"; exit 1 on any failure. */
#define _GNU_SOURCE
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/app.h"

static int passed, failed;

static void check(const char *what, bool ok)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s\n", what);
}

/* A stand-in for main.c's: web.c's answers end here. */
void request_finish(struct request *r, unsigned status, const char *ct)
{
	r->status = status;
	r->content_type = ct;
}
void request_fail(struct request *r, unsigned status, const char *msg)
{
	(void)msg;
	r->status = status;
}

static bool has(const struct buf *b, const char *s)
{
	return b->p && memmem(b->p, b->len, s, strlen(s)) != NULL;
}

static void amount(const char *in, long long want)
{
	char what[64];
	snprintf(what, sizeof what, "amount \"%s\"", in);
	check(what, parse_amount(in, strlen(in)) == want);
}

static void email(const char *in, bool want)
{
	char what[300];
	snprintf(what, sizeof what, "email \"%s\"", in);
	check(what, valid_email(in, strlen(in)) == want);
}

static void form(const char *body, enum field f, const char *want, size_t wantlen)
{
	struct form fm = {0};
	form_parse(&fm, body, strlen(body));
	char what[128];
	snprintf(what, sizeof what, "form \"%s\" field %d", body, (int)f);
	if (!want)
		check(what, fm.f[f].p == NULL);
	else
		check(what, fm.f[f].p && fm.f[f].len == wantlen && memcmp(fm.f[f].p, want, wantlen) == 0 &&
				    fm.f[f].p[wantlen] == 0);
	form_free(&fm);
}

static void post(enum job job, const char *csrf, const char *body, bool form_encoded, unsigned want_status)
{
	struct request r = {0};
	r.job = job;
	snprintf(r.csrf, sizeof r.csrf, "%s", csrf);
	r.form_encoded = form_encoded;
	web_body(&r, body, strlen(body));
	bool answered = web_ready(&r);
	char what[256];
	snprintf(what, sizeof what, "post job %d \"%.80s\" -> %u", (int)job, body, want_status);
	check(what, want_status ? answered && r.status == want_status : !answered);
	buf_free(&r.body);
	web_free(&r);
}

int main(void)
{
	char err[256];
	check("web_init", web_init(err, sizeof err));

	/* docs/app.md's amounts. */
	amount("149.90", 14990);
	amount("149.9", 14990);
	amount("149", 14900);
	amount("0.01", 1);
	amount("9999999.99", 999999999);
	amount("0", -1);
	amount("0.00", -1);
	amount("149.901", -1);
	amount("-1", -1);
	amount("1e2", -1);
	amount("12,50", -1);
	amount(" 1", -1);
	amount("1 ", -1);
	amount("", -1);
	amount(".5", -1);
	amount("5.", -1);
	amount("12345678", -1);
	amount("00000000000000000000000000000000000001", -1);
	amount("1.000000000000000000000000000000000000", -1);
	check("amount NULL", parse_amount(NULL, 0) == -1);
	check("amount with NUL", parse_amount("1\0" "5", 3) == -1);

	struct buf b = {0};
	buf_amount(&b, 14990);
	buf_puts(&b, " ");
	buf_amount(&b, 5);
	buf_puts(&b, " ");
	buf_amount(&b, 100);
	check("buf_amount", b.len == strlen("149.90 0.05 1.00") && memcmp(b.p, "149.90 0.05 1.00", b.len) == 0);
	buf_free(&b);

	email("user1@lab.example", true);
	email("a@b.c", true);
	email("a@b..c", true);
	email("a@b.c.d", true);
	email("caf\xc3\xa9@b.c", true);
	email("", false);
	email("@b.c", false);
	email("a@", false);
	email("a@b", false);
	email("a@b.", false);
	email("a@.b", false);
	email("a@@b.c", false);
	email("a@b@c.d", false);
	email("a b@c.d", false);
	email("a@b.c ", false);
	email("a\t@b.c", false);
	email("not-an-email", false);
	email("\xff@b.c", false);
	check("email with NUL", !valid_email("a@b.c\0x", 7));
	char longmail[300];
	memset(longmail, 'a', sizeof longmail);
	memcpy(longmail + 250, "@b.cd", 6); /* 255 bytes */
	email(longmail, false);
	memcpy(longmail + 249, "@b.cd", 6); /* 254 */
	email(longmail, true);

	check("currency EUR", valid_currency("EUR", 3));
	check("currency eur", !valid_currency("eur", 3));
	check("currency EURO", !valid_currency("EURO", 4));
	check("currency E1R", !valid_currency("E1R", 3));
	check("currency NULL", !valid_currency(NULL, 0));

	check("utf8 ascii", valid_utf8("abc", 3));
	check("utf8 emoji", valid_utf8("\xf0\x9f\x9a\x80", 4));
	check("utf8 cut", !valid_utf8("\xf0\x9f\x9a", 3));
	check("utf8 overlong", !valid_utf8("\xc0\xaf", 2));
	check("utf8 surrogate", !valid_utf8("\xed\xa0\x80", 3));

	/* The form: first value wins, '+' and %XX decoded, a bad escape skips
	 * the pair, a key without '=' is present and empty. */
	form("email=a%40b.c&amount=1", F_EMAIL, "a@b.c", 5);
	form("email=a+b&email=second", F_EMAIL, "a b", 3);
	form("amount=1&currency", F_CURRENCY, "", 0);
	form("amount=1", F_CURRENCY, NULL, 0);
	form("password=%zz&password=ok", F_PASSWORD, "ok", 2);
	form("password=%4", F_PASSWORD, NULL, 0);
	form("password=a%00b", F_PASSWORD, "a\0b", 3);
	form("csrf%5Ftoken=t", F_CSRF, "t", 1);
	form("&&=&email=x&", F_EMAIL, "x", 1);
	form("", F_EMAIL, NULL, 0);
	form("emailx=1&xemail=2", F_EMAIL, NULL, 0);

	char out[64];
	static const unsigned char zero16[16];
	check("base64url 16", base64url(out, zero16, 16) == CLIENT_ID_LEN);
	check("base64url ab", base64url(out, (const unsigned char *)"\xfb\xff", 2) == 3 && strcmp(out, "-_8") == 0);
	char t1[SESSION_TOKEN_MAX + 1], t2[SESSION_TOKEN_MAX + 1];
	check("session tokens", new_session_token(t1) && new_session_token(t2) && strlen(t1) == 43 &&
					strcmp(t1, t2) != 0);

	/* bcrypt: the seed's scheme ($2b$, cost 10) through libxcrypt. */
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd = calloc(1, sizeof *cd);
	check("gensalt", crypt_gensalt_rn("$2b$", 10, NULL, 0, setting, sizeof setting) != NULL);
	const char *h = crypt_rn("lab-password-1", setting, cd, sizeof *cd);
	char hash[128];
	snprintf(hash, sizeof hash, "%s", h ? h : "");
	free(cd);
	check("hash shape", strncmp(hash, "$2b$10$", 7) == 0 && strlen(hash) == 60);
	check("password right", password_check("lab-password-1", 14, hash));
	check("password wrong", !password_check("lab-password-2", 14, hash));
	check("password NUL", !password_check("lab-password-1", 15, hash));
	check("password empty", !password_check("", 0, hash));
	check("no user", !password_check("lab-password-1", 14, NULL));
	check("bad hash", !password_check("x", 1, "$2b$10$short"));

	/* The CSRF check, before anything else. */
	const char *tok = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"; /* 43 */
	char body[512];
	snprintf(body, sizeof body, "csrf_token=%s&email=a%%40b.c&amount=1&currency=EUR", tok);
	post(JOB_ORDER, tok, body, true, 0);
	post(JOB_ORDER, tok, body, false, 403); /* not a form: no token */
	post(JOB_ORDER, "", body, true, 403);   /* no lab_csrf cookie */
	post(JOB_ORDER, "BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", body, true, 403);
	post(JOB_ORDER, tok, "email=a%40b.c", true, 403);
	snprintf(body, sizeof body, "csrf_token=%s&csrf_token=x", tok);
	post(JOB_CANCEL, tok, body, true, 0);
	snprintf(body, sizeof body, "csrf_token=%sA", tok);
	post(JOB_CANCEL, tok, body, true, 403);
	snprintf(body, sizeof body, "csrf_token=%s&email=user1%%40lab.example", tok);
	post(JOB_SIGN_IN, tok, body, true, 400);
	snprintf(body, sizeof body, "csrf_token=%s&password=x", tok);
	post(JOB_SIGN_IN, tok, body, true, 400);
	snprintf(body, sizeof body, "csrf_token=%s&email=&password=", tok);
	post(JOB_SIGN_IN, tok, body, true, 0);
	{
		struct request r = {0};
		r.job = JOB_ORDER;
		snprintf(r.csrf, sizeof r.csrf, "%s", tok);
		char chunk[1024];
		memset(chunk, 'a', sizeof chunk);
		for (int i = 0; i < 9; i++)
			web_body(&r, chunk, sizeof chunk);
		check("413", web_ready(&r) && r.status == 413 && r.in.len <= FORM_MAX);
		buf_free(&r.body);
		web_free(&r);
	}

	/* The pages. */
	{
		struct request r = {0};
		r.job = JOB_SIGN_IN_FORM;
		snprintf(r.csrf, sizeof r.csrf, "%s", tok);
		check("sign-in form", web_ready(&r) && r.status == 200 && has(&r.body, "<title>Sign in</title>") &&
					      has(&r.body, "<form method=\"post\" action=\"/sign_in\">") &&
					      has(&r.body, "name=\"csrf_token\" value=\"AAAA") &&
					      has(&r.body, "type=\"password\" name=\"password\"") &&
					      !has(&r.body, "class=\"error\""));
		buf_free(&r.body);
		answer_sign_in_failed(&r);
		check("sign-in 422", r.status == 422 &&
					     has(&r.body, "<p class=\"error\">Invalid email or password.</p>"));
		buf_free(&r.body);
	}
	{
		struct request r = {0};
		r.job = JOB_ACCOUNT;
		snprintf(r.csrf, sizeof r.csrf, "%s", tok);
		account_head(&r, 7, "a<b>@c.d");
		account_order(&r, 0, 4950, "x@y.z", "PAID", 14990, "EUR", 1);
		account_finish(&r, NULL);
		check("account html", r.status == 200 && strcmp(r.content_type, "text/html; charset=utf-8") == 0 &&
					      has(&r.body, "<h1 data-user=\"7\">a&lt;b&gt;@c.d</h1>") &&
					      has(&r.body, "<li data-id=\"4950\" data-status=\"PAID\">149.90 EUR</li>") &&
					      has(&r.body, "action=\"/orders\"") && has(&r.body, "action=\"/sign_out\""));
		buf_free(&r.body);
		r.want_json = true;
		account_head(&r, 7, "a\"b@c.d");
		account_order(&r, 0, 4950, "x@y.z", "PAID", 14990, "EUR", 1);
		account_order(&r, 1, 4850, "x@y.z", "PENDING", 5, "CHF", 2);
		account_finish(&r, NULL);
		static const char want[] =
			"{\"user\":{\"id\":7,\"email\":\"a\\\"b@c.d\"},\"orders\":[{\"id\":4950,\"email\":\"x@y.z\","
			"\"status\":\"PAID\",\"total_cents\":14990,\"currency\":\"EUR\",\"placed_at\":1},{\"id\":4850,"
			"\"email\":\"x@y.z\",\"status\":\"PENDING\",\"total_cents\":5,\"currency\":\"CHF\",\"placed_at\":2}],"
			"\"csrf_token\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}";
		check("account json", r.status == 200 && r.body.len == strlen(want) && memcmp(r.body.p, want, r.body.len) == 0);
		buf_free(&r.body);
		answer_not_signed_in(&r);
		check("json 401", r.status == 401 && has(&r.body, "{\"error\":\"unauthorized\"}"));
		buf_free(&r.body);
		r.want_json = false;
		answer_not_signed_in(&r);
		check("html 303", r.status == 303 && r.location && strcmp(r.location, "/sign_in") == 0);
		buf_free(&r.body);

		r.job = JOB_ORDER;
		r.want_json = true; /* a 422 is the HTML page whatever Accept says */
		form_parse(&r.form, "email=%22%3E%3Cx&amount=1", 25);
		account_head(&r, 7, "a@b.c");
		account_finish(&r, "email");
		check("order 422", r.status == 422 && has(&r.body, "<p class=\"error\" data-field=\"email\">") &&
					   has(&r.body, "value=\"&#34;&gt;&lt;x\"") && has(&r.body, "<title>Account</title>"));
		buf_free(&r.body);
		web_free(&r);

		r.ncookies = 0;
		answer_signed_in(&r, "TOKEN");
		check("session cookie", r.status == 303 && r.ncookies == 1 &&
						strcmp(r.cookies[0], "lab_session=TOKEN; Path=/; Max-Age=86400; HttpOnly; "
								     "SameSite=Lax") == 0);
		buf_free(&r.body);
		r.ncookies = 0;
		answer_signed_out(&r);
		check("expired cookie", r.status == 303 && strcmp(r.location, "/sign_in") == 0 &&
						strstr(r.cookies[0], "lab_session=; ") && strstr(r.cookies[0], "Max-Age=0;"));
		buf_free(&r.body);
	}

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
