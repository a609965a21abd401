/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_stream: the delta streamer (issue 38) on real or generated video.
 * For each clip and T in {0, 4, 10}: the bytes sent in % of raw, encode and
 * decode frames/s (C backend; CUDA context rows too when a device is
 * present); beside them x264 lossless (ffmpeg -c:v libx264 -qp 0) at presets
 * ultrafast and medium, run in the same process tree when ffmpeg is on PATH,
 * and the sender's speed in multiples of x264 ultrafast's frames/s. Latency:
 * a sender thread encodes frames paced at the clip's rate and writes them to
 * a TCP socket on loopback, a receiver thread reads, decodes and copies each
 * frame out; the time from the frame handed to the encoder to the frame
 * copied out, median and 99th percentile, per clip at T = 0 and on a
 * generated 1080p fixed-camera sequence at T = 0 and 10 (300 frames paced at
 * 30 fps, one keyframe: the first, which is the max).
 *
 * Beside each encode row at T = 0 the floor: zstd alone (libzstd, the
 * encoder's level and shortest match) on the coded bytes of each frame, which
 * the bench gets back by decompressing the messages' groups, one thread, its
 * CPU time; and the encoder's CPU time per frame, which loaded machines
 * distort less than the wall clock.
 *
 * End to end (issue 38's goal: 1080p at 1,000 frames/s with CUDA, only the
 * changed tiles crossing PCIe): a generated 1080p fixed-camera y4m of 600
 * frames written to --tmp, read through fovea's y4m reader on a reader thread,
 * encoded, each message written to /dev/null; frames/s for the C and the CUDA
 * context, and for CUDA the bytes that crossed PCIe a frame (H2D: the frame;
 * D2H: the tile map and the carried tiles' coded bytes, computed from the
 * frame info's tiles_sent); and a device-resident row (frames already on the
 * device, encode only).
 *
 * Extra options: --clip FILE.y4m (repeatable), --opencv-data DIR (converts
 * vtest.avi, tree.avi and Megamind.avi found there with ffmpeg, first 300
 * frames, 8-bit 4:2:0), --frames N (frames per clip, default 300), --level N
 * (the encoder's zstd level), --e2e-frames N (frames of the end-to-end file,
 * default 600), --no-e2e,
 * --tmp DIR, --no-x264, --no-latency. Without a clip a generated fixed-camera
 * sequence is measured so the bench always prints rows. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "bench_common.h"
#include "fovea/io.h"
#include "fovea/stream.h"
#include "stream_rows.h"

extern char **environ;

#define MAX_CLIPS 16

static const int thresholds[] = {0, 4, 10};
static int zstd_level = 0; /* --level; 0: the encoder's default */
enum { NT = sizeof(thresholds) / sizeof(thresholds[0]) };

typedef struct clip {
    char name[64];
    char path[4096]; /* y4m, or "" for a generated sequence */
    int gen_w, gen_h, gen_frames;
    fovea_frame *frames;
    int n;
    fovea_video_info info;
    size_t raw; /* packed bytes of one frame */
} clip;

typedef struct result {
    double pct[NT], enc_fps[NT], dec_fps[NT];
    double x264_pct[2], x264_fps[2]; /* ultrafast, medium; < 0: not run */
    double lat_med, lat_p99;         /* ms, T = 0; < 0: not run */
} result;

static const char *usage =
    "  --clip FILE.y4m     a clip to measure (repeatable)\n"
    "  --opencv-data DIR   convert vtest.avi, tree.avi, Megamind.avi of DIR with ffmpeg\n"
    "  --frames N          frames per clip (default 300)\n"
    "  --level N           zstd level of the encoder (1..19; default: the encoder's, 1)\n"
    "  --tmp DIR           directory for converted clips and x264 output\n"
    "  --no-x264           skip the x264 columns\n"
    "  --no-latency        skip the latency rows\n"
    "  --e2e-frames N      frames of the end-to-end 1080p y4m (default 600)\n"
    "  --no-e2e            skip the end-to-end rows\n";

/* ---------------------------------------------------------------- helpers */

static int have_program(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char buf[4096];
    for (const char *p = path; *p;) {
        const char *e = strchr(p, ':');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
        if (n > 0 && access(buf, X_OK) == 0)
            return 1;
        p += n + (e ? 1 : 0);
    }
    return 0;
}

/* Run argv with stdout and stderr as they are; wall time in *sec. @return the
 * exit status, or -1 */
static int run_wait(char *const argv[], double *sec)
{
    pid_t pid;
    const double t0 = bench_now_us();
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0)
        return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (sec)
        *sec = (bench_now_us() - t0) / 1e6;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* A fixed camera: a textured static scene with sensor noise of +-1 on a
 * quarter of the samples that is drawn once (fixed pattern), a box walking
 * across it and a window whose brightness creeps up. */
static void synth_frame(fovea_frame *f, int t)
{
    const int w = f->width, h = f->height;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    const int bx = (t * 5) % (w + 96) - 96, by = h / 3, bw = w / 10 + 8, bh = h / 4 + 8;
    for (int y = 0; y < h; y++) {
        uint8_t *row = f->data[0] + (ptrdiff_t)y * f->stride[0];
        for (int i = 0; i < w; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int v =
                96 + (int)(60.0 * sin(i * 0.021) * cos(y * 0.017)) + ((i / 24 + y / 24) & 1) * 24;
            v += (int)((x >> 62) & 1) - (int)((x >> 61) & 1);
            if (i >= bx && i < bx + bw && y >= by && y < by + bh)
                v = 200 - ((i - bx) ^ (y - by)) % 32;
            if (i > w * 3 / 4 && y < h / 5)
                v += t / 8;
            row[i] = (uint8_t)(v < 1 ? 1 : v > 254 ? 254 : v);
        }
    }
    for (int p = 1; p < 3; p++) {
        const int pw = (w + 1) / 2, ph = (h + 1) / 2;
        for (int y = 0; y < ph; y++) {
            uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
            for (int i = 0; i < pw; i++) {
                int v = 128 + (p == 1 ? 1 : -1) * (int)(20.0 * sin((i + y) * 0.03));
                if (2 * i >= bx && 2 * i < bx + bw && 2 * y >= by && 2 * y < by + bh)
                    v = p == 1 ? 90 : 170;
                row[i] = (uint8_t)v;
            }
        }
    }
}

static int load_clip(clip *c, int max_frames)
{
    fovea_video_info_init(&c->info);
    if (!c->path[0]) {
        c->info.width = c->gen_w;
        c->info.height = c->gen_h;
        c->info.fmt = fovea_pixfmt_yuv(420, 8);
        c->info.fps_num = 30;
        c->info.fps_den = 1;
        c->n = c->gen_frames;
        c->frames = calloc((size_t)c->n, sizeof(fovea_frame));
        if (!c->frames)
            return -1;
        for (int i = 0; i < c->n; i++) {
            BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &c->frames[i], c->gen_w, c->gen_h,
                                                c->info.fmt, FOVEA_MEM_HOST));
            synth_frame(&c->frames[i], i);
        }
    } else {
        fovea_reader *r = NULL;
        if (fovea_reader_open(&r, NULL, c->path, NULL) < 0) {
            fprintf(stderr, "bench_stream: %s\n", fovea_last_error(NULL));
            return -1;
        }
        c->info = *fovea_reader_info(r);
        c->frames = calloc((size_t)max_frames, sizeof(fovea_frame));
        c->n = 0;
        while (c->n < max_frames) {
            memset(&c->frames[c->n], 0, sizeof(fovea_frame));
            const int st = fovea_reader_read(r, &c->frames[c->n]);
            if (st == FOVEA_EOF)
                break;
            if (st < 0) {
                fprintf(stderr, "bench_stream: %s\n", fovea_last_error(NULL));
                fovea_reader_close(&r);
                return -1;
            }
            c->n++;
        }
        fovea_reader_close(&r);
    }
    if (c->info.fps_num <= 0 || c->info.fps_den <= 0) {
        c->info.fps_num = 25;
        c->info.fps_den = 1;
    }
    c->raw = fovea_frame_packed_size(c->info.fmt, c->info.width, c->info.height);
    return c->n > 0 ? 0 : -1;
}

static void free_clip(clip *c)
{
    for (int i = 0; c->frames && i < c->n; i++)
        fovea_frame_free(NULL, &c->frames[i]);
    free(c->frames);
    c->frames = NULL;
}

/* ---------------------------------------------------------------- bytes and speed */

/* The largest |a - b| over every sample of 8-bit 4:2:0 frames (else -1: not
 * checked). Every decoded frame must be within T of its source. */
static int max_error(const fovea_frame *a, const fovea_frame *b)
{
    if (a->fmt != fovea_pixfmt_yuv(420, 8))
        return -1;
    int worst = 0;
    for (int p = 0; p < 4 && a->data[p]; p++) {
        const size_t row = fovea_plane_row_bytes(a->fmt, a->width, p);
        const int h = fovea_plane_height(a->fmt, a->height, p);
        for (int y = 0; y < h; y++) {
            const uint8_t *ra = a->data[p] + (ptrdiff_t)y * a->stride[p];
            const uint8_t *rb = b->data[p] + (ptrdiff_t)y * b->stride[p];
            for (size_t x = 0; x < row; x++) {
                const int d = abs((int)ra[x] - (int)rb[x]);
                worst = d > worst ? d : worst;
            }
        }
    }
    return worst;
}

typedef struct msgbuf {
    uint8_t *data;
    size_t *off, len, cap;
    int count;
} msgbuf;

/* CPU time of the process (every thread), microseconds */
static double cpu_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* CPU time of the calling thread, microseconds */
static double thread_cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* the encoder's shortest zstd match (src/stream/encoder.c, STREAM_MIN_MATCH) */
#define ENCODER_MIN_MATCH 7

/* The floor of the encoder's time: zstd alone compressing each frame's coded
 * tiles, group by group, as the encoder does, on one thread. The coded bytes
 * are the messages' groups decompressed (docs/stream-format.md). */
static void zstd_row(bench_table *table, const clip *c, const msgbuf *mb)
{
    fovea_stream_encoder_settings def;
    fovea_stream_encoder_default_settings(&def);
    const int level = zstd_level > 0 ? zstd_level : def.zstd_level;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    double *us = malloc((size_t)c->n * sizeof(double));
    uint8_t *raw = NULL, *comp = NULL;
    size_t raw_cap = 0, comp_cap = 0;
    if (!cc || !us) {
        fprintf(stderr, "bench_stream: out of memory\n");
        exit(1);
    }
    double total = 0;
    size_t coded = 0;
    for (int i = 0; i < c->n; i++) {
        const uint8_t *msg = mb->data + mb->off[i], *end = mb->data + mb->off[i + 1];
        const uint8_t *h = msg + FOVEA_STREAM_HEADER_SIZE;
        const uint32_t ng = (uint32_t)(h[28] | h[29] << 8 | h[30] << 16 | (uint32_t)h[31] << 24);
        const uint32_t m = (uint32_t)(h[32] | h[33] << 8 | h[34] << 16 | (uint32_t)h[35] << 24);
        const uint8_t *q = h + 36 + m;
        us[i] = 0;
        for (uint32_t k = 0; k < ng && q + 8 <= end; k++) {
            const size_t len = (size_t)(q[4] | q[5] << 8 | q[6] << 16 | (uint32_t)q[7] << 24);
            const unsigned long long n = ZSTD_getFrameContentSize(q + 8, len);
            if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN) {
                fprintf(stderr, "bench_stream: a group without its size\n");
                exit(1);
            }
            if (n > raw_cap || ZSTD_compressBound((size_t)n) > comp_cap) {
                raw_cap = (size_t)n;
                comp_cap = ZSTD_compressBound(raw_cap);
                raw = realloc(raw, raw_cap);
                comp = realloc(comp, comp_cap);
                if (!raw || !comp) {
                    fprintf(stderr, "bench_stream: out of memory\n");
                    exit(1);
                }
            }
            if (ZSTD_isError(ZSTD_decompress(raw, (size_t)n, q + 8, len))) {
                fprintf(stderr, "bench_stream: a group does not decompress\n");
                exit(1);
            }
            const double t0 = thread_cpu_us();
            ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
            ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
            ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, ENCODER_MIN_MATCH);
            const size_t z = ZSTD_compress2(cc, comp, comp_cap, raw, (size_t)n);
            us[i] += thread_cpu_us() - t0;
            if (ZSTD_isError(z)) {
                fprintf(stderr, "bench_stream: zstd: %s\n", ZSTD_getErrorName(z));
                exit(1);
            }
            coded += (size_t)n;
            q += 8 + len;
        }
        total += us[i];
    }
    bench_stats st;
    bench_stats_compute(us, c->n, &st);
    st.median_us = total / c->n;
    char name[96], note[160];
    snprintf(name, sizeof(name), "%s T=0 zstd only", c->name);
    snprintf(note, sizeof(note),
             "the coded tiles of each frame, %.0f KiB a frame, 1 thread, time = mean CPU time",
             (double)coded / c->n / 1024.0);
    bench_table_add(table, name, "cpu", &st, 2.0 * (double)c->raw, 1, note);
    ZSTD_freeCCtx(cc);
    free(raw);
    free(comp);
    free(us);
}

/* Encode every frame of c at T (context ctx), then decode the messages; add
 * the rows; bytes in % of raw and frames/s out. */
static void codec_rows(bench_table *table, fovea_context *ctx, const char *backend, clip *c, int T,
                       double *pct, double *enc_fps, double *dec_fps)
{
    fovea_stream_encoder_settings s;
    fovea_stream_encoder_default_settings(&s);
    s.threshold = T;
    if (zstd_level > 0)
        s.zstd_level = zstd_level;
    fovea_stream_encoder *e = NULL;
    BENCH_FOVEA(ctx, fovea_stream_encoder_open(&e, ctx, &s, &c->info));
    msgbuf mb = {0};
    mb.off = malloc(((size_t)c->n + 1) * sizeof(size_t));
    double *us = malloc((size_t)c->n * sizeof(double));
    if (!mb.off || !us) {
        fprintf(stderr, "bench_stream: out of memory\n");
        exit(1);
    }
    double total = 0;
    size_t bytes = 0;
    const double cpu0 = cpu_now_us();
    for (int i = 0; i < c->n; i++) {
        const uint8_t *m;
        size_t sz;
        const double t0 = bench_now_us();
        BENCH_FOVEA(ctx, fovea_stream_encoder_encode(e, &c->frames[i], (uint64_t)i, &m, &sz, NULL));
        us[i] = bench_now_us() - t0;
        total += us[i];
        bytes += sz;
        if (mb.len + sz > mb.cap) {
            mb.cap = 2 * (mb.len + sz);
            mb.data = realloc(mb.data, mb.cap);
            if (!mb.data) {
                fprintf(stderr, "bench_stream: out of memory\n");
                exit(1);
            }
        }
        memcpy(mb.data + mb.len, m, sz);
        mb.off[i] = mb.len;
        mb.len += sz;
    }
    mb.off[c->n] = mb.len;
    const double cpu_ms = (cpu_now_us() - cpu0) / 1e3 / c->n;
    const uint8_t *hp;
    size_t hello_size;
    fovea_stream_encoder_hello(e, &hp, &hello_size);
    uint8_t hello[256];
    if (hello_size > sizeof hello) {
        fprintf(stderr, "bench_stream: HELLO of %zu bytes\n", hello_size);
        exit(1);
    }
    memcpy(hello, hp, hello_size);
    fovea_stream_encoder_close(&e);
    *pct = 100.0 * (double)bytes / ((double)c->raw * c->n);
    *enc_fps = 1e6 * c->n / total;
    char name[96], note[160];
    bench_stats st;
    bench_stats_compute(us, c->n, &st);
    st.median_us = total / c->n; /* throughput: the mean, keyframes included */
    snprintf(name, sizeof(name), "%s T=%d encode", c->name, T);
    snprintf(note, sizeof(note),
             "%.2f%% of raw, %d frames, %d threads, time = mean, CPU %.2f ms/frame", *pct, c->n,
             fovea_context_threads(ctx), cpu_ms);
    bench_table_add(table, name, backend, &st, 2.0 * (double)c->raw, 1, note);
    if (T == 0)
        zstd_row(table, c, &mb);

    fovea_stream_decoder *d = NULL;
    BENCH_FOVEA(ctx, fovea_stream_decoder_open(&d, ctx, NULL));
    fovea_stream_event ev;
    BENCH_FOVEA(ctx, fovea_stream_decoder_feed(d, hello, hello_size, &ev));
    total = 0;
    for (int i = 0; i < c->n; i++) {
        const double t0 = bench_now_us();
        BENCH_FOVEA(
            ctx, fovea_stream_decoder_feed(d, mb.data + mb.off[i], mb.off[i + 1] - mb.off[i], &ev));
        us[i] = bench_now_us() - t0;
        total += us[i];
        if (!ev.frame) {
            fprintf(stderr, "bench_stream: message %d gave no frame\n", i);
            exit(1);
        }
        const int err = max_error(ev.frame, &c->frames[i]);
        if (err > T) {
            fprintf(stderr, "bench_stream: %s frame %d at T=%d: error %d\n", c->name, i, T, err);
            exit(1);
        }
    }
    fovea_stream_decoder_close(&d);
    *dec_fps = 1e6 * c->n / total;
    bench_stats_compute(us, c->n, &st);
    st.median_us = total / c->n;
    snprintf(name, sizeof(name), "%s T=%d decode", c->name, T);
    snprintf(note, sizeof(note), "messages in memory, time = mean");
    bench_table_add(table, name, backend, &st, 2.0 * (double)c->raw, 1, note);
    free(mb.data);
    free(mb.off);
    free(us);
}

/* ---------------------------------------------------------------- x264 */

/* x264 lossless at preset on the clip's y4m (written to tmp for a generated
 * clip): size in % of raw and frames/s (the whole ffmpeg run, wall clock). */
static int x264_run(const clip *c, const char *y4m, const char *tmp, const char *preset,
                    double *pct, double *fps)
{
    char out[4200];
    snprintf(out, sizeof(out), "%s/bench_stream_%d_%s.h264", tmp, (int)getpid(), preset);
    char frames[32];
    snprintf(frames, sizeof(frames), "%d", c->n);
    char *argv[] = {"ffmpeg",       "-nostdin", "-loglevel", "error",   "-y",  "-i", (char *)y4m,
                    "-frames:v",    frames,     "-c:v",      "libx264", "-qp", "0",  "-preset",
                    (char *)preset, "-f",       "h264",      out,       NULL};
    double sec = 0;
    const int rc = run_wait(argv, &sec);
    const long long sz = file_size(out);
    remove(out);
    if (rc != 0 || sz <= 0) {
        fprintf(stderr, "bench_stream: ffmpeg -preset %s on %s failed (status %d)\n", preset, y4m,
                rc);
        return -1;
    }
    *pct = 100.0 * (double)sz / ((double)c->raw * c->n);
    *fps = c->n / sec;
    return 0;
}

/* ---------------------------------------------------------------- main */

/* Convert the first `frames` frames of DIR/NAME.avi to tmp/NAME.y4m. */
static int convert_avi(const char *dir, const char *name, const char *tmp, int frames, char *y4m,
                       size_t ysz)
{
    char avi[4200], fr[32];
    snprintf(avi, sizeof(avi), "%s/%s.avi", dir, name);
    if (access(avi, R_OK) != 0) {
        fprintf(stderr, "bench_stream: no %s: skipped\n", avi);
        return -1;
    }
    snprintf(y4m, ysz, "%s/bench_stream_%d_%s.y4m", tmp, (int)getpid(), name);
    snprintf(fr, sizeof(fr), "%d", frames);
    char *argv[] = {"ffmpeg",  "-nostdin", "-loglevel",    "error", "-y",
                    "-i",      avi,        "-frames:v",    fr,      "-pix_fmt",
                    "yuv420p", "-f",       "yuv4mpegpipe", y4m,     NULL};
    if (run_wait(argv, NULL) != 0) {
        fprintf(stderr, "bench_stream: ffmpeg could not convert %s\n", avi);
        remove(y4m);
        return -1;
    }
    return 0;
}

/* A clip's frames as the rows of stream_e2e.c and stream_latency.c take them. */
static stream_frames frames_of(const clip *c)
{
    const stream_frames f = {c->name, c->frames, c->n, c->info, c->raw};
    return f;
}

/* A run: the options, the clips with their results, the contexts. */
typedef struct stream_bench {
    bench_opts opts;
    clip clips[MAX_CLIPS];
    result res[MAX_CLIPS];
    int converted[MAX_CLIPS]; /* clips[k].path is a converted file to remove */
    int nclips, max_frames, use_x264, use_latency, use_e2e, e2e_frames;
    const char *tmp, *ocv;
    double hd_med[NT], hd_p99[NT]; /* the 1080p latency rows; < 0: not run */
    FILE *text;
    bench_table table;
    fovea_context *cpu, *gpu;
    double copy_bw;
} stream_bench;

/* The options after bench_common's. @return 0, or 2 after a message */
static int parse_args(stream_bench *b, int argc, char **argv)
{
    bench_parse_args_ex(argc, argv, &b->opts, usage);
    b->max_frames = 300;
    b->use_x264 = b->use_latency = b->use_e2e = 1;
    b->e2e_frames = 600;
    b->tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int i = 0; i < b->opts.n_extra; i++) {
        const char *a = b->opts.extra[i];
        const char *v = i + 1 < b->opts.n_extra ? b->opts.extra[i + 1] : NULL;
        if (!strcmp(a, "--clip") && v && b->nclips < MAX_CLIPS) {
            clip *c = &b->clips[b->nclips++];
            snprintf(c->path, sizeof(c->path), "%s", v);
            const char *base = strrchr(v, '/');
            snprintf(c->name, sizeof(c->name), "%s", base ? base + 1 : v);
            char *dot = strrchr(c->name, '.');
            if (dot)
                *dot = 0;
            i++;
        } else if (!strcmp(a, "--opencv-data") && v) {
            b->ocv = v;
            i++;
        } else if (!strcmp(a, "--frames") && v && atoi(v) > 0) {
            b->max_frames = atoi(v);
            i++;
        } else if (!strcmp(a, "--level") && v && atoi(v) >= 1 && atoi(v) <= 19) {
            zstd_level = atoi(v);
            i++;
        } else if (!strcmp(a, "--tmp") && v) {
            b->tmp = v;
            i++;
        } else if (!strcmp(a, "--no-x264")) {
            b->use_x264 = 0;
        } else if (!strcmp(a, "--no-latency")) {
            b->use_latency = 0;
        } else if (!strcmp(a, "--e2e-frames") && v && atoi(v) > 0) {
            b->e2e_frames = atoi(v);
            i++;
        } else if (!strcmp(a, "--no-e2e")) {
            b->use_e2e = 0;
        } else {
            fprintf(stderr, "bench_stream: unknown or incomplete argument '%s'\n", a);
            return 2;
        }
    }
    return 0;
}

/* The clips: --opencv-data's converted, else a generated one. */
static void add_clips(stream_bench *b, int ffmpeg)
{
    if (b->ocv && ffmpeg) {
        static const char *names[] = {"vtest", "tree", "Megamind"};
        for (int k = 0; k < 3 && b->nclips < MAX_CLIPS; k++) {
            clip *c = &b->clips[b->nclips];
            if (convert_avi(b->ocv, names[k], b->tmp, b->max_frames, c->path, sizeof(c->path)) ==
                0) {
                snprintf(c->name, sizeof(c->name), "%s", names[k]);
                b->converted[b->nclips++] = 1;
            }
        }
    }
    if (b->opts.quick && b->max_frames > 60)
        b->max_frames = 60;
    if (b->nclips == 0) {
        clip *c = &b->clips[b->nclips++];
        snprintf(c->name, sizeof(c->name), "synthetic 640x360");
        c->gen_w = 640;
        c->gen_h = 360;
        c->gen_frames = b->opts.quick ? 30 : 120;
    }
}

/* A C context, and a CUDA one (and the copy bandwidth) when a device is present. */
static void open_contexts(stream_bench *b)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    BENCH_FOVEA(NULL, fovea_open(&b->cpu, &cs));
    int ndev = 0;
    fovea_device_count(&ndev);
#ifdef FOVEA_HAVE_CUDA
    if (ndev > 0) {
        b->copy_bw = bench_copy_bandwidth(0);
        fovea_settings gs;
        fovea_default_settings(&gs);
        gs.backend = FOVEA_BACKEND_CUDA;
        gs.cuda_device = b->opts.device;
        BENCH_FOVEA(NULL, fovea_open(&b->gpu, &gs));
    }
#endif
    (void)ndev;
    if (!b->gpu)
        fprintf(b->text, "no CUDA device: CUDA rows skipped\n");
}

/* x264 lossless at presets ultrafast and medium on clip c (written to a y4m
 * first when generated). */
static void x264_rows(stream_bench *b, clip *c, result *r)
{
    char y4m[4200];
    snprintf(y4m, sizeof(y4m), "%s", c->path);
    if (!c->path[0]) {
        snprintf(y4m, sizeof(y4m), "%s/bench_stream_%d_gen.y4m", b->tmp, (int)getpid());
        if (bench_write_y4m(y4m, c->frames, c->n, 0, c->n, 30, "bench_stream") < 0)
            y4m[0] = 0;
    }
    static const char *presets[] = {"ultrafast", "medium"};
    for (int p = 0; p < 2 && y4m[0]; p++) {
        if (x264_run(c, y4m, b->tmp, presets[p], &r->x264_pct[p], &r->x264_fps[p]) < 0) {
            r->x264_pct[p] = -1;
            continue;
        }
        bench_stats st = {0};
        st.median_us = st.min_us = st.max_us = st.mean_us = 1e6 / r->x264_fps[p];
        st.runs = 1;
        char name[96], note[160];
        snprintf(name, sizeof(name), "%s x264 lossless %s", c->name, presets[p]);
        snprintf(note, sizeof(note), "%.2f%% of raw, ffmpeg wall clock, y4m in", r->x264_pct[p]);
        bench_table_add(&b->table, name, "cpu-x264", &st, (double)c->raw, 1, note);
    }
    if (!c->path[0] && y4m[0])
        remove(y4m);
}

/* The C backend's latency row of clip c at threshold T. */
static void latency_row(stream_bench *b, const clip *c, int T, int frames, double *med_ms,
                        double *p99_ms)
{
    const stream_frames f = frames_of(c);
    stream_latency_row(&b->table, "cpu", &f, T, frames, zstd_level, med_ms, p99_ms);
}

/* Clip k's rows: the codec at each T (C, and CUDA), x264, the latency. */
static void clip_rows(stream_bench *b, int k)
{
    clip *c = &b->clips[k];
    result *r = &b->res[k];
    r->x264_pct[0] = r->x264_pct[1] = -1;
    r->lat_med = r->lat_p99 = -1;
    if (!bench_case_enabled(&b->opts, c->name) || load_clip(c, b->max_frames) < 0)
        return;
    for (int t = 0; t < NT; t++) {
        codec_rows(&b->table, b->cpu, "cpu", c, thresholds[t], &r->pct[t], &r->enc_fps[t],
                   &r->dec_fps[t]);
        if (b->gpu) {
            double p, ef, df;
            codec_rows(&b->table, b->gpu, "cuda", c, thresholds[t], &p, &ef, &df);
        }
    }
    if (b->use_x264)
        x264_rows(b, c, r);
    if (b->use_latency)
        latency_row(b, c, 0, c->n, &r->lat_med, &r->lat_p99);
    free_clip(c);
}

/* 1080p fixed camera, C backend: the latency goal */
static void hd_latency_rows(stream_bench *b)
{
    for (int t = 0; t < NT; t++)
        b->hd_med[t] = b->hd_p99[t] = -1;
    if (!b->use_latency || !bench_case_enabled(&b->opts, "1080p"))
        return;
    clip hd = {0};
    snprintf(hd.name, sizeof(hd.name), "1080p generated");
    hd.gen_w = 1920;
    hd.gen_h = 1080;
    hd.gen_frames = b->opts.quick ? 30 : 100;
    if (load_clip(&hd, 0) == 0) {
        /* 300 frames: one keyframe (the first), so p99 is a delta's */
        for (int t = 0; t < NT; t += 2)
            latency_row(b, &hd, thresholds[t], b->opts.quick ? 30 : 300, &b->hd_med[t],
                        &b->hd_p99[t]);
        free_clip(&hd);
    }
}

/* 1080p fixed camera end to end, C and CUDA contexts: the throughput goal */
static void e2e_rows(stream_bench *b)
{
    if (!b->use_e2e || !bench_case_enabled(&b->opts, "1080p e2e"))
        return;
    clip e2 = {0};
    snprintf(e2.name, sizeof(e2.name), "1080p e2e");
    e2.gen_w = 1920;
    e2.gen_h = 1080;
    e2.gen_frames = b->opts.quick ? 30 : 120;
    if (b->opts.quick && b->e2e_frames > 60)
        b->e2e_frames = 60;
    if (load_clip(&e2, 0) != 0)
        return;
    char y4m[4200];
    snprintf(y4m, sizeof(y4m), "%s/bench_stream_%d_e2e.y4m", b->tmp, (int)getpid());
    /* the distinct frames cycled: the walking box jumps back each cycle */
    if (bench_write_y4m(y4m, e2.frames, e2.n, 0, b->e2e_frames, 30, "bench_stream") == 0) {
        bench_warm_file(y4m);
        stream_e2e_row(&b->table, b->cpu, "cpu", y4m, zstd_level);
        if (b->gpu) {
            stream_e2e_row(&b->table, b->gpu, "cuda", y4m, zstd_level);
            const stream_frames sf = frames_of(&e2);
            stream_device_row(&b->table, b->gpu, &sf, b->e2e_frames, zstd_level);
        }
    }
    remove(y4m);
    free_clip(&e2);
}

/* the comparison the issue asks for */
static void print_comparison(const stream_bench *b)
{
    FILE *text = b->text;
    fprintf(text,
            "\n# stream vs x264 lossless, C backend, %d CPUs (bytes in %% of raw 8-bit "
            "4:2:0)\n",
            fovea_cpu_count());
    fprintf(text, "%-18s | %6s | %6s | %6s | %6s | %6s | %8s | %8s | %8s | %8s | %6s | %13s\n",
            "clip", "x264uf", "x264md", "T=0", "T=4", "T=10", "enc fps", "dec fps", "x264uf",
            "enc/x264", "T0/md", "lat med/p99");
    for (int k = 0; k < b->nclips; k++) {
        const result *r = &b->res[k];
        if (!b->clips[k].raw)
            continue;
        char uf[16] = "-", md[16] = "-", xf[16] = "-", ratio[16] = "-", rmd[16] = "-",
             lat[32] = "-";
        if (r->x264_pct[0] >= 0) {
            snprintf(uf, sizeof uf, "%.2f", r->x264_pct[0]);
            snprintf(xf, sizeof xf, "%.0f", r->x264_fps[0]);
            snprintf(ratio, sizeof ratio, "%.1fx", r->enc_fps[0] / r->x264_fps[0]);
        }
        if (r->x264_pct[1] >= 0) {
            snprintf(md, sizeof md, "%.2f", r->x264_pct[1]);
            snprintf(rmd, sizeof rmd, "%.2fx", r->pct[0] / r->x264_pct[1]);
        }
        if (r->lat_med >= 0)
            snprintf(lat, sizeof lat, "%.1f/%.1f ms", r->lat_med, r->lat_p99);
        fprintf(text,
                "%-18s | %6s | %6s | %6.2f | %6.2f | %6.2f | %8.0f | %8.0f | %8s | %8s | %6s | "
                "%13s\n",
                b->clips[k].name, uf, md, r->pct[0], r->pct[1], r->pct[2], r->enc_fps[0],
                r->dec_fps[0], xf, ratio, rmd, lat);
    }
    for (int t = 0; t < NT; t++)
        if (b->hd_med[t] >= 0)
            fprintf(text,
                    "1080p generated, T=%d: latency median %.1f ms, p99 %.1f ms (goal < 10 ms)\n",
                    thresholds[t], b->hd_med[t], b->hd_p99[t]);
    fprintf(text, "\n");
}

int main(int argc, char **argv)
{
    static stream_bench bench; /* the clips' paths: too large for the stack */
    stream_bench *b = &bench;
    if (parse_args(b, argc, argv) != 0)
        return 2;
    b->text = bench_text_stream(&b->opts);
    const int ffmpeg = have_program("ffmpeg");
    if (!ffmpeg)
        fprintf(b->text, "no ffmpeg on PATH: x264 columns and --opencv-data skipped\n");
    add_clips(b, ffmpeg);
    b->use_x264 = b->use_x264 && ffmpeg;

    bench_table_init(&b->table, "stream", "frames", &b->opts);
    open_contexts(b);
    for (int k = 0; k < b->nclips; k++)
        clip_rows(b, k);
    hd_latency_rows(b);
    e2e_rows(b);
    fovea_close(&b->gpu);
    fovea_close(&b->cpu);

    print_comparison(b);
    for (int k = 0; k < b->nclips; k++)
        if (b->converted[k])
            remove(b->clips[k].path);
    return bench_table_finish(&b->table, b->copy_bw);
}
