/*
 * A store's size over a long recording under retention, simulated: one run
 * sampled every INTERVAL seconds for DAYS days (simulated time: as fast as
 * the store takes it), committed every 5 minutes of it (the recorder's
 * default window) and pruned every 10 minutes of it as `record --keep KEEP`
 * does (default: tidemark-record@'s raw=7d,minute=90d,hour=365d).  Every
 * EVERY days it prints the simulated day, the store's file and WAL sizes,
 * and the run's raw samples kept, so a table shows whether the file stays
 * flat once the retention fills.
 *
 *   gen_year DB [DAYS [INTERVAL [EVERY [KEEP]]]]    (365 1 30)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "store/store.h"

#define DAY_USEC (86400LL * 1000000)

static void fill(struct tm_sample *s, int64_t seq, int64_t t0, int64_t step, unsigned *rnd)
{
	int64_t noise = (int64_t)(rand_r(rnd) % 4096) * 4096;

	tm_sample_clear(s);
	s->seq = seq;
	s->t_wall_usec = t0 + seq * step;
	s->t_mono_usec = 1000000 + seq * step;
	s->late_usec = rand_r(rnd) % 2000;
	tm_sample_set(s, TM_M_CG_ANON_BYTES, ((200 + seq % 3600 / 30) << 20) + noise);
	tm_sample_set(s, TM_M_CG_FILE_BYTES, (64 << 20) + noise / 2);
	tm_sample_set(s, TM_M_CG_CURRENT_BYTES, ((270 + seq % 3600 / 30) << 20) + noise);
	tm_sample_set(s, TM_M_CG_MAX_BYTES, 1LL << 30);
	tm_sample_set(s, TM_M_CG_CPU_USAGE_USEC, seq * 250000 + rand_r(rnd) % 1000);
	tm_sample_set(s, TM_M_CG_PSI_MEM_SOME_USEC, seq * 100 + rand_r(rnd) % 100);
	tm_sample_set(s, TM_M_CG_IO_READ_BYTES, seq * 8192);
	tm_sample_set(s, TM_M_CG_IO_WRITE_BYTES, seq * 4096);
	tm_sample_set(s, TM_M_PROC_RSS_BYTES, ((280 + seq % 3600 / 30) << 20) + noise);
	tm_sample_set(s, TM_M_PROC_RSS_ANON_BYTES, ((200 + seq % 3600 / 30) << 20) + noise);
	tm_sample_set(s, TM_M_PROC_COUNT, 4);
	tm_sample_set(s, TM_M_PROC_THREADS, 33);
	tm_sample_set(s, TM_M_HOST_MEM_AVAILABLE_BYTES, (8LL << 30) - noise * 10);
}

static double mib_of(const char *path)
{
	struct stat sb;
	return stat(path, &sb) ? 0 : (double)sb.st_size / (1 << 20);
}

static void report(const char *db, int64_t day, struct tm_store *st, int64_t run)
{
	char wal[4096];
	int64_t first = -1, last = -1;

	snprintf(wal, sizeof(wal), "%s-wal", db);
	tm_store_first_seq(st, run, &first);
	tm_store_last_seq(st, run, &last);
	printf("| %lld | %.1f | %.1f | %lld |\n", (long long)day, mib_of(db), mib_of(wal),
	       (long long)(first < 0 ? 0 : last - first + 1));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int64_t days = 365, interval = 1, every = 30, run = 0;
	const char *spec = argc > 5 ? argv[5] : "raw=7d,minute=90d,hour=365d";
	struct tm_keep keep;
	struct tm_store *st;
	unsigned rnd = 1;
	char why[256];

	tm_keep_default(&keep);
	if (argc < 2 || (argc > 2 && tm_parse_int64(argv[2], &days) < 0) ||
	    (argc > 3 && tm_parse_int64(argv[3], &interval) < 0) ||
	    (argc > 4 && tm_parse_int64(argv[4], &every) < 0) || interval < 1 || every < 1 ||
	    tm_keep_parse(spec, &keep, why, sizeof(why))) {
		fprintf(stderr, "usage: gen_year DB [DAYS [INTERVAL [EVERY [KEEP]]]]\n");
		return 2;
	}
	if (tm_store_open(argv[1], &st) < 0)
		return 1;
	int64_t step = interval * 1000000, n = days * DAY_USEC / step;
	int64_t t0 = tm_now_wall_usec() - days * DAY_USEC, per_day = DAY_USEC / step;
	int64_t commit_every = 300000000 / step, prune_every = 600000000 / step;
	struct tm_run_meta meta = {.machine = "pi",
	                           .target = "cgroup",
	                           .cgroup_path = "/system.slice/svc.service",
	                           .interval_usec = step,
	                           .started_wall_usec = t0};
	if (tm_store_run_begin(st, &meta, &run) < 0)
		return 1;
	printf("| day | file MiB | WAL MiB | raw samples kept |\n|---|---|---|---|\n");
	for (int64_t i = 0; i < n; i++) {
		struct tm_sample s;
		struct tm_prune_stats ps = {0};
		fill(&s, i, t0, step, &rnd);
		if (tm_store_add_sample(st, run, &s) < 0)
			return 1;
		if (i % commit_every == commit_every - 1 && tm_store_commit(st) < 0)
			return 1;
		if (i % prune_every == prune_every - 1 &&
		    tm_store_prune_run(st, run, &keep, s.t_wall_usec, &ps) < 0)
			return 1;
		if (i % (every * per_day) == every * per_day - 1)
			report(argv[1], (i + 1) / per_day, st, run);
	}
	tm_store_close(st);
	return 0;
}
