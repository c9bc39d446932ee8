/*
 * tidemark doctor, the checks that only read files under the host root:
 * cgroup mode, memory controller, PSI, swap and swap accounting, the files
 * that depend on the kernel's version, what --memory-high means here.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/util.h"
#include "doctor/doctor_int.h"
#include "base/banned.h"

/* ---- reading the root ---------------------------------------------------- */

bool tm_doc_put(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

bool tm_doc_path(const struct tm_doc_facts *f, char *buf, size_t size, const char *path)
{
	return tm_doc_put(buf, size, "%s%s", f->root, path);
}

bool tm_doc_exists(const struct tm_doc_facts *f, const char *dir, const char *file)
{
	char path[PATH_MAX + 256];
	return tm_doc_put(path, sizeof(path), "%s%s/%s", f->root, dir, file) &&
	       access(path, F_OK) == 0;
}

/* The text of host file PATH (malloc'd, NUL-terminated) or NULL. */
static char *read_host(const struct tm_doc_facts *f, const char *path, size_t *len)
{
	char full[PATH_MAX];
	size_t n;
	if (!tm_doc_path(f, full, sizeof(full), path))
		return NULL;
	return tm_read_file(full, len ? len : &n);
}

/* The next line of the text at *CURSOR, not empty, ended in place; NULL
 * after the last.  strtok_r(…, "\n", …) without strspn and strcspn: the
 * recorder's start-up reads host facts (tm_doctor_notice), and those two
 * alone would map 64 KiB more of libc's text into it (issue 23,
 * bench/README.md). */
static char *next_line(char **cursor)
{
	char *p = *cursor;
	while (p && *p == '\n')
		p++;
	if (!p || !*p)
		return *cursor = NULL;
	char *end = strchrnul(p, '\n');
	*cursor = *end ? end + 1 : NULL;
	*end = '\0';
	return p;
}

/* The first line of host file PATH into BUF ("" when unreadable). */
static void read_line(const struct tm_doc_facts *f, const char *path, char *buf, size_t size)
{
	char *text = read_host(f, path, NULL);
	buf[0] = '\0';
	if (!text)
		return;
	tm_doc_put(buf, size, "%s", text);
	*strchrnul(buf, '\n') = '\0';
	free(text);
}

/* Whether the blank-separated list TEXT has WORD. */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return true;
	return false;
}

bool tm_doc_cmdline_has(const struct tm_doc_facts *f, const char *word)
{
	return has_word(f->cmdline, word);
}

/* cgroup v1 hierarchies in mountinfo (filesystem type "cgroup"). */
static int count_v1(const char *mountinfo)
{
	int n = 0;
	for (const char *p = mountinfo; (p = strstr(p, " - cgroup ")); p++)
		n++;
	return n;
}

/* proc/cgroups: the memory line's "enabled" column. */
static int memcg_enabled(const struct tm_doc_facts *f)
{
	char *text = read_host(f, "/proc/cgroups", NULL), *save = text;
	int enabled = -1;
	if (!text)
		return -2;
	for (char *line; (line = next_line(&save));) {
		char name[64];
		int hier, num, en;
		if (sscanf(line, "%63s %d %d %d", name, &hier, &num, &en) == 4 &&
		    !strcmp(name, "memory"))
			enabled = en ? 1 : 0;
	}
	free(text);
	return enabled;
}

/* A cgroup with memory files: on v1 the memory hierarchy's root; on v2 a
 * child of the root (the root cgroup has no memory.max or memory.peak). */
static void find_probe(struct tm_doc_facts *f)
{
	static const char *const preferred[] = {"system.slice", "user.slice", "init.scope",
	                                        "tidemark"};
	const struct tm_cg_mounts *m = &f->cg.mounts;
	char dir[PATH_MAX];

	f->probe[0] = '\0';
	if (m->memory.found) {
		tm_doc_put(f->probe, sizeof(f->probe), "%s", m->memory.dir);
		return;
	}
	if (!m->unified.found)
		return;
	for (size_t i = 0; i < sizeof(preferred) / sizeof(preferred[0]); i++) {
		if (tm_doc_put(dir, sizeof(dir), "%s/%s", m->unified.dir, preferred[i]) &&
		    tm_doc_exists(f, dir, "memory.current")) {
			tm_doc_put(f->probe, sizeof(f->probe), "%s", dir);
			return;
		}
	}
	char full[PATH_MAX];
	DIR *d = tm_doc_path(f, full, sizeof(full), m->unified.dir) ? opendir(full) : NULL;
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.' ||
		    !tm_doc_put(dir, sizeof(dir), "%s/%s", m->unified.dir, de->d_name))
			continue;
		if (tm_doc_exists(f, dir, "memory.current")) {
			tm_doc_put(f->probe, sizeof(f->probe), "%s", dir);
			break;
		}
	}
	if (d)
		closedir(d);
}

void tm_doc_probe_own(struct tm_doc_facts *f)
{
	const struct tm_cg_mounts *m = &f->cg.mounts;
	char dir[PATH_MAX], full[PATH_MAX], ctl[PATH_MAX];

	if (!f->host->live || f->probe[0] || !m->unified.found || m->memory.found ||
	    !tm_doc_put(dir, sizeof(dir), "%s/tidemark-doctor-%d", m->unified.dir, (int)getpid()) ||
	    !tm_doc_path(f, full, sizeof(full), dir) ||
	    !tm_doc_put(ctl, sizeof(ctl), "%s%s/cgroup.subtree_control", f->root, m->unified.dir))
		return;
	char *sub = tm_read_file(ctl, NULL);
	if (sub && !has_word(sub, "memory") && tm_write_file(ctl, "+memory") == 0)
		f->own_enabled_memory = true;
	free(sub);
	if (mkdir(full, 0755) == 0) {
		tm_doc_put(f->own, sizeof(f->own), "%s", full);
		if (tm_doc_exists(f, dir, "memory.current"))
			tm_doc_put(f->probe, sizeof(f->probe), "%s", dir);
	} else if (f->own_enabled_memory) {
		tm_doc_probe_release(f);
	}
}

void tm_doc_probe_release(struct tm_doc_facts *f)
{
	char ctl[PATH_MAX];

	if (f->own[0])
		rmdir(f->own);
	f->own[0] = '\0';
	if (f->own_enabled_memory && tm_doc_put(ctl, sizeof(ctl), "%s%s/cgroup.subtree_control",
	                                        f->root, f->cg.mounts.unified.dir))
		tm_write_file(ctl, "-memory");
	f->own_enabled_memory = false;
}

static void find_pi(struct tm_doc_facts *f)
{
	read_line(f, "/proc/device-tree/model", f->pi_model, sizeof(f->pi_model));
	if (!strstr(f->pi_model, "Raspberry Pi"))
		f->pi_model[0] = '\0';
	f->pi_cmdline_txt = NULL;
	if (tm_doc_exists(f, "/boot/firmware", "cmdline.txt"))
		f->pi_cmdline_txt = "/boot/firmware/cmdline.txt";
	else if (tm_doc_exists(f, "/boot", "cmdline.txt"))
		f->pi_cmdline_txt = "/boot/cmdline.txt";
	else if (tm_doc_exists(f, "", "cmdline.txt") && tm_doc_exists(f, "", "config.txt"))
		f->pi_cmdline_txt = "/cmdline.txt"; /* the root is a Pi's boot partition */
	f->is_pi = f->pi_model[0] || f->pi_cmdline_txt || strstr(f->release, "rpi") ||
	           tm_doc_exists(f, "/etc", "rpi-issue");
}

void tm_doc_facts_read(const struct tm_doc_host *host, struct tm_doc_facts *f)
{
	size_t len;
	char *mi;

	memset(f, 0, sizeof(*f));
	f->host = host;
	tm_doc_put(f->root, sizeof(f->root), "%s", host->root && *host->root ? host->root : "/");
	len = strlen(f->root);
	while (len > 0 && f->root[len - 1] == '/')
		f->root[--len] = '\0';
	read_line(f, "/proc/cmdline", f->cmdline, sizeof(f->cmdline));
	read_line(f, "/proc/sys/kernel/osrelease", f->release, sizeof(f->release));
	mi = read_host(f, "/proc/self/mountinfo", &len);
	if (mi && tm_cg_host_parse(mi, len, &f->cg) == 0) {
		f->mountinfo_read = true;
		f->n_v1 = count_v1(mi);
	}
	free(mi);
	f->memcg_enabled = memcg_enabled(f);
	find_probe(f);
	find_pi(f);
	f->offline = !f->mountinfo_read && !f->cmdline[0];
	if (f->offline && f->pi_cmdline_txt)
		read_line(f, f->pi_cmdline_txt, f->cmdline, sizeof(f->cmdline));
}

void tm_doc_cmdline_fix(const struct tm_doc_facts *f, bool add, const char *word, char *buf,
                        size_t size)
{
	const char *verb = add ? "add" : "remove", *prep = add ? "to" : "from";

	if (f->is_pi && f->pi_cmdline_txt)
		tm_doc_put(
		    buf, size,
		    "%s `%s` %s the one line of %s%s (the kernel command line of a Raspberry "
		    "Pi), then reboot",
		    verb, word, prep, f->offline ? f->root : "", f->pi_cmdline_txt);
	else if (f->is_pi)
		tm_doc_put(
		    buf, size,
		    "%s `%s` %s the one line of /boot/firmware/cmdline.txt (current Raspberry "
		    "Pi OS; /boot/cmdline.txt on releases before bookworm), then reboot",
		    verb, word, prep);
	else
		tm_doc_put(buf, size,
		           "%s `%s` %s GRUB_CMDLINE_LINUX in /etc/default/grub, run `update-grub`, "
		           "then reboot",
		           verb, word, prep);
}

/* ---- the checks ---------------------------------------------------------- */

static void say(struct tm_doc_result *r, enum tm_doc_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(struct tm_doc_result *r, enum tm_doc_status st, const char *fmt, ...)
{
	va_list ap;
	r->status = st;
	va_start(ap, fmt);
	vsnprintf(r->summary, sizeof(r->summary), fmt, ap);
	va_end(ap);
}

static void check_mode(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	const struct tm_cg_mounts *m = &f->cg.mounts;
	char fix[512];

	if (f->offline) {
		say(r, TM_DOC_SKIPPED,
		    "not a running system: %s has no proc/self/mountinfo (a disk, such as a "
		    "Raspberry Pi's SD card); the mode shows when doctor runs on the host itself",
		    f->root);
		return;
	}
	if (!f->mountinfo_read) {
		say(r, TM_DOC_PROBLEM, "cannot read %s/proc/self/mountinfo", f->root);
		tm_doc_put(
		    r->fix, sizeof(r->fix),
		    "mount /proc (`mount -t proc proc %s/proc`), as the running system has it",
		    f->root);
		return;
	}
	tm_doc_cmdline_fix(f, true, "systemd.unified_cgroup_hierarchy=1", fix, sizeof(fix));
	if (m->unified.found && f->n_v1 == 0) {
		tm_doc_put(r->value, sizeof(r->value), "v2");
		say(r, TM_DOC_OK, "v2: cgroup2 alone, at %s", m->unified.dir);
	} else if (m->unified.found) {
		tm_doc_put(r->value, sizeof(r->value), "hybrid");
		say(r, TM_DOC_NOTE,
		    "hybrid: %d cgroup v1 hierarchies beside cgroup2 at %s; memory figures and "
		    "limits come from v1%s%s, PSI and CPU from cgroup2",
		    f->n_v1, m->unified.dir, m->memory.found ? " at " : "",
		    m->memory.found ? m->memory.dir : "");
		tm_doc_put(r->fix, sizeof(r->fix),
		           "for cgroup v2 alone (memory.high that throttles, "
		           "memory.peak, memory.events): %s",
		           fix);
	} else if (f->n_v1 > 0) {
		tm_doc_put(r->value, sizeof(r->value), "v1");
		say(r, TM_DOC_WARN,
		    "v1 only (%d hierarchies, no cgroup2): no per-cgroup pressure (PSI), and "
		    "memory.high is only a soft limit",
		    f->n_v1);
		tm_doc_put(r->fix, sizeof(r->fix), "for cgroup v2: %s", fix);
	} else {
		tm_doc_put(r->value, sizeof(r->value), "none");
		say(r, TM_DOC_PROBLEM, "no cgroup filesystem is mounted");
		tm_doc_put(r->fix, sizeof(r->fix),
		           "mount cgroup2 as root: `mount -t cgroup2 none /sys/fs/cgroup` (systemd "
		           "does it at boot)");
	}
}

/*
 * On a disk (F->offline): whether the kernel command line it keeps
 * (cmdline.txt) has WHAT on at the next boot.  Raspberry Pi kernels leave
 * it off without ON_WORD; OFF_WORD turns it off.  LOSES: what is missing
 * while it is off.  Elsewhere there is no command line to read: skipped.
 */
static void offline_cmdline(const struct tm_doc_facts *f, struct tm_doc_result *r, const char *what,
                            const char *on_word, const char *off_word, const char *loses)
{
	bool on = tm_doc_cmdline_has(f, on_word), off = tm_doc_cmdline_has(f, off_word);
	size_t n;

	if (!f->pi_cmdline_txt) {
		say(r, TM_DOC_SKIPPED, "%s: %s",
		    f->is_pi ? "a Raspberry Pi's root file system without its boot partition "
		               "(where cmdline.txt, its kernel command line, is)"
		             : "not a running system, and no cmdline.txt under it",
		    f->is_pi ? "run `tidemark doctor --root` on the boot partition (such as "
		               "/media/$USER/bootfs)"
		             : "run tidemark doctor on the host itself");
		return;
	}
	if (on && !off) {
		tm_doc_put(r->value, sizeof(r->value), "on");
		say(r, TM_DOC_OK, "on at the next boot: %s%s has %s", f->root, f->pi_cmdline_txt,
		    on_word);
		return;
	}
	tm_doc_put(r->value, sizeof(r->value), "off");
	say(r, TM_DOC_PROBLEM,
	    "off at the next boot: %s%s has %s%s (%s is off on Raspberry Pi "
	    "kernels without %s): %s",
	    f->root, f->pi_cmdline_txt, off ? "" : "no ", off ? off_word : on_word, what, on_word,
	    loses);
	tm_doc_cmdline_fix(f, true, on_word, r->fix, sizeof(r->fix));
	if (off && (n = strlen(r->fix)) < sizeof(r->fix))
		tm_doc_put(r->fix + n, sizeof(r->fix) - n, "; and remove `%s` from it", off_word);
}

/* Why the memory controller is missing, and the fix, into R. */
static void memctl_problem(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	if (f->memcg_enabled == -1) {
		say(r, TM_DOC_PROBLEM,
		    "missing: /proc/cgroups has no memory line, the kernel was built without "
		    "it (CONFIG_MEMCG); no limits, no cgroup memory figures");
		tm_doc_put(
		    r->fix, sizeof(r->fix),
		    "boot a kernel built with CONFIG_MEMCG=y (Debian's linux-image-amd64 and "
		    "-arm64, and Raspberry Pi OS's kernels, have it)");
	} else if (tm_doc_cmdline_has(f, "cgroup_disable=memory") || f->memcg_enabled == 0) {
		bool by_cmdline = tm_doc_cmdline_has(f, "cgroup_disable=memory");
		say(r, TM_DOC_PROBLEM, "disabled%s: no limits, no cgroup memory figures",
		    by_cmdline ? " by cgroup_disable=memory on the kernel command line"
		               : " (/proc/cgroups: memory enabled 0)");
		if (f->is_pi || !by_cmdline)
			tm_doc_cmdline_fix(f, true, "cgroup_enable=memory", r->fix, sizeof(r->fix));
		else
			tm_doc_cmdline_fix(f, false, "cgroup_disable=memory", r->fix,
			                   sizeof(r->fix));
		if (f->is_pi) {
			size_t n = strlen(r->fix);
			tm_doc_put(
			    r->fix + n, sizeof(r->fix) - n,
			    " (older Raspberry Pi kernels also want `cgroup_memory=1` there)");
		}
	} else {
		say(r, TM_DOC_PROBLEM,
		    "enabled in the kernel but neither mounted as a v1 hierarchy nor offered by "
		    "cgroup2 (cgroup.controllers)");
		tm_doc_put(
		    r->fix, sizeof(r->fix),
		    "as root: `mount -t cgroup -o memory memory /sys/fs/cgroup/memory`, or boot "
		    "with `systemd.unified_cgroup_hierarchy=1` so that cgroup2 gets it");
	}
}

static void check_memctl(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	const struct tm_cg_mounts *m = &f->cg.mounts;
	char path[PATH_MAX + 32];

	if (f->offline) {
		offline_cmdline(f, r, "the memory controller", "cgroup_enable=memory",
		                "cgroup_disable=memory", "no limits, no cgroup memory figures");
		size_t n = strlen(r->fix);
		if (r->status == TM_DOC_PROBLEM && n)
			tm_doc_put(
			    r->fix + n, sizeof(r->fix) - n,
			    " (older Raspberry Pi kernels also want `cgroup_memory=1` there)");
		return;
	}
	if (m->memory.found) {
		tm_doc_put(r->value, sizeof(r->value), "v1");
		say(r, TM_DOC_OK, "enabled: the v1 memory hierarchy is mounted at %s",
		    m->memory.dir);
		return;
	}
	if (m->unified.found) {
		tm_doc_put(path, sizeof(path), "%s/cgroup.controllers", m->unified.dir);
		char *text = read_host(f, path, NULL);
		bool has = text && has_word(text, "memory");
		free(text);
		if (has) {
			tm_doc_put(r->value, sizeof(r->value), "v2");
			say(r, TM_DOC_OK, "enabled: %s lists memory", path);
			return;
		}
	}
	tm_doc_put(r->value, sizeof(r->value), "none");
	memctl_problem(f, r);
}

static void check_psi(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	char config[PATH_MAX], *text;
	bool built_without = false;

	if ((text = read_host(f, "/proc/pressure/memory", NULL))) {
		free(text);
		say(r, TM_DOC_OK, "present and enabled: /proc/pressure/memory, cpu, io%s",
		    f->cg.mounts.unified.found ? ", and per cgroup on cgroup2" : "");
		tm_doc_put(r->value, sizeof(r->value), "on");
		return;
	}
	if (f->offline) {
		offline_cmdline(f, r, "PSI", "psi=1", "psi=0",
		                "memory, CPU and I/O pressure will be n/a");
		return;
	}
	tm_doc_put(r->value, sizeof(r->value), "off");
	tm_doc_put(config, sizeof(config), "/boot/config-%s", f->release);
	if (f->release[0] && (text = read_host(f, config, NULL))) {
		built_without = strstr(text, "\nCONFIG_PSI=y") == NULL;
		free(text);
	}
	if (built_without) {
		say(r, TM_DOC_PROBLEM,
		    "missing: kernel %s was built without it (CONFIG_PSI); memory, CPU and I/O "
		    "pressure will be n/a",
		    f->release);
		tm_doc_put(r->fix, sizeof(r->fix),
		           "boot a kernel built with CONFIG_PSI=y (Debian's kernels have it)");
	} else if (tm_doc_cmdline_has(f, "psi=0")) {
		say(r, TM_DOC_PROBLEM,
		    "off: psi=0 on the kernel command line; memory, CPU and I/O pressure will be "
		    "n/a");
		tm_doc_cmdline_fix(f, false, "psi=0", r->fix, sizeof(r->fix));
	} else {
		say(r, TM_DOC_PROBLEM,
		    "off: no /proc/pressure (a kernel built with PSI off by default, as Raspberry "
		    "Pi kernels are); memory, CPU and I/O pressure will be n/a");
		tm_doc_cmdline_fix(f, true, "psi=1", r->fix, sizeof(r->fix));
	}
}

static void check_swap(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	char *text = read_host(f, "/proc/swaps", NULL), *save = text;
	int64_t kib = 0;
	int n = 0;
	char mib[32];

	if (!text) {
		say(r, TM_DOC_SKIPPED, "cannot read /proc/swaps");
		return;
	}
	for (char *line; (line = next_line(&save));) {
		char name[256], type[32];
		long long size;
		if (sscanf(line, "%255s %31s %lld", name, type, &size) == 3) {
			kib += size;
			n++;
		}
	}
	free(text);
	tm_doc_put(r->value, sizeof(r->value), "%lld", (long long)kib * 1024);
	if (n == 0)
		say(r, TM_DOC_NOTE,
		    "none: --swap-max and memory.swap.max change nothing, and a program over its "
		    "memory limit is OOM-killed without swapping");
	else
		say(r, TM_DOC_OK, "%d area%s, %s", n, n == 1 ? "" : "s",
		    tm_fmt_mib(mib, sizeof(mib), kib * 1024));
}

/* Said after the probe's path when doctor made it. */
static const char *own_note(const struct tm_doc_facts *f)
{
	return f->own[0] ? " (a cgroup doctor made to look at and removed)" : "";
}

static void check_swap_accounting(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	bool v1 = f->cg.mounts.memory.found;
	const char *file = v1 ? "memory.memsw.usage_in_bytes" : "memory.swap.current";
	struct tm_doc_result swap;

	if (!f->probe[0]) {
		say(r, TM_DOC_SKIPPED, "no cgroup with memory files to look at");
		return;
	}
	if (tm_doc_exists(f, f->probe, file)) {
		tm_doc_put(r->value, sizeof(r->value), "on");
		say(r, TM_DOC_OK, "on: %s/%s is there%s", f->probe, file, own_note(f));
		return;
	}
	memset(&swap, 0, sizeof(swap));
	check_swap(f, &swap);
	tm_doc_put(r->value, sizeof(r->value), "off");
	say(r, strcmp(swap.value, "0") ? TM_DOC_WARN : TM_DOC_NOTE,
	    "off (%s/%s is missing): --swap-max cannot be set and a cgroup's swap use is n/a%s",
	    f->probe, file, strcmp(swap.value, "0") ? "" : " (no swap on this host either)");
	if (tm_doc_cmdline_has(f, "swapaccount=0"))
		tm_doc_cmdline_fix(f, false, "swapaccount=0", r->fix, sizeof(r->fix));
	else
		tm_doc_cmdline_fix(f, true, "swapaccount=1", r->fix, sizeof(r->fix));
}

static void check_kernel_files(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	tm_doc_put(r->value, sizeof(r->value), "%s", f->release);
	if (!f->probe[0]) {
		say(r, TM_DOC_SKIPPED, "kernel %s; no cgroup with memory files to look at",
		    f->release[0] ? f->release : "unknown");
		return;
	}
	if (f->cg.mounts.memory.found) {
		bool peak = tm_doc_exists(f, f->probe, "memory.max_usage_in_bytes");
		say(r, peak ? TM_DOC_OK : TM_DOC_WARN,
		    "kernel %s, cgroup v1: memory.max_usage_in_bytes (the kernel's peak) %s; "
		    "memory.events and memory.peak are v2 only",
		    f->release, peak ? "is there" : "is missing");
		return;
	}
	bool peak = tm_doc_exists(f, f->probe, "memory.peak");
	bool swap_peak = tm_doc_exists(f, f->probe, "memory.swap.peak");
	bool local = tm_doc_exists(f, f->probe, "memory.events.local");
	say(r, peak ? TM_DOC_OK : TM_DOC_WARN,
	    "kernel %s, in %s%s: memory.peak %s (5.19 on), memory.swap.peak %s (6.5 on), "
	    "memory.events.local %s (5.2 on)%s",
	    f->release, f->probe, own_note(f), peak ? "yes" : "no", swap_peak ? "yes" : "no",
	    local ? "yes" : "no",
	    peak ? "" : "; the kernel's peak will be n/a (tidemark's sampled peak is still shown)");
	if (!peak)
		tm_doc_put(r->fix, sizeof(r->fix),
		           "for memory.peak, a kernel 5.19 or later (Debian 12's 6.1, or "
		           "bookworm-backports; Raspberry Pi OS bookworm's 6.1 and later)");
}

static void check_memory_high(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	if (f->cg.mounts.memory.found) {
		tm_doc_put(r->value, sizeof(r->value), "soft");
		say(r, TM_DOC_WARN,
		    "cgroup v1: --memory-high becomes memory.soft_limit_in_bytes, a soft limit "
		    "the kernel enforces only when the whole machine is short of memory; it never "
		    "throttles the program as v2's memory.high does (--memory-max is a hard limit "
		    "on both)");
		char fix[600];
		tm_doc_cmdline_fix(f, true, "systemd.unified_cgroup_hierarchy=1", fix, sizeof(fix));
		tm_doc_put(r->fix, sizeof(r->fix),
		           "for a memory.high that throttles, cgroup v2: %s", fix);
	} else if (f->cg.mounts.unified.found) {
		tm_doc_put(r->value, sizeof(r->value), "throttles");
		say(r, TM_DOC_OK, "cgroup v2: memory.high throttles and reclaims above it");
	} else {
		say(r, TM_DOC_SKIPPED, "no cgroup hierarchy");
	}
}

void tm_doc_check_files(const struct tm_doc_facts *f, enum tm_doc_check check,
                        struct tm_doc_result *r)
{
	switch (check) {
	case TM_DOC_CGROUP_MODE:
		check_mode(f, r);
		break;
	case TM_DOC_MEMORY_CONTROLLER:
		check_memctl(f, r);
		break;
	case TM_DOC_PSI:
		check_psi(f, r);
		break;
	case TM_DOC_SWAP:
		check_swap(f, r);
		break;
	case TM_DOC_SWAP_ACCOUNTING:
		check_swap_accounting(f, r);
		break;
	case TM_DOC_KERNEL_FILES:
		check_kernel_files(f, r);
		break;
	case TM_DOC_MEMORY_HIGH:
		check_memory_high(f, r);
		break;
	default:
		tm_doc_check_env(f, check, r);
		break;
	}
}
