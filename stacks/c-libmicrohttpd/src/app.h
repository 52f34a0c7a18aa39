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
	/* The signed-in routes (web.c); GET /sign_in never leaves the I/O
	 * thread. SIGN_IN (the user and bcrypt) and ACCOUNT go to the
	 * readers; SIGN_IN_SESSION (the sessions row, after a match), ORDER,
	 * CANCEL and SIGN_OUT to the writer. */
	JOB_SIGN_IN_FORM,
	JOB_SIGN_IN,
	JOB_SIGN_IN_SESSION,
	JOB_ACCOUNT,
	JOB_ORDER,
	JOB_CANCEL,
	JOB_SIGN_OUT,
};

/* The form fields the signed-in routes read (web.c). */
enum field { F_CSRF, F_EMAIL, F_PASSWORD, F_AMOUNT, F_CURRENCY, NFIELDS };

/* form: each field's first value, url-decoded and NUL-terminated; p NULL
 * when the field was absent. len counts every decoded byte, so a value
 * with a NUL inside (%00) is told apart (len != strlen). */
struct form {
	struct {
		char *p;
		size_t len;
	} f[NFIELDS];
};

#define FORM_MAX 8192        /* the largest body a form route reads (else 413) */
#define SESSION_TOKEN_MAX 64 /* the longest lab_session cookie looked up */
#define CLIENT_ID_LEN 22     /* the lab_csrf cookie: 16 random bytes, base64url */
#define CSRF_TOKEN_LEN 43    /* HMAC-SHA256, base64url without padding */
#define COOKIE_MAX 192

/* request: one HTTP request that waits, suspended, for a worker. The I/O
 * thread fills conn and job, suspends the connection and queues it; the
 * worker fills status, content_type and body, then resumes the connection;
 * MHD calls the handler again on an I/O thread, which queues the answer. */
struct request {
	struct MHD_Connection *conn;
	enum job job;
	bool dispatched;
	bool suspended; /* handed off: its finish resumes the connection */
	atomic_bool done;
	unsigned status;
	const char *content_type;
	struct buf body;
	struct request *next;
	size_t slot; /* upstream.c's index of the transfer */

	/* The signed-in routes: what the I/O thread read off the request
	 * (web_begin, web_ready), since a worker never calls MHD on it. */
	struct buf in;     /* the body, at most FORM_MAX bytes */
	bool in_too_big;   /* it had more: 413 */
	bool form_encoded; /* Content-Type application/x-www-form-urlencoded */
	bool want_json;    /* Accept: application/json */
	struct form form;
	char session[SESSION_TOKEN_MAX + 1]; /* the lab_session cookie; "" if none or malformed */
	char csrf[CSRF_TOKEN_LEN + 1];       /* the token this client's forms carry */
	long long order_id;                  /* cancel: the {id}; 0 if not a positive integer */
	long long user_id;                   /* sign-in: the user whose password matched */
	/* Extra headers of the answer. */
	char cookies[2][COOKIE_MAX];
	int ncookies;
	const char *location; /* a 303's Location */
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

/* web.c: the signed-in routes' parts that touch no database: the form
 * parser, the checks of a field, the CSRF token, the pages and the JSON. */
bool web_init(char *err, size_t errlen); /* the HMAC secret, the dummy hash */
void web_begin(struct request *r, struct MHD_Connection *conn); /* headers, on the first call */
void web_body(struct request *r, const char *data, size_t n);  /* a piece of the body */
/* web_ready: on the I/O thread, the body read. true: r holds its answer
 * (GET /sign_in, a 403, a 400, a 413); false: hand r to a database pool. */
bool web_ready(struct request *r);
void web_free(struct request *r);

bool form_parse(struct form *f, const char *body, size_t n); /* false: malformed */
void form_free(struct form *f);
bool valid_utf8(const char *s, size_t n);
bool valid_email(const char *s, size_t n);
bool valid_currency(const char *s, size_t n);
long long parse_amount(const char *s, size_t n); /* minor units, or -1 if invalid */
void buf_amount(struct buf *b, long long cents);  /* 14990 -> 149.90 */
size_t base64url(char *out, const unsigned char *in, size_t n); /* out: 4n/3+1 bytes */
bool random_bytes(unsigned char *p, size_t n);                    /* getrandom(2) */
bool new_session_token(char out[SESSION_TOKEN_MAX + 1]);            /* 32 random bytes */
long long now_ms(void);

/* password_check: bcrypt through libxcrypt's crypt_rn, the result
 * compared with hash in constant time. hash NULL (no such user): the
 * dummy hash instead, so the answer takes as long; false. */
bool password_check(const char *password, size_t len, const char *hash);

/* The answers the pools build. Each sets r's status, body, headers and
 * finishes r (resuming its connection). */
void answer_redirect(struct request *r, const char *location);   /* 303 */
void answer_text(struct request *r, unsigned status, const char *text);
void answer_sign_in_failed(struct request *r);                     /* 422 */
void answer_signed_in(struct request *r, const char *token);     /* 303, cookie */
void answer_signed_out(struct request *r);                        /* 303, cookie expired */
void answer_not_signed_in(struct request *r);                     /* 303 or JSON 401 */

/* The account page, in pieces: head (h1, the list opens), one order each,
 * tail (the list closes, the error, the forms). error_field: NULL, or the
 * field of a 422, whose form keeps the values sent. JSON likewise. */
void account_head(struct request *r, long long uid, const char *email);
void account_order(struct request *r, int i, long long id, const char *email, const char *status,
		   long long cents, const char *currency, long long placed_at);
void account_finish(struct request *r, const char *error_field);
/* order_error: the first invalid field of email, amount, currency (NULL
 * if none), and the amount in minor units. */
const char *order_error(const struct form *f, long long *cents);

#endif
