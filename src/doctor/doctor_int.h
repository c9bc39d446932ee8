/* Internals of doctor/: what the checks know about a host root. */
#ifndef TM_DOCTOR_INT_H
#define TM_DOCTOR_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cgroup/cgroup.h"
#include "doctor/doctor.h"

struct tm_doc_facts {
	const struct tm_doc_host *host;
	char root[PATH_MAX];  /* ROOT without its trailing '/': "" for "/" */
	bool mountinfo_read;  /* proc/self/mountinfo was there and parsed */
	struct tm_cg_host cg; /* tidemark's own view (cgroup/) */
	int n_v1;             /* cgroup v1 hierarchies mounted (any controller) */
	char cmdline[4096];   /* proc/cmdline, "" when unreadable */
	char release[128];    /* proc/sys/kernel/osrelease, "" when unreadable */
	bool is_pi;           /* a Raspberry Pi (device tree model, rpi kernel, cmdline.txt) */
	char pi_model[128];   /* the device tree's model, "" when none */
	const char *pi_cmdline_txt; /* where its kernel command line is kept */
	bool offline;               /* no proc/cmdline nor proc/self/mountinfo under the root: the
	                             * files of a host that is not running (a Pi's SD card), whose
	                             * CMDLINE is then its cmdline.txt's, when there is one */
	int memcg_enabled;          /* proc/cgroups: 1, 0 (disabled), -1 absent, -2 unreadable */
	char probe[PATH_MAX];       /* host path of a cgroup with memory files ("" when none) */
	char own[PATH_MAX];         /* a child cgroup doctor made to look at ("" when none) */
	bool own_enabled_memory;    /* ... and the memory controller it enabled for it */
};

/* snprintf that says whether all of it fit (texts here may be cut; paths
 * are checked).  True when the whole text fit. */
bool tm_doc_put(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fills F from HOST's root. */
void tm_doc_facts_read(const struct tm_doc_host *host, struct tm_doc_facts *f);

/* On a live cgroup v2 host with no child cgroup with memory files yet (a
 * bare host, an initramfs): makes one of doctor's own as F's probe,
 * enabling the memory controller for the root's children when it was off.
 * Undo with tm_doc_probe_release.  Nothing when it cannot (said by the
 * checks as "no cgroup to look at"). */
void tm_doc_probe_own(struct tm_doc_facts *f);
/* Removes what tm_doc_probe_own made (the cgroup, the controller it enabled). */
void tm_doc_probe_release(struct tm_doc_facts *f);

/* ROOT-prefixed PATH (absolute on the host) into BUF; false when too long. */
bool tm_doc_path(const struct tm_doc_facts *f, char *buf, size_t size, const char *path);

/* Whether host path DIR/FILE exists under the root. */
bool tm_doc_exists(const struct tm_doc_facts *f, const char *dir, const char *file);

/* Whether the kernel command line has WORD (a whole "key=value" or "key"). */
bool tm_doc_cmdline_has(const struct tm_doc_facts *f, const char *word);

/* "add `WORD` to ..." / "remove `WORD` from ...": where this host's kernel
 * command line is edited (cmdline.txt on a Pi, GRUB otherwise), into BUF. */
void tm_doc_cmdline_fix(const struct tm_doc_facts *f, bool add, const char *word, char *buf,
                        size_t size);

/* The checks that need no more than the files (doctor.c) and the rest
 * (doctor_env.c). */
void tm_doc_check_files(const struct tm_doc_facts *f, enum tm_doc_check check,
                        struct tm_doc_result *r);
void tm_doc_check_env(const struct tm_doc_facts *f, enum tm_doc_check check,
                      struct tm_doc_result *r);

#endif
