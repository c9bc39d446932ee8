/* `record --metrics-listen`: the latest sample at GET /metrics.  It answers
 * from a thread of its own, with the server's defences (serve/http/guard.h): a
 * request must arrive whole within its deadline, past EXPORT_SOFT_LIMIT
 * connections a new one evicts the oldest still sending, and one address
 * holds at most EXPORT_PER_ADDRESS, so slow or hostile clients can neither
 * hold it nor stop Prometheus from scraping. */
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/http/guard.h"
#include "serve/http/promexport.h"
#include "serve/promfmt.h"
#include "serve/http/server.h"
#include "base/banned.h"

#define SCRAPED_MAX     512
#define TM_SCRAPED_TEXT 288

#define EXPORT_SOFT_LIMIT    48
#define EXPORT_HARD_LIMIT    64 /* 16 more than the soft limit: new clients get in at once */
#define EXPORT_PER_ADDRESS   16
#define EXPORT_DEADLINE_USEC (5 * 1000000LL)
#define EXPORT_DRAIN_USEC    1000000LL /* at the stop, for the requests accepted */

struct tm_prom_server {
	struct MHD_Daemon *d;
	struct tm_guard *guard;
	pthread_t thread;
	bool running;
	atomic_bool stop;
	int quiesced_fd; /* the listening socket, once no longer accepted on (-1) */
	pthread_mutex_t lock;
	bool have;
	bool ended; /* the run is over: its run_info and last date only */
	struct tm_sample s;
	char *machine, *run, *cgroup;
	/* the scraped series of that sample: names and kinds in one buffer */
	size_t nscraped;
	struct tm_prom_scraped scraped[SCRAPED_MAX];
	char text[SCRAPED_MAX][TM_SCRAPED_TEXT];
	struct tm_prom_progress progress; /* by the recorder's monotonic clock */
};

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, char *text,
                              enum MHD_ResponseMemoryMode mode, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	tm_guard_answering(c);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
	struct tm_prom_server *srv = cls;
	static char not_found[] = "not found; try /metrics\n", bad_method[] = "use GET\n";
	struct tm_prom_target t;
	char *text;

	(void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return answer(c, 405, bad_method, MHD_RESPMEM_PERSISTENT, "text/plain");
	if (strcmp(url, "/metrics"))
		return answer(c, 404, not_found, MHD_RESPMEM_PERSISTENT, "text/plain");
	pthread_mutex_lock(&srv->lock);
	t = (struct tm_prom_target){srv->machine,      srv->run,      srv->cgroup,
	                            &srv->s,           !srv->ended,   srv->ended ? "ended" : "live",
	                            srv->scraped,      srv->nscraped, &srv->progress,
	                            tm_now_mono_usec()};
	/* before the first sample of a run: no run to name yet */
	text = tm_prom_format(&t, srv->have && srv->run[0] ? 1 : 0);
	pthread_mutex_unlock(&srv->lock);
	if (!text)
		return MHD_NO;
	return answer(c, 200, text, MHD_RESPMEM_MUST_FREE,
	              "text/plain; version=0.0.4; charset=utf-8");
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)con_cls, (void)toe;
	tm_guard_answered(c);
}

/* At the stop: no new connection is accepted (those waiting stay queued
 * on the socket, for the next recorder on systemd's socket: a restart
 * refuses no scrape), and those accepted are answered, for up to
 * EXPORT_DRAIN_USEC. */
static void drain(struct tm_prom_server *srv)
{
	int64_t until = tm_now_mono_usec() + EXPORT_DRAIN_USEC;

	srv->quiesced_fd = MHD_quiesce_daemon(srv->d);
	while (tm_now_mono_usec() < until) {
		const union MHD_DaemonInfo *i =
		    MHD_get_daemon_info(srv->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!i || i->num_connections == 0)
			break;
		MHD_run_wait(srv->d, 50);
	}
}

/* The exporter's event loop: answers, and cuts off who is past the deadline. */
static void *serve_loop(void *arg)
{
	struct tm_prom_server *srv = arg;

	while (!atomic_load(&srv->stop)) {
		MHD_run_wait(srv->d, 200);
		tm_guard_tick(srv->guard);
	}
	drain(srv);
	return NULL;
}

/* The loop's thread, with every signal blocked (they stay the recorder's).
 * 0, or an errno. */
static int start_loop(struct tm_prom_server *srv)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&srv->thread, NULL, serve_loop, srv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	srv->running = rc == 0;
	return rc;
}

/* The daemon on SA, or on LISTEN_FD (>= 0: a listening socket, e.g. from
 * systemd, which the daemon then owns). */
static struct MHD_Daemon *start_daemon(struct tm_prom_server *srv, const struct sockaddr_in *sa,
                                       int listen_fd)
{
	return MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ITC, 0, NULL, NULL, handle, srv,
	    listen_fd >= 0 ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_SOCK_ADDR,
	    listen_fd >= 0 ? (intptr_t)listen_fd : (intptr_t)sa, MHD_OPTION_NOTIFY_COMPLETED,
	    completed, NULL, MHD_OPTION_NOTIFY_CONNECTION, tm_guard_notify, srv->guard,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORT_HARD_LIMIT,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)EXPORT_PER_ADDRESS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)(32 * 1024), MHD_OPTION_END);
}

/* Replaces *FIELD by a copy of VALUE (NULL: ""); -1 when out of memory. */
static int set_label(char **field, const char *value)
{
	char *c = strdup(value ? value : "");

	if (!c)
		return -1;
	free(*field);
	*field = c;
	return 0;
}

int tm_prom_server_start(const char *addr, int listen_fd, const char *machine, const char *run_uuid,
                         const char *cgroup, struct tm_prom_server **out)
{
	struct sockaddr_in sa = {0};
	struct tm_prom_server *srv;

	if (listen_fd < 0 && tm_parse_listen(addr, &sa) < 0)
		return -1;
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return tm_error("out of memory");
	pthread_mutex_init(&srv->lock, NULL);
	srv->quiesced_fd = -1;
	srv->guard = tm_guard_new(EXPORT_SOFT_LIMIT, EXPORT_DEADLINE_USEC);
	if (srv->guard)
		srv->d = start_daemon(srv, &sa, listen_fd);
	if (!srv->d || set_label(&srv->machine, machine) || set_label(&srv->run, run_uuid) ||
	    set_label(&srv->cgroup, cgroup) || start_loop(srv)) {
		tm_prom_server_stop(srv);
		if (listen_fd >= 0)
			return tm_error(
			    "cannot serve /metrics on the socket systemd passed (fd %d)",
			    listen_fd);
		return tm_error("cannot serve /metrics on '%s'", addr);
	}
	*out = srv;
	return 0;
}

int tm_prom_server_set_run(struct tm_prom_server *srv, const char *machine, const char *run_uuid,
                           const char *cgroup)
{
	int rc;

	pthread_mutex_lock(&srv->lock);
	rc = set_label(&srv->machine, machine) || set_label(&srv->run, run_uuid) ||
	             set_label(&srv->cgroup, cgroup)
	         ? tm_error("out of memory")
	         : 0;
	srv->have = false;
	srv->ended = false;
	srv->nscraped = 0;
	memset(&srv->progress, 0, sizeof(srv->progress));
	pthread_mutex_unlock(&srv->lock);
	return rc;
}

void tm_prom_server_end_run(struct tm_prom_server *srv)
{
	pthread_mutex_lock(&srv->lock);
	srv->ended = true;
	pthread_mutex_unlock(&srv->lock);
}

void tm_prom_server_update(struct tm_prom_server *srv, const struct tm_sample *s)
{
	pthread_mutex_lock(&srv->lock);
	srv->s = *s;
	srv->have = true;
	pthread_mutex_unlock(&srv->lock);
}

void tm_prom_server_progress(struct tm_prom_server *srv, int64_t t_mono_usec, double value)
{
	pthread_mutex_lock(&srv->lock);
	tm_prom_progress_add(&srv->progress, t_mono_usec, value);
	pthread_mutex_unlock(&srv->lock);
}

void tm_prom_server_update_scraped(struct tm_prom_server *srv, const char *const *names,
                                   const char *const *kinds, const double *values, size_t n)
{
	pthread_mutex_lock(&srv->lock);
	srv->nscraped = 0;
	for (size_t i = 0; i < n && srv->nscraped < SCRAPED_MAX; i++) {
		char *t = srv->text[srv->nscraped];
		int nl = snprintf(t, TM_SCRAPED_TEXT, "%s", names[i]);
		if (nl < 0 || (size_t)nl + strlen(kinds[i]) + 2 > TM_SCRAPED_TEXT)
			continue;
		snprintf(t + nl + 1, TM_SCRAPED_TEXT - (size_t)nl - 1, "%s", kinds[i]);
		srv->scraped[srv->nscraped++] = (struct tm_prom_scraped){t, t + nl + 1, values[i]};
	}
	pthread_mutex_unlock(&srv->lock);
}

void tm_prom_server_stop(struct tm_prom_server *srv)
{
	if (!srv)
		return;
	atomic_store(&srv->stop, true);
	if (srv->running)
		pthread_join(srv->thread, NULL);
	if (srv->d)
		MHD_stop_daemon(srv->d);
	if (srv->quiesced_fd >= 0)
		close(srv->quiesced_fd);
	tm_guard_free(srv->guard);
	pthread_mutex_destroy(&srv->lock);
	free(srv->machine);
	free(srv->run);
	free(srv->cgroup);
	free(srv);
}
