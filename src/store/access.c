/*
 * When SQLite cannot use a store for a reason of the file system rather
 * than of the file: a store in WAL mode needs its "-shm" (and "-wal") file
 * beside it, created and written even by a reader.  Say which file and
 * why, instead of "not a tidemark store"; on a read-only mount, where no
 * writer can exist, the store can still be read as an immutable file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "store/store_impl.h"
#include "base/banned.h"

bool tm_st_on_readonly_fs(const char *path)
{
	char dir[4096];
	struct statvfs vfs;
	struct stat sb;

	tm_path_parent(path, dir, sizeof(dir));
	if (statvfs(dir, &vfs) || !(vfs.f_flag & ST_RDONLY))
		return false;
	/* a write-ahead log with data in it: only a writer can fold it in */
	snprintf(dir, sizeof(dir), "%s-wal", path);
	return !(stat(dir, &sb) == 0 && sb.st_size > 0);
}

char *tm_st_immutable_uri(const char *path)
{
	size_t n = strlen(path), cap = 3 * n + 32, used;
	char *uri = malloc(cap);

	if (!uri)
		return NULL;
	used = (size_t)snprintf(uri, cap, "file:");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];
		if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f)
			used += (size_t)snprintf(uri + used, cap - used, "%%%02X", c);
		else
			uri[used++] = (char)c;
	}
	snprintf(uri + used, cap - used, "?immutable=1");
	return uri;
}

/* Why FILE (the store, or its -shm or -wal) cannot be opened as SQLite
 * needs it: into ERR; false when nothing is wrong with it. */
static bool file_why(const char *file, const char *dir, struct tm_err *err)
{
	struct stat sb;

	if (lstat(file, &sb) == 0) {
		if (access(file, R_OK | W_OK) == 0)
			return false;
		tm_err_set(err, 0, "'%s' (owner uid %u, mode %03o): %s", file, (unsigned)sb.st_uid,
		           (unsigned)(sb.st_mode & 0777), strerror(errno));
		return true;
	}
	if (access(dir, W_OK | X_OK) == 0)
		return false;
	tm_err_set(err, 0,
	           "SQLite must create '%s' beside the store (it is in WAL mode) and its"
	           " directory '%s' does not allow it: %s",
	           file, dir, strerror(errno));
	return true;
}

int tm_st_access_why(const char *path, bool writing, struct tm_err *err)
{
	char dir[4096], file[4200];
	struct statvfs vfs;

	tm_path_parent(path, dir, sizeof(dir));
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		tm_err_set(err, 0, "'%s' is on a read-only file system%s", path,
		           writing ? ""
		                   : " and its write-ahead log ('-wal') holds data only a writer"
		                     " can fold in");
		return 0;
	}
	if (writing && access(path, W_OK) && errno != ENOENT) {
		tm_err_set(err, 0, "'%s': %s", path, strerror(errno));
		return 0;
	}
	snprintf(file, sizeof(file), "%s-shm", path);
	if (file_why(file, dir, err))
		return 0;
	snprintf(file, sizeof(file), "%s-wal", path);
	if (file_why(file, dir, err))
		return 0;
	return -1;
}
