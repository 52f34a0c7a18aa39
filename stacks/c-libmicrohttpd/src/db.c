/* The SQLite worker pools: every connection is owned by one worker thread,
 * so no SQLite call ever runs on an HTTP I/O thread. Readers serve /items,
 * /page, /bench/read and /bench/pragmas, and the signed-in reads (a
 * sign-in's user and bcrypt, /account); writers serve /bench/write and the
 * signed-in writes (a session, an order, a cancel, a sign-out). A thread of
 * its own, with its own connection, drains `jobs` into `audit`. */
#include <errno.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

/* docs/app.md's setup, run on every connection before its first use. */
static const char pragmas[] =
	"PRAGMA journal_mode = WAL;"
	"PRAGMA synchronous = NORMAL;"
	"PRAGMA busy_timeout = 5000;"
	"PRAGMA cache_size = 2000;"
	"PRAGMA mmap_size = 134217728;"
	"PRAGMA journal_size_limit = 67108864;"
	"PRAGMA foreign_keys = ON;";

/* The names /bench/pragmas reports, in docs/app.md's order. */
static const char *const pragma_names[] = {
	"journal_mode", "synchronous", "busy_timeout", "cache_size",
	"mmap_size", "journal_size_limit", "foreign_keys",
};
#define NPRAGMAS (sizeof pragma_names / sizeof pragma_names[0])

static const char sql_items[] = "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20";
/* One statement, so the count and the rows come from one snapshot while
 * writers commit; an empty table gives no row and count 0. */
static const char sql_read[] =
	"SELECT (SELECT count(*) FROM bench_events), id, created_at FROM bench_events ORDER BY id DESC LIMIT 20";
static const char sql_insert[] = "INSERT INTO bench_events (payload, created_at) VALUES (?, ?)";

/* The signed-in routes' statements, prepared on every worker's connection. */
enum {
	S_USER_BY_EMAIL,
	S_SESSION,
	S_USER,
	S_ORDERS,
	S_INSERT_SESSION,
	S_DELETE_SESSION,
	S_INSERT_ORDER,
	S_INSERT_JOB,
	S_ORDER_STATUS,
	S_CANCEL,
	NSTMT
};
static const char *const sql_signed_in[NSTMT] = {
	[S_USER_BY_EMAIL] = "SELECT id, password_hash FROM users WHERE email = ?",
	[S_SESSION] = "SELECT user_id FROM sessions WHERE token = ? AND expires_at > ?",
	[S_USER] = "SELECT email FROM users WHERE id = ?",
	[S_ORDERS] = "SELECT id, email, status, total_cents, currency, placed_at FROM orders "
		     "WHERE user_id = ? ORDER BY id DESC LIMIT 20",
	[S_INSERT_SESSION] = "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
	[S_DELETE_SESSION] = "DELETE FROM sessions WHERE token = ?",
	[S_INSERT_ORDER] = "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) "
			   "VALUES (?, ?, 'PENDING', ?, ?, ?)",
	[S_INSERT_JOB] = "INSERT INTO jobs (order_id, action, created_at) VALUES (?, ?, ?)",
	[S_ORDER_STATUS] = "SELECT status FROM orders WHERE id = ? AND user_id = ?",
	[S_CANCEL] = "UPDATE orders SET status = 'CANCELLED' WHERE id = ?",
};
#define SESSION_MS 86400000LL /* 24 h */

/* 200 ASCII bytes, the payload every /bench/write stores (as go-nethttp's). */
static char payload[201];

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<title>Items</title>\n</head>\n<body>\n<h1>Items</h1>\n<ul>";
static const char page_tail[] = "\n</ul>\n</body>\n</html>\n";

struct worker {
	struct db_pool *pool;
	struct queue *queue;
	sqlite3 *db;
	sqlite3_stmt *items, *read, *insert, *begin, *commit, *rollback;
	sqlite3_stmt *pragma[NPRAGMAS];
	sqlite3_stmt *s[NSTMT];
	pthread_t thread;
};

/* The job worker: one thread, its own connection; kicked after a commit
 * that queued a job, else it looks every 100 ms. */
struct jobs_worker {
	sqlite3 *db;
	sqlite3_stmt *next, *audit, *del, *begin, *commit, *rollback;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* on CLOCK_MONOTONIC */
	bool stop, kicked;
};

/* turns: a FIFO ticket lock that the writer thread(s) and the job worker
 * take around each write transaction, so they alternate under load instead
 * of meeting in SQLite's busy handler, which sleeps and retries and lets
 * the writer, whose next BEGIN IMMEDIATE comes first, starve the worker. */
struct turns {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned long next, serving;
};

static void turn_take(struct turns *t)
{
	pthread_mutex_lock(&t->mu);
	unsigned long mine = t->next++;
	while (mine != t->serving)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
}

static void turn_give(struct turns *t)
{
	pthread_mutex_lock(&t->mu);
	t->serving++;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

struct db_pool {
	struct queue reads, writes;
	int nworkers;
	struct worker *workers;
	struct jobs_worker jobs;
	struct turns turns;
};

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
	/* PERSISTENT: these live as long as the connection. */
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "prepare %s: %s", sql, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/* open_db: a connection (read-write, never created: the lab seeds the
 * file) and its pragmas. NOMUTEX: one thread owns it. */
static int open_db(sqlite3 **db, const char *path, char *err, size_t errlen)
{
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "open %s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
		return -1;
	}
	char *msg = NULL;
	if (sqlite3_exec(*db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "pragmas on %s: %s", path, msg ? msg : "?");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* open_worker: the connection, its pragmas, its statements. */
static int open_worker(struct worker *w, const char *path, char *err, size_t errlen)
{
	if (open_db(&w->db, path, err, errlen))
		return -1;
	for (int i = 0; i < NSTMT; i++)
		if (prepare(w->db, sql_signed_in[i], &w->s[i], err, errlen))
			return -1;
	if (prepare(w->db, sql_items, &w->items, err, errlen) || prepare(w->db, sql_read, &w->read, err, errlen) ||
	    prepare(w->db, sql_insert, &w->insert, err, errlen) ||
	    prepare(w->db, "BEGIN IMMEDIATE", &w->begin, err, errlen) ||
	    prepare(w->db, "COMMIT", &w->commit, err, errlen) ||
	    prepare(w->db, "ROLLBACK", &w->rollback, err, errlen))
		return -1;
	for (size_t i = 0; i < NPRAGMAS; i++) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA %s", pragma_names[i]);
		if (prepare(w->db, sql, &w->pragma[i], err, errlen))
			return -1;
	}
	return 0;
}

static void close_worker(struct worker *w)
{
	sqlite3_stmt *all[] = {w->items, w->read, w->insert, w->begin, w->commit, w->rollback};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		sqlite3_finalize(all[i]);
	for (size_t i = 0; i < NPRAGMAS; i++)
		sqlite3_finalize(w->pragma[i]);
	for (int i = 0; i < NSTMT; i++)
		sqlite3_finalize(w->s[i]);
	sqlite3_close(w->db);
}

static void db_error(struct worker *w, struct request *r, sqlite3_stmt *st)
{
	/* errmsg before reset: reset may replace it. */
	char msg[256];
	snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(w->db));
	if (st)
		sqlite3_reset(st);
	request_fail(r, 503, msg);
}

/* newest_items: /items as JSON, or /page as HTML, from one query. */
static void newest_items(struct worker *w, struct request *r, bool html)
{
	struct buf *b = &r->body;
	sqlite3_stmt *st = w->items;
	int rc, n = 0;
	buf_puts(b, html ? page_head : "{\"items\":[");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *title = (const char *)sqlite3_column_text(st, 1);
		if (html) {
			buf_puts(b, "\n<li data-id=\"");
			buf_int(b, sqlite3_column_int64(st, 0));
			buf_puts(b, "\">");
			buf_html_text(b, title ? title : "");
			buf_puts(b, "</li>");
		} else {
			buf_puts(b, n ? ",{\"id\":" : "{\"id\":");
			buf_int(b, sqlite3_column_int64(st, 0));
			buf_puts(b, ",\"title\":");
			buf_json_string(b, title ? title : "");
			buf_puts(b, ",\"created_at\":");
			buf_int(b, sqlite3_column_int64(st, 2));
			buf_puts(b, "}");
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		buf_free(b);
		db_error(w, r, st);
		return;
	}
	sqlite3_reset(st);
	if (html) {
		buf_puts(b, page_tail);
		request_finish(r, 200, "text/html; charset=utf-8");
	} else {
		buf_puts(b, "]}");
		request_finish(r, 200, "application/json");
	}
}

static void bench_read(struct worker *w, struct request *r)
{
	struct buf rows = {0};
	sqlite3_stmt *st = w->read;
	long long count = 0;
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		count = sqlite3_column_int64(st, 0);
		buf_puts(&rows, n ? ",{\"id\":" : "{\"id\":");
		buf_int(&rows, sqlite3_column_int64(st, 1));
		buf_puts(&rows, ",\"created_at\":");
		buf_int(&rows, sqlite3_column_int64(st, 2));
		buf_puts(&rows, "}");
		n++;
	}
	if (rc != SQLITE_DONE) {
		buf_free(&rows);
		db_error(w, r, st);
		return;
	}
	sqlite3_reset(st);
	buf_puts(&r->body, "{\"ok\":true,\"count\":");
	buf_int(&r->body, count);
	buf_puts(&r->body, ",\"latest\":[");
	buf_put(&r->body, rows.p ? rows.p : "", rows.len);
	buf_puts(&r->body, "]}");
	buf_free(&rows);
	request_finish(r, 200, "application/json");
}

static long long unix_ms(void) { return now_ms(); }

/* bench_write: one row in its own BEGIN IMMEDIATE transaction. */
static void bench_write(struct worker *w, struct request *r)
{
	if (sqlite3_step(w->begin) != SQLITE_DONE) {
		db_error(w, r, w->begin);
		return;
	}
	sqlite3_reset(w->begin);
	sqlite3_stmt *st = w->insert;
	sqlite3_bind_text(st, 1, payload, 200, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, unix_ms());
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(w, r, st);
		sqlite3_step(w->rollback);
		sqlite3_reset(w->rollback);
		return;
	}
	sqlite3_reset(st);
	long long id = sqlite3_last_insert_rowid(w->db);
	if (sqlite3_step(w->commit) != SQLITE_DONE) {
		db_error(w, r, w->commit);
		if (!sqlite3_get_autocommit(w->db)) {
			sqlite3_step(w->rollback);
			sqlite3_reset(w->rollback);
		}
		return;
	}
	sqlite3_reset(w->commit);
	buf_puts(&r->body, "{\"ok\":true,\"id\":");
	buf_int(&r->body, id);
	buf_puts(&r->body, "}");
	request_finish(r, 200, "application/json");
}

/* bench_pragmas: the values on this worker's own connection, and its name:
 * the address of its sqlite3 handle, which sqlite3_open_v2 allocated. */
static void bench_pragmas(struct worker *w, struct request *r)
{
	struct buf *b = &r->body;
	for (size_t i = 0; i < NPRAGMAS; i++) {
		sqlite3_stmt *st = w->pragma[i];
		if (sqlite3_step(st) != SQLITE_ROW) {
			buf_free(b);
			db_error(w, r, st);
			return;
		}
		buf_puts(b, i ? ",\"" : "{\"");
		buf_puts(b, pragma_names[i]);
		buf_puts(b, "\":");
		if (sqlite3_column_type(st, 0) == SQLITE_INTEGER)
			buf_int(b, sqlite3_column_int64(st, 0));
		else
			buf_json_string(b, (const char *)sqlite3_column_text(st, 0));
		sqlite3_reset(st);
	}
	char name[32];
	snprintf(name, sizeof name, "%p", (void *)w->db);
	buf_puts(b, ",\"connection\":");
	buf_json_string(b, name);
	buf_puts(b, "}");
	request_finish(r, 200, "application/json");
}

/* ---- the signed-in routes ------------------------------------------------ */

static void kick_jobs(struct db_pool *p)
{
	pthread_mutex_lock(&p->jobs.mu);
	p->jobs.kicked = true;
	pthread_cond_signal(&p->jobs.cv);
	pthread_mutex_unlock(&p->jobs.mu);
}

/* done: step st (bound by the caller) to SQLITE_DONE and reset it; false:
 * the request failed with 503. */
static bool done(struct worker *w, struct request *r, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(w, r, st);
		sqlite3_clear_bindings(st);
		return false;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return true;
}

static void rollback(struct worker *w)
{
	if (!sqlite3_get_autocommit(w->db)) {
		sqlite3_step(w->rollback);
		sqlite3_reset(w->rollback);
	}
}

/* current_user: the session named by the lab_session cookie (not expired),
 * then its user: two reads, every request, no cache. 1: found (*email is
 * the caller's to free); 0: no session; -1: r failed with 503. */
static int current_user(struct worker *w, struct request *r, long long *uid, char **email)
{
	if (!r->session[0])
		return 0;
	sqlite3_stmt *st = w->s[S_SESSION];
	sqlite3_bind_text(st, 1, r->session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, unix_ms());
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_error(w, r, st);
		sqlite3_clear_bindings(st);
		return -1;
	}
	if (rc == SQLITE_ROW)
		*uid = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_DONE)
		return 0;
	st = w->s[S_USER];
	sqlite3_bind_int64(st, 1, *uid);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_error(w, r, st);
		return -1;
	}
	if (rc == SQLITE_ROW) {
		const char *e = (const char *)sqlite3_column_text(st, 0);
		*email = strdup(e ? e : "");
		if (!*email)
			abort();
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW;
}

/* account_page: the account page (or JSON) of uid, with error_field's
 * 422 when it is not NULL. */
static void account_page(struct worker *w, struct request *r, long long uid, const char *email,
			 const char *error_field)
{
	account_head(r, uid, email);
	sqlite3_stmt *st = w->s[S_ORDERS];
	sqlite3_bind_int64(st, 1, uid);
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *oe = (const char *)sqlite3_column_text(st, 1);
		const char *status = (const char *)sqlite3_column_text(st, 2);
		const char *cur = (const char *)sqlite3_column_text(st, 4);
		account_order(r, n++, sqlite3_column_int64(st, 0), oe ? oe : "", status ? status : "",
			      sqlite3_column_int64(st, 3), cur ? cur : "", sqlite3_column_int64(st, 5));
	}
	if (rc != SQLITE_DONE) {
		buf_free(&r->body);
		db_error(w, r, st);
		return;
	}
	sqlite3_reset(st);
	account_finish(r, error_field);
}

static void account(struct worker *w, struct request *r)
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

/* sign_in, on a reader: the user by email and bcrypt (the dummy hash when
 * there is none); a match goes on to the writer for its sessions row. */
static void sign_in(struct worker *w, struct request *r)
{
	const struct form *f = &r->form;
	sqlite3_stmt *st = w->s[S_USER_BY_EMAIL];
	sqlite3_bind_text(st, 1, f->f[F_EMAIL].p, (int)f->f[F_EMAIL].len, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_error(w, r, st);
		sqlite3_clear_bindings(st);
		return;
	}
	long long uid = 0;
	char *hash = NULL;
	if (rc == SQLITE_ROW) {
		uid = sqlite3_column_int64(st, 0);
		const char *h = (const char *)sqlite3_column_text(st, 1);
		hash = strdup(h ? h : "");
		if (!hash)
			abort();
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	bool ok = password_check(f->f[F_PASSWORD].p, f->f[F_PASSWORD].len, hash);
	free(hash);
	if (!ok) {
		answer_sign_in_failed(r);
		return;
	}
	r->user_id = uid;
	r->job = JOB_SIGN_IN_SESSION;
	if (!queue_push(&w->pool->writes, r))
		request_fail(r, 503, "server shutting down");
}

/* begin: BEGIN IMMEDIATE, so a writer queues on busy_timeout. */
static bool begin(struct worker *w, struct request *r)
{
	if (sqlite3_step(w->begin) != SQLITE_DONE) {
		db_error(w, r, w->begin);
		return false;
	}
	sqlite3_reset(w->begin);
	return true;
}

static bool commit(struct worker *w, struct request *r)
{
	if (sqlite3_step(w->commit) != SQLITE_DONE) {
		db_error(w, r, w->commit);
		rollback(w);
		return false;
	}
	sqlite3_reset(w->commit);
	return true;
}

static void sign_in_session(struct worker *w, struct request *r)
{
	char token[SESSION_TOKEN_MAX + 1];
	if (!new_session_token(token)) {
		request_fail(r, 503, "getrandom failed");
		return;
	}
	long long now = unix_ms();
	sqlite3_stmt *st = w->s[S_INSERT_SESSION];
	if (!begin(w, r))
		return;
	sqlite3_bind_text(st, 1, token, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, r->user_id);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, now + SESSION_MS);
	if (!done(w, r, st)) {
		rollback(w);
		return;
	}
	if (commit(w, r))
		answer_signed_in(r, token);
}

static void sign_out(struct worker *w, struct request *r)
{
	if (r->session[0]) {
		if (!begin(w, r))
			return;
		sqlite3_stmt *st = w->s[S_DELETE_SESSION];
		sqlite3_bind_text(st, 1, r->session, -1, SQLITE_STATIC);
		if (!done(w, r, st)) {
			rollback(w);
			return;
		}
		if (!commit(w, r))
			return;
	}
	answer_signed_out(r);
}

/* insert_job: the job of order id, in the caller's transaction. */
static bool insert_job(struct worker *w, struct request *r, long long id, const char *action, long long now)
{
	sqlite3_stmt *st = w->s[S_INSERT_JOB];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, action, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now);
	return done(w, r, st);
}

static void place_order(struct worker *w, struct request *r)
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
	long long now = unix_ms();
	if (!begin(w, r))
		return;
	sqlite3_stmt *st = w->s[S_INSERT_ORDER];
	sqlite3_bind_int64(st, 1, uid);
	sqlite3_bind_text(st, 2, f->f[F_EMAIL].p, (int)f->f[F_EMAIL].len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, cents);
	sqlite3_bind_text(st, 4, f->f[F_CURRENCY].p, 3, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, now);
	if (!done(w, r, st) || !insert_job(w, r, sqlite3_last_insert_rowid(w->db), "placed", now)) {
		rollback(w);
		return;
	}
	if (!commit(w, r))
		return;
	kick_jobs(w->pool);
	answer_redirect(r, "/account");
}

static void cancel_order(struct worker *w, struct request *r)
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
	if (!begin(w, r))
		return;
	sqlite3_stmt *st = w->s[S_ORDER_STATUS];
	sqlite3_bind_int64(st, 1, r->order_id);
	sqlite3_bind_int64(st, 2, uid);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_error(w, r, st);
		rollback(w);
		return;
	}
	/* Another user's order is never told apart from a missing one. */
	bool mine = rc == SQLITE_ROW;
	bool pending = mine && strcmp((const char *)sqlite3_column_text(st, 0), "PENDING") == 0;
	sqlite3_reset(st);
	if (!pending) {
		rollback(w);
		if (mine)
			answer_text(r, 409, "409 the order is not pending\n");
		else
			answer_text(r, 404, "404 page not found\n");
		return;
	}
	long long now = unix_ms();
	st = w->s[S_CANCEL];
	sqlite3_bind_int64(st, 1, r->order_id);
	if (!done(w, r, st) || !insert_job(w, r, r->order_id, "cancelled", now)) {
		rollback(w);
		return;
	}
	if (!commit(w, r))
		return;
	kick_jobs(w->pool);
	answer_redirect(r, "/account");
}

/* ---- the job worker ------------------------------------------------------ */

static int take_job_tx(struct jobs_worker *j, char *err, size_t errlen);

/* take_job: the lowest-id job, its audit row written and the job deleted
 * in one BEGIN IMMEDIATE transaction. 1: one done; 0: none; -1: an error.
 * A plain read looks first, so an idle worker never takes the write lock. */
static int take_job(struct jobs_worker *j, struct turns *turns, char *err, size_t errlen)
{
	int rc = sqlite3_step(j->next);
	sqlite3_reset(j->next);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		goto fail;
	turn_take(turns);
	int got = take_job_tx(j, err, errlen);
	turn_give(turns);
	return got;
fail:
	snprintf(err, errlen, "%s", sqlite3_errmsg(j->db));
	return -1;
}

/* take_job_tx: the transaction of take_job, its turn taken. */
static int take_job_tx(struct jobs_worker *j, char *err, size_t errlen)
{
	int rc;
	if (sqlite3_step(j->begin) != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(j->db));
		sqlite3_reset(j->begin);
		return -1;
	}
	sqlite3_reset(j->begin);
	rc = sqlite3_step(j->next);
	if (rc == SQLITE_DONE) { /* taken meanwhile (another process) */
		sqlite3_reset(j->next);
		sqlite3_step(j->commit);
		sqlite3_reset(j->commit);
		return 0;
	}
	if (rc != SQLITE_ROW)
		goto fail_tx;
	long long id = sqlite3_column_int64(j->next, 0), order = sqlite3_column_int64(j->next, 1);
	char action[32];
	const char *a = (const char *)sqlite3_column_text(j->next, 2);
	snprintf(action, sizeof action, "%s", a ? a : "");
	sqlite3_reset(j->next);
	sqlite3_bind_int64(j->audit, 1, order);
	sqlite3_bind_text(j->audit, 2, action, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(j->audit, 3, unix_ms());
	rc = sqlite3_step(j->audit);
	sqlite3_reset(j->audit);
	if (rc != SQLITE_DONE)
		goto fail_tx;
	sqlite3_bind_int64(j->del, 1, id);
	rc = sqlite3_step(j->del);
	sqlite3_reset(j->del);
	if (rc != SQLITE_DONE)
		goto fail_tx;
	rc = sqlite3_step(j->commit);
	sqlite3_reset(j->commit);
	if (rc != SQLITE_DONE)
		goto fail_tx;
	return 1;
fail_tx:
	snprintf(err, errlen, "%s", sqlite3_errmsg(j->db));
	sqlite3_reset(j->next);
	if (!sqlite3_get_autocommit(j->db)) {
		sqlite3_step(j->rollback);
		sqlite3_reset(j->rollback);
	}
	return -1;
}

#define JOBS_IDLE_MS 100

static void *jobs_main(void *arg)
{
	struct db_pool *p = arg;
	struct jobs_worker *j = &p->jobs;
	char err[256];
	for (;;) {
		pthread_mutex_lock(&j->mu);
		bool stop = j->stop;
		j->kicked = false;
		pthread_mutex_unlock(&j->mu);
		if (stop)
			break;
		int rc = take_job(j, &p->turns, err, sizeof err);
		if (rc > 0)
			continue; /* the next at once */
		if (rc < 0)
			fprintf(stderr, "c-libmicrohttpd: job worker: %s\n", err);
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

static int open_jobs(struct jobs_worker *j, const char *path, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&j->mu, NULL);
	if (open_db(&j->db, path, err, errlen) ||
	    prepare(j->db, "SELECT id, order_id, action FROM jobs ORDER BY id LIMIT 1", &j->next, err, errlen) ||
	    prepare(j->db, "INSERT INTO audit (order_id, action, at) VALUES (?, ?, ?)", &j->audit, err, errlen) ||
	    prepare(j->db, "DELETE FROM jobs WHERE id = ?", &j->del, err, errlen) ||
	    prepare(j->db, "BEGIN IMMEDIATE", &j->begin, err, errlen) ||
	    prepare(j->db, "COMMIT", &j->commit, err, errlen) ||
	    prepare(j->db, "ROLLBACK", &j->rollback, err, errlen))
		return -1;
	return 0;
}

static void close_jobs(struct jobs_worker *j)
{
	sqlite3_stmt *all[] = {j->next, j->audit, j->del, j->begin, j->commit, j->rollback};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		sqlite3_finalize(all[i]);
	sqlite3_close(j->db);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct request *r;
	while ((r = queue_pop(w->queue))) {
		/* A write takes its turn (r may be freed once answered). */
		bool writes = r->job == JOB_WRITE || r->job == JOB_SIGN_IN_SESSION || r->job == JOB_ORDER ||
			r->job == JOB_CANCEL || r->job == JOB_SIGN_OUT;
		if (writes)
			turn_take(&w->pool->turns);
		switch (r->job) {
		case JOB_ITEMS: newest_items(w, r, false); break;
		case JOB_PAGE: newest_items(w, r, true); break;
		case JOB_READ: bench_read(w, r); break;
		case JOB_WRITE: bench_write(w, r); break;
		case JOB_PRAGMAS: bench_pragmas(w, r); break;
		case JOB_SIGN_IN: sign_in(w, r); break;
		case JOB_SIGN_IN_SESSION: sign_in_session(w, r); break;
		case JOB_ACCOUNT: account(w, r); break;
		case JOB_ORDER: place_order(w, r); break;
		case JOB_CANCEL: cancel_order(w, r); break;
		case JOB_SIGN_OUT: sign_out(w, r); break;
		default: request_fail(r, 500, "no such job"); break;
		}
		if (writes)
			turn_give(&w->pool->turns);
	}
	return NULL;
}

struct db_pool *db_pool_start(const char *path, int readers, int writers, char *err, size_t errlen)
{
	static const char piece[] = "stacklab-bench-event:";
	for (size_t i = 0; i < 200; i++)
		payload[i] = piece[i % (sizeof piece - 1)];

	/* Off before SQLite initialises: with memory statistics on (Debian's
	 * build), every malloc and free takes one process-wide mutex. */
	if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK) {
		snprintf(err, errlen, "sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) refused (SQLite already initialised)");
		return NULL;
	}

	struct db_pool *p = calloc(1, sizeof *p);
	p->nworkers = readers + writers;
	p->workers = calloc((size_t)p->nworkers, sizeof *p->workers);
	queue_init(&p->reads);
	queue_init(&p->writes);
	pthread_mutex_init(&p->turns.mu, NULL);
	pthread_cond_init(&p->turns.cv, NULL);
	/* Every connection opens before the server listens: a missing or
	 * unseeded database fails the start, with one line. */
	for (int i = 0; i < p->nworkers; i++) {
		struct worker *w = &p->workers[i];
		w->pool = p;
		w->queue = i < readers ? &p->reads : &p->writes;
		if (open_worker(w, path, err, errlen))
			return NULL;
	}
	if (open_jobs(&p->jobs, path, err, errlen))
		return NULL;
	for (int i = 0; i < p->nworkers; i++)
		pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]);
	pthread_create(&p->jobs.thread, NULL, jobs_main, p);
	return p;
}

bool db_pool_submit(struct db_pool *p, struct request *r)
{
	/* Every other /bench/pragmas to the writers, so sampling it (verify)
	 * reaches their connections as well as the readers'. */
	static atomic_uint pragma_turn;
	bool to_writers = r->job == JOB_WRITE || r->job == JOB_SIGN_IN_SESSION || r->job == JOB_ORDER ||
		r->job == JOB_CANCEL || r->job == JOB_SIGN_OUT ||
		(r->job == JOB_PRAGMAS && atomic_fetch_add(&pragma_turn, 1) % 2);
	return queue_push(to_writers ? &p->writes : &p->reads, r);
}

/* db_pool_stop: the queued work is done, then the workers exit. */
void db_pool_stop(struct db_pool *p)
{
	queue_close(&p->reads);
	queue_close(&p->writes);
	for (int i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_mutex_lock(&p->jobs.mu);
	p->jobs.stop = true;
	pthread_cond_signal(&p->jobs.cv);
	pthread_mutex_unlock(&p->jobs.mu);
	pthread_join(p->jobs.thread, NULL);
	for (int i = 0; i < p->nworkers; i++)
		close_worker(&p->workers[i]);
	close_jobs(&p->jobs);
}

void db_pool_free(struct db_pool *p)
{
	free(p->workers);
	free(p);
}
