/* Socket activation (sysd/listen.h), with libsystemd's sd_listen_fds(3). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/error.h"
#include "sysd/listen.h"
#include "sysd/sdlib.h"
#include "base/banned.h"

int tm_sd_listen_socket(int *fd)
{
	struct tm_sdlib sd;
	int n, fl;

	*fd = 0;
	/* no socket passed (LISTEN_FDS unset, as sd_listen_fds(3) then finds
	 * none): libsystemd is not loaded; its variables are unset as it would */
	if (!getenv("LISTEN_FDS")) {
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDNAMES");
		return 0;
	}
	if (tm_sdlib_load(&sd))
		return -1;
	n = sd.sd_listen_fds(1);
	if (n < 0)
		return tm_error("the sockets systemd passed: %s", strerror(-n));
	if (n == 0)
		return 0;
	if (n > 1)
		return tm_error("systemd passed %d sockets; /metrics takes one (ListenStream= once "
		                "in tidemark-record@.socket)",
		                n);
	if (sd.sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0)
		return tm_error("the socket systemd passed is not a listening stream socket");
	fl = fcntl(SD_LISTEN_FDS_START, F_GETFL);
	if (fl < 0 || fcntl(SD_LISTEN_FDS_START, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(SD_LISTEN_FDS_START, F_SETFD, FD_CLOEXEC) < 0)
		return tm_error("the socket systemd passed: %s", strerror(errno));
	*fd = SD_LISTEN_FDS_START;
	return 0;
}
