/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The receiver's side of the delta stream over TCP: reads whole messages
 * (header first, then the payload as its bytes arrive, never more memory than
 * was sent), checks their framing and feeds the decoder. A damaged frame in
 * an intact message can be answered with a keyframe request (resync). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stream/net.h"

/* payload bytes read per growth of the buffer, at most */
#define READ_CHUNK ((size_t)1 << 20)

struct fovea_stream_client {
    fovea_context *ctx;
    fovea_stream_client_settings set;
    char addr[300];
    int fd;
    fovea_stream_decoder *dec;
    uint8_t *buf;
    size_t cap;
    int64_t bytes;
    int ended;       /* END decoded */
    int waiting_key; /* a RESYNC was sent: deltas are skipped until a keyframe */
};

void fovea_stream_client_default_settings(fovea_stream_client_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->timeout_ms = 30000;
    s->resync = 1;
    fovea_stream_limits_init(&s->limits);
}

int fovea_stream_client_open(fovea_stream_client **out, fovea_context *ctx, const char *addr,
                             const fovea_stream_client_settings *set)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL client pointer");
    *out = NULL;
    fovea_stream_client_settings cs;
    if (set)
        cs = *set;
    else
        fovea_stream_client_default_settings(&cs);
    if (cs.timeout_ms < 0 || cs.rcvbuf < 0 || cs.limits.max_message_bytes < 64 ||
        cs.limits.max_frame_bytes < 1)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: client settings out of range");
    fovea_stream_client *c = calloc(1, sizeof(*c));
    if (!c)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    c->ctx = ctx;
    c->set = cs;
    c->fd = -1;
    snprintf(c->addr, sizeof c->addr, "%s", addr ? addr : "");
    int st = fovea_stream_decoder_open(&c->dec, ctx, &cs.limits);
    if (st < 0) {
        fovea_stream_client_close(&c);
        return st;
    }
    char err[512];
    const int fd = net_connect(addr, cs.timeout_ms, cs.rcvbuf, err, sizeof err);
    if (fd < 0) {
        fovea_stream_client_close(&c);
        return fv_ctx_error(ctx, fd, "stream: %s", err);
    }
    c->fd = fd;
    *out = c;
    return FOVEA_OK;
}

void fovea_stream_client_close(fovea_stream_client **pc)
{
    if (!pc || !*pc)
        return;
    fovea_stream_client *c = *pc;
    if (c->fd >= 0)
        close(c->fd);
    fovea_stream_decoder_close(&c->dec);
    free(c->buf);
    free(c);
    *pc = NULL;
}

int64_t fovea_stream_client_bytes(const fovea_stream_client *c)
{
    return c ? c->bytes : 0;
}

/* Read exactly n bytes into dst, waiting at most the timeout for each.
 * what/got/total describe the message for the messages. */
static int read_exact(fovea_stream_client *c, uint8_t *dst, size_t n, size_t done_before,
                      size_t total)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t r = recv(c->fd, dst + got, n - got, MSG_DONTWAIT);
        if (r > 0) {
            got += (size_t)r;
            c->bytes += r;
            continue;
        }
        if (r == 0) {
            if (done_before + got == 0)
                return fv_ctx_error(c->ctx, FOVEA_ERR_IO,
                                    "stream: %s closed the connection before the end of the "
                                    "stream",
                                    c->addr);
            return fv_ctx_error(c->ctx, FOVEA_ERR_IO,
                                "stream: %s closed the connection in the middle of a message "
                                "(%zu of %zu bytes)",
                                c->addr, done_before + got, total);
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return fv_ctx_error(c->ctx, FOVEA_ERR_IO, "stream: %s: %s", c->addr, strerror(errno));
        struct pollfd pfd = {c->fd, POLLIN, 0};
        const int pr = net_poll(&pfd, 1, c->set.timeout_ms > 0 ? c->set.timeout_ms : -1);
        if (pr < 0)
            return fv_ctx_error(c->ctx, FOVEA_ERR_IO, "stream: poll: %s", strerror(errno));
        if (pr == 0)
            return fv_ctx_error(c->ctx, FOVEA_ERR_IO,
                                "stream: %s sent nothing for %.1f s (timed out)", c->addr,
                                c->set.timeout_ms / 1000.0);
    }
    return FOVEA_OK;
}

/* Read one whole message into c->buf. @return its size, or a negative status */
static int64_t read_message(fovea_stream_client *c, fovea_stream_msg_type *type)
{
    if (c->cap < FOVEA_STREAM_HEADER_SIZE) {
        c->buf = malloc(FOVEA_STREAM_HEADER_SIZE);
        if (!c->buf)
            return fv_ctx_error(c->ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
        c->cap = FOVEA_STREAM_HEADER_SIZE;
    }
    FOVEA_TRY(read_exact(c, c->buf, FOVEA_STREAM_HEADER_SIZE, 0, FOVEA_STREAM_HEADER_SIZE));
    size_t n;
    FOVEA_TRY(fovea_stream_parse_header(c->ctx, c->buf, &c->set.limits, type, &n));
    const size_t total = FOVEA_STREAM_HEADER_SIZE + n;
    size_t have = FOVEA_STREAM_HEADER_SIZE;
    while (have < total) {
        /* grow with what arrives, so a declared length costs nothing until sent */
        size_t step = total - have < READ_CHUNK ? total - have : READ_CHUNK;
        if (have + step > c->cap) {
            size_t ncap = c->cap * 2 > have + step ? c->cap * 2 : have + step;
            if (ncap > total)
                ncap = total;
            uint8_t *nb = realloc(c->buf, ncap);
            if (!nb)
                return fv_ctx_error(c->ctx, FOVEA_ERR_NOMEM, "stream: cannot allocate %zu bytes",
                                    ncap);
            c->buf = nb;
            c->cap = ncap;
        }
        FOVEA_TRY(read_exact(c, c->buf + have, step, have, total));
        have += step;
    }
    if (!stream_checksum_ok(c->buf, n))
        return fv_ctx_error(c->ctx, FOVEA_ERR_CORRUPT,
                            "stream: checksum mismatch: a damaged %zu-byte message from %s", total,
                            c->addr);
    return (int64_t)total;
}

static int send_resync(fovea_stream_client *c)
{
    uint8_t msg[FOVEA_STREAM_HEADER_SIZE + STREAM_RESYNC_SIZE];
    const size_t n = fovea_stream_resync_message(stream_decoder_last_shown(c->dec), msg);
    size_t sent = 0;
    while (sent < n) {
        const ssize_t r = send(c->fd, msg + sent, n - sent, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pfd = {c->fd, POLLOUT, 0};
                if (net_poll(&pfd, 1, c->set.timeout_ms > 0 ? c->set.timeout_ms : -1) > 0)
                    continue;
            }
            return fv_ctx_error(c->ctx, FOVEA_ERR_IO, "stream: cannot ask %s for a keyframe: %s",
                                c->addr, strerror(errno));
        }
        sent += (size_t)r;
    }
    c->waiting_key = 1;
    return FOVEA_OK;
}

int fovea_stream_client_request_keyframe(fovea_stream_client *c)
{
    if (!c)
        return FOVEA_ERR_INVALID_ARG;
    return send_resync(c);
}

int fovea_stream_client_next(fovea_stream_client *c, fovea_stream_event *ev)
{
    if (!c || !ev)
        return FOVEA_ERR_INVALID_ARG;
    memset(ev, 0, sizeof(*ev));
    ev->fi.checked_error = -1;
    if (c->ended)
        return FOVEA_EOF;
    for (;;) {
        fovea_stream_msg_type type;
        const int64_t size = read_message(c, &type);
        if (size < 0)
            return (int)size;
        if (c->waiting_key && type == FOVEA_STREAM_MSG_DELTA)
            continue;
        const int st = fovea_stream_decoder_feed(c->dec, c->buf, (size_t)size, ev);
        if (st == FOVEA_OK) {
            if (type == FOVEA_STREAM_MSG_KEYFRAME)
                c->waiting_key = 0;
            if (type == FOVEA_STREAM_MSG_END || type == FOVEA_STREAM_MSG_REFUSED)
                c->ended = 1;
            return FOVEA_OK;
        }
        /* the message's framing and checksum were right: a frame that cannot
         * be shown; ask for a keyframe when allowed (never for a bad header) */
        if (!c->set.resync || (type != FOVEA_STREAM_MSG_KEYFRAME && type != FOVEA_STREAM_MSG_DELTA))
            return st;
        fv_log(c->ctx, FOVEA_LOG_WARNING, "%s: asking for a keyframe", fovea_last_error(c->ctx));
        if (!c->waiting_key || type == FOVEA_STREAM_MSG_KEYFRAME)
            FOVEA_TRY(send_resync(c));
    }
}
