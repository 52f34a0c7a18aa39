/* The Postgres worker pool (DATABASE_URL; docs/postgres.md): libpq, one
 * blocking connection per worker thread, DB_POOL_SIZE threads taking every
 * database job from one queue, so no libpq call runs on an HTTP I/O
 * thread. Each connection's statements are prepared once, at open. A
 * thread of its own, with its own connection, drains `jobs` into `audit`. */
#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

static const char sql_items[] = "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20";
/* One statement, so the count and the rows come from one snapshot. */
static const char sql_read[] =
	"SELECT (SELECT count(*) FROM bench_events), id, created_at FROM bench_events ORDER BY id DESC LIMIT 20";
static const char sql_insert[] = "INSERT INTO bench_events (payload, created_at) VALUES ($1, $2) RETURNING id";
/* The session's settings that matter (docs/app.md), on this connection; the
 * server process behind it, pg_backend_pid, names it. */
static const char sql_settings[] =
	"SELECT current_setting('transaction_isolation'), current_setting('synchronous_commit'), "
	"current_setting('statement_timeout'), current_setting('client_encoding'), pg_backend_pid()";
/* The signed-in routes. Each write is one statement, so one transaction at
 * the default isolation: an order and its job, a cancel and its job, as
 * one INSERT or UPDATE with a data-modifying WITH. */
static const char *const signed_in_names[] = {
	"user_by_email", "session", "user", "orders", "insert_session", "delete_session", "place", "cancel", "status",
};
static const char *const signed_in_sqls[] = {
	"SELECT id, password_hash FROM users WHERE email = $1",
	"SELECT user_id FROM sessions WHERE token = $1 AND expires_at > $2",
	"SELECT email FROM users WHERE id = $1",
	"SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = $1 "
	"ORDER BY id DESC LIMIT 20",
	"INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES ($1, $2, $3, $3::bigint + 86400000)",
	"DELETE FROM sessions WHERE token = $1",
	"WITH o AS (INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) "
	"VALUES ($1, $2, 'PENDING', $3, $4, $5) RETURNING id) "
	"INSERT INTO jobs (order_id, action, created_at) SELECT id, 'placed', $5 FROM o RETURNING order_id",
	"WITH c AS (UPDATE orders SET status = 'CANCELLED' WHERE id = $1 AND user_id = $2 AND status = 'PENDING' "
	"RETURNING id) "
	"INSERT INTO jobs (order_id, action, created_at) SELECT id, 'cancelled', $3 FROM c RETURNING order_id",
	"SELECT status FROM orders WHERE id = $1 AND user_id = $2",
};
#define NSIGNED (sizeof signed_in_names / sizeof signed_in_names[0])
/* The job worker's one statement: the lowest-id job nobody else holds,
 * deleted, and its audit row, in one transaction. */
static const char sql_take_job[] =
	"WITH j AS (DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
	"RETURNING order_id, action) "
	"INSERT INTO audit (order_id, action, at) SELECT order_id, action, $1 FROM j RETURNING id";

static const char *const setting_names[] = {
	"transaction_isolation", "synchronous_commit", "statement_timeout", "client_encoding",
};

static char payload[201];

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<title>Items</title>\n</head>\n<body>\n<h1>Items</h1>\n<ul>";
static const char page_tail[] = "\n</ul>\n</body>\n</html>\n";

struct pg_worker {
	struct pg_pool *pool;
	PGconn *conn;
	pthread_t thread;
};

/* The job worker: one thread, its own connection; kicked after a commit
 * that queued a job, else it looks every 100 ms. */
struct pg_jobs {
	PGconn *conn;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* on CLOCK_MONOTONIC */
	bool stop, kicked;
};

struct pg_pool {
	struct queue jobs;
	int nworkers;
	struct pg_worker *workers;
	struct pg_jobs worker;
};

/* open_worker: the connection, statement_timeout in its startup options
 * (so no connection runs without it: a request waits at most 5 s for the
 * server, as busy_timeout bounds a SQLite wait), its statements. */
static int connect_db(PGconn **conn, const char *url, char *err, size_t errlen)
{
	const char *keys[] = {"dbname", "options", NULL};
	const char *vals[] = {url, "-c statement_timeout=5000", NULL};
	*conn = PQconnectdbParams(keys, vals, 1);
	if (PQstatus(*conn) != CONNECTION_OK) {
		snprintf(err, errlen, "DATABASE_URL: %s", PQerrorMessage(*conn));
		return -1;
	}
	return 0;
}

static int prepare(PGconn *conn, const char *name, const char *sql, char *err, size_t errlen)
{
	PGresult *res = PQprepare(conn, name, sql, 0, NULL);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		snprintf(err, errlen, "prepare %s: %s", sql, PQerrorMessage(conn));
	PQclear(res);
	return ok ? 0 : -1;
}

static int open_worker(struct pg_worker *w, const char *url, char *err, size_t errlen)
{
	if (connect_db(&w->conn, url, err, errlen))
		return -1;
	const char *names[] = {"items", "read", "insert", "settings"};
	const char *sqls[] = {sql_items, sql_read, sql_insert, sql_settings};
	for (size_t i = 0; i < 4; i++)
		if (prepare(w->conn, names[i], sqls[i], err, errlen))
			return -1;
	for (size_t i = 0; i < NSIGNED; i++)
		if (prepare(w->conn, signed_in_names[i], signed_in_sqls[i], err, errlen))
			return -1;
	return 0;
}

/* run: one prepared statement; NULL (the request failed with 503) unless
 * it returned rows */
static PGresult *run(struct pg_worker *w, struct request *r, const char *name, int n, const char *const *params)
{
	PGresult *res = PQexecPrepared(w->conn, name, n, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s", PQerrorMessage(w->conn));
		msg[strcspn(msg, "\n")] = 0;
		PQclear(res);
		buf_free(&r->body);
		request_fail(r, 503, msg);
		return NULL;
	}
	return res;
}

static void newest_items(struct pg_worker *w, struct request *r, bool html)
{
	PGresult *res = run(w, r, "items", 0, NULL);
	if (!res)
		return;
	struct buf *b = &r->body;
	buf_puts(b, html ? page_head : "{\"items\":[");
	for (int i = 0; i < PQntuples(res); i++) {
		if (html) {
			buf_puts(b, "\n<li data-id=\"");
			buf_puts(b, PQgetvalue(res, i, 0));
			buf_puts(b, "\">");
			buf_html_text(b, PQgetvalue(res, i, 1));
			buf_puts(b, "</li>");
		} else {
			buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
			buf_puts(b, PQgetvalue(res, i, 0));
			buf_puts(b, ",\"title\":");
			buf_json_string(b, PQgetvalue(res, i, 1));
			buf_puts(b, ",\"created_at\":");
			buf_puts(b, PQgetvalue(res, i, 2));
			buf_puts(b, "}");
		}
	}
	PQclear(res);
	if (html) {
		buf_puts(b, page_tail);
		request_finish(r, 200, "text/html; charset=utf-8");
	} else {
		buf_puts(b, "]}");
		request_finish(r, 200, "application/json");
	}
}

static void bench_read(struct pg_worker *w, struct request *r)
{
	PGresult *res = run(w, r, "read", 0, NULL);
	if (!res)
		return;
	struct buf *b = &r->body;
	int n = PQntuples(res);
	buf_puts(b, "{\"ok\":true,\"count\":");
	buf_puts(b, n ? PQgetvalue(res, 0, 0) : "0");
	buf_puts(b, ",\"latest\":[");
	for (int i = 0; i < n; i++) {
		buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
		buf_puts(b, PQgetvalue(res, i, 1));
		buf_puts(b, ",\"created_at\":");
		buf_puts(b, PQgetvalue(res, i, 2));
		buf_puts(b, "}");
	}
	buf_puts(b, "]}");
	PQclear(res);
	request_finish(r, 200, "application/json");
}

/* bench_write: one INSERT ... RETURNING, its own implicit transaction. */
static void bench_write(struct pg_worker *w, struct request *r)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char ms[32];
	snprintf(ms, sizeof ms, "%lld", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	const char *params[] = {payload, ms};
	PGresult *res = run(w, r, "insert", 2, params);
	if (!res)
		return;
	buf_puts(&r->body, "{\"ok\":true,\"id\":");
	buf_puts(&r->body, PQgetvalue(res, 0, 0));
	buf_puts(&r->body, "}");
	PQclear(res);
	request_finish(r, 200, "application/json");
}

static void bench_settings(struct pg_worker *w, struct request *r)
{
	PGresult *res = run(w, r, "settings", 0, NULL);
	if (!res)
		return;
	struct buf *b = &r->body;
	for (int i = 0; i < 4; i++) {
		buf_puts(b, i ? ",\"" : "{\"");
		buf_puts(b, setting_names[i]);
		buf_puts(b, "\":");
		buf_json_string(b, PQgetvalue(res, 0, i));
	}
	char name[48];
	snprintf(name, sizeof name, "backend pid %s", PQgetvalue(res, 0, 4));
	buf_puts(b, ",\"connection\":");
	buf_json_string(b, name);
	buf_puts(b, "}");
	PQclear(res);
	request_finish(r, 200, "application/json");
}

/* ---- the signed-in routes ------------------------------------------------ */

static void kick_jobs(struct pg_pool *p)
{
	pthread_mutex_lock(&p->worker.mu);
	p->worker.kicked = true;
	pthread_cond_signal(&p->worker.cv);
	pthread_mutex_unlock(&p->worker.mu);
}

static void ms_text(char out[24], long long v) { snprintf(out, 24, "%lld", v); }

/* current_user: the session named by the lab_session cookie (not expired),
 * then its user: two reads, every request, no cache. 1: found (*email is
 * the caller's to free); 0: no session; -1: r failed with 503. */
static int current_user(struct pg_worker *w, struct request *r, long long *uid, char **email)
{
	if (!r->session[0])
		return 0;
	char now[24];
	ms_text(now, now_ms());
	const char *p1[] = {r->session, now};
	PGresult *res = run(w, r, "session", 2, p1);
	if (!res)
		return -1;
	int found = PQntuples(res) > 0;
	char id[24] = "";
	if (found)
		snprintf(id, sizeof id, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!found)
		return 0;
	const char *p2[] = {id};
	res = run(w, r, "user", 1, p2);
	if (!res)
		return -1;
	found = PQntuples(res) > 0;
	if (found) {
		*uid = atoll(id);
		*email = strdup(PQgetvalue(res, 0, 0));
		if (!*email)
			abort();
	}
	PQclear(res);
	return found;
}

static void account_page(struct pg_worker *w, struct request *r, long long uid, const char *email,
			 const char *error_field)
{
	char id[24];
	ms_text(id, uid);
	const char *params[] = {id};
	PGresult *res = run(w, r, "orders", 1, params);
	if (!res)
		return;
	account_head(r, uid, email);
	for (int i = 0; i < PQntuples(res); i++)
		account_order(r, i, atoll(PQgetvalue(res, i, 0)), PQgetvalue(res, i, 1), PQgetvalue(res, i, 2),
			      atoll(PQgetvalue(res, i, 3)), PQgetvalue(res, i, 4), atoll(PQgetvalue(res, i, 5)));
	PQclear(res);
	account_finish(r, error_field);
}

static void account(struct pg_worker *w, struct request *r)
{
	long long uid = 0;
	char *email = NULL;
	int found = current_user(w, r, &uid, &email);
	if (found == 0)
		answer_not_signed_in(r);
	else if (found > 0)
		account_page(w, r, uid, email, NULL);
	free(email);
}

/* command: a prepared statement that returns no rows; false: r failed. */
static bool command(struct pg_worker *w, struct request *r, const char *name, int n, const char *const *params)
{
	PGresult *res = PQexecPrepared(w->conn, name, n, params, NULL, NULL, 0);
	bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	if (!ok) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s", PQerrorMessage(w->conn));
		msg[strcspn(msg, "\n")] = 0;
		buf_free(&r->body);
		request_fail(r, 503, msg);
	}
	return ok;
}

/* sign_in: the user by email, bcrypt (the dummy hash when there is none),
 * and on a match the sessions row, one INSERT. An email that is no text
 * Postgres takes (a NUL, not UTF-8) is no user. */
static void sign_in(struct pg_worker *w, struct request *r)
{
	const struct form *f = &r->form;
	char *hash = NULL, id[24] = "";
	if (f->f[F_EMAIL].len == strlen(f->f[F_EMAIL].p) && valid_utf8(f->f[F_EMAIL].p, f->f[F_EMAIL].len)) {
		const char *params[] = {f->f[F_EMAIL].p};
		PGresult *res = run(w, r, "user_by_email", 1, params);
		if (!res)
			return;
		if (PQntuples(res) > 0) {
			snprintf(id, sizeof id, "%s", PQgetvalue(res, 0, 0));
			hash = strdup(PQgetvalue(res, 0, 1));
			if (!hash)
				abort();
		}
		PQclear(res);
	}
	bool ok = password_check(f->f[F_PASSWORD].p, f->f[F_PASSWORD].len, hash);
	free(hash);
	if (!ok) {
		answer_sign_in_failed(r);
		return;
	}
	char token[SESSION_TOKEN_MAX + 1], now[24];
	if (!new_session_token(token)) {
		request_fail(r, 503, "getrandom failed");
		return;
	}
	ms_text(now, now_ms());
	const char *params[] = {token, id, now};
	if (command(w, r, "insert_session", 3, params))
		answer_signed_in(r, token);
}

static void sign_out(struct pg_worker *w, struct request *r)
{
	const char *params[] = {r->session};
	if (r->session[0] && !command(w, r, "delete_session", 1, params))
		return;
	answer_signed_out(r);
}

static void place_order(struct pg_worker *w, struct request *r)
{
	long long uid = 0, cents = 0;
	char *email = NULL;
	int found = current_user(w, r, &uid, &email);
	if (found <= 0) {
		if (found == 0)
			answer_not_signed_in(r);
		return;
	}
	const struct form *f = &r->form;
	const char *bad = order_error(f, &cents);
	if (bad) {
		account_page(w, r, uid, email, bad);
		free(email);
		return;
	}
	free(email);
	char u[24], c[24], now[24];
	ms_text(u, uid);
	ms_text(c, cents);
	ms_text(now, now_ms());
	const char *params[] = {u, f->f[F_EMAIL].p, c, f->f[F_CURRENCY].p, now};
	PGresult *res = run(w, r, "place", 5, params);
	if (!res)
		return;
	PQclear(res);
	kick_jobs(w->pool);
	answer_redirect(r, "/account");
}

static void cancel_order(struct pg_worker *w, struct request *r)
{
	long long uid = 0;
	char *email = NULL;
	int found = current_user(w, r, &uid, &email);
	free(email);
	if (found <= 0) {
		if (found == 0)
			answer_not_signed_in(r);
		return;
	}
	if (r->order_id <= 0) {
		answer_text(r, 404, "404 page not found\n");
		return;
	}
	char id[24], u[24], now[24];
	ms_text(id, r->order_id);
	ms_text(u, uid);
	ms_text(now, now_ms());
	const char *params[] = {id, u, now};
	PGresult *res = run(w, r, "cancel", 3, params);
	if (!res)
		return;
	int n = PQntuples(res);
	PQclear(res);
	if (n > 0) {
		kick_jobs(w->pool);
		answer_redirect(r, "/account");
		return;
	}
	/* Nothing cancelled: not this user's (or no such order), or not
	 * PENDING. Another user's order is never told apart from a missing one. */
	res = run(w, r, "status", 2, params);
	if (!res)
		return;
	n = PQntuples(res);
	PQclear(res);
	if (n > 0)
		answer_text(r, 409, "409 the order is not pending\n");
	else
		answer_text(r, 404, "404 page not found\n");
}

/* ---- the job worker ------------------------------------------------------ */

#define JOBS_IDLE_MS 100

static void *jobs_main(void *arg)
{
	struct pg_jobs *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		bool stop = j->stop;
		j->kicked = false;
		pthread_mutex_unlock(&j->mu);
		if (stop)
			break;
		char now[24];
		ms_text(now, now_ms());
		const char *params[] = {now};
		PGresult *res = PQexecPrepared(j->conn, "take_job", 1, params, NULL, NULL, 0);
		int took = PQresultStatus(res) == PGRES_TUPLES_OK ? PQntuples(res) : -1;
		if (took < 0) {
			char msg[256];
			snprintf(msg, sizeof msg, "%s", PQerrorMessage(j->conn));
			msg[strcspn(msg, "\n")] = 0;
			fprintf(stderr, "c-libmicrohttpd: job worker: %s\n", msg);
			if (PQstatus(j->conn) == CONNECTION_BAD)
				PQreset(j->conn);
		}
		PQclear(res);
		if (took > 0)
			continue; /* the next at once */
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += JOBS_IDLE_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&j->mu);
		while (!j->stop && !j->kicked && pthread_cond_timedwait(&j->cv, &j->mu, &until) != ETIMEDOUT) {
		}
		pthread_mutex_unlock(&j->mu);
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct pg_worker *w = arg;
	struct request *r;
	while ((r = queue_pop(&w->pool->jobs))) {
		switch (r->job) {
		case JOB_ITEMS: newest_items(w, r, false); break;
		case JOB_PAGE: newest_items(w, r, true); break;
		case JOB_READ: bench_read(w, r); break;
		case JOB_WRITE: bench_write(w, r); break;
		case JOB_PRAGMAS: bench_settings(w, r); break;
		case JOB_SIGN_IN: sign_in(w, r); break;
		case JOB_ACCOUNT: account(w, r); break;
		case JOB_ORDER: place_order(w, r); break;
		case JOB_CANCEL: cancel_order(w, r); break;
		case JOB_SIGN_OUT: sign_out(w, r); break;
		default: request_fail(r, 500, "no such job"); break;
		}
	}
	return NULL;
}

struct pg_pool *pg_pool_start(const char *url, int size, char *err, size_t errlen)
{
	static const char piece[] = "stacklab-bench-event:";
	for (size_t i = 0; i < 200; i++)
		payload[i] = piece[i % (sizeof piece - 1)];
	struct pg_pool *p = calloc(1, sizeof *p);
	p->nworkers = size;
	p->workers = calloc((size_t)size, sizeof *p->workers);
	queue_init(&p->jobs);
	/* Every connection opens before the server listens: a wrong URL or an
	 * unseeded database fails the start, with one line. */
	for (int i = 0; i < size; i++) {
		p->workers[i].pool = p;
		if (open_worker(&p->workers[i], url, err, errlen))
			return NULL;
	}
	struct pg_jobs *j = &p->worker;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&j->mu, NULL);
	if (connect_db(&j->conn, url, err, errlen) || prepare(j->conn, "take_job", sql_take_job, err, errlen))
		return NULL;
	for (int i = 0; i < size; i++)
		pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]);
	pthread_create(&j->thread, NULL, jobs_main, j);
	return p;
}

bool pg_pool_submit(struct pg_pool *p, struct request *r) { return queue_push(&p->jobs, r); }

void pg_pool_stop(struct pg_pool *p)
{
	queue_close(&p->jobs);
	for (int i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_mutex_lock(&p->worker.mu);
	p->worker.stop = true;
	pthread_cond_signal(&p->worker.cv);
	pthread_mutex_unlock(&p->worker.mu);
	pthread_join(p->worker.thread, NULL);
	for (int i = 0; i < p->nworkers; i++)
		PQfinish(p->workers[i].conn);
	PQfinish(p->worker.conn);
}

void pg_pool_free(struct pg_pool *p)
{
	free(p->workers);
	free(p);
}
