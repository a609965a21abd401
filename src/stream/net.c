/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Socket helpers of the delta stream's TCP layer: "HOST:PORT" addresses,
 * listening and connecting sockets (non-blocking), printable addresses. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "stream/net.h"

int net_split_address(const char *addr, char *host, size_t hostsz, char *port, size_t portsz)
{
    if (!addr || !*addr)
        return -1;
    const char *colon;
    const char *h = addr;
    size_t hl;
    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':')
            return -1;
        h = addr + 1;
        hl = (size_t)(end - h);
        colon = end + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon)
            return -1;
        hl = (size_t)(colon - addr);
        if (memchr(addr, ':', hl)) /* a bare IPv6 address needs brackets */
            return -1;
    }
    const char *p = colon + 1;
    if (!*p || strlen(p) > 5 || hl >= hostsz || strlen(p) >= portsz)
        return -1;
    long v = 0;
    for (const char *q = p; *q; q++) {
        if (*q < '0' || *q > '9')
            return -1;
        v = v * 10 + (*q - '0');
    }
    if (v > 65535)
        return -1;
    memcpy(host, h, hl);
    host[hl] = 0;
    snprintf(port, portsz, "%ld", v);
    return 0;
}

int net_nonblocking(int fd)
{
    const int fl = fcntl(fd, F_GETFL, 0);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

void net_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void net_format(const struct sockaddr *sa, char *buf, size_t n)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
        snprintf(buf, n, "%s:%d", host, port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof(host));
        port = ntohs(in->sin6_port);
        snprintf(buf, n, "[%s]:%d", host, port);
    } else {
        snprintf(buf, n, "?");
    }
}

int net_lookup_error(char *err, size_t errsz, const char *addr, int gai)
{
    switch (gai) {
    case EAI_AGAIN:
        /* the resolver could not answer now: not the address's fault */
        return fv_errbuf(err, errsz, FOVEA_ERR_IO,
                         "%s: %s (a temporary failure of the name lookup: try again later)", addr,
                         gai_strerror(gai));
    case EAI_MEMORY:
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "%s: %s", addr, gai_strerror(gai));
#ifdef EAI_SYSTEM
    case EAI_SYSTEM:
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: the name lookup failed: %s", addr,
                         strerror(errno));
#endif
    case EAI_FAIL:
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: the name lookup failed: %s", addr,
                         gai_strerror(gai));
    default: /* no such name or service: the address is wrong */
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "%s: %s", addr, gai_strerror(gai));
    }
}

int net_listen(const char *addr, char *bound, size_t boundsz, char *err, size_t errsz)
{
    char host[256], port[8];
    if (net_split_address(addr, host, sizeof host, port, sizeof port) < 0)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "'%s' is not an address (HOST:PORT, [IPv6]:PORT)", addr ? addr : "");
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    const int gai = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (gai != 0)
        return net_lookup_error(err, errsz, addr, gai);
    int fd = -1, saved = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        int one = 1;
        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0 ||
            net_nonblocking(fd) < 0) {
            saved = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "cannot listen on %s: %s", addr,
                         strerror(saved));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        net_format((struct sockaddr *)&ss, bound, boundsz);
    else
        snprintf(bound, boundsz, "%s", addr);
    return fd;
}

/* Wait for a non-blocking connect; @return 0 or an errno value. */
static int wait_connected(int fd, int timeout_ms)
{
    struct pollfd pfd = {fd, POLLOUT, 0};
    int r;
    do
        r = poll(&pfd, 1, timeout_ms > 0 ? timeout_ms : -1);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return ETIMEDOUT;
    if (r < 0)
        return errno;
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
        return errno;
    return soerr;
}

int net_connect(const char *addr, int timeout_ms, int rcvbuf, char *err, size_t errsz)
{
    char host[256], port[8];
    if (net_split_address(addr, host, sizeof host, port, sizeof port) < 0 || !host[0])
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "'%s' is not an address (HOST:PORT, [IPv6]:PORT)", addr ? addr : "");
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0)
        return net_lookup_error(err, errsz, addr, gai);
    int fd = -1, saved = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        if (net_nonblocking(fd) < 0 ||
            (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) < 0)) {
            saved = errno;
        } else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            saved = 0;
        } else if (errno == EINPROGRESS) {
            saved = wait_connected(fd, timeout_ms);
        } else {
            saved = errno;
        }
        if (saved) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "cannot connect to %s: %s", addr,
                         strerror(saved));
    net_nodelay(fd);
    return fd;
}

int net_poll(struct pollfd *fds, size_t n, int timeout_ms)
{
    int r;
    do
        r = poll(fds, (nfds_t)n, timeout_ms);
    while (r < 0 && errno == EINTR);
    return r;
}
