/* Buffers, JSON strings and HTML text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static void grow(struct buf *b, size_t need)
{
	if (b->len + need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < b->len + need)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		abort();
	b->p = p;
	b->cap = cap;
}

void buf_put(struct buf *b, const char *s, size_t n)
{
	if (!n) /* memcpy with a NULL b->p is undefined even for 0 bytes (UBSan) */
		return;
	grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void buf_puts(struct buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_int(struct buf *b, long long v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof tmp, "%lld", v);
	buf_put(b, tmp, (size_t)n);
}

/* JSON: quote, backslash and control characters escaped; everything else,
 * UTF-8 included, as it is (SQLite hands back the UTF-8 it stored). */
void buf_json_string(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	buf_put(b, "\"", 1);
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_put(b, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"': buf_put(b, "\\\"", 2); break;
		case '\\': buf_put(b, "\\\\", 2); break;
		case '\n': buf_put(b, "\\n", 2); break;
		case '\r': buf_put(b, "\\r", 2); break;
		case '\t': buf_put(b, "\\t", 2); break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			buf_put(b, u, 6);
		}
		}
	}
	buf_put(b, run, (size_t)(s - run));
	buf_put(b, "\"", 1);
}

/* HTML text: the five characters html/template and most engines escape,
 * with the same references Go's html/template writes. */
void buf_html_text(struct buf *b, const char *s)
{
	const char *run = s;
	for (; *s; s++) {
		const char *rep;
		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&#34;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		buf_put(b, run, (size_t)(s - run));
		buf_puts(b, rep);
		run = s + 1;
	}
	buf_put(b, run, (size_t)(s - run));
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void queue_init(struct queue *q)
{
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->head = q->tail = NULL;
	q->closed = false;
}

bool queue_push(struct queue *q, struct request *r)
{
	pthread_mutex_lock(&q->mu);
	if (q->closed) {
		pthread_mutex_unlock(&q->mu);
		return false;
	}
	r->next = NULL;
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return true;
}

struct request *queue_pop(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	while (!q->head && !q->closed)
		pthread_cond_wait(&q->cv, &q->mu);
	struct request *r = q->head;
	if (r) {
		q->head = r->next;
		if (!q->head)
			q->tail = NULL;
	}
	pthread_mutex_unlock(&q->mu);
	return r;
}

void queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}
