/* Request deadlines and eviction of slow clients; see serve/http/guard.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "base/util.h"
#include "serve/http/guard.h"
#include "base/banned.h"

struct conn {
	struct conn *prev, *next; /* oldest first */
	struct tm_guard *g;
	int fd;
	int64_t since_usec; /* start, or the last answer */
	bool answering, cut;
};

struct tm_guard {
	struct conn *head, *tail;
	unsigned n, soft_limit;
	unsigned cut_open; /* cut, and not closed yet: still in n */
	int64_t deadline_usec;
	uint64_t cut;
};

struct tm_guard *tm_guard_new(unsigned soft_limit, int64_t deadline_usec)
{
	struct tm_guard *g = calloc(1, sizeof(*g));
	if (g) {
		g->soft_limit = soft_limit;
		g->deadline_usec = deadline_usec;
	}
	return g;
}

void tm_guard_free(struct tm_guard *g)
{
	/* libmicrohttpd closes every connection before the daemon stops, and
	 * each close unlinks its record: nothing is left here by then */
	free(g);
}

static void unlink_conn(struct tm_guard *g, struct conn *k)
{
	if (k->prev)
		k->prev->next = k->next;
	else
		g->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		g->tail = k->prev;
	k->prev = k->next = NULL;
	g->n--;
}

static void append(struct tm_guard *g, struct conn *k)
{
	k->prev = g->tail;
	k->next = NULL;
	if (g->tail)
		g->tail->next = k;
	else
		g->head = k;
	g->tail = k;
	g->n++;
}

static void cut(struct tm_guard *g, struct conn *k)
{
	if (k->cut)
		return;
	/* shutdown, not close: the socket stays libmicrohttpd's, which sees the
	 * end of the stream and closes the connection itself */
	shutdown(k->fd, SHUT_RDWR);
	k->cut = true;
	g->cut++;
	g->cut_open++;
}

/* Past the soft limit: the oldest connection still sending its request
 * (for 100 ms or more: a client that is not slow has sent its request by
 * then) makes room, so the hard limit is not reached and new clients are
 * accepted at once. */
static void make_room(struct tm_guard *g, int64_t now)
{
	for (struct conn *k = g->head; k && g->n - g->cut_open > g->soft_limit; k = k->next)
		if (!k->answering && !k->cut && now - k->since_usec >= 100000)
			cut(g, k);
}
void tm_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode code)
{
	struct tm_guard *g = cls;
	struct conn *k = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = calloc(1, sizeof(*k));
		if (!k || !ci) {
			free(k);
			return; /* not tracked: only the idle timeout applies to it */
		}
		k->g = g;
		k->fd = ci->connect_fd;
		k->since_usec = tm_now_mono_usec();
		append(g, k);
		*socket_context = k;
		make_room(g, k->since_usec);
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && k) {
		if (k->cut)
			g->cut_open--;
		unlink_conn(g, k);
		free(k);
		*socket_context = NULL;
	}
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void tm_guard_answering(struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);
	if (k)
		k->answering = true;
}

void tm_guard_answered(struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);
	if (!k)
		return;
	k->answering = false;
	k->since_usec = tm_now_mono_usec();
	/* the oldest first: move it to the end */
	struct tm_guard *g = k->g;
	unlink_conn(g, k);
	append(g, k);
}

unsigned tm_guard_tick(struct tm_guard *g)
{
	int64_t now = tm_now_mono_usec();
	unsigned n = 0;
	/* a burst of new connections that were all young when they came */
	make_room(g, now);
	for (struct conn *k = g->head; k && now - k->since_usec > g->deadline_usec; k = k->next) {
		if (!k->answering && !k->cut) {
			cut(g, k);
			n++;
		}
	}
	return n;
}

uint64_t tm_guard_cut(const struct tm_guard *g)
{
	return g->cut;
}
