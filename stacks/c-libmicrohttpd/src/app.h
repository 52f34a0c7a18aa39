/* The lab app on libmicrohttpd: what the parts share. */
#ifndef APP_H
#define APP_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* buf: a growable byte buffer; bodies are built in one and handed to MHD,
 * which frees them (MHD_RESPMEM_MUST_FREE). Allocation failure aborts: a
 * server out of memory inside a 4 GiB cgroup has no better answer. */
struct buf {
	char *p;
	size_t len, cap;
};

void buf_put(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_int(struct buf *b, long long v);
void buf_json_string(struct buf *b, const char *s); /* with the quotes */
void buf_html_text(struct buf *b, const char *s);   /* escapes & < > " ' */
void buf_free(struct buf *b);

/* The kinds of work a request hands off the HTTP I/O thread. */
enum job {
	JOB_ITEMS,
	JOB_PAGE,
	JOB_READ,
	JOB_WRITE,
	JOB_PRAGMAS,
	JOB_UPSTREAM,
};

/* request: one HTTP request that waits, suspended, for a worker. The I/O
 * thread fills conn and job, suspends the connection and queues it; the
 * worker fills status, content_type and body, then resumes the connection;
 * MHD calls the handler again on an I/O thread, which queues the answer. */
struct request {
	struct MHD_Connection *conn;
	enum job job;
	bool dispatched;
	atomic_bool done;
	unsigned status;
	const char *content_type;
	struct buf body;
	struct request *next;
	size_t slot; /* upstream.c's index of the transfer */
};

/* finish: the worker's last touch of r (it resumes r's connection). */
void request_finish(struct request *r, unsigned status, const char *content_type);
/* request_fail: status and {"ok":false,"error":MSG}, then finish. */
void request_fail(struct request *r, unsigned status, const char *msg);

/* queue: a FIFO of requests between the I/O threads and a worker pool. */
struct queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct request *head, *tail;
	bool closed;
};

void queue_init(struct queue *q);
bool queue_push(struct queue *q, struct request *r); /* false once closed */
struct request *queue_pop(struct queue *q);          /* NULL once closed and empty */
void queue_close(struct queue *q);

/* db.c: the SQLite worker pools. Each worker owns one connection. */
struct db_pool;
struct db_pool *db_pool_start(const char *path, int readers, int writers, char *err, size_t errlen);
bool db_pool_submit(struct db_pool *p, struct request *r);
void db_pool_stop(struct db_pool *p); /* queued work done, workers joined */
void db_pool_free(struct db_pool *p); /* after the HTTP daemon has stopped */

/* The same jobs on the lab's Postgres (pg.c), DATABASE_URL set. */
struct pg_pool;
struct pg_pool *pg_pool_start(const char *url, int size, char *err, size_t errlen);
bool pg_pool_submit(struct pg_pool *p, struct request *r);
void pg_pool_stop(struct pg_pool *p);
void pg_pool_free(struct pg_pool *p);

/* upstream.c: one libcurl multi handle on its own thread, whose connection
 * cache is the shared keep-alive client. */
struct upstream;
struct upstream *upstream_start(const char *url, char *err, size_t errlen);
bool upstream_submit(struct upstream *u, struct request *r);
void upstream_stop(struct upstream *u); /* calls in flight answered, thread joined */
void upstream_free(struct upstream *u); /* after the HTTP daemon has stopped */

#endif
