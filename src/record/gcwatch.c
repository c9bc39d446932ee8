#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/gcwatch.h"
#include "runtime/gclog.h"
#include "base/banned.h"

extern char **environ;

int tm_gcwatch_env(enum tm_runtime rt, char *const *envp, char *buf, size_t size)
{
	const struct tm_runtime_desc *d = tm_runtime_desc(rt);
	if (!d || !d->env_var)
		return 1;
	const char *var = d->env_var, *add = d->env_add, *sep = d->env_sep;
	size_t vl = strlen(var);
	const char *old = NULL;
	int n;

	if (!envp)
		envp = environ;
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, var, vl) && (*envp)[vl] == '=')
			old = *envp + vl + 1;
	if (old && *old)
		n = snprintf(buf, size, "%s=%s%s%s", var, old, sep, add);
	else
		n = snprintf(buf, size, "%s=%s", var, add);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Whether NAME's last component is one of the space-separated NAMES. */
static bool is_exe(const char *name, const char *names)
{
	const char *base = strrchr(name, '/');
	size_t n;

	base = base ? base + 1 : name;
	n = strlen(base);
	for (const char *p = names; n && *p; p += strcspn(p, " "), p += strspn(p, " "))
		if (strcspn(p, " ") == n && !strncmp(p, base, n))
			return true;
	return false;
}

int tm_gcwatch_argv(enum tm_runtime rt, char *const *argv, char **out, size_t max)
{
	const struct tm_runtime_desc *d = tm_runtime_desc(rt);
	size_t n = 0;

	if (!d || !d->flag || !argv || !argv[0] || !is_exe(argv[0], d->exe_names))
		return 1;
	for (; argv[n]; n++)
		if (strstr(argv[n], d->flag))
			return 1;
	if (n + 2 > max)
		return 1;
	out[0] = argv[0];
	out[1] = (char *)d->flag;
	memcpy(out + 2, argv + 1, n * sizeof(*out)); /* with its NULL */
	return 0;
}

/* GHCRTS's words, then ARGV's +RTS ... -RTS words: the last -S option. */
static int last_stats_word(const char *words, char *file, size_t size, int rc)
{
	char word[4096];
	const char *p = words;

	while (*p) {
		size_t n = strcspn(p, " \t");
		if (n && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			int r = tm_gclog_ghc_stats_file(word, file, size);
			if (r <= 0)
				rc = r;
		}
		p += n;
		p += strspn(p, " \t");
	}
	return rc;
}

int tm_gcwatch_ghc_target(char *const *envp, char *const *argv, char *file, size_t size)
{
	int rc = 1;
	bool in_rts = false;

	if (!envp)
		envp = environ;
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, "GHCRTS=", 7))
			rc = last_stats_word(*envp + 7, file, size, rc);
	for (int i = 1; argv && argv[0] && argv[i] && rc >= 0; i++) {
		if (!strcmp(argv[i], "--RTS"))
			break;
		if (!strcmp(argv[i], "+RTS") || !strcmp(argv[i], "-RTS"))
			in_rts = argv[i][0] == '+';
		else if (in_rts)
			rc = last_stats_word(argv[i], file, size, rc);
	}
	return rc;
}

void tm_gcfile_init(struct tm_gcfile *f, const char *path)
{
	struct stat sb;

	snprintf(f->path, sizeof(f->path), "%s", path);
	f->fd = -1;
	f->pos = 0;
	f->had_old = false;
	if (lstat(path, &sb) == 0) {
		f->had_old = true;
		f->old_ino = sb.st_ino;
		f->old_mtime_nsec = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	}
}

void tm_gcwatch_use_file(struct tm_gcwatch *w, const char *path)
{
	tm_gcfile_init(&w->file, path);
}

/* The file once the runtime has (re)written it: a regular file of ours,
 * not the one that was there before the launch. */
static void open_file(struct tm_gcfile *f)
{
	struct stat sb;
	int fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
	    (f->had_old && sb.st_ino == f->old_ino &&
	     (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec == f->old_mtime_nsec)) {
		close(fd);
		return;
	}
	f->fd = fd;
	f->pos = 0;
	f->lines.len = 0;
}

void tm_gcfile_poll(struct tm_gcfile *f, tm_line_cb cb, void *ctx)
{
	char buf[16384];
	struct stat sb;
	ssize_t n;

	if (!f->path[0])
		return;
	if (f->fd < 0)
		open_file(f);
	if (f->fd < 0 || fstat(f->fd, &sb))
		return;
	if (sb.st_size < f->pos) { /* rewritten: truncated as the runtime starts */
		f->pos = 0;
		f->lines.len = 0;
	}
	for (int i = 0; i < 64 && (n = pread(f->fd, buf, sizeof(buf), f->pos)) > 0; i++) {
		f->pos += n;
		tm_lines_feed(&f->lines, buf, (size_t)n, cb, ctx);
	}
}

void tm_gcfile_close(struct tm_gcfile *f)
{
	if (f->path[0] && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

static void on_line(void *ctx, const char *line);

void tm_gcwatch_poll(struct tm_gcwatch *w)
{
	if (w->rt == TM_RUNTIME_GHC)
		tm_gcfile_poll(&w->file, on_line, w);
}

void tm_gcwatch_close(struct tm_gcwatch *w)
{
	tm_gcfile_close(&w->file);
	free(w->argv);
	w->argv = NULL;
}

/* A GHC line: a collection, or the exit line that says the last one was
 * the RTS's teardown. */
static void on_ghc_line(struct tm_gcwatch *w, const char *line, size_t n)
{
	struct tm_gc_event e;

	if (w->exited)
		return;
	if (tm_gclog_ghc_exit(line, n) == 0) {
		w->exited = true;
		w->seen = w->seen_before;
		w->live_bytes = w->live_before;
		w->cycles = w->cycles_before;
		return;
	}
	if (tm_gclog_ghc(line, n, &e))
		return;
	w->seen_before = w->seen;
	w->live_before = w->live_bytes;
	w->cycles_before = w->cycles;
	w->seen = true;
	w->live_bytes = e.live_bytes;
	w->cycles++;
}

static void on_line(void *ctx, const char *line)
{
	struct tm_gcwatch *w = ctx;
	struct tm_gc_event e;
	size_t n = strlen(line);

	if (w->rt == TM_RUNTIME_GHC) {
		on_ghc_line(w, line, n);
		return;
	}
	if (tm_runtime_desc(w->rt)->gc_line(line, n, &e))
		return;
	if (e.live_bytes >= 0) {
		w->seen = true;
		w->live_bytes = e.live_bytes;
	}
	w->cycles++;
}

/* Whether W reads its lines from stream I (0 stdout, 1 stderr). */
static bool reads(const struct tm_gcwatch *w, int i)
{
	const struct tm_runtime_desc *d = tm_runtime_desc(w->rt);

	return d && d->gc_line && !w->file.path[0] &&
	       d->stream == (i ? TM_RT_STREAM_STDERR : TM_RT_STREAM_STDOUT);
}

void tm_gcwatch_feed(struct tm_gcwatch *w, int i, const char *data, size_t n)
{
	if (reads(w, i))
		tm_lines_feed(&w->lines, data, n, on_line, w);
}

void tm_gcwatch_flush(struct tm_gcwatch *w, int i)
{
	if (reads(w, i))
		tm_lines_flush(&w->lines, on_line, w);
}

void tm_gcwatch_sample(const struct tm_gcwatch *w, struct tm_sample *s)
{
	if (w->seen)
		tm_sample_set(s, TM_M_GC_HEAP_LIVE_BYTES, w->live_bytes);
	if (w->seen || w->cycles)
		tm_sample_set(s, TM_M_GC_CYCLES, w->cycles);
}
