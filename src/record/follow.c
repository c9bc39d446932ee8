/*
 * --progress-file: a file followed as `tail -F` does, its new lines matched
 * against --progress.  It is reopened from its start when the name comes to
 * name another file (rotated: renamed away and created again) or when it
 * was cut shorter than what we read (truncated); an existing file is
 * followed from its end (old lines are history), one that does not exist
 * yet from its start once it appears.
 *
 * The recorder wakes only when there is something to look at: an inotify
 * descriptor watches the file (written, truncated, moved or deleted) and its
 * directory (an entry of the file's name created or moved in), and each
 * sample looks once more (a write inotify does not see: another machine's,
 * on NFS).  Where inotify cannot watch (no instance left, no directory
 * yet), the file is looked at every 100 ms as before (inputs.c).  Events
 * for other names in the directory are read and dropped: a directory busy
 * with other files costs reading their events, never a look at ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "record/rec.h"
#include "base/banned.h"

#define FILE_EVENTS (IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)
#define DIR_EVENTS  (IN_CREATE | IN_MOVED_TO)

/* PATH's directory and last component, into DIR and *BASE (inside PATH). */
static int split_path(const char *path, char *dir, size_t size, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		return snprintf(dir, size, ".") >= (int)size ? -1 : 0;
	if (slash == path)
		return snprintf(dir, size, "/") >= (int)size ? -1 : 0;
	return snprintf(dir, size, "%.*s", (int)(slash - path), path) >= (int)size ? -1 : 0;
}

/* Watches the file the name gives now (dropping the watch of the last
 * one): a file not there is watched once its directory says it came. */
static void watch_file(struct follow *f)
{
	int wd;

	if (f->ino_fd < 0)
		return;
	wd = inotify_add_watch(f->ino_fd, f->path, FILE_EVENTS);
	if (wd == f->file_wd)
		return;
	if (f->file_wd >= 0 && f->file_wd != f->dir_wd)
		inotify_rm_watch(f->ino_fd, f->file_wd);
	f->file_wd = wd;
}

/* The inotify side; without it (-1 descriptor) the file is looked at on a
 * period.  Never fails the run. */
static void watch_open(struct follow *f)
{
	char dir[PATH_MAX];

	f->ino_fd = f->file_wd = f->dir_wd = -1;
	if (split_path(f->path, dir, sizeof(dir), &f->base) || !*f->base)
		return;
	f->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (f->ino_fd < 0)
		return;
	f->dir_wd = inotify_add_watch(f->ino_fd, dir, DIR_EVENTS | IN_ONLYDIR);
	if (f->dir_wd < 0) {
		close(f->ino_fd);
		f->ino_fd = -1;
		return;
	}
	watch_file(f);
}

void tm_rec_follow_open(struct rec *r)
{
	struct follow *f = &r->follow;
	struct stat sb;

	f->fd = -1;
	f->ino_fd = -1;
	if (!r->o->progress_file)
		return;
	f->path = r->o->progress_file;
	watch_open(f); /* before the first look: nothing written after it is missed */
	if (stat(f->path, &sb) == 0) {
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		f->ino = sb.st_ino;
		f->pos = sb.st_size;
	}
}

int tm_rec_follow_fd(const struct rec *r)
{
	return r->follow.ino_fd;
}

static void on_line(void *ctx, const char *line)
{
	tm_rec_progress_line(ctx, line);
}

void tm_rec_follow_poll(struct rec *r)
{
	struct follow *f = &r->follow;
	struct stat sb;
	char buf[8192];
	ssize_t n;

	if (!f->path)
		return;
	if (stat(f->path, &sb) == 0 && (f->fd < 0 || sb.st_ino != f->ino || sb.st_size < f->pos)) {
		if (f->fd >= 0)
			close(f->fd);
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		f->ino = sb.st_ino;
		f->pos = 0;
		f->lines.len = 0;
		watch_file(f);
	}
	if (f->fd < 0)
		return;
	while ((n = pread(f->fd, buf, sizeof(buf), f->pos)) > 0) {
		f->pos += n;
		tm_lines_feed(&f->lines, buf, (size_t)n, on_line, r);
	}
}

/* True when an event read says our file may have changed. */
static bool about_us(const struct follow *f, const struct inotify_event *ev)
{
	if (ev->mask & IN_Q_OVERFLOW)
		return true;
	if (ev->wd != f->dir_wd)
		return true;
	return ev->len && strcmp(ev->name, f->base) == 0;
}

void tm_rec_follow_ready(struct rec *r)
{
	struct follow *f = &r->follow;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool look = false;
	ssize_t n;
	int reads = 0;

	/* at most 16 reads a wake: what is left wakes the next poll */
	while (reads++ < 16 && (n = read(f->ino_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
			look |= about_us(f, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
	if (look)
		tm_rec_follow_poll(r);
}

void tm_rec_follow_close(struct rec *r)
{
	struct follow *f = &r->follow;

	if (f->fd >= 0)
		close(f->fd);
	if (f->ino_fd >= 0)
		close(f->ino_fd);
	f->fd = f->ino_fd = -1;
}
