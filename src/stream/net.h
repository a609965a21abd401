/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Socket helpers of the delta stream's TCP layer (net.c), POSIX sockets. */
#ifndef FOVEA_STREAM_NET_H
#define FOVEA_STREAM_NET_H

#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>

#include "stream/stream_internal.h"

/* Split "HOST:PORT" or "[V6]:PORT" (host may be empty). @return 0 or -1 */
int net_split_address(const char *addr, char *host, size_t hostsz, char *port, size_t portsz);

/* A non-blocking listening socket on addr; bound gets "HOST:PORT" with the
 * real port. @return the descriptor, or a negative status (err says why) */
int net_listen(const char *addr, char *bound, size_t boundsz, char *err, size_t errsz);

/* A connected non-blocking socket (TCP_NODELAY), waiting at most timeout_ms
 * (0 = no limit); rcvbuf > 0 sets SO_RCVBUF before connecting (the window is
 * agreed then; the kernel no longer autotunes it). @return the descriptor, or
 * a negative status */
int net_connect(const char *addr, int timeout_ms, int rcvbuf, char *err, size_t errsz);

/* The status and message of a failed getaddrinfo (gai, its EAI_* value):
 * FOVEA_ERR_INVALID_ARG for a name or service that does not exist (the
 * address is wrong), FOVEA_ERR_IO for a resolver that could not answer
 * (EAI_AGAIN: temporary, said so; EAI_FAIL, EAI_SYSTEM), FOVEA_ERR_NOMEM.
 * @return the status */
int net_lookup_error(char *err, size_t errsz, const char *addr, int gai);

int net_nonblocking(int fd);
void net_nodelay(int fd);

/* "HOST:PORT" of a socket address. */
void net_format(const struct sockaddr *sa, char *buf, size_t n);

/* poll(), retried on EINTR. */
int net_poll(struct pollfd *fds, size_t n, int timeout_ms);

#endif
