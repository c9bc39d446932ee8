/*
 * A stand-in collector for the server tests and benchmark: writes a run of
 * synthetic samples (plus events, progress and marks) to a local store the
 * way the recorder does, committing each interval, and pushes it with the
 * real pusher.
 *
 *   serve_feed DB MACHINE COUNT INTERVAL_MS [URL TOKEN_FILE]
 *
 * With INTERVAL_MS 0 the samples are written back to back (timestamps still
 * one second apart) and pushed at the end.  Prints the run's uuid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "serve/client/push.h"
#include "store/store.h"

static void fill(struct tm_sample *s, int64_t seq, int64_t t0)
{
	tm_sample_clear(s);
	s->seq = seq;
	s->t_wall_usec = t0 + seq * 1000000;
	s->t_mono_usec = 1000000 + seq * 1000000;
	s->late_usec = 0;
	tm_sample_set(s, TM_M_CG_ANON_BYTES, (100 + seq % 50) << 20);
	tm_sample_set(s, TM_M_CG_FILE_BYTES, (20 + seq % 7) << 20);
	tm_sample_set(s, TM_M_CG_CURRENT_BYTES, (125 + seq % 50) << 20);
	tm_sample_set(s, TM_M_CG_MAX_BYTES, 512 << 20);
	tm_sample_set(s, TM_M_CG_HIGH_BYTES, 400 << 20);
	tm_sample_set(s, TM_M_CG_CPU_USAGE_USEC, seq * 350000);
	tm_sample_set(s, TM_M_CG_PSI_MEM_SOME_USEC, seq * 1000);
	tm_sample_set(s, TM_M_CG_PSI_MEM_FULL_USEC, seq * 400);
	tm_sample_set(s, TM_M_CG_IO_READ_BYTES, seq * 4096);
	tm_sample_set(s, TM_M_CG_EVENTS_OOM_KILL, seq / 100);
	tm_sample_set(s, TM_M_PROC_RSS_ANON_BYTES, (90 + seq % 50) << 20);
	tm_sample_set(s, TM_M_HEAP_LIVE_BYTES, (80 + seq % 40) << 20);
}

static int write_one(struct tm_store *st, int64_t run, int64_t seq, int64_t t0)
{
	struct tm_sample s;

	fill(&s, seq, t0);
	if (tm_store_add_sample(st, run, &s) < 0)
		return -1;
	if (seq % 10 == 0)
		tm_store_add_progress(st, run, s.t_wall_usec, s.t_mono_usec, (double)seq);
	if (seq % 100 == 50) {
		struct tm_event ev = {s.t_wall_usec,         s.t_mono_usec, "oom_kill", 4242, 1,
		                      "killed <b>worker</b>"};
		tm_store_add_event(st, run, &ev);
	}
	if (seq % 100 == 0) {
		char text[64];
		snprintf(text, sizeof(text), "phase-%lld", (long long)(seq / 100));
		tm_store_add_mark(st, run, s.t_wall_usec, s.t_mono_usec, text);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tm_store *st;
	struct tm_pusher *p = NULL;
	struct tm_run_info ri;
	int64_t count, interval_ms, run, t0;
	int rc = 0;

	if (argc != 5 && argc != 7) {
		fprintf(stderr,
		        "usage: serve_feed DB MACHINE COUNT INTERVAL_MS [URL TOKEN_FILE]\n");
		return 2;
	}
	if (tm_parse_int64(argv[3], &count) < 0 || tm_parse_int64(argv[4], &interval_ms) < 0)
		return 2;
	if (tm_store_open(argv[1], &st) < 0)
		return 1;
	t0 = tm_now_wall_usec() - (interval_ms ? 0 : count * 1000000);
	struct tm_run_meta m = {.machine = argv[2],
	                        .kernel = "6.1.0-test",
	                        .cgroup_mode = "v2",
	                        .target = "command",
	                        .cgroup_path = "/tidemark/feed",
	                        .command_json = "[\"feed\",\"<script>alert(1)</script>\"]",
	                        .interval_usec = 1000000,
	                        .started_wall_usec = t0,
	                        .started_mono_usec = 1000000};
	if (tm_store_run_begin(st, &m, &run) < 0 || tm_store_commit(st) < 0)
		return 1;
	if (argc == 7 && tm_pusher_new(argv[5], argv[6], st, run, &p) < 0)
		return 1;
	int64_t w0 = tm_now_mono_usec();
	for (int64_t seq = 0; seq < count; seq++) {
		if (write_one(st, run, seq, t0) < 0)
			return 1;
		if (interval_ms == 0 && seq % 1000 != 999)
			continue;
		if (tm_store_commit(st) < 0)
			return 1;
		if (p && interval_ms)
			tm_pusher_tick(p);
		if (interval_ms) {
			struct timespec ts = {interval_ms / 1000, (interval_ms % 1000) * 1000000};
			nanosleep(&ts, NULL);
		}
	}
	struct tm_run_end e = {tm_now_wall_usec(), TM_OUTCOME_COMPLETED, 0, 0, NULL};
	if (tm_store_run_end(st, run, &e) < 0 || tm_store_commit(st) < 0)
		return 1;
	int64_t w1 = tm_now_mono_usec();
	if (p) {
		rc = tm_pusher_finish(p, 120 * 1000000LL) < 0;
		int64_t w2 = tm_now_mono_usec();
		if (interval_ms == 0 && count > 0)
			fprintf(stderr,
			        "serve_feed: wrote %lld samples in %.3f s, pushed them in %.3f s\n",
			        (long long)count, (double)(w1 - w0) / 1e6, (double)(w2 - w1) / 1e6);
		if (rc)
			fprintf(stderr, "serve_feed: not everything was acknowledged\n");
		tm_pusher_free(p);
	}
	if (tm_store_run_get(st, run, &ri) == 0) {
		printf("%s\n", ri.uuid);
		tm_run_info_release(&ri);
	}
	tm_store_close(st);
	return rc;
}
