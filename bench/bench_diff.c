/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_diff: frame differencing of 1920x1080 RGB24 pairs (a camera-like
 * frame and the next one: sensor noise, a moving block). Rows, all on the
 * same data in one process:
 *   (a) the published study's heat-map kernel as the baseline: one block of
 *       1,024 threads walking the frame with 4-byte loads, sinf per pixel;
 *   (b) the same arithmetic with one thread per pixel; (b') its device time;
 *   (c) the byte floor: two frames read and one written at the
 *       device-to-device copy bandwidth measured in this run;
 *   (d) fovea through the public API on a CUDA context, device-resident
 *       frames, timed as (a) and (b) are (CUDA events around the call, so
 *       the host's API and launch costs count): heat map, noise map black
 *       and overlay into cur, mask with its compacted tile list (the call
 *       waits for its result), median3 + heat map in one fovea_diff_compute;
 *   (d') the same work's device time alone: the GPU is kept busy while the
 *       host queues the events and the call, so they time the queued work
 *       only; the mask through fovea_diff_mask_submit (kernel + the copy of
 *       its result; also with tiles of 8 and 64: the same bytes in 2025 and
 *       255 blocks), that small copy alone, and 8 heat maps queued back to
 *       back (throughput);
 *   (e) end to end from pinned host frames: copy in, heat map, copy out;
 *   (e') the PCIe copies it is made of, one 1080p RGB24 frame each way, and
 *       the floors they give (in series; with the D2H overlapped);
 *   (f) `fovea diff` on a 1080p y4m file (i420; --heatmap /dev/null), its
 *       own frames/s from its JSON, with CUDA and with the C backend;
 *   (g) the C backend at 1 thread (the heat-map goal: >= 300 frames/s on one
 *       core) and on every core, with the process's CPU time a call.
 * Rows (d) and (e) print "n/a (no CUDA backend)" while the differencer of a
 * CUDA context runs the C backend, and every GPU row "n/a (no CUDA device)"
 * without a device. *
 * Extra options: --cli PATH (the fovea executable; default: ../fovea next to
 * this program's directory), --no-e2e, --tmp DIR (for the y4m file). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "fovea/diff.h"
#include "fovea/io.h"
#ifdef FOVEA_HAVE_CUDA
#include "diff_baseline.h"
#endif

enum { W = 1920, H = 1080 };

typedef struct diff_case {
    fovea_diff *d;
    const fovea_frame *prev, *cur;
    fovea_diff_outputs outs;
} diff_case;

static int run_compute(void *arg)
{
    diff_case *c = arg;
    return fovea_diff_compute(c->d, c->prev, c->cur, &c->outs) < 0;
}

/* A camera-like pair: smooth shading with texture and sensor noise (+-3), the
 * next frame with fresh noise and a 240x160 block moved by 24 px. RGB24 or
 * I420 (the chroma planes sampled at every other pixel). */
static void synth_pair(fovea_frame *prev, fovea_frame *cur, fovea_pixfmt fmt, int t)
{
    uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)t;
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    for (int k = 0; k < 2; k++) {
        fovea_frame *f = k ? cur : prev;
        const int bx = 400 + 24 * (t + k), by = 300 + 8 * (t + k);
        for (int p = 0; p < d->planes; p++) {
            const int pw = (int)fovea_plane_row_bytes(fmt, W, p),
                      ph = fovea_plane_height(fmt, H, p);
            for (int y = 0; y < ph; y++) {
                uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
                for (int i = 0; i < pw; i++) {
                    const int c = d->is_rgb ? i % 3 : p;
                    const int xx = d->is_rgb ? i / 3 : p ? 2 * i : i, yy = p ? 2 * y : y;
                    double v = 110 + 60 * sin(xx * 0.004 + 0.3 * c) * cos(yy * 0.006) +
                               12 * sin(xx * 0.11) * sin(yy * 0.07);
                    if (xx >= bx && xx < bx + 240 && yy >= by && yy < by + 160)
                        v = 40 + (xx - bx) / 2 + 30 * c;
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    const int s = (int)v + (int)((x >> 60) % 7) - 3;
                    row[i] = (uint8_t)(s < 1 ? 1 : s > 255 ? 255 : s);
                }
            }
        }
    }
}

static void add_na(bench_table *t, const char *name, const char *why)
{
    bench_stats s;
    memset(&s, 0, sizeof(s));
    char note[160];
    snprintf(note, sizeof(note), "n/a (%s)", why);
    bench_table_add(t, name, "cuda", &s, 0, 0, note);
}

/* ---------------------------------------------------------------- end to end */

/* `cli diff -q --backend B --heatmap /dev/null --json J in.y4m`: its fps. */
static void e2e_row(bench_table *table, const char *cli, const char *dir, const char *backend,
                    int frames, int runs)
{
    char in[4200], json[4200];
    snprintf(in, sizeof(in), "%s/in.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    char *argv[] = {(char *)cli, "diff",      "-q",     "--backend", (char *)backend,
                    "--heatmap", "/dev/null", "--json", json,        in,
                    NULL};
    double us[16];
    int n = 0;
    if (runs > 16)
        runs = 16;
    for (int r = 0; r < runs; r++) {
        const double f = bench_run_cli_fps(argv, json, "bench_diff");
        if (f > 0)
            us[n++] = 1e6 / f;
    }
    remove(json);
    if (n == 0)
        return;
    bench_stats s;
    bench_stats_compute(us, n, &s);
    char name[96], note[160];
    snprintf(name, sizeof(name), "1080p i420 y4m, fovea diff --heatmap (e2e)");
    snprintf(note, sizeof(note), "fovea diff CLI, %d frames, %.0f maps/s (median of %d)%s", frames,
             1e6 / s.median_us, n, strcmp(backend, "cuda") == 0 ? "; goal >= 1000" : "");
    /* one frame read, one heat map written per map */
    const double bytes = 2.0 * (double)fovea_frame_packed_size(FOVEA_PIX_I420, W, H);
    bench_table_add(table, name, strcmp(backend, "cuda") == 0 ? "cuda-e2e" : "cpu-e2e", &s, bytes,
                    1, note);
}

/* Write a 1080p i420 y4m of `frames` frames (8 distinct, cycled) in a new
 * directory under tmp. @return 0 with dir set, or -1 */
static int make_clip(const char *tmp, int frames, char *dir, size_t dirsz)
{
    snprintf(dir, dirsz, "%s/bench_diff_%d_XXXXXX", tmp, (int)getpid());
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_diff: cannot make a directory in %s\n", tmp);
        return -1;
    }
    enum { DISTINCT = 8 };
    fovea_frame f[DISTINCT + 1];
    memset(f, 0, sizeof(f));
    for (int i = 0; i <= DISTINCT; i++)
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &f[i], W, H, FOVEA_PIX_I420, FOVEA_MEM_HOST));
    for (int i = 0; i < DISTINCT; i++)
        synth_pair(&f[i], &f[DISTINCT], FOVEA_PIX_I420, 2 * i);
    char path[4200];
    snprintf(path, sizeof(path), "%s/in.y4m", dir);
    const int rc = bench_write_y4m(path, f, DISTINCT, 0, frames, 30, "bench_diff");
    for (int i = 0; i <= DISTINCT; i++)
        fovea_frame_free(NULL, &f[i]);
    if (rc == 0)
        bench_warm_file(path);
    return rc;
}

static void remove_clip(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/in.y4m", dir);
    remove(path);
    rmdir(dir);
}

/* The fovea rows: (d) device frames, timed as the baseline rows are (events
 * around the call: the host's API and launch costs included); (d') the same
 * calls' device time alone; (e) pinned host frames end to end, with (e') the
 * PCIe copies it is made of. */
enum {
    R_HEAT,
    R_BLACK,
    R_OVERLAY,
    R_MASK,
    R_MEDIAN,
    R_PINNED,
    R_DEV_HEAT,
    R_DEV_BLACK,
    R_DEV_OVERLAY,
    R_DEV_MASK,
    R_DEV_MASK8,
    R_DEV_MASK64,
    R_DEV_SMALLCOPY,
    R_DEV_MEDIAN,
    R_DEV_HEAT8,
    R_H2D,
    R_D2H,
    R_FLOOR_SERIAL,
    R_FLOOR_OVERLAP,
    N_FOVEA_GPU_ROWS
};
static const char *const fovea_gpu_rows[N_FOVEA_GPU_ROWS] = {
    "(d) fovea heat map, device frames",
    "(d) fovea noise map (black), device frames",
    "(d) fovea noise map (overlay into cur), device frames",
    "(d) fovea mask + compacted tile list, device frames",
    "(d) fovea median3 + heat map, one compute, device frames",
    "(e) fovea heat map, pinned host frames (copy in, out)",
    "(d') heat map: device time alone",
    "(d') noise map (black): device time alone",
    "(d') noise overlay into cur: device time alone",
    "(d') mask submit: device time (kernel + result copy)",
    "(d') mask submit, tile 8 (2025 blocks): device time",
    "(d') mask submit, tile 64 (255 blocks): device time",
    "(d') mask result copy alone (counters + 1024 entries)",
    "(d') median3 + heat map: device time alone",
    "(d') heat map, 8 calls queued: device time per call",
    "(e') H2D copy of a pinned 1080p RGB24 frame",
    "(e') D2H copy of a pinned 1080p RGB24 frame",
    "(e') floor: 2 H2D + 1 D2H one after another",
    "(e') floor: 2 H2D, the D2H overlapped",
};

/* ---------------------------------------------------------------- GPU rows */

#ifdef FOVEA_HAVE_CUDA
/* Device time of fn: the GPU is kept busy (bench_diff_gpu_busy) while the
 * host queues the start event, `calls` calls of fn and the stop event, so
 * the events time the queued work alone, without the host's launch and API
 * costs (which the plain (d) rows include). fn must not wait for the device. */
static void time_device(bench_fn fn, void *arg, void *stream, int warmup, int runs, int calls,
                        bench_stats *out)
{
    cudaStream_t st = (cudaStream_t)stream;
    cudaEvent_t start, stop;
    BENCH_CUDA(cudaEventCreate(&start));
    BENCH_CUDA(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; i++)
        if (fn(arg))
            exit(1);
    double *us = malloc((size_t)runs * sizeof(double));
    if (!us)
        exit(1);
    for (int i = 0; i < runs; i++) {
        BENCH_CUDA((cudaError_t)bench_diff_gpu_busy(stream, 200));
        BENCH_CUDA(cudaEventRecord(start, st));
        for (int k = 0; k < calls; k++)
            if (fn(arg))
                exit(1);
        BENCH_CUDA(cudaEventRecord(stop, st));
        BENCH_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
        us[i] = (double)ms * 1e3 / calls;
    }
    BENCH_CUDA(cudaEventDestroy(start));
    BENCH_CUDA(cudaEventDestroy(stop));
    bench_stats_compute(us, runs, out);
    free(us);
}

typedef struct baseline_case {
    const uint8_t *prev, *cur;
    uint8_t *out;
    void *stream;
    int per_pixel;
} baseline_case;

static int run_baseline(void *arg)
{
    baseline_case *b = arg;
    return (b->per_pixel ? bench_diff_baseline_per_pixel : bench_diff_baseline_one_block)(
               b->prev, b->cur, b->out, W, H, b->stream) != 0;
}

/* A packed device copy of a host RGB24 frame. */
static uint8_t *device_copy(const fovea_frame *f)
{
    uint8_t *p = NULL;
    BENCH_CUDA(cudaMalloc((void **)&p, (size_t)W * H * 3));
    BENCH_CUDA(cudaMemcpy2D(p, (size_t)W * 3, f->data[0], (size_t)f->stride[0], (size_t)W * 3, H,
                            cudaMemcpyHostToDevice));
    return p;
}

/* Rows (a) to (c). */
static void baseline_rows(bench_table *t, const bench_opts *o, const fovea_frame *prev,
                          const fovea_frame *cur, double copy_bw)
{
    const double bytes = 3.0 * W * H * 3;
    cudaStream_t stream;
    BENCH_CUDA(cudaStreamCreate(&stream));
    baseline_case b = {device_copy(prev), device_copy(cur), NULL, stream, 0};
    BENCH_CUDA(cudaMalloc((void **)&b.out, (size_t)W * H * 3));
    bench_stats s;
    static const char *const names[3] = {"(a) baseline: 1 block x 1024 threads, 4-byte loads, sinf",
                                         "(b) baseline arithmetic, 1 thread per pixel",
                                         "(c) byte floor: read 2 frames + write 1"};
    if (bench_case_enabled(o, names[0])) {
        /* the one-block kernel takes milliseconds: fewer runs */
        bench_time_gpu(run_baseline, &b, stream, 2, o->quick ? 3 : 10, &s);
        bench_table_add(t, names[0], "cuda", &s, bytes, 1,
                        "the study's design; heat map of SUM / 765");
    }
    if (bench_case_enabled(o, names[1])) {
        b.per_pixel = 1;
        bench_time_gpu(run_baseline, &b, stream, o->warmup, o->runs, &s);
        bench_table_add(t, names[1], "cuda", &s, bytes, 1, "same sinf coloring, byte loads");
    }
    static const char *const dev_b = "(b') baseline, 1 thread per pixel: device time alone";
    if (bench_case_enabled(o, dev_b)) {
        b.per_pixel = 1;
        time_device(run_baseline, &b, stream, o->warmup, o->runs, 1, &s);
        bench_table_add(t, dev_b, "cuda", &s, bytes, 1, "compare rows (d')");
    }
    if (copy_bw > 0 && bench_case_enabled(o, names[2])) {
        memset(&s, 0, sizeof(s));
        s.median_us = s.min_us = s.max_us = s.mean_us = bytes / (copy_bw * 1e9) * 1e6;
        s.runs = 1;
        bench_table_add(t, names[2], "floor", &s, bytes, 1,
                        "at the device-to-device copy bandwidth of this run");
    }
    BENCH_CUDA(cudaFree((void *)b.prev));
    BENCH_CUDA(cudaFree((void *)b.cur));
    BENCH_CUDA(cudaFree(b.out));
    BENCH_CUDA(cudaStreamDestroy(stream));
}

static int run_submit(void *arg)
{
    diff_case *c = arg;
    return fovea_diff_mask_submit(c->d, c->prev, c->cur) < 0;
}

/* rows bytes of each of `rows` rows, from src to dst (pitches in bytes) */
typedef struct copy_case {
    void *dst;
    size_t dpitch;
    const void *src;
    size_t spitch, bytes;
    int rows;
    enum cudaMemcpyKind kind;
    cudaStream_t stream;
} copy_case;

static int run_copy(void *arg)
{
    copy_case *c = arg;
    return cudaMemcpy2DAsync(c->dst, c->dpitch, c->src, c->spitch, c->bytes, (size_t)c->rows,
                             c->kind, c->stream) != cudaSuccess;
}

/* What rows (d) to (e') share: the differencers (plain, median3, overlay, and
 * tiles of 8 and 64), the frames (device and pinned), the mask's result and
 * its small copy's buffers, and the (e') copy times the floors use. */
typedef struct gpu_rows {
    fovea_context *gpu;
    fovea_diff *d, *dm, *dov, *dt[2];
    fovea_frame dprev, dcur, dcur2, dheat, dnoise, pprev, pcur, pheat;
    void *stream;
    fovea_diff_mask_result m;
    size_t small;
    void *dsmall, *hsmall;
    bench_stats copy_s[2];
} gpu_rows;

/* Everything but r->d (open already, with the settings *ds) on r->gpu. */
static void gpu_rows_open(gpu_rows *r, fovea_diff_settings *ds, const fovea_frame *prev,
                          const fovea_frame *cur)
{
    fovea_context *gpu = r->gpu;
    ds->denoise = FOVEA_DIFF_DENOISE_MEDIAN3;
    BENCH_FOVEA(gpu, fovea_diff_open(&r->dm, gpu, ds));
    ds->denoise = FOVEA_DIFF_DENOISE_NONE;
    ds->noise_mode = FOVEA_DIFF_NOISE_OVERLAY;
    BENCH_FOVEA(gpu, fovea_diff_open(&r->dov, gpu, ds));
    ds->noise_mode = FOVEA_DIFF_NOISE_BLACK;
    for (int k = 0; k < 2; k++) { /* the mask's blocks: one a 128 px of a tile row */
        ds->tile = k ? 64 : 8;
        BENCH_FOVEA(gpu, fovea_diff_open(&r->dt[k], gpu, ds));
    }
    const fovea_pixfmt f = FOVEA_PIX_RGB24;
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->dprev, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->dcur, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->dcur2, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->dheat, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->dnoise, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->pprev, W, H, f, FOVEA_MEM_PINNED));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->pcur, W, H, f, FOVEA_MEM_PINNED));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &r->pheat, W, H, f, FOVEA_MEM_PINNED));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &r->dprev, prev));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &r->dcur, cur));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &r->dcur2, cur));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &r->pprev, prev));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &r->pcur, cur));
    BENCH_FOVEA(gpu, fovea_sync(gpu));
    r->stream = fovea_context_stream(gpu);
    /* the mask's result: 4 counters and up to 1024 list entries (diff_cuda.c) */
    r->small = 4 * sizeof(unsigned long long) + 1024 * sizeof(int32_t);
    BENCH_CUDA(cudaMalloc(&r->dsmall, r->small));
    BENCH_CUDA(cudaMallocHost(&r->hsmall, r->small));
    BENCH_CUDA(cudaMemset(r->dsmall, 0, r->small));
    memset(r->copy_s, 0, sizeof(r->copy_s));
}

static void gpu_rows_close(gpu_rows *r)
{
    BENCH_CUDA(cudaFree(r->dsmall));
    BENCH_CUDA(cudaFreeHost(r->hsmall));
    fovea_frame *all[] = {&r->dprev,  &r->dcur,  &r->dcur2, &r->dheat,
                          &r->dnoise, &r->pprev, &r->pcur,  &r->pheat};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        fovea_frame_free(r->gpu, all[i]);
    fovea_diff_close(&r->d);
    fovea_diff_close(&r->dm);
    fovea_diff_close(&r->dov);
    fovea_diff_close(&r->dt[0]);
    fovea_diff_close(&r->dt[1]);
}

/* The call row i times (c: differencer, frames, outputs), the bytes it moves
 * and its note, for the rows that time fovea_diff_compute or the mask submit. */
static void gpu_row_case(gpu_rows *r, int i, diff_case *c, double *bytes, const char **note,
                         const char **backend)
{
    const double frame = (double)W * H * 3;
    switch (i) {
    case R_HEAT:
    case R_DEV_HEAT:
    case R_DEV_HEAT8:
        c->outs.heatmap = &r->dheat;
        *note = i == R_HEAT       ? "goal <= 7.5 us (the host's call included)"
                : i == R_DEV_HEAT ? "goal <= 7.5 us; floor row (c)"
                                  : "throughput when calls are queued back to back";
        break;
    case R_BLACK:
    case R_DEV_BLACK:
        c->outs.noise = &r->dnoise;
        *note = "writes a whole frame: its floor is row (c)'s, above the 5 us goal";
        break;
    case R_OVERLAY:
    case R_DEV_OVERLAY:
        /* cur painted in place: after the first call the changed pixels are red */
        c->d = r->dov;
        c->cur = &r->dcur2;
        c->outs.noise = &r->dcur2;
        *bytes = 2 * frame;
        *note = "goal <= 5 us; reads 2 frames, writes the changed pixels";
        break;
    case R_MASK:
    case R_DEV_MASK:
    case R_DEV_MASK8:
    case R_DEV_MASK64:
        if (i == R_DEV_MASK8 || i == R_DEV_MASK64)
            c->d = r->dt[i == R_DEV_MASK64];
        c->outs.mask = &r->m;
        *bytes = 2 * frame;
        *note = i == R_MASK       ? "goal <= 5 us; waits for the result copy and the host"
                : i == R_DEV_MASK ? "fovea_diff_mask_submit, received after the timing"
                                  : "the same bytes: the difference is per-block cost";
        break;
    case R_MEDIAN:
    case R_DEV_MEDIAN:
        c->d = r->dm;
        c->outs.heatmap = &r->dheat;
        *note = "goal <= 12 us";
        break;
    case R_PINNED:
        c->prev = &r->pprev;
        c->cur = &r->pcur;
        c->outs.heatmap = &r->pheat;
        *backend = "cuda-e2e";
        *note = "H2D 2 frames + D2H 1; compare rows (e')";
        break;
    default: break;
    }
}

/* Rows (d') of the mask submit: one submit a run; its receive after the timing. */
static void gpu_row_mask_submit(gpu_rows *r, const bench_opts *o, diff_case *c, bench_stats *s)
{
    s->runs = 0;
    double *us = malloc((size_t)o->runs * sizeof(double));
    if (!us)
        exit(1);
    for (int k = 0; k < o->runs + o->warmup; k++) {
        bench_stats one;
        time_device(run_submit, c, r->stream, 0, 1, 1, &one);
        BENCH_FOVEA(r->gpu, fovea_diff_mask_receive(c->d, &r->m));
        if (k >= o->warmup)
            us[k - o->warmup] = one.median_us;
    }
    bench_stats_compute(us, o->runs, s);
    free(us);
}

/* Row (d') of the mask's result copy alone. */
static void gpu_row_small_copy(gpu_rows *r, const bench_opts *o, bench_stats *s)
{
    copy_case cc = {r->hsmall,
                    r->small,
                    r->dsmall,
                    r->small,
                    r->small,
                    1,
                    cudaMemcpyDeviceToHost,
                    (cudaStream_t)r->stream};
    time_device(run_copy, &cc, r->stream, o->warmup, o->runs, 1, s);
}

/* Rows (e') of one frame's copy, H2D or D2H; kept in r->copy_s for the floors. */
static void gpu_row_pcie_copy(gpu_rows *r, const bench_opts *o, int i, bench_stats *s)
{
    const fovea_frame *dst = i == R_H2D ? &r->dcur : &r->pheat;
    const fovea_frame *src = i == R_H2D ? &r->pcur : &r->dheat;
    copy_case cc = {dst->data[0],
                    (size_t)dst->stride[0],
                    src->data[0],
                    (size_t)src->stride[0],
                    (size_t)W * 3,
                    H,
                    i == R_H2D ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                    (cudaStream_t)r->stream};
    time_device(run_copy, &cc, r->stream, o->warmup, o->runs, 1, s);
    r->copy_s[i - R_H2D] = *s;
}

/* Rows (e') of the floors from the copy rows: 0, or -1 without them. */
static int gpu_row_floor(const gpu_rows *r, int i, bench_stats *s)
{
    if (r->copy_s[0].median_us <= 0 || r->copy_s[1].median_us <= 0)
        return -1;
    memset(s, 0, sizeof(*s));
    s->median_us =
        2 * r->copy_s[0].median_us + (i == R_FLOOR_SERIAL ? r->copy_s[1].median_us : 0.0);
    s->min_us = s->max_us = s->mean_us = s->median_us;
    s->runs = 1;
    return 0;
}

/* Row i of (d) to (e'); the copy rows are timed even when not shown (the
 * floors use them). */
static void gpu_row(bench_table *t, const bench_opts *o, gpu_rows *r, int i)
{
    const char *name = fovea_gpu_rows[i];
    if (!bench_case_enabled(o, name) && i != R_H2D && i != R_D2H)
        return;
    const double frame = (double)W * H * 3;
    diff_case c;
    memset(&c, 0, sizeof(c));
    c.d = r->d;
    c.prev = &r->dprev;
    c.cur = &r->dcur;
    double bytes = 3 * frame;
    const char *note = "";
    const char *backend = "cuda";
    bench_stats s;
    char buf[160];
    gpu_row_case(r, i, &c, &bytes, &note, &backend);
    if (i == R_PINNED) {
        bench_time_cpu(run_compute, &c, o->warmup, o->runs, &s);
    } else if (i < R_PINNED) {
        bench_time_gpu(run_compute, &c, r->stream, o->warmup, o->runs, &s);
    } else if (i == R_DEV_MASK || i == R_DEV_MASK8 || i == R_DEV_MASK64) {
        gpu_row_mask_submit(r, o, &c, &s);
    } else if (i == R_DEV_SMALLCOPY) {
        gpu_row_small_copy(r, o, &s);
        bytes = (double)r->small;
        note = "part of the submit row: the rest is the kernel";
    } else if (i == R_H2D || i == R_D2H) {
        gpu_row_pcie_copy(r, o, i, &s);
        bytes = frame;
        snprintf(buf, sizeof(buf), "%.1f GB/s (this row's bytes, one way)",
                 frame / (s.median_us * 1e3));
        note = buf;
        backend = "pcie";
        if (!bench_case_enabled(o, name))
            return;
    } else if (i == R_FLOOR_SERIAL || i == R_FLOOR_OVERLAP) {
        if (gpu_row_floor(r, i, &s) != 0)
            return;
        backend = "floor";
        note = i == R_FLOOR_SERIAL ? "from rows (e'): what (e) costs without overlap"
                                   : "from rows (e'): copies in both directions at once";
    } else {
        time_device(run_compute, &c, r->stream, o->warmup, o->runs, i == R_DEV_HEAT8 ? 8 : 1, &s);
    }
    bench_table_add(t, name, backend, &s, bytes, 1, note);
}

/* Rows (d), (d'), (e) and (e') on a CUDA context. */
static void fovea_gpu_rows_run(bench_table *t, const bench_opts *o, fovea_context *gpu,
                               const fovea_frame *prev, const fovea_frame *cur)
{
    fovea_diff_settings ds;
    fovea_diff_default_settings(&ds);
    gpu_rows r;
    memset(&r, 0, sizeof(r));
    r.gpu = gpu;
    BENCH_FOVEA(gpu, fovea_diff_open(&r.d, gpu, &ds));
    if (fovea_diff_backend(r.d) != FOVEA_BACKEND_CUDA) {
        for (int i = 0; i < N_FOVEA_GPU_ROWS; i++)
            if (bench_case_enabled(o, fovea_gpu_rows[i]))
                add_na(t, fovea_gpu_rows[i], "no CUDA backend");
        fovea_diff_close(&r.d);
        return;
    }
    gpu_rows_open(&r, &ds, prev, cur);
    for (int i = 0; i < N_FOVEA_GPU_ROWS; i++)
        gpu_row(t, o, &r, i);
    gpu_rows_close(&r);
}
#endif

/* ---------------------------------------------------------------- C backend */

static void cpu_rows(bench_table *t, const bench_opts *o, const fovea_frame *prev,
                     const fovea_frame *cur)
{
    fovea_frame heat;
    BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &heat, W, H, FOVEA_PIX_RGB24, FOVEA_MEM_HOST));
    fovea_diff_mask_result m;
    const int runs = o->quick ? 5 : 30;
    for (int all = 0; all < 2; all++) {
        fovea_settings cs;
        fovea_default_settings(&cs);
        cs.backend = FOVEA_BACKEND_CPU;
        cs.threads = all ? 0 : 1;
        fovea_context *cpu = NULL;
        BENCH_FOVEA(NULL, fovea_open(&cpu, &cs));
        fovea_diff *d = NULL;
        BENCH_FOVEA(cpu, fovea_diff_open(&d, cpu, NULL));
        const int threads = fovea_context_threads(cpu);
        char name[96], note[160];
        for (int k = 0; k < 2; k++) {
            snprintf(name, sizeof(name), "(g) C backend %s, %d thread%s", k ? "mask" : "heat map",
                     threads, threads == 1 ? "" : "s");
            if (!bench_case_enabled(o, name) || (all && k))
                continue;
            diff_case c;
            memset(&c, 0, sizeof(c));
            c.d = d;
            c.prev = prev;
            c.cur = cur;
            if (k)
                c.outs.mask = &m;
            else
                c.outs.heatmap = &heat;
            bench_stats s;
            /* the process's CPU time too: on a loaded machine the wall time
             * also counts the waits for a core */
            struct timespec c0, c1;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
            bench_time_cpu(run_compute, &c, 2, runs, &s);
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
            const double cpu_us =
                ((double)(c1.tv_sec - c0.tv_sec) * 1e6 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e3) /
                (runs + 2);
            snprintf(note, sizeof(note), "%.0f frames/s, CPU %.0f us a call%s", 1e6 / s.median_us,
                     cpu_us, !all && !k ? "; goal >= 300 on one core" : "");
            bench_table_add(t, name, "cpu", &s, (k ? 2.0 : 3.0) * W * H * 3, 1, note);
        }
        fovea_diff_close(&d);
        fovea_close(&cpu);
    }
    fovea_frame_free(NULL, &heat);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args_ex(argc, argv, &opts, BENCH_E2E_USAGE);
    static bench_e2e ee;
    if (bench_e2e_parse(&opts, &ee, "bench_diff") != 0)
        return 2;
    FILE *text = bench_text_stream(&opts);
    bench_table table;
    bench_table_init(&table, "diff", "frames", &opts);

    fovea_frame prev, cur;
    BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &prev, W, H, FOVEA_PIX_RGB24, FOVEA_MEM_HOST));
    BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &cur, W, H, FOVEA_PIX_RGB24, FOVEA_MEM_HOST));
    synth_pair(&prev, &cur, FOVEA_PIX_RGB24, 0);

    int ndev = 0;
    fovea_device_count(&ndev);
    double copy_bw = 0.0;
    fovea_context *gpu = NULL;
#ifdef FOVEA_HAVE_CUDA
    if (ndev > 0) {
        copy_bw = bench_copy_bandwidth(0);
        fovea_settings gs;
        fovea_default_settings(&gs);
        gs.backend = FOVEA_BACKEND_CUDA;
        gs.cuda_device = opts.device;
        BENCH_FOVEA(NULL, fovea_open(&gpu, &gs));
        baseline_rows(&table, &opts, &prev, &cur, copy_bw);
        fovea_gpu_rows_run(&table, &opts, gpu, &prev, &cur);
    }
#endif
    if (!gpu) {
        fprintf(text, "no CUDA device%s: GPU rows n/a\n",
                fovea_cuda_compiled() ? "" : " (built without CUDA)");
        for (int i = 0; i < N_FOVEA_GPU_ROWS; i++)
            if (bench_case_enabled(&opts, fovea_gpu_rows[i]))
                add_na(&table, fovea_gpu_rows[i], "no CUDA device");
    }

    /* (f): the CLI end to end */
    const char *cli = ee.cli;
    const int e2e_case = bench_case_enabled(&opts, "1080p i420 y4m, fovea diff --heatmap (e2e)");
    if (ee.enabled && e2e_case && (!cli || access(cli, X_OK) != 0))
        fprintf(text, "no fovea executable at %s (--cli PATH): end-to-end rows skipped\n",
                cli ? cli : "?");
    else if (ee.enabled && e2e_case) {
        const int frames = opts.quick ? 60 : 300;
        char dir[4096];
        if (make_clip(ee.tmp, frames, dir, sizeof(dir)) == 0) {
            if (gpu)
                e2e_row(&table, cli, dir, "cuda", frames, opts.quick ? 1 : 3);
            e2e_row(&table, cli, dir, "cpu", frames, opts.quick ? 1 : 3);
        }
        remove_clip(dir);
    }

    cpu_rows(&table, &opts, &prev, &cur);
    fovea_frame_free(NULL, &prev);
    fovea_frame_free(NULL, &cur);
    if (gpu)
        fovea_close(&gpu);
    return bench_table_finish(&table, copy_bw);
}
