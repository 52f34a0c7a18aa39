/* The shared keep-alive client for /bench/upstream: one libcurl multi
 * handle driven by its own epoll thread (curl's socket API, as in curl's
 * ephiperfifo example). Its connection cache keeps the upstream
 * connections open between requests; easy handles are reused from a free
 * list. A request waits suspended while its transfer runs, so 512 calls in
 * flight take 512 sockets and no threads. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "app.h"

struct upstream {
	CURLM *multi;
	int ep, wake, timer;
	char *url;
	pthread_t thread;
	pthread_mutex_t mu; /* guards incoming and stopping */
	struct request *incoming, *incoming_tail;
	bool stopping;
	CURL **free_easy; /* easy handles not in a transfer */
	size_t nfree, capfree;
	CURL **active; /* easy handles in a transfer; request.slot indexes it */
	size_t running, capactive;
};

static size_t discard(char *p, size_t size, size_t n, void *u)
{
	(void)p;
	(void)u;
	return size * n;
}

static int on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
	(void)e;
	struct upstream *u = userp;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(u->ep, EPOLL_CTL_DEL, s, NULL);
		curl_multi_assign(u->multi, s, NULL);
		return 0;
	}
	struct epoll_event ev = {.data.fd = s};
	if (what & CURL_POLL_IN)
		ev.events |= EPOLLIN;
	if (what & CURL_POLL_OUT)
		ev.events |= EPOLLOUT;
	if (socketp) {
		epoll_ctl(u->ep, EPOLL_CTL_MOD, s, &ev);
	} else {
		epoll_ctl(u->ep, EPOLL_CTL_ADD, s, &ev);
		curl_multi_assign(u->multi, s, u); /* any non-NULL: "registered" */
	}
	return 0;
}

static int on_timer(CURLM *m, long ms, void *userp)
{
	(void)m;
	struct upstream *u = userp;
	struct itimerspec its = {0};
	if (ms == 0)
		its.it_value.tv_nsec = 1; /* at once, from the loop */
	else if (ms > 0) {
		its.it_value.tv_sec = ms / 1000;
		its.it_value.tv_nsec = (ms % 1000) * 1000000;
	}
	timerfd_settime(u->timer, 0, &its, NULL);
	return 0;
}

static CURL *take_easy(struct upstream *u)
{
	if (u->nfree)
		return u->free_easy[--u->nfree];
	CURL *e = curl_easy_init();
	if (!e)
		return NULL;
	curl_easy_setopt(e, CURLOPT_URL, u->url);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(e, CURLOPT_PROXY, ""); /* no proxy from the environment */
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 15000L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	return e;
}

static void give_easy(struct upstream *u, CURL *e)
{
	if (u->nfree == u->capfree) {
		u->capfree = u->capfree ? u->capfree * 2 : 64;
		u->free_easy = realloc(u->free_easy, u->capfree * sizeof *u->free_easy);
		if (!u->free_easy)
			abort();
	}
	u->free_easy[u->nfree++] = e;
}

static void add_active(struct upstream *u, CURL *e, struct request *r)
{
	if (u->running == u->capactive) {
		u->capactive = u->capactive ? u->capactive * 2 : 64;
		u->active = realloc(u->active, u->capactive * sizeof *u->active);
		if (!u->active)
			abort();
	}
	r->slot = u->running;
	u->active[u->running++] = e;
}

static void drop_active(struct upstream *u, struct request *r)
{
	CURL *last = u->active[--u->running];
	if (r->slot != u->running) {
		struct request *moved = NULL;
		curl_easy_getinfo(last, CURLINFO_PRIVATE, (char **)&moved);
		moved->slot = r->slot;
		u->active[r->slot] = last;
	}
}

/* abort_all: at shutdown, whatever is still in flight answers 502. */
static void abort_all(struct upstream *u)
{
	while (u->running) {
		CURL *e = u->active[u->running - 1];
		struct request *r = NULL;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
		curl_multi_remove_handle(u->multi, e);
		drop_active(u, r);
		give_easy(u, e);
		request_fail(r, 502, "server shutting down");
	}
}

static void answer(struct request *r, CURLcode res, long code)
{
	if (res != CURLE_OK) {
		request_fail(r, 502, curl_easy_strerror(res));
	} else if (code != 200) {
		char msg[64];
		snprintf(msg, sizeof msg, "upstream answered %ld", code);
		request_fail(r, 502, msg);
	} else {
		buf_puts(&r->body, "{\"ok\":true,\"upstream\":200}");
		request_finish(r, 200, "application/json");
	}
}

static void reap(struct upstream *u)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(u->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		CURL *e = m->easy_handle;
		CURLcode res = m->data.result;
		struct request *r = NULL;
		long code = 0;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
		curl_multi_remove_handle(u->multi, e);
		drop_active(u, r);
		give_easy(u, e);
		answer(r, res, code);
	}
}

/* start_incoming: the requests the I/O threads queued become transfers. */
static bool start_incoming(struct upstream *u)
{
	pthread_mutex_lock(&u->mu);
	struct request *r = u->incoming;
	bool stopping = u->stopping;
	u->incoming = u->incoming_tail = NULL;
	pthread_mutex_unlock(&u->mu);
	while (r) {
		struct request *next = r->next;
		CURL *e = take_easy(u);
		if (!e) {
			request_fail(r, 502, "curl_easy_init failed");
		} else {
			curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)r);
			if (curl_multi_add_handle(u->multi, e) != CURLM_OK) {
				give_easy(u, e);
				request_fail(r, 502, "curl_multi_add_handle failed");
			} else {
				add_active(u, e, r);
			}
		}
		r = next;
	}
	return stopping;
}

static void *loop(void *arg)
{
	struct upstream *u = arg;
	struct epoll_event evs[64];
	int still;
	for (;;) {
		int n = epoll_wait(u->ep, evs, 64, -1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == u->wake) {
				uint64_t v;
				if (read(u->wake, &v, sizeof v) < 0) { /* spurious: nothing to do */ }
				if (start_incoming(u)) {
					abort_all(u);
					return NULL;
				}
			} else if (fd == u->timer) {
				uint64_t v;
				if (read(u->timer, &v, sizeof v) < 0) { /* disarmed meanwhile */ }
				curl_multi_socket_action(u->multi, CURL_SOCKET_TIMEOUT, 0, &still);
			} else {
				int flags = 0;
				if (evs[i].events & (EPOLLIN | EPOLLHUP))
					flags |= CURL_CSELECT_IN;
				if (evs[i].events & EPOLLOUT)
					flags |= CURL_CSELECT_OUT;
				if (evs[i].events & EPOLLERR)
					flags |= CURL_CSELECT_ERR;
				curl_multi_socket_action(u->multi, fd, flags, &still);
			}
		}
		reap(u);
	}
	return NULL;
}

struct upstream *upstream_start(const char *url, char *err, size_t errlen)
{
	if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
		snprintf(err, errlen, "curl_global_init failed");
		return NULL;
	}
	struct upstream *u = calloc(1, sizeof *u);
	u->url = strdup(url);
	pthread_mutex_init(&u->mu, NULL);
	u->multi = curl_multi_init();
	u->ep = epoll_create1(EPOLL_CLOEXEC);
	u->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	u->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!u->multi || u->ep < 0 || u->wake < 0 || u->timer < 0) {
		snprintf(err, errlen, "upstream client: %s", strerror(errno));
		return NULL;
	}
	/* The cache is the pool: it keeps up to 1024 idle connections (the io
	 * study holds 512 in flight; curl's default would keep far fewer and
	 * re-dial). No cap on connections per host. */
	curl_multi_setopt(u->multi, CURLMOPT_MAXCONNECTS, 1024L);
	curl_multi_setopt(u->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
	curl_multi_setopt(u->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(u->multi, CURLMOPT_SOCKETDATA, u);
	curl_multi_setopt(u->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(u->multi, CURLMOPT_TIMERDATA, u);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = u->wake};
	epoll_ctl(u->ep, EPOLL_CTL_ADD, u->wake, &ev);
	ev.data.fd = u->timer;
	epoll_ctl(u->ep, EPOLL_CTL_ADD, u->timer, &ev);
	pthread_create(&u->thread, NULL, loop, u);
	return u;
}

bool upstream_submit(struct upstream *u, struct request *r)
{
	pthread_mutex_lock(&u->mu);
	if (u->stopping) {
		pthread_mutex_unlock(&u->mu);
		return false;
	}
	r->next = NULL;
	bool was_empty = !u->incoming;
	if (u->incoming_tail)
		u->incoming_tail->next = r;
	else
		u->incoming = r;
	u->incoming_tail = r;
	pthread_mutex_unlock(&u->mu);
	if (was_empty) { /* the loop drains all of incoming per wake-up */
		uint64_t one = 1;
		if (write(u->wake, &one, sizeof one) < 0) { /* counter full: a wake-up is pending anyway */ }
	}
	return true;
}

/* upstream_stop: no new calls; transfers still in flight (the caller has
 * already waited for requests in flight) answer 502; the thread exits. */
void upstream_stop(struct upstream *u)
{
	pthread_mutex_lock(&u->mu);
	u->stopping = true;
	pthread_mutex_unlock(&u->mu);
	uint64_t one = 1;
	if (write(u->wake, &one, sizeof one) < 0) { /* a wake-up is pending anyway */ }
	pthread_join(u->thread, NULL);
}

void upstream_free(struct upstream *u)
{
	for (size_t i = 0; i < u->nfree; i++)
		curl_easy_cleanup(u->free_easy[i]);
	curl_multi_cleanup(u->multi);
	close(u->ep);
	close(u->wake);
	close(u->timer);
	free(u->free_easy);
	free(u->active);
	free(u->url);
	free(u);
	curl_global_cleanup();
}
