/*
 * Benchmark data: MACHINES runs of COUNT samples at 1 s (a week is 604800),
 * or every INTERVAL seconds, written through the store API as the server
 * would file them, with values that move like a real service (a sawtooth
 * with noise, growing counters).
 *
 *   gen_week DB MACHINES COUNT [INTERVAL]
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "store/store.h"

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
	tm_sample_set(s, TM_M_CG_HIGH_BYTES, 900LL << 20);
	tm_sample_set(s, TM_M_CG_CPU_USAGE_USEC, seq * 250000 + rand_r(rnd) % 1000);
	tm_sample_set(s, TM_M_CG_PSI_MEM_SOME_USEC, seq * 100 + rand_r(rnd) % 100);
	tm_sample_set(s, TM_M_CG_PSI_MEM_FULL_USEC, seq * 50);
	tm_sample_set(s, TM_M_CG_IO_READ_BYTES, seq * 8192);
	tm_sample_set(s, TM_M_CG_IO_WRITE_BYTES, seq * 4096);
	tm_sample_set(s, TM_M_CG_EVENTS_HIGH, seq / 600);
	tm_sample_set(s, TM_M_PROC_RSS_BYTES, ((280 + seq % 3600 / 30) << 20) + noise);
	tm_sample_set(s, TM_M_PROC_RSS_ANON_BYTES, ((200 + seq % 3600 / 30) << 20) + noise);
	tm_sample_set(s, TM_M_PROC_COUNT, 4);
	tm_sample_set(s, TM_M_PROC_THREADS, 33);
	tm_sample_set(s, TM_M_HOST_MEM_AVAILABLE_BYTES, (8LL << 30) - noise * 10);
}

int main(int argc, char **argv)
{
	struct tm_store *st;
	int64_t machines, count, interval = 1;
	unsigned rnd = 1;

	if ((argc != 4 && argc != 5) || tm_parse_int64(argv[2], &machines) < 0 ||
	    tm_parse_int64(argv[3], &count) < 0 ||
	    (argc == 5 && (tm_parse_int64(argv[4], &interval) < 0 || interval < 1))) {
		fprintf(stderr, "usage: gen_week DB MACHINES COUNT [INTERVAL]\n");
		return 2;
	}
	if (tm_store_open(argv[1], &st) < 0)
		return 1;
	for (int64_t m = 0; m < machines; m++) {
		char name[32];
		int64_t run, step = interval * 1000000, t0 = tm_now_wall_usec() - count * step;
		snprintf(name, sizeof(name), "node-%02lld", (long long)m);
		struct tm_run_meta meta = {.machine = name,
		                           .target = "cgroup",
		                           .cgroup_path = "/system.slice/svc.service",
		                           .interval_usec = step,
		                           .started_wall_usec = t0};
		if (tm_store_run_begin(st, &meta, &run) < 0)
			return 1;
		for (int64_t i = 0; i < count; i++) {
			struct tm_sample s;
			fill(&s, i, t0, step, &rnd);
			if (tm_store_add_sample(st, run, &s) < 0)
				return 1;
			if (i % 600 == 0)
				tm_store_add_progress(st, run, s.t_wall_usec, s.t_mono_usec,
				                      (double)i);
			if (i % 10000 == 9999 && tm_store_commit(st) < 0)
				return 1;
		}
		if (tm_store_commit(st) < 0)
			return 1;
	}
	tm_store_close(st);
	return 0;
}
