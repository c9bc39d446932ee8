/*
 * The granularity the host's kernel charges memory in, which the headroom
 * above the peak needed must cover: with transparent huge pages "always" a
 * run's peak moves by a huge page (2 MiB on x86-64) from run to run; else by
 * a page.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "advise/advise.h"
#include "base/util.h"
#include "kern/thp.h"
#include "base/banned.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* Host file ROOT + PATH into BUF (NUL-terminated): its length, or -1. */
static ssize_t read_host(const char *root, const char *path, char *buf, size_t size)
{
	char full[4096];
	int n = snprintf(full, sizeof(full), "%s%s", strcmp(root, "/") ? root : "", path);

	if (n < 0 || (size_t)n >= sizeof(full))
		return -1;
	return tm_read_small(full, buf, size);
}

void tm_advise_host_granule(const char *root, long page_bytes, struct tm_advise_opts *o)
{
	char buf[256];
	ssize_t n = read_host(root, THP_DIR "/enabled", buf, sizeof(buf));
	enum tm_thp_mode mode = TM_THP_UNKNOWN;
	int64_t huge = 0;

	if (n > 0)
		tm_parse_thp_enabled(buf, (size_t)n, &mode);
	n = read_host(root, THP_DIR "/hpage_pmd_size", buf, sizeof(buf));
	if (n <= 0 || tm_parse_thp_size(buf, (size_t)n, &huge))
		huge = 0;
	o->thp_mode = mode;
	if (mode == TM_THP_ALWAYS && huge > 0) {
		o->granule_bytes = (double)huge;
		snprintf(o->granule_from, sizeof(o->granule_from),
		         "THP always on this host: %.0f KiB huge pages", (double)huge / 1024);
	} else if (page_bytes > 0) {
		o->granule_bytes = (double)page_bytes;
		snprintf(o->granule_from, sizeof(o->granule_from),
		         "THP %s on this host: %ld KiB pages", tm_thp_mode_name(mode),
		         page_bytes / 1024);
	} else {
		o->granule_bytes = 0;
		snprintf(o->granule_from, sizeof(o->granule_from), "not known on this host");
	}
}
