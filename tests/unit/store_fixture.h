/*
 * A fresh store file for a unit test, removed (with its -wal and -shm)
 * afterwards: one helper instead of a copy per test file.  Include after
 * <cmocka.h>.
 *
 *   struct store_fixture *f = store_fixture_open("summary");  // /tmp/tm-summary-PID.db
 *   ... f->st ...
 *   store_fixture_close(f);
 */
#ifndef TM_TEST_STORE_FIXTURE_H
#define TM_TEST_STORE_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"

struct store_fixture {
	char path[64];
	struct tm_store *st;
};

static inline void store_fixture_unlink(const char *path)
{
	char p[80];
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

/* A new empty store at /tmp/tm-TAG-PID.db; fails the test if it cannot open. */
static inline struct store_fixture *store_fixture_open(const char *tag)
{
	struct store_fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(f->path, sizeof(f->path), "/tmp/tm-%s-%d.db", tag, (int)getpid());
	store_fixture_unlink(f->path);
	assert_int_equal(tm_store_open(f->path, &f->st), 0);
	return f;
}

/* A new run in ST (machine "test", a command, 1 ms interval); its id. */
static inline int64_t store_fixture_run(struct tm_store *st)
{
	struct tm_run_meta m = {.machine = "test", .target = "command", .interval_usec = 1000};
	int64_t id = 0;

	assert_int_equal(tm_store_run_begin(st, &m, &id), 0);
	assert_true(id > 0);
	return id;
}

static inline void store_fixture_close(struct store_fixture *f)
{
	tm_store_close(f->st);
	store_fixture_unlink(f->path);
	free(f);
}

#endif
