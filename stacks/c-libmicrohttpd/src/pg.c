/* The Postgres worker pool (DATABASE_URL; docs/postgres.md): libpq, one
 * blocking connection per worker thread, DB_POOL_SIZE threads taking every
 * database job from one queue, so no libpq call runs on an HTTP I/O
 * thread. Each connection's statements are prepared once, at open. */
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
/* The session's settings that matter (APP.md), on this connection; the
 * server process behind it, pg_backend_pid, names it. */
static const char sql_settings[] =
	"SELECT current_setting('transaction_isolation'), current_setting('synchronous_commit'), "
	"current_setting('statement_timeout'), current_setting('client_encoding'), pg_backend_pid()";
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

struct pg_pool {
	struct queue jobs;
	int nworkers;
	struct pg_worker *workers;
};

/* open_worker: the connection, statement_timeout in its startup options
 * (so no connection runs without it: a request waits at most 5 s for the
 * server, as busy_timeout bounds a SQLite wait), its statements. */
static int open_worker(struct pg_worker *w, const char *url, char *err, size_t errlen)
{
	const char *keys[] = {"dbname", "options", NULL};
	const char *vals[] = {url, "-c statement_timeout=5000", NULL};
	w->conn = PQconnectdbParams(keys, vals, 1);
	if (PQstatus(w->conn) != CONNECTION_OK) {
		snprintf(err, errlen, "DATABASE_URL: %s", PQerrorMessage(w->conn));
		return -1;
	}
	const char *names[] = {"items", "read", "insert", "settings"};
	const char *sqls[] = {sql_items, sql_read, sql_insert, sql_settings};
	for (size_t i = 0; i < 4; i++) {
		PGresult *res = PQprepare(w->conn, names[i], sqls[i], 0, NULL);
		int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
		if (!ok)
			snprintf(err, errlen, "prepare %s: %s", sqls[i], PQerrorMessage(w->conn));
		PQclear(res);
		if (!ok)
			return -1;
	}
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
	for (int i = 0; i < size; i++)
		pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]);
	return p;
}

bool pg_pool_submit(struct pg_pool *p, struct request *r) { return queue_push(&p->jobs, r); }

void pg_pool_stop(struct pg_pool *p)
{
	queue_close(&p->jobs);
	for (int i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i].thread, NULL);
	for (int i = 0; i < p->nworkers; i++)
		PQfinish(p->workers[i].conn);
}

void pg_pool_free(struct pg_pool *p)
{
	free(p->workers);
	free(p);
}
