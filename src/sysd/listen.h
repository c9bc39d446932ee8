/*
 * Socket activation: the listening socket systemd passes a service
 * (tidemark-record@.socket, sd_listen_fds(3)), so that /metrics stays
 * reachable while the recorder restarts.
 */
#ifndef TM_SYSD_LISTEN_H
#define TM_SYSD_LISTEN_H

/* Takes the socket systemd passed this process (LISTEN_PID is ours,
 * LISTEN_FDS 1) into *FD, close-on-exec and non-blocking, and unsets the
 * variables so that no child takes it too; *FD 0 when none was passed.
 * 0, or -1 after tm_error (more than one, or not a listening TCP socket). */
int tm_sd_listen_socket(int *fd);

#endif
