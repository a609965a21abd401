/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The sender's side of the delta stream over TCP: a listening socket and the
 * receivers, all non-blocking under one poll. Each message is copied once and
 * shared by the receivers' queues; a receiver whose queue passes max_queue
 * loses what it has not begun to receive and waits for a keyframe, so one
 * slow or vanished receiver never holds up the others. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stream/net.h"

typedef struct blob {
    int refs;
    fovea_stream_msg_type type;
    size_t size;
    uint8_t data[];
} blob;

typedef struct peer {
    int fd;
    blob **q; /* ring of queued messages */
    size_t qhead, qlen, qcap;
    size_t head_sent; /* bytes of q[qhead] already sent */
    size_t queued;    /* bytes still to send */
    int awaiting;     /* waits for a keyframe (skips deltas) */
    int wr_shut;      /* finish: write side shut after the queue drained */
    int dead;
    uint8_t in[FOVEA_STREAM_HEADER_SIZE + STREAM_MAX_REQUEST];
    size_t in_len; /* bytes of a request received so far */
    char name[64];
} peer;

struct fovea_stream_server {
    fovea_context *ctx;
    fovea_stream_server_settings set;
    int lfd;
    char addr[80];
    blob *hello;
    peer *peers;
    int npeers;
    int finishing;
    fovea_stream_server_stats st;
    struct pollfd *pfd;
};

void fovea_stream_server_default_settings(fovea_stream_server_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->max_clients = 16;
    s->max_queue = (size_t)64 << 20;
    s->sndbuf = 0;
}

static blob *blob_new(const uint8_t *data, size_t size, fovea_stream_msg_type type)
{
    blob *b = malloc(sizeof(blob) + size);
    if (!b)
        return NULL;
    b->refs = 1;
    b->type = type;
    b->size = size;
    memcpy(b->data, data, size);
    return b;
}

static void blob_unref(blob *b)
{
    if (b && --b->refs == 0)
        free(b);
}

/* ---------------------------------------------------------------- queues */

static blob *q_at(const peer *p, size_t i)
{
    return p->q[(p->qhead + i) % p->qcap];
}

static int q_push(peer *p, blob *b)
{
    if (p->qlen == p->qcap) {
        const size_t cap = p->qcap ? 2 * p->qcap : 16;
        blob **nq = malloc(cap * sizeof(*nq));
        if (!nq)
            return FOVEA_ERR_NOMEM;
        for (size_t i = 0; i < p->qlen; i++)
            nq[i] = q_at(p, i);
        free(p->q);
        p->q = nq;
        p->qcap = cap;
        p->qhead = 0;
    }
    p->q[(p->qhead + p->qlen) % p->qcap] = b;
    p->qlen++;
    b->refs++;
    p->queued += b->size;
    return FOVEA_OK;
}

static void q_pop(peer *p)
{
    blob_unref(q_at(p, 0));
    p->qhead = (p->qhead + 1) % p->qcap;
    p->qlen--;
    p->head_sent = 0;
}

/* Queued messages not begun (the partly sent head stays: its remaining bytes
 * must follow for the receiver to keep its framing). */
static size_t q_unstarted(const peer *p)
{
    return p->qlen - (p->head_sent > 0 ? 1 : 0);
}

/* Drop every message not begun; the receiver then waits for a keyframe. */
static void drop_back(peer *p)
{
    const size_t keep = p->head_sent > 0 ? 1 : 0;
    while (p->qlen > keep) {
        blob *b = q_at(p, p->qlen - 1);
        p->queued -= b->size;
        blob_unref(b);
        p->qlen--;
    }
    p->awaiting = 1;
}

static void kill_peer(fovea_stream_server *s, peer *p, const char *why, int unexpected)
{
    if (p->dead)
        return;
    if (why)
        fv_log(s->ctx, FOVEA_LOG_INFO, "stream: receiver %s %s", p->name, why);
    close(p->fd);
    p->fd = -1;
    while (p->qlen)
        q_pop(p);
    p->queued = 0;
    p->dead = 1;
    if (unexpected)
        s->st.disconnected++;
}

static void compact(fovea_stream_server *s)
{
    int k = 0;
    for (int i = 0; i < s->npeers; i++) {
        if (s->peers[i].dead) {
            free(s->peers[i].q);
            continue;
        }
        s->peers[k++] = s->peers[i];
    }
    s->npeers = k;
    s->st.clients = k;
}

/* ---------------------------------------------------------------- I/O */

static void flush_peer(fovea_stream_server *s, peer *p)
{
    while (!p->dead && p->qlen) {
        blob *b = q_at(p, 0);
        const ssize_t n = send(p->fd, b->data + p->head_sent, b->size - p->head_sent,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                kill_peer(s, p, strerror(errno), !s->finishing);
            return;
        }
        p->head_sent += (size_t)n;
        p->queued -= (size_t)n;
        s->st.bytes_sent += n;
        if (p->head_sent == b->size)
            q_pop(p);
    }
    if (!p->dead && s->finishing && p->qlen == 0 && !p->wr_shut) {
        shutdown(p->fd, SHUT_WR);
        p->wr_shut = 1;
    }
}

/* A whole request arrived: only RESYNC is accepted. */
static void on_request(fovea_stream_server *s, peer *p)
{
    const size_t n = p->in_len - FOVEA_STREAM_HEADER_SIZE;
    p->in_len = 0;
    if (!stream_checksum_ok(p->in, n)) {
        kill_peer(s, p, "sent a damaged request", 1);
        return;
    }
    s->st.resync_requests++;
    if (!p->awaiting) {
        fv_log(s->ctx, FOVEA_LOG_INFO, "stream: receiver %s asks for a keyframe", p->name);
        drop_back(p);
    }
}

static void read_peer(fovea_stream_server *s, peer *p)
{
    while (!p->dead) {
        size_t want = FOVEA_STREAM_HEADER_SIZE;
        if (p->in_len >= FOVEA_STREAM_HEADER_SIZE) {
            fovea_stream_limits lim;
            lim.max_frame_bytes = 0;
            lim.max_message_bytes = STREAM_MAX_REQUEST;
            fovea_stream_msg_type type;
            size_t n;
            if (fovea_stream_parse_header(NULL, p->in, &lim, &type, &n) < 0 ||
                type != FOVEA_STREAM_MSG_RESYNC || n != STREAM_RESYNC_SIZE) {
                kill_peer(s, p, "sent something other than a keyframe request", 1);
                return;
            }
            want += n;
        }
        const ssize_t r = recv(p->fd, p->in + p->in_len, want - p->in_len, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                kill_peer(s, p, strerror(errno), !s->finishing);
            return;
        }
        if (r == 0) {
            kill_peer(s, p, s->finishing ? NULL : "disconnected", !s->finishing);
            return;
        }
        p->in_len += (size_t)r;
        if (p->in_len > FOVEA_STREAM_HEADER_SIZE && p->in_len == want)
            on_request(s, p);
    }
}

static void accept_peers(fovea_stream_server *s)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        const int fd = accept(s->lfd, (struct sockaddr *)&ss, &sl);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; /* EAGAIN, or out of descriptors: try again at the next poll */
        }
        char name[64];
        net_format((struct sockaddr *)&ss, name, sizeof name);
        if (s->npeers >= s->set.max_clients || s->finishing) {
            fv_log(s->ctx, FOVEA_LOG_INFO, "stream: receiver %s refused (%d receivers)", name,
                   s->npeers);
            /* say why before closing, so that the receiver does not take it
             * for a crash: 28 bytes fit any new socket's buffer (best effort) */
            uint8_t msg[FOVEA_STREAM_HEADER_SIZE + STREAM_REFUSED_SIZE];
            const size_t n = stream_refused_message(s->finishing ? FOVEA_STREAM_REFUSED_CLOSING
                                                                 : FOVEA_STREAM_REFUSED_FULL,
                                                    (uint32_t)s->set.max_clients, msg);
            (void)send(fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT);
            close(fd);
            s->st.refused++;
            continue;
        }
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        if (net_nonblocking(fd) < 0) {
            close(fd);
            continue;
        }
        net_nodelay(fd);
        if (s->set.sndbuf > 0)
            (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &s->set.sndbuf, sizeof s->set.sndbuf);
        peer *p = &s->peers[s->npeers];
        memset(p, 0, sizeof(*p));
        p->fd = fd;
        p->awaiting = 1;
        snprintf(p->name, sizeof p->name, "%s", name);
        if (q_push(p, s->hello) < 0) {
            close(fd);
            continue;
        }
        s->npeers++;
        s->st.clients = s->npeers;
        s->st.accepted++;
        fv_log(s->ctx, FOVEA_LOG_INFO, "stream: receiver %s joined", name);
        flush_peer(s, p);
    }
}

/* ---------------------------------------------------------------- API */

int fovea_stream_server_open(fovea_stream_server **out, fovea_context *ctx, const char *addr,
                             const uint8_t *hello, size_t hello_size,
                             const fovea_stream_server_settings *set)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL server pointer");
    *out = NULL;
    fovea_stream_server_settings ss;
    if (set)
        ss = *set;
    else
        fovea_stream_server_default_settings(&ss);
    if (ss.max_clients < 1 || ss.max_clients > 1024 || ss.max_queue < 1 || ss.sndbuf < 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "stream: server settings out of range (max_clients %d, max_queue "
                            "%zu, sndbuf %d)",
                            ss.max_clients, ss.max_queue, ss.sndbuf);
    fovea_stream_msg_type type;
    size_t n;
    if (!hello || hello_size < FOVEA_STREAM_HEADER_SIZE ||
        fovea_stream_parse_header(ctx, hello, NULL, &type, &n) < 0 ||
        type != FOVEA_STREAM_MSG_HELLO || n + FOVEA_STREAM_HEADER_SIZE != hello_size)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: the server needs a HELLO message");
    fovea_stream_server *s = calloc(1, sizeof(*s));
    if (!s)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    s->ctx = ctx;
    s->set = ss;
    s->lfd = -1;
    s->hello = blob_new(hello, hello_size, FOVEA_STREAM_MSG_HELLO);
    s->peers = calloc((size_t)ss.max_clients, sizeof(peer));
    s->pfd = calloc((size_t)ss.max_clients + 1, sizeof(struct pollfd));
    if (!s->hello || !s->peers || !s->pfd) {
        fovea_stream_server_close(&s);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    }
    char err[512];
    const int fd = net_listen(addr, s->addr, sizeof s->addr, err, sizeof err);
    if (fd < 0) {
        fovea_stream_server_close(&s);
        return fv_ctx_error(ctx, fd, "stream: %s", err);
    }
    s->lfd = fd;
    *out = s;
    return FOVEA_OK;
}

const char *fovea_stream_server_address(const fovea_stream_server *s)
{
    return s ? s->addr : "";
}

/* One poll round over the listener (unless finishing) and the receivers. */
static int poll_round(fovea_stream_server *s, int timeout_ms)
{
    size_t n = 0;
    const int listening = s->lfd >= 0;
    if (listening)
        s->pfd[n++] = (struct pollfd){s->lfd, POLLIN, 0};
    for (int i = 0; i < s->npeers; i++) {
        const peer *p = &s->peers[i];
        s->pfd[n++] = (struct pollfd){p->fd, (short)(POLLIN | (p->qlen ? POLLOUT : 0)), 0};
    }
    if (n == 0)
        return FOVEA_OK;
    const int r = net_poll(s->pfd, n, timeout_ms);
    if (r < 0)
        return fv_ctx_error(s->ctx, FOVEA_ERR_IO, "stream: poll: %s", strerror(errno));
    size_t k = 0;
    if (listening && (s->pfd[k++].revents & POLLIN))
        accept_peers(s);
    /* peers accepted just now are past the polled ones: they were flushed */
    const int polled = (int)(n - (listening ? 1 : 0));
    for (int i = 0; i < polled; i++, k++) {
        peer *p = &s->peers[i];
        const short re = s->pfd[k].revents;
        if (re & (POLLIN | POLLHUP | POLLERR))
            read_peer(s, p);
        if (re & (POLLOUT | POLLERR))
            flush_peer(s, p);
    }
    compact(s);
    return FOVEA_OK;
}

int fovea_stream_server_poll(fovea_stream_server *s, int timeout_ms)
{
    if (!s)
        return FOVEA_ERR_INVALID_ARG;
    return poll_round(s, timeout_ms);
}

int fovea_stream_server_keyframe_wanted(const fovea_stream_server *s)
{
    if (!s)
        return 0;
    for (int i = 0; i < s->npeers; i++) {
        const peer *p = &s->peers[i];
        if (p->dead || !p->awaiting)
            continue;
        /* one dropped back waits until it has taken what it had begun, so a
         * stuck receiver does not make a keyframe of every frame */
        size_t pending = q_unstarted(p);
        for (size_t j = p->head_sent > 0 ? 1 : 0; j < p->qlen; j++)
            if (q_at(p, j) == s->hello)
                pending--;
        if (pending == 0)
            return 1;
    }
    return 0;
}

int fovea_stream_server_send(fovea_stream_server *s, const uint8_t *msg, size_t size)
{
    if (!s)
        return FOVEA_ERR_INVALID_ARG;
    fovea_stream_msg_type type;
    size_t n;
    if (!msg || size < FOVEA_STREAM_HEADER_SIZE)
        return fv_ctx_error(s->ctx, FOVEA_ERR_INVALID_ARG, "stream: no message to send");
    FOVEA_TRY(fovea_stream_parse_header(s->ctx, msg, NULL, &type, &n));
    if (n + FOVEA_STREAM_HEADER_SIZE != size ||
        (type != FOVEA_STREAM_MSG_KEYFRAME && type != FOVEA_STREAM_MSG_DELTA &&
         type != FOVEA_STREAM_MSG_END))
        return fv_ctx_error(s->ctx, FOVEA_ERR_INVALID_ARG,
                            "stream: the server sends keyframes, deltas and the end");
    blob *b = blob_new(msg, size, type);
    if (!b)
        return fv_ctx_error(s->ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    int st = FOVEA_OK;
    for (int i = 0; i < s->npeers; i++) {
        peer *p = &s->peers[i];
        if (p->dead)
            continue;
        if (p->queued + size > s->set.max_queue && q_unstarted(p) > 0) {
            fv_log(s->ctx, FOVEA_LOG_INFO,
                   "stream: receiver %s is %zu bytes behind: resynchronized", p->name, p->queued);
            drop_back(p);
            s->st.resyncs++;
        }
        if (p->awaiting && type == FOVEA_STREAM_MSG_DELTA)
            continue;
        if (type == FOVEA_STREAM_MSG_KEYFRAME)
            p->awaiting = 0;
        if (q_push(p, b) < 0) {
            kill_peer(s, p, "dropped: out of memory", 1);
            st = fv_ctx_error(s->ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
        }
    }
    blob_unref(b);
    for (int i = 0; i < s->npeers; i++)
        flush_peer(s, &s->peers[i]);
    compact(s);
    return st;
}

int fovea_stream_server_finish(fovea_stream_server *s, int timeout_ms)
{
    if (!s)
        return FOVEA_ERR_INVALID_ARG;
    s->finishing = 1;
    if (s->lfd >= 0) {
        close(s->lfd);
        s->lfd = -1;
    }
    const double t_end = stream_now() + timeout_ms / 1000.0;
    for (int i = 0; i < s->npeers; i++)
        flush_peer(s, &s->peers[i]);
    compact(s);
    while (s->npeers > 0) {
        const double left = t_end - stream_now();
        if (left <= 0)
            break;
        FOVEA_TRY(poll_round(s, (int)(left * 1000.0) + 1));
    }
    if (s->npeers == 0)
        return FOVEA_OK;
    const int cut = s->npeers;
    for (int i = 0; i < s->npeers; i++)
        kill_peer(s, &s->peers[i], "did not finish in time: cut", 1);
    compact(s);
    return fv_ctx_error(s->ctx, FOVEA_ERR_IO,
                        "stream: %d receiver%s did not take the end of the stream within %d ms",
                        cut, cut == 1 ? "" : "s", timeout_ms);
}

void fovea_stream_server_get_stats(const fovea_stream_server *s, fovea_stream_server_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof(*st));
    if (s)
        *st = s->st;
}

void fovea_stream_server_close(fovea_stream_server **ps)
{
    if (!ps || !*ps)
        return;
    fovea_stream_server *s = *ps;
    for (int i = 0; s->peers && i < s->npeers; i++) {
        kill_peer(s, &s->peers[i], NULL, 0);
        free(s->peers[i].q);
    }
    if (s->lfd >= 0)
        close(s->lfd);
    blob_unref(s->hello);
    free(s->peers);
    free(s->pfd);
    free(s);
    *ps = NULL;
}
