/* Socket activation (sysd/listen.h), with libsystemd's sd_listen_fds(3). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>

#include "base/error.h"
#include "sysd/listen.h"
#include "base/banned.h"

int tm_sd_listen_socket(int *fd)
{
	int n = sd_listen_fds(1), fl;

	*fd = 0;
	if (n < 0)
		return tm_error("the sockets systemd passed: %s", strerror(-n));
	if (n == 0)
		return 0;
	if (n > 1)
		return tm_error("systemd passed %d sockets; /metrics takes one (ListenStream= once "
		                "in tidemark-record@.socket)",
		                n);
	if (sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0)
		return tm_error("the socket systemd passed is not a listening stream socket");
	fl = fcntl(SD_LISTEN_FDS_START, F_GETFL);
	if (fl < 0 || fcntl(SD_LISTEN_FDS_START, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(SD_LISTEN_FDS_START, F_SETFD, FD_CLOEXEC) < 0)
		return tm_error("the socket systemd passed: %s", strerror(errno));
	*fd = SD_LISTEN_FDS_START;
	return 0;
}
