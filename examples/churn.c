/*
 * churn — a stand-in for a node syncing a chain, for tidemark demos.
 *
 * Several long-lived worker threads (glibc binds each to an arena of its
 * own) advance round by round ("heights").  Inside the busy window one
 * worker in turn bursts: it allocates many objects of random sizes, writes
 * every byte of them, keeps the last few alive (they sit at the top of its
 * heap, so the heap cannot be trimmed), and frees the rest.  Outside the
 * window every worker does light work.  The main thread keeps a working set
 * alive, touches it every round, and prints "height=N" after each round.
 *
 * Under glibc as shipped every arena keeps the burst its thread freed, so
 * the process holds threads x burst; with MALLOC_ARENA_MAX=1 one arena
 * reuses the memory; jemalloc returns it after its decay time.
 *
 * stdout carries only "height=N" lines and a final "done"; errors go to
 * stderr.  Exit codes: 0 done, 1 runtime failure, 2 bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/banned.h"

#define SURVIVORS_PER_BURST 8
#define WS_CHUNK_BYTES      (64 * 1024)
#define PAGE_BYTES          4096
#define MIN_HOLD_TICK_MS    100

struct opts {
	long threads;
	long heights;
	long busy_from; /* first busy round, 1-based, inclusive */
	long busy_to;   /* last busy round, inclusive */
	long objects;
	long min_size;
	long max_size;
	long working_set_mib;
	long interval_ms;
	long hold_s;
	uint64_t seed;
};

/* What the main thread asks the workers to do in one round. */
struct round_state {
	pthread_mutex_t lock;
	pthread_cond_t go;
	pthread_cond_t done;
	long round;   /* increases by one per round handed out */
	long burster; /* worker that bursts this round, -1 for none */
	long pending; /* workers still busy with this round */
	int stop;
	int failed;
};

struct worker {
	pthread_t tid;
	long idx;
	const struct opts *o;
	struct round_state *rs;
	void **objs;     /* one burst's objects */
	void *survivors; /* singly linked through their first word */
};

static const char usage_text[] =
    "usage: churn [OPTIONS]\n"
    "\n"
    "Behaves like a node syncing a chain: prints height=N once per round on\n"
    "stdout, keeps a working set, and in a busy window bursts allocations that\n"
    "leave glibc's per-thread arenas holding freed memory.  The defaults are the\n"
    "demo for a 2-core machine (about 19 s); see examples/README.md.\n"
    "\n"
    "  -t, --threads N       worker threads, each with its own glibc arena; glibc\n"
    "                        makes up to 8 per core (default 15)\n"
    "  -n, --heights N       rounds to run (default 30)\n"
    "  -b, --busy A:B        rounds A..B (1-based, inclusive) burst, one thread in\n"
    "                        turn; other rounds are light work (default: from round\n"
    "                        3, one burst per thread)\n"
    "  -o, --objects N       objects per burst (default 40000)\n"
    "      --min-size BYTES  smallest object (default 64)\n"
    "      --max-size BYTES  largest object (default 2064)\n"
    "  -w, --working-set MIB memory kept alive and touched all along (default 32)\n"
    "  -i, --interval-ms MS  pause after each round (default 600)\n"
    "  -s, --seed N          seed for sizes; same seed, same run (default 1)\n"
    "      --hold SECONDS    after the last height print \"done\" and keep running\n"
    "                        with light work only, so a recorder sees what is held\n"
    "                        (default 0)\n"
    "  -h, --help            this text\n"
    "\n"
    "examples:\n"
    "  churn                                   the demo: ~19 s, glibc peaks ~655 MiB\n"
    "  MALLOC_ARENA_MAX=1 churn                one glibc arena: ~85 MiB\n"
    "  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 churn --hold 5\n"
    "  churn --threads 6 --objects 100000 --heights 10 --busy 2:7 --interval-ms 0\n"
    "  churn --threads 2 --objects 2000 --heights 10 --working-set 1 --interval-ms 10\n";

/* splitmix64: small, fast, and the same everywhere for a given seed. */
static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t round_seed(const struct opts *o, long idx, long round)
{
	uint64_t s = o->seed ^ ((uint64_t)(idx + 1) * 0x2545f4914f6cdd1dULL) ^
	             ((uint64_t)round * 0x9e3779b97f4a7c15ULL);
	next_rand(&s);
	return s;
}

static size_t pick_size(const struct opts *o, uint64_t *rng)
{
	uint64_t span = (uint64_t)(o->max_size - o->min_size) + 1;
	return (size_t)o->min_size + (size_t)(next_rand(rng) % span);
}

static void *alloc_touched(size_t size, unsigned char fill)
{
	void *p = malloc(size);
	if (p != NULL)
		memset(p, fill, size);
	return p;
}

static int keep_survivor(struct worker *w, void *p)
{
	if (p == NULL)
		return -1;
	memcpy(p, &w->survivors, sizeof(void *));
	w->survivors = p;
	return 0;
}

static void free_survivors(struct worker *w)
{
	while (w->survivors != NULL) {
		void *next;
		memcpy(&next, w->survivors, sizeof(void *));
		free(w->survivors);
		w->survivors = next;
	}
}

/*
 * A burst: allocate o->objects objects and write them, keep the last few
 * (they lie at the top of this thread's heap), free the rest.
 */
static int burst(struct worker *w, long round)
{
	const struct opts *o = w->o;
	uint64_t rng = round_seed(o, w->idx, round);
	long n = o->objects;
	long keep = n > SURVIVORS_PER_BURST ? SURVIVORS_PER_BURST : n;

	for (long i = 0; i < n; i++) {
		w->objs[i] = alloc_touched(pick_size(o, &rng), (unsigned char)i);
		if (w->objs[i] == NULL) {
			for (long j = 0; j < i; j++)
				free(w->objs[j]);
			return -1;
		}
	}
	for (long i = n - keep; i < n; i++)
		keep_survivor(w, w->objs[i]);
	for (long i = 0; i < n - keep; i++) {
		/* Write it once more just before freeing: the memory is in use. */
		((unsigned char *)w->objs[i])[0] ^= 0xff;
		free(w->objs[i]);
	}
	return 0;
}

/* Light work: a twentieth of a burst, allocated, written, freed. */
static int light(struct worker *w, long round)
{
	const struct opts *o = w->o;
	uint64_t rng = round_seed(o, w->idx, -round);
	long n = o->objects / 20 > 0 ? o->objects / 20 : 1;

	for (long i = 0; i < n; i++) {
		w->objs[i] = alloc_touched(pick_size(o, &rng), (unsigned char)i);
		if (w->objs[i] == NULL) {
			for (long j = 0; j < i; j++)
				free(w->objs[j]);
			return -1;
		}
	}
	for (long i = 0; i < n; i++)
		free(w->objs[i]);
	return 0;
}

/* Waits for the next round; returns 0 when told to stop. */
static int wait_round(struct worker *w, long *seen, long *burster)
{
	struct round_state *rs = w->rs;
	int run;

	pthread_mutex_lock(&rs->lock);
	while (!rs->stop && rs->round == *seen)
		pthread_cond_wait(&rs->go, &rs->lock);
	run = !rs->stop;
	*seen = rs->round;
	*burster = rs->burster;
	pthread_mutex_unlock(&rs->lock);
	return run;
}

static void finish_round(struct round_state *rs, int rc)
{
	pthread_mutex_lock(&rs->lock);
	if (rc != 0)
		rs->failed = 1;
	if (--rs->pending == 0)
		pthread_cond_signal(&rs->done);
	pthread_mutex_unlock(&rs->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	long seen = 0, burster;

	while (wait_round(w, &seen, &burster)) {
		int rc = burster == w->idx ? burst(w, seen) : light(w, seen);
		finish_round(w->rs, rc);
	}
	free_survivors(w);
	return NULL;
}

/* Hands round `round` to every worker and waits until all have done it. */
static int run_round(struct round_state *rs, long nworkers, long round, long burster)
{
	int failed;

	pthread_mutex_lock(&rs->lock);
	rs->round = round;
	rs->burster = burster;
	rs->pending = nworkers;
	pthread_cond_broadcast(&rs->go);
	while (rs->pending > 0)
		pthread_cond_wait(&rs->done, &rs->lock);
	failed = rs->failed;
	pthread_mutex_unlock(&rs->lock);
	if (failed) {
		fprintf(stderr, "churn: out of memory in round %ld\n", round);
		return -1;
	}
	return 0;
}

static void stop_workers(struct round_state *rs, struct worker *ws, long n)
{
	pthread_mutex_lock(&rs->lock);
	rs->stop = 1;
	pthread_cond_broadcast(&rs->go);
	pthread_mutex_unlock(&rs->lock);
	for (long i = 0; i < n; i++)
		pthread_join(ws[i].tid, NULL);
}

static int start_workers(const struct opts *o, struct round_state *rs, struct worker *ws)
{
	for (long i = 0; i < o->threads; i++) {
		ws[i] = (struct worker){.idx = i, .o = o, .rs = rs};
		ws[i].objs = calloc((size_t)o->objects, sizeof(void *));
		int err = ws[i].objs == NULL
		              ? ENOMEM
		              : pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]);
		if (err != 0) {
			fprintf(stderr, "churn: cannot start thread %ld: %s\n", i, strerror(err));
			free(ws[i].objs);
			stop_workers(rs, ws, i);
			return -1;
		}
	}
	return 0;
}

/* The working set: 64 KiB chunks, each page written at start and every round. */
struct working_set {
	void **chunks;
	size_t n;
};

static int ws_alloc(struct working_set *set, long mib)
{
	set->n = (size_t)mib * (1024 * 1024 / WS_CHUNK_BYTES);
	set->chunks = calloc(set->n > 0 ? set->n : 1, sizeof(void *));
	if (set->chunks == NULL) {
		set->n = 0;
		return -1;
	}
	for (size_t i = 0; i < set->n; i++) {
		set->chunks[i] = alloc_touched(WS_CHUNK_BYTES, (unsigned char)i);
		if (set->chunks[i] == NULL)
			return -1;
	}
	return 0;
}

static void ws_touch(struct working_set *set, long round)
{
	for (size_t i = 0; i < set->n; i++)
		for (size_t off = 0; off < WS_CHUNK_BYTES; off += PAGE_BYTES)
			((unsigned char *)set->chunks[i])[off] = (unsigned char)round;
}

static void ws_free(struct working_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->chunks[i]);
	free(set->chunks);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int print_line(const char *s, long n)
{
	if (n >= 0)
		printf("%s%ld\n", s, n);
	else
		printf("%s\n", s);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "churn: cannot write to stdout: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The heights, then "done", then light ticks until the hold time is over. */
static int run_all(const struct opts *o, struct round_state *rs, struct working_set *set)
{
	long round = 0;

	for (long h = 1; h <= o->heights; h++) {
		long burster = -1;
		if (h >= o->busy_from && h <= o->busy_to)
			burster = (h - o->busy_from) % o->threads;
		if (run_round(rs, o->threads, ++round, burster) != 0)
			return -1;
		ws_touch(set, h);
		if (print_line("height=", h) != 0)
			return -1;
		sleep_ms(o->interval_ms);
	}
	if (print_line("done", -1) != 0)
		return -1;
	long tick = o->interval_ms > MIN_HOLD_TICK_MS ? o->interval_ms : MIN_HOLD_TICK_MS;
	double end = now_s() + (double)o->hold_s;
	while (now_s() < end) {
		if (run_round(rs, o->threads, ++round, -1) != 0)
			return -1;
		ws_touch(set, round);
		sleep_ms(tick);
	}
	return 0;
}

/* Parses a decimal integer in [lo, hi]; 0 on success. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* Parses "A:B" with 1 <= A <= B. */
static int parse_busy(const char *s, long *from, long *to)
{
	const char *colon = strchr(s, ':');
	char a[32];

	if (colon == NULL || (size_t)(colon - s) >= sizeof(a))
		return -1;
	memcpy(a, s, (size_t)(colon - s));
	a[colon - s] = '\0';
	if (parse_long(a, 1, 100000000, from) != 0 || parse_long(colon + 1, 1, 100000000, to) != 0)
		return -1;
	return *from <= *to ? 0 : -1;
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "churn: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\ntry 'churn --help'\n");
	return 2;
}

enum { OPT_MIN_SIZE = 256, OPT_MAX_SIZE, OPT_HOLD };

static const struct option long_opts[] = {
    {"threads", required_argument, NULL, 't'},
    {"heights", required_argument, NULL, 'n'},
    {"busy", required_argument, NULL, 'b'},
    {"objects", required_argument, NULL, 'o'},
    {"min-size", required_argument, NULL, OPT_MIN_SIZE},
    {"max-size", required_argument, NULL, OPT_MAX_SIZE},
    {"working-set", required_argument, NULL, 'w'},
    {"interval-ms", required_argument, NULL, 'i'},
    {"seed", required_argument, NULL, 's'},
    {"hold", required_argument, NULL, OPT_HOLD},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* One option; returns 0, or 2 after printing why the value is bad. */
static int set_opt(struct opts *o, int c, const char *arg, int *busy_set)
{
	switch (c) {
	case 't':
		return parse_long(arg, 1, 256, &o->threads)
		           ? bad("--threads: want 1..256, got '%s'", arg)
		           : 0;
	case 'n':
		return parse_long(arg, 1, 100000000, &o->heights)
		           ? bad("--heights: want 1..100000000, got '%s'", arg)
		           : 0;
	case 'b':
		*busy_set = 1;
		return parse_busy(arg, &o->busy_from, &o->busy_to)
		           ? bad("--busy: want A:B with 1 <= A <= B, got '%s'", arg)
		           : 0;
	case 'o':
		return parse_long(arg, 1, 10000000, &o->objects)
		           ? bad("--objects: want 1..10000000, got '%s'", arg)
		           : 0;
	case OPT_MIN_SIZE:
		return parse_long(arg, 16, 1 << 20, &o->min_size)
		           ? bad("--min-size: want 16..1048576 bytes, got '%s'", arg)
		           : 0;
	case OPT_MAX_SIZE:
		return parse_long(arg, 16, 1 << 20, &o->max_size)
		           ? bad("--max-size: want 16..1048576 bytes, got '%s'", arg)
		           : 0;
	case 'w':
		return parse_long(arg, 0, 65536, &o->working_set_mib)
		           ? bad("--working-set: want 0..65536 MiB, got '%s'", arg)
		           : 0;
	case 'i':
		return parse_long(arg, 0, 60000, &o->interval_ms)
		           ? bad("--interval-ms: want 0..60000, got '%s'", arg)
		           : 0;
	case 's':
		return parse_u64(arg, &o->seed)
		           ? bad("--seed: want an unsigned integer, got '%s'", arg)
		           : 0;
	case OPT_HOLD:
		return parse_long(arg, 0, 86400, &o->hold_s)
		           ? bad("--hold: want 0..86400 seconds, got '%s'", arg)
		           : 0;
	default:
		return bad("%s", "bad option");
	}
}

/* Checks the options against each other; 0, or 2 after printing why. */
static int check_opts(struct opts *o, int busy_set)
{
	if (o->min_size > o->max_size)
		return bad("%s", "--min-size must not exceed --max-size");
	if (!busy_set) { /* from round 3, one burst per thread */
		o->busy_from = o->heights < 3 ? o->heights : 3;
		o->busy_to = o->busy_from + o->threads - 1;
		if (o->busy_to > o->heights)
			o->busy_to = o->heights;
	}
	if (o->busy_to > o->heights)
		return bad("%s", "--busy: the window ends after the last height");
	return 0;
}

/* Fills *o from argv; returns -1 to go on, or the exit code (0 for --help, 2). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	int c, busy_set = 0;

	*o = (struct opts){.threads = 15,
	                   .heights = 30,
	                   .objects = 40000,
	                   .min_size = 64,
	                   .max_size = 2064,
	                   .working_set_mib = 32,
	                   .interval_ms = 600,
	                   .seed = 1};
	while ((c = getopt_long(argc, argv, "t:n:b:o:w:i:s:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == '?') { /* getopt has said what is wrong */
			fprintf(stderr, "try 'churn --help'\n");
			return 2;
		}
		if (set_opt(o, c, optarg, &busy_set) != 0)
			return 2;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	return check_opts(o, busy_set) != 0 ? 2 : -1;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct round_state rs = {.lock = PTHREAD_MUTEX_INITIALIZER,
	                         .go = PTHREAD_COND_INITIALIZER,
	                         .done = PTHREAD_COND_INITIALIZER,
	                         .burster = -1};
	struct working_set set = {0};
	struct worker *ws;
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (ws_alloc(&set, o.working_set_mib) != 0) {
		fprintf(stderr, "churn: cannot allocate the %ld MiB working set\n",
		        o.working_set_mib);
		ws_free(&set);
		return 1;
	}
	ws = calloc((size_t)o.threads, sizeof(*ws));
	if (ws == NULL || start_workers(&o, &rs, ws) != 0) {
		fprintf(stderr, "churn: cannot start the workers\n");
		free(ws);
		ws_free(&set);
		return 1;
	}
	rc = run_all(&o, &rs, &set) == 0 ? 0 : 1;
	stop_workers(&rs, ws, o.threads);
	for (long i = 0; i < o.threads; i++)
		free(ws[i].objs);
	free(ws);
	ws_free(&set);
	return rc;
}
