#include <errno.h>
#include <unistd.h>

#include "base/util.h"
#include "kern/kread.h"
#include "base/banned.h"

ssize_t tm_kread(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (size < 2) {
		errno = EINVAL;
		return -1;
	}
	do
		n = pread(fd, buf, size - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n == size - 1)
		return tm_pread_all(fd, buf, size);
	buf[n] = '\0';
	return n;
}
