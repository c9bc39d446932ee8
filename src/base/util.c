#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "base/error.h"
#include "base/util.h"
#include "tidemark-size.h"
#include "tm_paths.h" /* build/gen: TM_LIBDIR_REL */
#include "base/banned.h"

int tm_parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* A non-negative decimal with an optional fraction, then a suffix. */
static int parse_scaled(const char *s, double *num, const char **suffix)
{
	char *end;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*num = strtod(s, &end);
	if (errno || end == s || !isfinite(*num) || *num < 0)
		return -1;
	*suffix = end;
	return 0;
}

struct unit {
	const char *suffix;
	double mult;
};

/* NUM times the multiplier of SUFFIX from UNITS, as an int64. */
static int apply_unit(double num, const char *suffix, const struct unit *units, size_t n,
                      int64_t *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(suffix, units[i].suffix))
			continue;
		num *= units[i].mult;
		if (num >= 9.2e18)
			return -1;
		*out = (int64_t)llround(num);
		return 0;
	}
	return -1;
}

int tm_parse_size(const char *s, int64_t *out_bytes)
{
	return tm_size_parse(s, out_bytes);
}

int tm_parse_duration(const char *s, int64_t *out_usec)
{
	static const struct unit units[] = {
	    {"", 1e6},   {"s", 1e6},    {"ms", 1e3},   {"us", 1},
	    {"m", 60e6}, {"min", 60e6}, {"h", 3600e6},
	};
	const char *suffix;
	double num;

	if (parse_scaled(s, &num, &suffix))
		return -1;
	return apply_unit(num, suffix, units, TM_ARRAY_SIZE(units), out_usec);
}

static int64_t clock_usec(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t tm_now_wall_usec(void)
{
	return clock_usec(CLOCK_REALTIME);
}

int64_t tm_now_mono_usec(void)
{
	return clock_usec(CLOCK_MONOTONIC);
}

void tm_sleep_until_mono(int64_t deadline_usec, volatile const int *stop)
{
	struct timespec ts = {
	    .tv_sec = deadline_usec / 1000000,
	    .tv_nsec = (deadline_usec % 1000000) * 1000,
	};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (stop && *stop)
			return;
}

ssize_t tm_pread_all(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n = pread(fd, buf + len, size - 1 - len, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

/* PATH relative to DIRFD, opened read-only with FLAGS too, into BUF. */
static ssize_t read_with(int dirfd, const char *path, int flags, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | flags);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = tm_pread_all(fd, buf, size);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

ssize_t tm_read_at(int dirfd, const char *path, char *buf, size_t size)
{
	return read_with(dirfd, path, 0, buf, size);
}

ssize_t tm_read_small(const char *path, char *buf, size_t size)
{
	return read_with(AT_FDCWD, path, O_NOFOLLOW | O_NONBLOCK, buf, size);
}

char *tm_read_file(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, len = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

int tm_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

void *tm_pages_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void tm_pages_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

int tm_grow(void *array, size_t *cap, size_t n, size_t elem_size, size_t first)
{
	void **p = array, *bigger;
	size_t want;

	if (n < *cap)
		return 0;
	want = *cap ? *cap * 2 : first;
	bigger = realloc(*p, want * elem_size);
	if (!bigger)
		return tm_error("out of memory");
	*p = bigger;
	*cap = want;
	return 0;
}

/* DIR + NAME into BUF when that file is readable; 0, 1 when not, -1 if too long. */
static int lib_at(const char *dir, const char *name, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s%s", dir, name);
	if (n < 0 || (size_t)n >= size)
		return tm_error("the path of '%s' is too long", name);
	return access(buf, R_OK) == 0 ? 0 : 1;
}

int tm_lib_path(const char *name, const char *env_var, char *buf, size_t size)
{
	const char *env = getenv(env_var);
	char exe[4096], dir[4200], *slash;
	ssize_t n;

	if (env && *env) {
		if (strlen(env) >= size)
			return tm_error("%s is too long", env_var);
		if (access(env, R_OK) < 0)
			return tm_error("cannot read '%s' (%s): %s", env, env_var, strerror(errno));
		memcpy(buf, env, strlen(env) + 1);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return tm_error("cannot read '/proc/self/exe': %s", strerror(errno));
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		slash[1] = '\0';
	/* an installed binary: the library folder make install chose, relative
	 * to the binary's (mk/install.mk); a checkout: next to it, in build/ */
	snprintf(dir, sizeof(dir), "%s%s/", exe, TM_LIBDIR_REL);
	int rc = lib_at(dir, name, buf, size);
	if (rc == 1)
		rc = lib_at(exe, name, buf, size);
	if (rc == 1)
		return tm_error(
		    "cannot find '%s' in '%s' or next to the binary (build it with make, "
		    "or set %s)",
		    name, dir, env_var);
	return rc;
}

const char *tm_fmt_mib(char *buf, size_t size, int64_t bytes)
{
	snprintf(buf, size, "%.1f MiB", (double)bytes / TM_MIB);
	return buf;
}

const char *tm_mib_text(char *buf, size_t size, double bytes)
{
	if (!isfinite(bytes))
		return "n/a";
	snprintf(buf, size, "%.1f MiB", bytes / TM_MIB);
	return buf;
}

const char *tm_secs_text(char *buf, size_t size, double usec)
{
	if (!isfinite(usec))
		return "n/a";
	snprintf(buf, size, "%.1f s", usec / 1e6);
	return buf;
}

const char *tm_count_text(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		return "n/a";
	snprintf(buf, size, "%.0f", v);
	return buf;
}

/* V / DIV with three significant digits (at most), then UNIT. */
static const char *sig3(char *buf, size_t size, double v, double div, const char *unit, bool sign)
{
	double x = v / div, a = fabs(x);
	int d = a >= 99.95 || div == 1 ? 0 : a >= 9.995 ? 1 : 2;

	if (div == 1 && a < 9.995 && a != floor(a))
		d = 2; /* a fraction of a byte or µs, as an average can be */
	snprintf(buf, size, sign ? "%+.*f %s" : "%.*f %s", d, x, unit);
	return buf;
}

const char *tm_cost_bytes_text(char *buf, size_t size, double bytes, bool sign)
{
	double a = fabs(bytes);

	if (!isfinite(bytes))
		return "n/a";
	if (a < 1024) /* "1012 B", as the bench table, not "0.99 KiB" */
		return sig3(buf, size, bytes, 1, "B", sign);
	if (a < 1024 * 1024)
		return sig3(buf, size, bytes, 1024, "KiB", sign);
	if (a < 1024 * TM_MIB)
		return sig3(buf, size, bytes, TM_MIB, "MiB", sign);
	return sig3(buf, size, bytes, 1024.0 * TM_MIB, "GiB", sign);
}

const char *tm_cost_usec_text(char *buf, size_t size, double usec, bool sign)
{
	double a = fabs(usec);

	if (!isfinite(usec))
		return "n/a";
	if (a < 999.5)
		return sig3(buf, size, usec, 1, "µs", sign);
	if (a < 999.5e3)
		return sig3(buf, size, usec, 1e3, "ms", sign);
	return sig3(buf, size, usec, 1e6, "s", sign);
}

void tm_path_parent(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, size, ".");
	else if (slash == path)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

/* The code point of the well-formed 2- to 4-byte UTF-8 sequence at S (N
 * bytes left) with its length in *LEN, or 0 when there is none there. */
static unsigned utf8_code(const unsigned char *s, size_t n, size_t *len)
{
	unsigned c;
	size_t k;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07u;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((k == 3 && c < 0x800) || (k == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0; /* overlong or out of range */
	*len = k;
	return c;
}

/* Code points that hide, reorder or stand in for nothing in text: C1, the
 * format characters (Unicode's category Cf: bidi marks, embeddings,
 * overrides and isolates, zero-width characters, the byte order mark,
 * interlinear annotation, tag characters), the line and paragraph
 * separators, the fillers and variation selectors that show as nothing. */
static const unsigned hidden_ranges[][2] = {
    {0x0080, 0x009f},   {0x00ad, 0x00ad},   {0x034f, 0x034f},   {0x0600, 0x0605},
    {0x061c, 0x061c},   {0x06dd, 0x06dd},   {0x070f, 0x070f},   {0x0890, 0x0891},
    {0x08e2, 0x08e2},   {0x115f, 0x1160},   {0x17b4, 0x17b5},   {0x180b, 0x180f},
    {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x206f},   {0x3164, 0x3164},
    {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},   {0xffa0, 0xffa0},   {0xfff9, 0xfffb},
    {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},
    {0x1d173, 0x1d17a}, {0xe0000, 0xe007f}, {0xe0100, 0xe01ef},
};

bool tm_text_is_hidden_control(const unsigned char *s, size_t n, size_t *len)
{
	size_t k;
	unsigned c = n ? utf8_code(s, n, &k) : 0;

	for (size_t i = 0; c && i < sizeof(hidden_ranges) / sizeof(hidden_ranges[0]); i++)
		if (c >= hidden_ranges[i][0] && c <= hidden_ranges[i][1])
			return *len = k, true;
	return false;
}

const char *tm_text_safe(char *buf, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)(src ? src : "");
	size_t n = strlen((const char *)p), used = 0, clen;

	if (!size)
		return buf;
	for (size_t i = 0; i < n;) {
		char esc[16];
		size_t add;
		if (p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\') {
			add = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			clen = 1;
		} else if (tm_text_is_hidden_control(p + i, n - i, &clen)) {
			add = (size_t)snprintf(esc, sizeof(esc), "\\u{%04x}",
			                       utf8_code(p + i, n - i, &clen));
		} else {
			add = clen = 1;
			esc[0] = (char)p[i];
		}
		if (used + add >= size)
			break;
		memcpy(buf + used, esc, add);
		used += add;
		i += clen;
	}
	buf[used] = '\0';
	return buf;
}

bool tm_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TM_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}
