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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct tm_prom_server {
	struct MHD_Daemon *d;
	struct tm_guard *guard;
	pthread_t thread;
	bool running;
	atomic_bool stop;
	pthread_mutex_t lock;
	bool have;
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
	t = (struct tm_prom_target){
	    srv->machine, srv->run,     srv->cgroup,   &srv->s,        true,
	    "live",       srv->scraped, srv->nscraped, &srv->progress, tm_now_mono_usec()};
	text = tm_prom_format(&t, srv->have ? 1 : 0);
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

/* The exporter's event loop: answers, and cuts off who is past the deadline. */
static void *serve_loop(void *arg)
{
	struct tm_prom_server *srv = arg;

	while (!atomic_load(&srv->stop)) {
		MHD_run_wait(srv->d, 200);
		tm_guard_tick(srv->guard);
	}
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

int tm_prom_server_start(const char *addr, const char *machine, const char *run_uuid,
                         const char *cgroup, struct tm_prom_server **out)
{
	struct sockaddr_in sa;
	struct tm_prom_server *srv;

	if (tm_parse_listen(addr, &sa) < 0)
		return -1;
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return tm_error("out of memory");
	pthread_mutex_init(&srv->lock, NULL);
	srv->machine = strdup(machine ? machine : "");
	srv->run = strdup(run_uuid ? run_uuid : "");
	srv->cgroup = strdup(cgroup ? cgroup : "");
	srv->guard = tm_guard_new(EXPORT_SOFT_LIMIT, EXPORT_DEADLINE_USEC);
	if (srv->guard)
		srv->d = MHD_start_daemon(
		    MHD_USE_EPOLL, 0, NULL, NULL, handle, srv, MHD_OPTION_SOCK_ADDR,
		    (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
		    MHD_OPTION_NOTIFY_CONNECTION, tm_guard_notify, srv->guard,
		    MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORT_HARD_LIMIT,
		    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)EXPORT_PER_ADDRESS,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		    (size_t)(32 * 1024), MHD_OPTION_END);
	if (!srv->d || !srv->machine || !srv->run || !srv->cgroup || start_loop(srv)) {
		tm_prom_server_stop(srv);
		return tm_error("cannot serve /metrics on '%s'", addr);
	}
	*out = srv;
	return 0;
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
	tm_guard_free(srv->guard);
	pthread_mutex_destroy(&srv->lock);
	free(srv->machine);
	free(srv->run);
	free(srv->cgroup);
	free(srv);
}
