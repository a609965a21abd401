/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_stream's end-to-end rows (see stream_e2e.h and bench_stream.c's
 * header): frames/s from a y4m file to messages, and the bytes that cross PCIe
 * a frame on a CUDA context. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fovea/stream.h"
#include "stream_rows.h"

#define E2E_RING 8

/* write(2) all of p (a file, not a socket) */
static int write_fd(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        const ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The reader thread fills a ring of frames from the y4m; the encoder takes
 * them in order and gives each slot back once its message is written. */
typedef struct e2e_ring {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    fovea_frame slot[E2E_RING];
    fovea_reader *r;
    fovea_context *ctx;
    long long head, tail; /* frames read, frames given back */
    int done, failed;
    char err[512]; /* the reader's message (its thread's last error) */
} e2e_ring;

static void *e2e_reader(void *arg)
{
    e2e_ring *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (q->head - q->tail >= E2E_RING && !q->failed)
            pthread_cond_wait(&q->cv, &q->mu);
        const long long i = q->head;
        const int stop = q->failed;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            return NULL;
        const int st = fovea_reader_read(q->r, &q->slot[i % E2E_RING]);
        if (st < 0)
            snprintf(q->err, sizeof(q->err), "%s", fovea_last_error(q->ctx));
        pthread_mutex_lock(&q->mu);
        if (st == FOVEA_OK)
            q->head++;
        else
            q->done = 1, q->failed = st != FOVEA_EOF;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (st != FOVEA_OK)
            return NULL;
    }
}

/* Read y4m on a thread, encode every frame on ctx (frames read into pinned
 * memory on a CUDA context), write the messages to /dev/null; frames/s of
 * the whole run, and the mean tiles sent a frame. */
static int e2e_run(fovea_context *ctx, const char *y4m, int zstd_level, int *frames, double *fps,
                   double *tiles_sent, int64_t *tiles_total, size_t *raw, int64_t *keyframes)
{
    e2e_ring q;
    memset(&q, 0, sizeof(q));
    pthread_mutex_init(&q.mu, NULL);
    pthread_cond_init(&q.cv, NULL);
    q.ctx = ctx;
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd < 0 || fovea_reader_open(&q.r, ctx, y4m, NULL) < 0) {
        fprintf(stderr, "bench_stream: %s: %s\n", y4m,
                null_fd < 0 ? strerror(errno) : fovea_last_error(ctx));
        if (null_fd >= 0)
            close(null_fd);
        return -1;
    }
    const fovea_video_info *info = fovea_reader_info(q.r);
    const fovea_memtype mem =
        fovea_context_backend(ctx) == FOVEA_BACKEND_CUDA ? FOVEA_MEM_PINNED : FOVEA_MEM_HOST;
    for (int i = 0; i < E2E_RING; i++)
        BENCH_FOVEA(ctx,
                    fovea_frame_alloc(ctx, &q.slot[i], info->width, info->height, info->fmt, mem));
    fovea_stream_encoder_settings s;
    fovea_stream_encoder_default_settings(&s);
    if (zstd_level > 0)
        s.zstd_level = zstd_level;
    fovea_stream_encoder *e = NULL;
    BENCH_FOVEA(ctx, fovea_stream_encoder_open(&e, ctx, &s, info));
    const double t0 = bench_now_us();
    pthread_t th;
    if (pthread_create(&th, NULL, e2e_reader, &q) != 0) {
        fprintf(stderr, "bench_stream: cannot start the reader thread\n");
        exit(1);
    }
    long long n = 0, sent = 0;
    int status = 0;
    const uint8_t *m;
    size_t sz;
    BENCH_FOVEA(ctx, fovea_stream_encoder_hello(e, &m, &sz));
    if (write_fd(null_fd, m, sz) < 0)
        status = -1;
    *keyframes = 0;
    for (;;) {
        pthread_mutex_lock(&q.mu);
        while (q.head == n && !q.done)
            pthread_cond_wait(&q.cv, &q.mu);
        const int have = q.head > n;
        pthread_mutex_unlock(&q.mu);
        if (!have)
            break;
        fovea_stream_frame_info fi;
        BENCH_FOVEA(
            ctx, fovea_stream_encoder_encode(e, &q.slot[n % E2E_RING], (uint64_t)n, &m, &sz, &fi));
        if (write_fd(null_fd, m, sz) < 0)
            status = -1;
        sent += fi.tiles_sent;
        *tiles_total = fi.tiles_total;
        *keyframes += fi.keyframe;
        n++;
        pthread_mutex_lock(&q.mu);
        q.tail = n;
        pthread_cond_broadcast(&q.cv);
        pthread_mutex_unlock(&q.mu);
    }
    BENCH_FOVEA(ctx, fovea_stream_encoder_end(e, &m, &sz));
    if (write_fd(null_fd, m, sz) < 0)
        status = -1;
    const double us = bench_now_us() - t0;
    pthread_join(th, NULL);
    if (q.failed) {
        fprintf(stderr, "bench_stream: reading %s: %s\n", y4m, q.err);
        status = -1;
    } else if (status < 0) {
        fprintf(stderr, "bench_stream: writing to /dev/null: %s\n", strerror(errno));
    }
    *frames = (int)n;
    *fps = n > 0 ? 1e6 * (double)n / us : 0.0;
    *tiles_sent = n > 0 ? (double)sent / (double)n : 0.0;
    *raw = fovea_frame_packed_size(info->fmt, info->width, info->height);
    fovea_stream_encoder_close(&e);
    fovea_reader_close(&q.r);
    for (int i = 0; i < E2E_RING; i++)
        fovea_frame_free(ctx, &q.slot[i]);
    close(null_fd);
    pthread_cond_destroy(&q.cv);
    pthread_mutex_destroy(&q.mu);
    return status;
}

/* Coded bytes of an interior tile of 8-bit 4:2:0 (tile luma side t): a mode
 * byte and the samples of each plane. */
static double tile_bytes_420(int t)
{
    return 3.0 + (double)t * t + 2.0 * (double)(t / 2) * (t / 2);
}

void stream_e2e_row(bench_table *table, fovea_context *ctx, const char *backend, const char *y4m,
                    int zstd_level)
{
    int frames = 0;
    double fps = 0, tiles = 0;
    int64_t total = 0, keys = 0;
    size_t raw = 0;
    if (e2e_run(ctx, y4m, zstd_level, &frames, &fps, &tiles, &total, &raw, &keys) < 0 ||
        frames == 0)
        return;
    bench_stats st = {0};
    st.median_us = st.min_us = st.max_us = st.mean_us = 1e6 / fps;
    st.runs = 1;
    char note[256];
    fovea_stream_encoder_settings s;
    fovea_stream_encoder_default_settings(&s);
    if (fovea_context_backend(ctx) == FOVEA_BACKEND_CUDA) {
        /* H2D: the frame; D2H: the tile map and the coded bytes of the tiles sent */
        const double d2h = tiles * tile_bytes_420(s.tile) + (double)(total + 7) / 8;
        snprintf(note, sizeof(note),
                 "y4m reader thread -> encode -> /dev/null, %d frames (%lld keyframes), "
                 "%.1f tiles sent/frame, PCIe/frame H2D %.0f KB D2H %.1f KB (%.2f%%), wall clock",
                 frames, (long long)keys, tiles, (double)raw / 1e3, d2h / 1e3,
                 100.0 * d2h / (double)raw);
    } else {
        snprintf(note, sizeof(note),
                 "y4m reader thread -> encode -> /dev/null, %d frames (%lld keyframes), "
                 "%.1f tiles sent/frame, %d threads, wall clock",
                 frames, (long long)keys, tiles, fovea_context_threads(ctx));
    }
    bench_table_add(table, "1080p e2e y4m -> messages", backend, &st, (double)raw, 1, note);
}

void stream_device_row(bench_table *table, fovea_context *gpu, const stream_frames *c, int frames,
                       int zstd_level)
{
    fovea_frame *d = calloc((size_t)c->n, sizeof(fovea_frame));
    if (!d)
        return;
    for (int i = 0; i < c->n; i++) {
        BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d[i], c->info.width, c->info.height, c->info.fmt,
                                           FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &d[i], &c->frames[i]));
    }
    BENCH_FOVEA(gpu, fovea_sync(gpu));
    fovea_stream_encoder_settings s;
    fovea_stream_encoder_default_settings(&s);
    if (zstd_level > 0)
        s.zstd_level = zstd_level;
    fovea_stream_encoder *e = NULL;
    BENCH_FOVEA(gpu, fovea_stream_encoder_open(&e, gpu, &s, &c->info));
    double *us = malloc((size_t)frames * sizeof(double)), total = 0, tiles = 0;
    if (!us)
        exit(1);
    int64_t keys = 0;
    for (int i = 0; i < frames; i++) {
        const uint8_t *m;
        size_t sz;
        fovea_stream_frame_info fi;
        const double t0 = bench_now_us();
        BENCH_FOVEA(gpu, fovea_stream_encoder_encode(e, &d[i % c->n], (uint64_t)i, &m, &sz, &fi));
        us[i] = bench_now_us() - t0;
        total += us[i];
        tiles += (double)fi.tiles_sent;
        keys += fi.keyframe;
    }
    fovea_stream_encoder_close(&e);
    bench_stats st;
    bench_stats_compute(us, frames, &st);
    st.median_us = total / frames;
    char note[256];
    const double d2h = tiles / frames * tile_bytes_420(s.tile);
    snprintf(note, sizeof(note),
             "frames on the device, encode only, %d frames (%lld keyframes), %.1f tiles "
             "sent/frame, D2H %.1f KB/frame, time = mean",
             frames, (long long)keys, tiles / frames, d2h / 1e3);
    bench_table_add(table, "1080p device-resident encode", "cuda", &st, (double)c->raw, 1, note);
    for (int i = 0; i < c->n; i++)
        fovea_frame_free(gpu, &d[i]);
    free(d);
    free(us);
}
