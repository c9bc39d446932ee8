/*
 * tidemark doctor: is this host ready to record and bench, and what to
 * change.  Every check reads files under a host root ("/" or a fixture
 * tree: tests/fixtures/doctor/), so the same code runs on a live host, on
 * fixtures and on a Raspberry Pi's SD card mounted elsewhere; only the two
 * checks that need the running system (who may create cgroups, whether the
 * heap shim loads) look past the files, and only when told the root is live.
 */
#ifndef TM_DOCTOR_H
#define TM_DOCTOR_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/allocators.h"

enum tm_doc_status {
	TM_DOC_OK,      /* ready */
	TM_DOC_NOTE,    /* works; worth knowing */
	TM_DOC_WARN,    /* works, but some figure or limit is missing or weaker */
	TM_DOC_PROBLEM, /* tidemark cannot do part of its job until fixed */
	TM_DOC_SKIPPED, /* not checked (not a live host, nothing to look at) */
};

enum tm_doc_check {
	TM_DOC_CGROUP_MODE,
	TM_DOC_MEMORY_CONTROLLER,
	TM_DOC_PSI,
	TM_DOC_SWAP,
	TM_DOC_SWAP_ACCOUNTING,
	TM_DOC_KERNEL_FILES,
	TM_DOC_CREATE_CGROUPS,
	TM_DOC_MEMORY_HIGH,
	/* one check per allocator with a library, in the registry's order
	 * (base/allocators.h): TM_DOC_ALLOC(TM_ALLOC_JEMALLOC), ... */
	TM_DOC_ALLOC_FIRST,
	TM_DOC_ALLOC_LAST = TM_DOC_ALLOC_FIRST + TM_ALLOC_COUNT - TM_ALLOC_FIRST_LIB - 1,
	TM_DOC_HEAP_SHIM,
	TM_DOC_PTY,
	TM_DOC_COUNT
};

/* The check of allocator A (one with a library: A >= TM_ALLOC_FIRST_LIB). */
#define TM_DOC_ALLOC(a) ((enum tm_doc_check)(TM_DOC_ALLOC_FIRST + (a)-TM_ALLOC_FIRST_LIB))

/* What to check. */
struct tm_doc_host {
	const char *root; /* "/" or a directory laid out like one */
	bool live;        /* ROOT is the running system: run programs, ask the kernel */
	uid_t uid;        /* the user whose right to create cgroups is checked */
};

/* One check's answer.  Texts are plain sentences; FIX is "" when none. */
struct tm_doc_result {
	enum tm_doc_check check;
	enum tm_doc_status status;
	char summary[512];
	char fix[768];
	char value[128]; /* a short machine-readable value ("v2", bytes, a path), or "" */
};

/*
 * Runs every check of HOST into OUT[0 .. TM_DOC_COUNT-1] (OUT[i].check ==
 * i).  Never fails: a file that cannot be read is part of an answer.
 * Returns the number of TM_DOC_PROBLEM results.
 */
int tm_doctor_run(const struct tm_doc_host *host, struct tm_doc_result out[TM_DOC_COUNT]);

/* Runs one check (for the other commands' notice and for tests). */
void tm_doctor_check(const struct tm_doc_host *host, enum tm_doc_check check,
                     struct tm_doc_result *out);

/* "cgroup_mode", "memory_controller", ...: the check's name in --json. */
const char *tm_doc_check_name(enum tm_doc_check check);
/* "cgroup mode", "memory controller", ...: its title in the text report. */
const char *tm_doc_check_title(enum tm_doc_check check);
/* "ok", "note", "warn", "problem", "skipped". */
const char *tm_doc_status_name(enum tm_doc_status status);

/*
 * For the other commands: checks only what breaks them (the memory
 * controller and PSI) under ROOT and, when one is a problem, writes one
 * line to F saying which and pointing to `tidemark doctor`.  Call it once
 * per command.  Returns the number of problems found.
 */
int tm_doctor_notice(const char *root, FILE *f);

/*
 * The results as a JSON document (malloc'd, the caller frees):
 *   {"root":"/","problems":1,"checks":[{"name":"psi","status":"problem",
 *    "summary":"...","fix":"..." or null,"value":"..." or null}, ...]}
 * NULL when out of memory.
 */
char *tm_doctor_json(const char *root, const struct tm_doc_result *res, int n);

#endif
