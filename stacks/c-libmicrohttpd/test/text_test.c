/* make check: the escaping every answer depends on, and the hand-off queue.
 * Prints "N passed, N failed"; exit 1 on any failure. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../src/app.h"

static int passed, failed;

static void expect(const char *what, const char *got, size_t len, const char *want)
{
	if (len == strlen(want) && memcmp(got, want, len) == 0) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s: got \"%.*s\", want \"%s\"\n", what, (int)len, got, want);
}

static void json(const char *in, const char *want)
{
	struct buf b = {0};
	buf_json_string(&b, in);
	expect("json", b.p, b.len, want);
	buf_free(&b);
}

static void html(const char *in, const char *want)
{
	struct buf b = {0};
	buf_html_text(&b, in);
	expect("html", b.p ? b.p : "", b.len, want);
	buf_free(&b);
}

/* Stand-ins for main.c's, which the queue test does not reach. */
void request_finish(struct request *r, unsigned status, const char *ct)
{
	(void)r, (void)status, (void)ct;
}
void request_fail(struct request *r, unsigned status, const char *msg)
{
	(void)r, (void)status, (void)msg;
}

static struct queue q;
static void *consume(void *arg)
{
	long *n = arg;
	while (queue_pop(&q))
		(*n)++;
	return NULL;
}

int main(void)
{
	/* The seed's titles: every special character, and non-ASCII kept. */
	json("Lazy fox <&\"'>", "\"Lazy fox <&\\\"'>\"");
	json("Z\xc3\xbcrich \xe6\x97\xa5\xe6\x9c\xac", "\"Z\xc3\xbcrich \xe6\x97\xa5\xe6\x9c\xac\"");
	json("a\\b\nc\td\x01", "\"a\\\\b\\nc\\td\\u0001\"");
	json("", "\"\"");
	html("Lazy fox <&\"'>", "Lazy fox &lt;&amp;&#34;&#39;&gt;");
	html("Tiny cache <b>bold</b>", "Tiny cache &lt;b&gt;bold&lt;/b&gt;");
	html("caf\xc3\xa9", "caf\xc3\xa9");
	html("", "");

	struct buf b = {0};
	buf_int(&b, 1735690600000LL);
	buf_puts(&b, ",");
	buf_int(&b, -1);
	expect("int", b.p, b.len, "1735690600000,-1");
	for (int i = 0; i < 5000; i++) /* growth past the first allocation */
		buf_put(&b, "x", 1);
	expect("grow", b.len == 5000 + 16 ? "ok" : "bad", 2, "ok");
	buf_free(&b);

	/* 10,000 requests through the queue to 4 consumers: each taken once,
	 * and pop returns NULL to all once the queue is closed and empty. */
	static struct request rs[10000];
	long counts[4] = {0};
	pthread_t t[4];
	queue_init(&q);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, consume, &counts[i]);
	for (int i = 0; i < 10000; i++)
		queue_push(&q, &rs[i]);
	queue_close(&q);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	long total = counts[0] + counts[1] + counts[2] + counts[3];
	expect("queue", total == 10000 ? "10000" : "other", 5, "10000");
	expect("closed push", queue_push(&q, &rs[0]) ? "accepted" : "refused", queue_push(&q, &rs[0]) ? 8 : 7,
	       "refused");

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
