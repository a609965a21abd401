/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_stream's latency rows (see stream_rows.h): a sender thread encodes
 * frames paced at the clip's rate into a TCP socket on loopback, a receiver
 * thread reads, decodes and copies each frame out; the time from the frame
 * handed to the encoder to the frame copied out. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fovea/stream.h"
#include "stream_rows.h"

typedef struct lat_job {
    fovea_context *ctx;
    const stream_frames *c;
    int zstd_level;
    int T, frames, fd;
    double period_us, *lat_us;
    int failed;
} lat_job;

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        const ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void sleep_until_us(double t)
{
    for (;;) {
        const double d = t - bench_now_us();
        if (d <= 0)
            return;
        struct timespec ts = {(time_t)(d / 1e6), (long)(fmod(d, 1e6) * 1000.0)};
        nanosleep(&ts, NULL);
    }
}

/* Copy f's planes out tightly packed (what writing the frame costs in memory). */
static void pack_frame(const fovea_frame *f, uint8_t *out, size_t cap)
{
    size_t o = 0;
    for (int p = 0; p < 4 && f->data[p]; p++) {
        const size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        const int h = fovea_plane_height(f->fmt, f->height, p);
        for (int y = 0; y < h && row > 0 && o + row <= cap; y++, o += row)
            memcpy(out + o, f->data[p] + (ptrdiff_t)y * f->stride[p], row);
    }
}

static void *lat_sender(void *arg)
{
    lat_job *j = arg;
    fovea_stream_encoder_settings s;
    fovea_stream_encoder_default_settings(&s);
    s.threshold = j->T;
    if (j->zstd_level > 0)
        s.zstd_level = j->zstd_level;
    fovea_stream_encoder *e = NULL;
    const uint8_t *m;
    size_t sz;
    if (fovea_stream_encoder_open(&e, j->ctx, &s, &j->c->info) < 0 ||
        fovea_stream_encoder_hello(e, &m, &sz) < 0 || write_all(j->fd, m, sz) < 0) {
        j->failed = 1;
        fovea_stream_encoder_close(&e);
        return NULL;
    }
    const double start = bench_now_us();
    for (int i = 0; i < j->frames; i++) {
        sleep_until_us(start + i * j->period_us);
        const uint64_t ts = (uint64_t)bench_now_us();
        /* back and forth through the clip's frames: no jump where it wraps */
        const int n = j->c->n, k = n > 1 ? i % (2 * n - 2) : 0, f = k < n ? k : 2 * n - 2 - k;
        if (fovea_stream_encoder_encode(e, &j->c->frames[f], ts, &m, &sz, NULL) < 0 ||
            write_all(j->fd, m, sz) < 0) {
            j->failed = 1;
            break;
        }
    }
    if (!j->failed && (fovea_stream_encoder_end(e, &m, &sz) < 0 || write_all(j->fd, m, sz) < 0))
        j->failed = 1;
    fovea_stream_encoder_close(&e);
    return NULL;
}

/* The receiver: read, decode, copy the frame out (what writing it costs in
 * memory), time it against the sender's timestamp. @return frames received */
static int lat_receive(lat_job *j, fovea_context *ctx)
{
    fovea_stream_decoder *d = NULL;
    if (fovea_stream_decoder_open(&d, ctx, NULL) < 0)
        return -1;
    uint8_t *buf = NULL, *out = malloc(j->c->raw);
    size_t cap = 0;
    int got = 0;
    for (;;) {
        uint8_t hdr[FOVEA_STREAM_HEADER_SIZE];
        fovea_stream_msg_type type;
        size_t payload;
        if (read_all(j->fd, hdr, sizeof hdr) < 0 ||
            fovea_stream_parse_header(ctx, hdr, NULL, &type, &payload) < 0)
            break;
        if (FOVEA_STREAM_HEADER_SIZE + payload > cap) {
            cap = 2 * (FOVEA_STREAM_HEADER_SIZE + payload);
            free(buf);
            buf = malloc(cap);
            if (!buf)
                break;
        }
        memcpy(buf, hdr, sizeof hdr);
        if (read_all(j->fd, buf + FOVEA_STREAM_HEADER_SIZE, payload) < 0)
            break;
        fovea_stream_event ev;
        if (fovea_stream_decoder_feed(d, buf, FOVEA_STREAM_HEADER_SIZE + payload, &ev) < 0) {
            fprintf(stderr, "bench_stream: latency: %s\n", fovea_last_error(ctx));
            break;
        }
        if (ev.type == FOVEA_STREAM_MSG_END)
            break;
        if (ev.frame && out) {
            pack_frame(ev.frame, out, j->c->raw);
            if (got < j->frames)
                j->lat_us[got++] = bench_now_us() - (double)ev.fi.timestamp_us;
        }
    }
    free(buf);
    free(out);
    fovea_stream_decoder_close(&d);
    return got;
}

/* TCP on loopback: a listening socket, a connection to it, the accepted end. */
static int tcp_pair(int fds[2])
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0)
        return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &al) < 0) {
        close(l);
        return -1;
    }
    fds[1] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[1] < 0 || connect(fds[1], (struct sockaddr *)&a, sizeof a) < 0) {
        close(l);
        return -1;
    }
    fds[0] = accept(l, NULL, NULL);
    close(l);
    if (fds[0] < 0)
        return -1;
    const int one = 1;
    setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}

int stream_latency_row(bench_table *table, const char *backend, const stream_frames *c, int T,
                       int frames, int zstd_level, double *med_ms, double *p99_ms)
{
    fovea_context *ectx = NULL, *dctx = NULL;
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    BENCH_FOVEA(NULL, fovea_open(&ectx, &cs));
    BENCH_FOVEA(NULL, fovea_open(&dctx, &cs));
    int fds[2];
    if (tcp_pair(fds) < 0) {
        fprintf(stderr, "bench_stream: no TCP loopback: latency skipped\n");
        fovea_close(&ectx);
        fovea_close(&dctx);
        return -1;
    }
    lat_job snd = {ectx, c, zstd_level, T, frames, fds[1], 1e6 * c->info.fps_den / c->info.fps_num,
                   NULL, 0};
    lat_job rcv = snd;
    rcv.fd = fds[0];
    rcv.lat_us = malloc((size_t)frames * sizeof(double));
    pthread_t th;
    int got = -1;
    if (rcv.lat_us && pthread_create(&th, NULL, lat_sender, &snd) == 0) {
        got = lat_receive(&rcv, dctx);
        shutdown(fds[0], SHUT_RDWR);
        pthread_join(th, NULL);
    }
    close(fds[0]);
    close(fds[1]);
    int rc = -1;
    if (got == frames && !snd.failed) {
        bench_stats st;
        bench_stats_compute(rcv.lat_us, got, &st);
        const double p99 = rcv.lat_us[(int)ceil(0.99 * got) - 1];
        char name[96], note[160];
        snprintf(name, sizeof(name), "%s T=%d latency", c->name, T);
        snprintf(note, sizeof(note),
                 "TCP loopback, %d frames at %.0f fps: median %.2f, p99 %.2f, max %.2f ms", got,
                 (double)c->info.fps_num / c->info.fps_den, st.median_us / 1e3, p99 / 1e3,
                 st.max_us / 1e3);
        bench_table_add(table, name, backend, &st, 0, 1, note);
        *med_ms = st.median_us / 1e3;
        *p99_ms = p99 / 1e3;
        rc = 0;
    } else {
        fprintf(stderr, "bench_stream: latency run on %s got %d of %d frames\n", c->name, got,
                frames);
    }
    free(rcv.lat_us);
    fovea_close(&ectx);
    fovea_close(&dctx);
    return rc;
}
