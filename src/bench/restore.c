/* --restore: replace a directory by a copy of a snapshot; see bench/restore.h. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "bench/restore.h"
#include "base/banned.h"

static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || !strcmp(dir, "/"));
}

int tm_bench_restore_parse(const char *spec, char *snapshot, char *dir, size_t size)
{
	const char *colon = strrchr(spec, ':');
	char snap_real[PATH_MAX], dir_real[PATH_MAX], parent[PATH_MAX];
	struct stat sb;

	if (!colon || colon == spec || !colon[1])
		return tm_error("--restore '%s': expected SNAPSHOT:DIR", spec);
	if ((size_t)(colon - spec) >= size || strlen(colon + 1) >= size)
		return tm_error("--restore '%s': path too long", spec);
	memcpy(snapshot, spec, (size_t)(colon - spec));
	snapshot[colon - spec] = '\0';
	snprintf(dir, size, "%s", colon + 1);
	if (stat(snapshot, &sb) || !S_ISDIR(sb.st_mode))
		return tm_error("--restore: snapshot '%s' is not a directory", snapshot);
	if (!realpath(snapshot, snap_real))
		return tm_error("--restore: '%s': %s", snapshot, strerror(errno));
	if (realpath(dir, dir_real) == NULL) {
		/* DIR may not exist yet; its parent must */
		const char *slash = strrchr(dir, '/');
		const char *base = slash ? slash + 1 : dir;
		tm_path_parent(dir, parent, sizeof(parent));
		if (!realpath(parent, dir_real))
			return tm_error("--restore: cannot create '%s': its parent does not exist",
			                dir);
		size_t n = strlen(dir_real);
		if (n + strlen(base) + 2 > sizeof(dir_real))
			return tm_error("--restore '%s': path too long", spec);
		snprintf(dir_real + n, sizeof(dir_real) - n, "%s%s", n > 1 ? "/" : "", base);
	}
	if (!strcmp(dir_real, "/") || inside(snap_real, dir_real) || inside(dir_real, snap_real))
		return tm_error("--restore: '%s' and '%s' must be separate directories", snapshot,
		                dir);
	return 0;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT)
		return tm_error("--restore: cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

static int copy_data(int in, int out, int64_t size, struct tm_restore_stats *stats)
{
	int64_t left = size;

	if (ioctl(out, FICLONE, in) == 0) {
		stats->reflinked++;
		return 0;
	}
	while (left > 0) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		left -= n;
	}
	if (left <= 0)
		return 0;
	/* copy_file_range unsupported here: plain reads and writes */
	char buf[65536];
	if (lseek(in, size - left, SEEK_SET) < 0)
		return -1;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno != EINTR)
				return -1;
			if (w > 0)
				off += w;
		}
	}
}

static int copy_file(const char *from, const char *to, const struct stat *sb,
                     struct tm_restore_stats *stats)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, rc;

	if (in < 0)
		return tm_error("--restore: cannot read '%s': %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, sb->st_mode & 07777);
	if (out < 0) {
		close(in);
		return tm_error("--restore: cannot create '%s': %s", to, strerror(errno));
	}
	rc = copy_data(in, out, sb->st_size, stats);
	if (rc == 0) {
		struct timespec times[2] = {sb->st_atim, sb->st_mtim};
		futimens(out, times);
		stats->files++;
		stats->bytes += sb->st_size;
	}
	if (close(out) && rc == 0)
		rc = -1;
	close(in);
	if (rc)
		return tm_error("--restore: cannot copy '%s' to '%s': %s", from, to,
		                strerror(errno));
	return 0;
}

/* Copies one entry of the snapshot to the same place under DST. */
static int copy_entry(const char *src_root, const char *dst_root, const char *path,
                      const struct stat *sb, struct tm_restore_stats *stats)
{
	char to[PATH_MAX], link[PATH_MAX];
	const char *rel = path + strlen(src_root);
	ssize_t n;

	if (snprintf(to, sizeof(to), "%s%s", dst_root, rel) >= (int)sizeof(to))
		return tm_error("--restore: path too long under '%s'", dst_root);
	if (S_ISDIR(sb->st_mode)) {
		if (mkdir(to, sb->st_mode & 07777) && errno != EEXIST)
			return tm_error("--restore: cannot create '%s': %s", to, strerror(errno));
		return 0;
	}
	if (S_ISREG(sb->st_mode))
		return copy_file(path, to, sb, stats);
	if (S_ISLNK(sb->st_mode)) {
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			return tm_error("--restore: cannot read link '%s': %s", path,
			                strerror(errno));
		link[n] = '\0';
		if (symlink(link, to))
			return tm_error("--restore: cannot create link '%s': %s", to,
			                strerror(errno));
		return 0;
	}
	return tm_error("--restore: '%s' is not a file, directory or link", path);
}

/* A recursive walk of the snapshot (nftw has no context pointer). */
static int copy_tree(const char *src, const char *dst, struct tm_restore_stats *stats)
{
	struct stat sb;
	char path[PATH_MAX], to[PATH_MAX];

	if (lstat(src, &sb))
		return tm_error("--restore: cannot read '%s': %s", src, strerror(errno));
	if (copy_entry(src, dst, src, &sb, stats))
		return -1;
	if (!S_ISDIR(sb.st_mode))
		return 0;
	int fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return tm_error("--restore: cannot list '%s': %s", src, strerror(errno));
	}
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", src, e->d_name) >= (int)sizeof(path) ||
		    snprintf(to, sizeof(to), "%s/%s", dst, e->d_name) >= (int)sizeof(to))
			rc = tm_error("--restore: path too long under '%s'", src);
		else
			rc = copy_tree(path, to, stats);
	}
	closedir(d);
	return rc;
}

int tm_bench_restore(const char *snapshot, const char *dir, struct tm_restore_stats *stats)
{
	struct stat sb;

	memset(stats, 0, sizeof(*stats));
	if (lstat(dir, &sb) == 0 && nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS))
		return -1;
	return copy_tree(snapshot, dir, stats);
}
