/* c-libmicrohttpd: the lab app (docs/app.md) on GNU libmicrohttpd and SQLite.
 *
 * HTTP I/O runs on MHD's internal poll() thread(s), one per CPU. Those
 * threads never touch SQLite or wait on the upstream: a route that needs
 * either suspends its connection and hands the request to a worker pool
 * (db.c) or to the upstream client's thread (upstream.c), which resume it
 * when the answer is ready. /up, /json, 404 and 405 are answered at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "app.h"

static struct db_pool *db;
static struct pg_pool *pg; /* instead of db, on Postgres */
static struct upstream *up;
static atomic_int inflight; /* handed-off requests not yet completed */
static atomic_bool draining;  /* after SIGTERM: every answer closes its connection */

/* Each fixed answer twice: as it is, and with Connection: close for the
 * drain after SIGTERM. */
static struct MHD_Response *resp_up[2], *resp_json[2], *resp_404[2], *resp_405_get[2], *resp_405_post[2],
	*resp_405_both[2];

enum { FIX_UP, FIX_JSON, FIX_404, FIX_405_GET, FIX_405_POST, FIX_405_BOTH, NFIXED };

/* What a method of a route does: an enum job handed off (or, for the
 * signed-in routes, maybe answered by web.c on the I/O thread), a FIXED()
 * answer, or NONE: 405. */
#define FIXED(f) (1000 + (f))
#define NONE (-1)

struct route {
	const char *path;
	int get; /* GET and HEAD */
	int post;
};

static const struct route routes[] = {
	{"/up", FIXED(FIX_UP), NONE},
	{"/json", FIXED(FIX_JSON), NONE},
	{"/items", JOB_ITEMS, NONE},
	{"/page", JOB_PAGE, NONE},
	{"/bench/upstream", JOB_UPSTREAM, NONE},
	{"/bench/write", NONE, JOB_WRITE},
	{"/bench/read", JOB_READ, NONE},
	{"/bench/pragmas", JOB_PRAGMAS, NONE},
	{"/sign_in", JOB_SIGN_IN_FORM, JOB_SIGN_IN},
	{"/sign_out", NONE, JOB_SIGN_OUT},
	{"/account", JOB_ACCOUNT, NONE},
	{"/orders", NONE, JOB_ORDER},
};
/* /orders/{id}/cancel, matched apart: any {id} without a '/'. */
static const struct route cancel_route = {"/orders/{id}/cancel", NONE, JOB_CANCEL};

static bool signed_in_job(int job) { return job >= JOB_SIGN_IN_FORM && job <= JOB_SIGN_OUT; }

void request_finish(struct request *r, unsigned status, const char *content_type)
{
	r->status = status;
	r->content_type = content_type;
	atomic_store(&r->done, true);
	/* Not suspended: web.c answered on the I/O thread, which queues it. */
	if (r->suspended)
		MHD_resume_connection(r->conn);
}

void request_fail(struct request *r, unsigned status, const char *msg)
{
	buf_free(&r->body);
	buf_puts(&r->body, "{\"ok\":false,\"error\":");
	buf_json_string(&r->body, msg);
	buf_puts(&r->body, "}");
	request_finish(r, status, "application/json");
}

static bool submit(struct request *r)
{
	if (r->job == JOB_UPSTREAM)
		return upstream_submit(up, r);
	return pg ? pg_pool_submit(pg, r) : db_pool_submit(db, r);
}

/* A fixed answer waiting for the end of its request. MHD closes the
 * connection after an answer queued on the handler's first call (it has not
 * read the body yet), so every answer is queued on a later call; until
 * then *ctx points at one of these (or at a struct request). */
struct fixed_answer {
	unsigned status;
	struct MHD_Response **resp; /* [0] keep-alive, [1] closing */
};

static const struct fixed_answer fixed_answers[NFIXED] = {
	[FIX_UP] = {MHD_HTTP_OK, resp_up},
	[FIX_JSON] = {MHD_HTTP_OK, resp_json},
	[FIX_404] = {MHD_HTTP_NOT_FOUND, resp_404},
	[FIX_405_GET] = {MHD_HTTP_METHOD_NOT_ALLOWED, resp_405_get},
	[FIX_405_POST] = {MHD_HTTP_METHOD_NOT_ALLOWED, resp_405_post},
	[FIX_405_BOTH] = {MHD_HTTP_METHOD_NOT_ALLOWED, resp_405_both},
};

static const struct fixed_answer *as_fixed(void *ctx)
{
	const struct fixed_answer *f = ctx;
	return f >= fixed_answers && f < fixed_answers + NFIXED ? f : NULL;
}

/* first_call: route the request; *ctx becomes a fixed answer or a
 * struct request to hand off. */
/* cancel_id: the {id} of /orders/{id}/cancel, or 0 if it is not a
 * positive integer (answered 404 once the token and session pass); -1 if
 * the path is not of that shape. */
static long long cancel_id(const char *url)
{
	static const char pre[] = "/orders/", post[] = "/cancel";
	size_t n = strlen(url);
	if (n <= sizeof pre - 1 + sizeof post - 1 || strncmp(url, pre, sizeof pre - 1) != 0 ||
	    strcmp(url + n - (sizeof post - 1), post) != 0)
		return -1;
	const char *id = url + sizeof pre - 1, *end = url + n - (sizeof post - 1);
	if (memchr(id, '/', (size_t)(end - id)))
		return -1;
	long long v = 0;
	for (const char *p = id; p < end; p++) {
		if (*p < '0' || *p > '9' || v > (LLONG_MAX - 9) / 10)
			return 0;
		v = v * 10 + (*p - '0');
	}
	return v;
}

static enum MHD_Result first_call(struct MHD_Connection *conn, const char *url, const char *method, void **ctx)
{
	const struct route *rt = NULL;
	long long order_id = 0;
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (strcmp(url, routes[i].path) == 0) {
			rt = &routes[i];
			break;
		}
	if (!rt && (order_id = cancel_id(url)) >= 0)
		rt = &cancel_route;
	if (!rt) {
		*ctx = (void *)&fixed_answers[FIX_404];
		return MHD_YES;
	}
	int what = strcmp(method, "POST") == 0 ? rt->post
		: strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 ? rt->get
		: NONE;
	if (what == NONE) {
		int f = rt->get == NONE ? FIX_405_POST : rt->post == NONE ? FIX_405_GET : FIX_405_BOTH;
		*ctx = (void *)&fixed_answers[f];
		return MHD_YES;
	}
	if (what >= FIXED(0)) {
		*ctx = (void *)&fixed_answers[what - FIXED(0)];
		return MHD_YES;
	}
	struct request *r = calloc(1, sizeof *r);
	if (!r)
		return MHD_NO;
	r->conn = conn;
	r->job = (enum job)what;
	if (signed_in_job(what)) {
		r->order_id = order_id;
		web_begin(r, conn);
	}
	*ctx = r;
	atomic_fetch_add(&inflight, 1);
	return MHD_YES;
}

/* answer: queue r's answer, its headers with it. */
static enum MHD_Result answer(struct MHD_Connection *conn, struct request *r)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(r->body.len, r->body.p, MHD_RESPMEM_MUST_FREE);
	if (!resp)
		return MHD_NO;
	r->body.p = NULL; /* MHD frees it */
	r->body.len = r->body.cap = 0;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
	if (r->location)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
	for (int i = 0; i < r->ncookies; i++)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, r->cookies[i]);
	if (atomic_load(&draining))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ret = MHD_queue_response(conn, r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size, void **ctx)
{
	(void)cls;
	(void)version;
	(void)upload_data;
	if (!*ctx)
		return first_call(conn, url, method, ctx);
	const struct fixed_answer *f = as_fixed(*ctx);
	struct request *r = f ? NULL : *ctx;
	if (*upload_data_size) { /* a form route's body is kept (bounded); any other discarded */
		if (r && signed_in_job(r->job) && !r->dispatched)
			web_body(r, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (f)
		return MHD_queue_response(conn, f->status, f->resp[atomic_load(&draining)]);
	if (!r->dispatched) {
		r->dispatched = true;
		if (signed_in_job(r->job) && web_ready(r))
			return answer(conn, r);
		/* Suspend first: a worker may resume it as soon as it is queued. */
		r->suspended = true;
		MHD_suspend_connection(conn);
		if (!submit(r))
			request_fail(r, MHD_HTTP_SERVICE_UNAVAILABLE, "server shutting down");
		return MHD_YES;
	}
	if (!atomic_load(&r->done))
		return MHD_YES;
	return answer(conn, r);
}

static void completed(void *cls, struct MHD_Connection *conn, void **ctx, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	struct request *r = *ctx;
	if (!r || as_fixed(r))
		return;
	buf_free(&r->body);
	web_free(r);
	free(r);
	*ctx = NULL;
	atomic_fetch_sub(&inflight, 1);
}

static void fixed(struct MHD_Response *pair[2], const char *body, const char *content_type, const char *allow)
{
	for (int i = 0; i < 2; i++) {
		struct MHD_Response *r =
			MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
		if (!r) {
			fprintf(stderr, "c-libmicrohttpd: out of memory\n");
			exit(1);
		}
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
		if (allow)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
		if (i)
			MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
		pair[i] = r;
	}
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "c-libmicrohttpd: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

/* env_int NAME DEFAULT MIN MAX: a whole number from the environment, or
 * exit with one line naming the variable. */
static long env_int(const char *name, long def, long min, long max)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || *end || n < min || n > max) {
		fprintf(stderr, "c-libmicrohttpd: %s=%s: want a whole number from %ld to %ld\n", name, v, min, max);
		exit(1);
	}
	return n;
}

static const char *env_str(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v && *v ? v : def;
}

static int visible_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int main(void)
{
	/* SIGTERM and SIGINT blocked in every thread (they inherit the mask)
	 * and taken by sigwait below; SIGPIPE ignored (MHD and curl send with
	 * MSG_NOSIGNAL, this is belt and braces). */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);

	int port = (int)env_int("PORT", 8080, 1, 65535);
	const char *path = env_str("DATABASE_PATH", "/data/app.db");
	const char *upstream_url = env_str("UPSTREAM_URL", "http://127.0.0.1:9090");
	int cpus = (int)env_int("LAB_CPUS", visible_cpus(), 1, 1024);
	int io_threads = (int)env_int("HTTP_THREADS", cpus, 1, 1024);
	int readers = (int)env_int("DB_READERS", cpus, 1, 1024);
	int writers = (int)env_int("DB_WRITERS", 1, 1, 1024);
	/* On Postgres: one pool of readers + writers connections, every job
	 * through it (a server takes concurrent writers). */
	const char *db_url = env_str("DATABASE_URL", "");
	int pool = (int)env_int("DB_POOL_SIZE", readers + writers, 1, 1024);
	if (strncmp(upstream_url, "http://", 7) != 0)
		die("UPSTREAM_URL=%s: want an http:// URL", upstream_url);
	char url[2048];
	size_t n = strlen(upstream_url);
	while (n > 7 && upstream_url[n - 1] == '/')
		n--;
	if (n + sizeof "/delay?ms=100" > sizeof url)
		die("UPSTREAM_URL=%s: too long", upstream_url);
	snprintf(url, sizeof url, "%.*s/delay?ms=100", (int)n, upstream_url);

	/* One descriptor per connection, 512+ each way in the io study. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	unsigned conn_limit = 16384;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 2 * conn_limit)
		conn_limit = rl.rlim_cur > 128 ? (unsigned)(rl.rlim_cur / 2) : 32;

	fixed(resp_up, "ok", "text/plain; charset=utf-8", NULL);
	fixed(resp_json, "{\"message\":\"Hello, World!\"}", "application/json", NULL);
	fixed(resp_404, "404 page not found\n", "text/plain; charset=utf-8", NULL);
	fixed(resp_405_get, "Method Not Allowed\n", "text/plain; charset=utf-8", "GET, HEAD");
	fixed(resp_405_post, "Method Not Allowed\n", "text/plain; charset=utf-8", "POST");
	fixed(resp_405_both, "Method Not Allowed\n", "text/plain; charset=utf-8", "GET, HEAD, POST");

	char err[512];
	if (!web_init(err, sizeof err))
		die("%s", err);
	if (*db_url) {
		pg = pg_pool_start(db_url, pool, err, sizeof err);
		if (!pg)
			die("%s", err);
	} else {
		db = db_pool_start(path, readers, writers, err, sizeof err);
		if (!db)
			die("%s", err);
	}
	up = upstream_start(url, err, sizeof err);
	if (!up)
		die("%s", err);

	/* poll(), not epoll: 0.9.75's epoll loop (MHD_epoll in daemon.c)
	 * calls epoll_wait again whenever one call returned exactly
	 * MAX_EVENTS (128) events, with the timeout it computed before the
	 * first call: -1 here (no connection timeout). When exactly 128
	 * connections turn readable at once, as 128 keep-alive writers do
	 * after a burst of answers, the thread blocks in that second call
	 * with the 128 requests collected but unprocessed, until some other
	 * event (a new connection) arrives: the sweep's hang at 128 writers
	 * (README, "Found by the lab"). MHD's poll loop waits once per turn. */
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)port, NULL,
		NULL, handle, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_CONNECTION_LIMIT,
		conn_limit, MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u, MHD_OPTION_THREAD_POOL_SIZE,
		(unsigned)(io_threads > 1 ? io_threads : 0), MHD_OPTION_END);
	if (!d) {
		char p[16];
		snprintf(p, sizeof p, "%d", port);
		die("cannot listen on port %s (in use, or not permitted)", p);
	}
	if (pg)
		fprintf(stderr,
			"c-libmicrohttpd: listening on 0.0.0.0:%d; %d HTTP I/O thread(s), %d Postgres connection(s); upstream %s\n",
			port, io_threads, pool, url);
	else
		fprintf(stderr,
			"c-libmicrohttpd: listening on 0.0.0.0:%d; %d HTTP I/O thread(s), %d SQLite reader(s), %d writer(s); "
			"SQLite %s, memory statistics off; database %s; upstream %s\n",
			port, io_threads, readers, writers, sqlite3_libversion(), path, url);

	int sig;
	while (sigwait(&stop, &sig) != 0) {
	}

	/* Stop accepting; answer what is in flight, each answer closing its
	 * connection (as Go's Shutdown does), for up to 3 s; then answer
	 * whatever is left (upstream calls: 502), and stop MHD, which closes
	 * the idle keep-alive connections. Well within docs/app.md's 5 s. */
	MHD_socket lfd = MHD_quiesce_daemon(d);
	atomic_store(&draining, true);
	struct timespec tick = {0, 10 * 1000000};
	for (int i = 0; i < 300 && atomic_load(&inflight) > 0; i++)
		nanosleep(&tick, NULL);
	upstream_stop(up);
	if (pg)
		pg_pool_stop(pg);
	else
		db_pool_stop(db);
	MHD_stop_daemon(d);
	if (lfd != MHD_INVALID_SOCKET)
		close(lfd);
	upstream_free(up);
	if (pg)
		pg_pool_free(pg);
	else
		db_pool_free(db);
	return 0;
}
