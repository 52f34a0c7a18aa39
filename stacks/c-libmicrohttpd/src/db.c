/* The SQLite worker pools: every connection is owned by one worker thread,
 * so no SQLite call ever runs on an HTTP I/O thread. Readers serve /items,
 * /page, /bench/read and /bench/pragmas; writers serve /bench/write. */
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

/* APP.md's setup, run on every connection before its first use. */
static const char pragmas[] =
	"PRAGMA journal_mode = WAL;"
	"PRAGMA synchronous = NORMAL;"
	"PRAGMA busy_timeout = 5000;"
	"PRAGMA cache_size = 2000;"
	"PRAGMA mmap_size = 134217728;"
	"PRAGMA journal_size_limit = 67108864;"
	"PRAGMA foreign_keys = ON;";

/* The names /bench/pragmas reports, in APP.md's order. */
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
	pthread_t thread;
};

struct db_pool {
	struct queue reads, writes;
	int nworkers;
	struct worker *workers;
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

/* open_worker: the connection (read-write, never created: the lab seeds
 * the file), its pragmas, its statements. NOMUTEX: one thread owns it. */
static int open_worker(struct worker *w, const char *path, char *err, size_t errlen)
{
	if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "open %s: %s", path, w->db ? sqlite3_errmsg(w->db) : "out of memory");
		return -1;
	}
	char *msg = NULL;
	if (sqlite3_exec(w->db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "pragmas on %s: %s", path, msg ? msg : "?");
		sqlite3_free(msg);
		return -1;
	}
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

static long long unix_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct request *r;
	while ((r = queue_pop(w->queue))) {
		switch (r->job) {
		case JOB_ITEMS: newest_items(w, r, false); break;
		case JOB_PAGE: newest_items(w, r, true); break;
		case JOB_READ: bench_read(w, r); break;
		case JOB_WRITE: bench_write(w, r); break;
		case JOB_PRAGMAS: bench_pragmas(w, r); break;
		default: request_fail(r, 500, "no such job"); break;
		}
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
	/* Every connection opens before the server listens: a missing or
	 * unseeded database fails the start, with one line. */
	for (int i = 0; i < p->nworkers; i++) {
		struct worker *w = &p->workers[i];
		w->pool = p;
		w->queue = i < readers ? &p->reads : &p->writes;
		if (open_worker(w, path, err, errlen))
			return NULL;
	}
	for (int i = 0; i < p->nworkers; i++)
		pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]);
	return p;
}

bool db_pool_submit(struct db_pool *p, struct request *r)
{
	/* Every other /bench/pragmas to the writers, so sampling it (verify)
	 * reaches their connections as well as the readers'. */
	static atomic_uint pragma_turn;
	bool to_writers = r->job == JOB_WRITE ||
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
	for (int i = 0; i < p->nworkers; i++)
		close_worker(&p->workers[i]);
}

void db_pool_free(struct db_pool *p)
{
	free(p->workers);
	free(p);
}
