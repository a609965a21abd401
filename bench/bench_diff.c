/* bench_diff: frame differencing of 1920x1080 RGB24 pairs (a camera-like
 * frame and the next one: sensor noise, a moving block). Rows, all on the
 * same data in one process:
 *   (a) the published study's heat-map kernel as the baseline: one block of
 *       1,024 threads walking the frame with 4-byte loads, sinf per pixel;
 *   (b) the same arithmetic with one thread per pixel;
 *   (c) the byte floor: two frames read and one written at the
 *       device-to-device copy bandwidth measured in this run;
 *   (d) fovea through the public API on a CUDA context, device-resident
 *       frames (CUDA events): heat map, noise map, mask with its compacted
 *       tile list, median3 + heat map in one fovea_diff_compute;
 *   (e) end to end from pinned host frames: copy in, heat map, copy out;
 *   (f) `fovea diff` on a 1080p y4m file (i420; --heatmap /dev/null), its
 *       own frames/s from its JSON, with CUDA and with the C backend;
 *   (g) the C backend at 1 thread (the heat-map goal: >= 300 frames/s on one
 *       core) and on every core.
 * Rows (d) and (e) print "n/a (no CUDA backend)" while the differencer of a
 * CUDA context runs the C backend, and every GPU row "n/a (no CUDA device)"
 * without a device.
 *
 * Extra options: --cli PATH (the fovea executable; default: ../fovea next to
 * this program's directory), --no-e2e, --tmp DIR (for the y4m file). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
            const int pw = (int)fovea_plane_row_bytes(fmt, W, p), ph = fovea_plane_height(fmt, H, p);
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
    char *argv[] = {(char *)cli, "diff", "-q", "--backend", (char *)backend, "--heatmap",
                    "/dev/null", "--json", json, in, NULL};
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
    snprintf(note, sizeof(note), "fovea diff CLI, %d frames, %.0f maps/s (median of %d)%s",
             frames, 1e6 / s.median_us, n,
             strcmp(backend, "cuda") == 0 ? "; goal >= 1000" : "");
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

/* ---------------------------------------------------------------- GPU rows */

#ifdef FOVEA_HAVE_CUDA
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
    static const char *const names[3] = {
        "(a) baseline: 1 block x 1024 threads, 4-byte loads, sinf",
        "(b) baseline arithmetic, 1 thread per pixel", "(c) byte floor: read 2 frames + write 1"};
    if (bench_case_enabled(o, names[0])) {
        /* the one-block kernel takes milliseconds: fewer runs */
        bench_time_gpu(run_baseline, &b, stream, 2, o->quick ? 3 : 10, &s);
        bench_table_add(t, names[0], "cuda", &s, bytes, 1,
                        "the study's design; heat map of SUM / 765");
    }
    if (bench_case_enabled(o, names[1])) {
        b.per_pixel = 1;
        bench_time_gpu(run_baseline, &b, stream, o->warmup, o->runs, &s);
        bench_table_add(t, names[1], "cuda", &s, bytes, 1, "same sinf colouring, byte loads");
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
#endif

static const char *const fovea_gpu_rows[] = {
    "(d) fovea heat map, device frames",
    "(d) fovea noise map (black), device frames",
    "(d) fovea mask + compacted tile list, device frames",
    "(d) fovea median3 + heat map, one compute, device frames",
    "(e) fovea heat map, pinned host frames (copy in, out)",
};
#define N_FOVEA_GPU_ROWS 5

/* Rows (d) and (e) on a CUDA context. */
static void fovea_gpu_rows_run(bench_table *t, const bench_opts *o, fovea_context *gpu,
                               const fovea_frame *prev, const fovea_frame *cur)
{
    fovea_diff_settings ds;
    fovea_diff_default_settings(&ds);
    fovea_diff *d = NULL, *dm = NULL;
    BENCH_FOVEA(gpu, fovea_diff_open(&d, gpu, &ds));
    if (fovea_diff_backend(d) != FOVEA_BACKEND_CUDA) {
        for (int i = 0; i < N_FOVEA_GPU_ROWS; i++)
            if (bench_case_enabled(o, fovea_gpu_rows[i]))
                add_na(t, fovea_gpu_rows[i], "no CUDA backend");
        fovea_diff_close(&d);
        return;
    }
    ds.denoise = FOVEA_DIFF_DENOISE_MEDIAN3;
    BENCH_FOVEA(gpu, fovea_diff_open(&dm, gpu, &ds));
    fovea_frame dprev, dcur, dheat, dnoise, pprev, pcur, pheat;
    const fovea_pixfmt f = FOVEA_PIX_RGB24;
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &dprev, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &dcur, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &dheat, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &dnoise, W, H, f, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pprev, W, H, f, FOVEA_MEM_PINNED));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pcur, W, H, f, FOVEA_MEM_PINNED));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pheat, W, H, f, FOVEA_MEM_PINNED));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &dprev, prev));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &dcur, cur));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &pprev, prev));
    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &pcur, cur));
    BENCH_FOVEA(gpu, fovea_sync(gpu));
    void *stream = fovea_context_stream(gpu);
    const double frame = (double)W * H * 3;
    fovea_diff_mask_result m;
    static const char *const goals[N_FOVEA_GPU_ROWS] = {
        "goal <= 7.5 us", "goal <= 5 us", "goal <= 5 us; reads 2 frames, writes the list",
        "goal <= 12 us", "H2D 2 frames + D2H 1; near the PCIe rate"};
    for (int i = 0; i < N_FOVEA_GPU_ROWS; i++) {
        if (!bench_case_enabled(o, fovea_gpu_rows[i]))
            continue;
        diff_case c;
        memset(&c, 0, sizeof(c));
        c.d = i == 3 ? dm : d;
        c.prev = i == 4 ? &pprev : &dprev;
        c.cur = i == 4 ? &pcur : &dcur;
        double bytes = 3 * frame;
        if (i == 0 || i == 3)
            c.outs.heatmap = &dheat;
        else if (i == 1)
            c.outs.noise = &dnoise;
        else if (i == 2) {
            c.outs.mask = &m;
            bytes = 2 * frame;
        } else
            c.outs.heatmap = &pheat;
        bench_stats s;
        if (i == 4)
            bench_time_cpu(run_compute, &c, o->warmup, o->runs, &s);
        else
            bench_time_gpu(run_compute, &c, stream, o->warmup, o->runs, &s);
        bench_table_add(t, fovea_gpu_rows[i], i == 4 ? "cuda-e2e" : "cuda", &s, bytes, 1,
                        goals[i]);
    }
    fovea_frame *all[] = {&dprev, &dcur, &dheat, &dnoise, &pprev, &pcur, &pheat};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        fovea_frame_free(gpu, all[i]);
    fovea_diff_close(&d);
    fovea_diff_close(&dm);
}

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
            bench_time_cpu(run_compute, &c, 2, runs, &s);
            snprintf(note, sizeof(note), "%.0f frames/s%s", 1e6 / s.median_us,
                     !all && !k ? "; goal >= 300 on one core" : "");
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
    }
#endif
    if (gpu) {
        fovea_gpu_rows_run(&table, &opts, gpu, &prev, &cur);
    } else {
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
