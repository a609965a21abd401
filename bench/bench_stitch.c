/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_stitch: two 3840x2160 cameras -> 5700x1900 equirectangular panorama
 * (~10% overlap), color correction on. Rows: (a) the users' baseline kernel
 * (six float tables, powf gamma) and (a') the same built with --use_fast_math,
 * (b) fovea RGBA->RGBA and (c) NV12->I420 with frames resident on the device
 * (each frame waited for, back to back, and back to back over four buffer sets
 * in turn; also with exact in-kernel sampling), (b') with automatic color
 * balance, (d) end to end from pinned host frames to host output with copies
 * overlapped across three streams, (e) the C backend on every CPU core, (g) the
 * `fovea stitch` CLI end to end on y4m files, (h) six 3840x2160 cameras into
 * 7680x3840, feathering and multiband (stitch_six.c; `--filter six`). The experiments that measured
 * designs not built (texture-gather floor, SM-filtered staged floor, SM clock
 * probe, L2 fetch granularity) are on branch wip/stitch-floors and in main's
 * history at commit aeec5b9.
 *
 * Extra options: --cli PATH (the fovea executable; default: ../fovea next to
 * this program's directory), --no-e2e, --tmp DIR (for the y4m files). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "fovea/io.h"
#include "fovea/rig.h"
#include "fovea/stitch.h"
#ifdef FOVEA_HAVE_CUDA
#include "stitch_baseline.h"
#endif
#include "stitch_six.h"

static const char *bench_rig_json =
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 5700, \"height\": 1900,"
    " \"hfov\": 150.0, \"vfov\": 50.0},"
    " \"blend\": {\"feather\": 64},"
    " \"cameras\": ["
    "  {\"name\": \"left\", \"width\": 3840, \"height\": 2160, \"model\": \"pinhole\","
    "   \"fx\": 2132.0, \"fy\": 2132.0, \"cx\": 1919.5, \"cy\": 1079.5,"
    "   \"dist\": [-0.05, 0.01, 0.0, 0.0, 0.0], \"yaw\": -35.0, \"pitch\": 0.0, \"roll\": 0.0},"
    "  {\"name\": \"right\", \"width\": 3840, \"height\": 2160, \"model\": \"pinhole\","
    "   \"fx\": 2132.0, \"fy\": 2132.0, \"cx\": 1919.5, \"cy\": 1079.5,"
    "   \"dist\": [-0.05, 0.01, 0.0, 0.0, 0.0], \"yaw\": 35.0, \"pitch\": 0.0, \"roll\": 0.0}]}";

typedef struct stitch_case {
    fovea_stitcher *st;
    const fovea_frame *in[2];
    fovea_frame *out;
} stitch_case;

static int run_stitch(void *arg)
{
    stitch_case *c = arg;
    return fovea_stitcher_process(c->st, c->in, 2, c->out) < 0;
}

#ifdef FOVEA_HAVE_CUDA
/* One GPU row of frames: fn timed on stream (bench_time_gpu_pipelined: `calls`
 * frames per sample, back to back; 1 = each frame waited for) after `warmup`
 * + 1 untimed calls, then the row added. Returns 0, or non-zero when the
 * timing failed (no row added). */
static int gpu_row(bench_table *t, const char *name, bench_fn fn, void *arg, void *stream,
                   int warmup, int runs, int calls, double bytes, const char *note)
{
    bench_stats s;
    int rc = bench_time_gpu_pipelined(fn, arg, stream, warmup + 1, runs, calls, &s);
    if (rc != 0)
        return rc;
    bench_table_add(t, name, "cuda", &s, bytes, 1, note);
    return 0;
}
#endif

static const fovea_color_correction bench_cc[2] = {
    {{1.05f, 1.0f, 0.95f}, 1.08f},
    {{0.97f, 1.0f, 1.04f}, 0.94f},
};

/* Row (e): the C backend stitching cams (two frames) into a host frame of out_fmt. */
static void cpu_row(bench_table *table, fovea_context *cpu, const fovea_stitch_map *map,
                    const fovea_stitcher_settings *ss, fovea_frame *cams, fovea_pixfmt out_fmt,
                    int runs, const char *name, double bytes)
{
    fovea_stitcher *st = NULL;
    BENCH_FOVEA(cpu, fovea_stitcher_open(&st, cpu, map, ss));
    BENCH_FOVEA(cpu, fovea_stitcher_set_color(st, bench_cc, 2));
    int pw, ph, nc;
    fovea_stitch_map_geometry(map, &pw, &ph, &nc);
    fovea_frame out;
    BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &out, pw, ph, out_fmt, FOVEA_MEM_HOST));
    stitch_case c = {st, {&cams[0], &cams[1]}, &out};
    bench_stats s;
    bench_time_cpu(run_stitch, &c, 1, runs, &s);
    char note[64];
    snprintf(note, sizeof(note), "%d threads", fovea_context_threads(cpu));
    bench_table_add(table, name, "cpu", &s, bytes, 1, note);
    fovea_frame_free(NULL, &out);
    fovea_stitcher_close(&st);
}

#ifdef FOVEA_HAVE_CUDA
typedef struct baseline_case {
    baseline_args args;
    cudaStream_t stream;
} baseline_case;

static int run_baseline(void *arg)
{
    baseline_case *b = arg;
    return bench_baseline_stitch(&b->args, b->stream) != 0;
}

static int run_baseline_fast(void *arg)
{
    baseline_case *b = arg;
    return bench_baseline_stitch_fast(&b->args, b->stream) != 0;
}

/* the same, over CYCLE sets of camera frames and outputs in turn, as a live
 * feed delivers them (no frame's buffers left in L2 by the previous one) */
enum { CYCLE = 4 };
typedef struct cycle_case {
    fovea_stitcher *st;
    const fovea_frame *in[CYCLE][2];
    fovea_frame *out[CYCLE];
    int next;
} cycle_case;

static int run_cycle(void *arg)
{
    cycle_case *c = arg;
    const int k = c->next;
    c->next = (k + 1) % CYCLE;
    return fovea_stitcher_process(c->st, c->in[k], 2, c->out[k]) < 0;
}
static float *upload_table(const float *host, size_t n)
{
    float *d = NULL;
    BENCH_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    BENCH_CUDA(cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

/* Write `text` to dir/name. @return 0, or -1 with a message */
static int write_text(const char *dir, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    int ok = fp && fputs(text, fp) >= 0;
    if (fp && fclose(fp) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "bench_stitch: cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* cam0.y4m, cam1.y4m: `frames` I420 frames of cw x ch each (4 distinct random
 * frames per camera, cycled). @return 0, or -1 with a message */
static int write_cams(const char *dir, int cw, int ch, int frames)
{
    enum { DISTINCT = 4 };
    fovea_frame f[DISTINCT];
    memset(f, 0, sizeof(f));
    int rc = 0;
    for (int i = 0; i < DISTINCT && rc == 0; i++) {
        rc = fovea_frame_alloc(NULL, &f[i], cw, ch, FOVEA_PIX_I420, FOVEA_MEM_HOST) < 0 ? -1 : 0;
        if (rc == 0)
            bench_fill_frame(&f[i], 100 + (uint64_t)i);
    }
    for (int c = 0; c < 2 && rc == 0; c++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/cam%d.y4m", dir, c);
        rc = bench_write_y4m(path, f, DISTINCT, 2 * c, frames, 50, "bench_stitch");
    }
    for (int i = 0; i < DISTINCT; i++)
        fovea_frame_free(NULL, &f[i]);
    return rc;
}

/* (g) `fovea stitch --rig rig.json cam0.y4m cam1.y4m -o pano.y4m` with
 * automatic color balance on the CUDA backend, inputs in the page cache: the
 * CLI's own frames/s (its JSON summary, timed from the first read to the last
 * write; building the map is setup), median of `runs`; the panorama written
 * to a file (then the machine's disk can hold it back), and to /dev/null
 * through a link named .y4m (what the CLI itself can deliver, e.g. to an
 * encoder's pipe). */
static void cli_rows(bench_table *table, const char *cli, const char *tmp, int cw, int ch, int pw,
                     int ph, int frames, int runs)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/bench_stitch_%d_XXXXXX", tmp, (int)getpid());
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_stitch: cannot make a directory in %s\n", tmp);
        return;
    }
    char rig[4200], cam0[4200], cam1[4200], out[4200], sink[4200], json[4200];
    snprintf(rig, sizeof(rig), "%s/rig.json", dir);
    snprintf(cam0, sizeof(cam0), "%s/cam0.y4m", dir);
    snprintf(cam1, sizeof(cam1), "%s/cam1.y4m", dir);
    snprintf(out, sizeof(out), "%s/pano.y4m", dir);
    snprintf(sink, sizeof(sink), "%s/null.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    if (write_text(dir, "rig.json", bench_rig_json) == 0 && write_cams(dir, cw, ch, frames) == 0) {
        bench_warm_file(cam0);
        bench_warm_file(cam1);
        const int have_sink = symlink("/dev/null", sink) == 0;
        if (runs > 16)
            runs = 16;
        for (int k = 0; k < 1 + have_sink; k++) {
            double us[16];
            int n = 0;
            for (int r = 0; r < runs; r++) {
                char *argv[] = {(char *)cli, "stitch", "-q",           "--backend", "cuda",
                                "--rig",     rig,      "--json",       json,        cam0,
                                cam1,        "-o",     k ? sink : out, NULL};
                const double f = bench_run_cli_fps(argv, json, "bench_stitch");
                if (f > 0)
                    us[n++] = 1e6 / f;
                remove(out);
            }
            if (n == 0)
                continue;
            bench_stats s;
            bench_stats_compute(us, n, &s);
            char note[160];
            snprintf(note, sizeof(note),
                     "fovea stitch CLI, auto color, %d frames, %.0f fps "
                     "(median of %d)",
                     frames, 1e6 / s.median_us, n);
            const double bytes = 2.0 * cw * ch * 1.5 + (double)pw * ph * 1.5;
            bench_table_add(table,
                            k ? "(g) y4m files -> /dev/null, end to end"
                              : "(g) y4m files -> y4m file, end to end",
                            "cuda-e2e", &s, bytes, 1, note);
        }
    }
    remove(rig);
    remove(cam0);
    remove(cam1);
    remove(out);
    remove(sink);
    remove(json);
    rmdir(dir);
}

/* What every GPU row group works on: the map and settings, the camera frames
 * on the device, the outputs, and the sizes (panorama W x H, cameras CW x CH). */
typedef struct gpu_setup {
    bench_table *table;
    const bench_opts *opts;
    const fovea_stitch_map *map;
    const fovea_stitcher_settings *ss;
    fovea_context *gpu;
    cudaStream_t stream;
    int W, H, CW, CH;
    double rgba_bytes, yuv_bytes;
    fovea_frame d_rgba[2], d_nv12[2], d_out_rgba, d_out_i420;
} gpu_setup;

/* Rows (a) and (a'): the users' baseline kernel on tables built from the same
 * map (exact per pixel), as written and with --use_fast_math.
 * @return 0, or 1 when out of memory */
static int baseline_rows(gpu_setup *g)
{
    const int W = g->W, H = g->H;
    size_t np = (size_t)W * H;
    float *t[6];
    for (int k = 0; k < 6; k++) {
        t[k] = malloc(np * sizeof(float));
        if (!t[k]) {
            fprintf(stderr, "bench_stitch: out of memory\n");
            return 1;
        }
    }
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) {
            size_t p = (size_t)j * W + i;
            fovea_stitch_map_weights(g->map, i, j, w, u, v);
            t[0][p] = w[0] > 0.0f ? u[0] : -1.0f;
            t[1][p] = w[0] > 0.0f ? v[0] : -1.0f;
            t[2][p] = w[1] > 0.0f ? u[1] : -1.0f;
            t[3][p] = w[1] > 0.0f ? v[1] : -1.0f;
            t[4][p] = w[0];
            t[5][p] = w[1];
        }
    baseline_case b;
    memset(&b, 0, sizeof(b));
    b.stream = g->stream;
    float *d[6];
    for (int k = 0; k < 6; k++) {
        d[k] = upload_table(t[k], np);
        free(t[k]);
    }
    b.args.lx = d[0];
    b.args.ly = d[1];
    b.args.rx = d[2];
    b.args.ry = d[3];
    b.args.wl = d[4];
    b.args.wr = d[5];
    b.args.left = g->d_rgba[0].data[0];
    b.args.right = g->d_rgba[1].data[0];
    b.args.left_stride = (int)g->d_rgba[0].stride[0];
    b.args.right_stride = (int)g->d_rgba[1].stride[0];
    b.args.cam_w = g->CW;
    b.args.cam_h = g->CH;
    b.args.out = g->d_out_rgba.data[0];
    b.args.out_stride = (int)g->d_out_rgba.stride[0];
    b.args.pano_w = W;
    b.args.pano_h = H;
    for (int k = 0; k < 3; k++) {
        b.args.gain_l[k] = bench_cc[0].gain[k];
        b.args.gain_r[k] = bench_cc[1].gain[k];
    }
    b.args.gamma_l = bench_cc[0].gamma;
    b.args.gamma_r = bench_cc[1].gamma;
    const bench_opts *o = g->opts;
    gpu_row(g->table, "(a) baseline 6 float tables + powf", run_baseline, &b, g->stream, o->warmup,
            o->runs, 1, g->rgba_bytes + 6.0 * 4.0 * np, "users' kernel shape");
    gpu_row(g->table, "(a') the same, --use_fast_math", run_baseline_fast, &b, g->stream, o->warmup,
            o->runs, 1, g->rgba_bytes + 6.0 * 4.0 * np, "__powf, approximate divisions");
    for (int k = 0; k < 6; k++)
        cudaFree(d[k]);
    return 0;
}

/* Rows (b) and (c) on stitcher st, frames resident on the device, each frame
 * waited for. */
static void resident_rows(gpu_setup *g, fovea_stitcher *st)
{
    const bench_opts *o = g->opts;
    if (bench_case_enabled(o, "rgba")) {
        stitch_case c = {st, {&g->d_rgba[0], &g->d_rgba[1]}, &g->d_out_rgba};
        gpu_row(g->table, "(b) fovea RGBA->RGBA, device", run_stitch, &c, g->stream, o->warmup,
                o->runs, 1, g->rgba_bytes, "each frame waited for; <= 1 code from C");
    }
    if (bench_case_enabled(o, "nv12")) {
        stitch_case c = {st, {&g->d_nv12[0], &g->d_nv12[1]}, &g->d_out_i420};
        gpu_row(g->table, "(c) fovea NV12->I420, device", run_stitch, &c, g->stream, o->warmup,
                o->runs, 1, g->yuv_bytes, NULL);
    }
}

/* Rows (b) and (c) for throughput on stitcher st: frames back to back on the
 * stream (the rows above wait for each frame, so they include the host's
 * launch path per frame), then the same over CYCLE frame sets in turn (set 0:
 * the frames above; the others copies of it: the caches go by address, not
 * content). */
static void stream_rows(gpu_setup *g, fovea_stitcher *st)
{
    const bench_opts *o = g->opts;
    fovea_context *gpu = g->gpu;
    const int calls = o->quick ? 5 : 50, runs = o->quick ? 2 : 10;
    stitch_case c = {st, {&g->d_rgba[0], &g->d_rgba[1]}, &g->d_out_rgba};
    gpu_row(g->table, "(b) RGBA, frames back to back", run_stitch, &c, g->stream, o->warmup, runs,
            calls, g->rgba_bytes, "throughput, 50 frames per sample");
    stitch_case c2 = {st, {&g->d_nv12[0], &g->d_nv12[1]}, &g->d_out_i420};
    gpu_row(g->table, "(c) NV12->I420, frames back to back", run_stitch, &c2, g->stream, o->warmup,
            runs, calls, g->yuv_bytes, "throughput, 50 frames per sample");
    fovea_frame xr[CYCLE][2], xn[CYCLE][2], xo[CYCLE][2];
    memset(xr, 0, sizeof(xr));
    memset(xn, 0, sizeof(xn));
    memset(xo, 0, sizeof(xo));
    cycle_case cr = {st, {{&g->d_rgba[0], &g->d_rgba[1]}}, {&g->d_out_rgba}, 0};
    cycle_case cn = {st, {{&g->d_nv12[0], &g->d_nv12[1]}}, {&g->d_out_i420}, 0};
    for (int k = 1; k < CYCLE; k++) {
        for (int q = 0; q < 2; q++) {
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &xr[k][q], g->CW, g->CH, FOVEA_PIX_RGBA,
                                               FOVEA_MEM_DEVICE));
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &xn[k][q], g->CW, g->CH, FOVEA_PIX_NV12,
                                               FOVEA_MEM_DEVICE));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &xr[k][q], &g->d_rgba[q]));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &xn[k][q], &g->d_nv12[q]));
            cr.in[k][q] = &xr[k][q];
            cn.in[k][q] = &xn[k][q];
        }
        BENCH_FOVEA(
            gpu, fovea_frame_alloc(gpu, &xo[k][0], g->W, g->H, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(
            gpu, fovea_frame_alloc(gpu, &xo[k][1], g->W, g->H, FOVEA_PIX_I420, FOVEA_MEM_DEVICE));
        cr.out[k] = &xo[k][0];
        cn.out[k] = &xo[k][1];
    }
    BENCH_FOVEA(gpu, fovea_sync(gpu));
    gpu_row(g->table, "(b) RGBA, 4 frame sets in turn, back to back", run_cycle, &cr, g->stream,
            o->warmup, runs, calls, g->rgba_bytes,
            "no frame's buffers in L2 from the previous one");
    gpu_row(g->table, "(c) NV12, 4 frame sets in turn, back to back", run_cycle, &cn, g->stream,
            o->warmup, runs, calls, g->yuv_bytes, "no frame's buffers in L2 from the previous one");
    for (int k = 1; k < CYCLE; k++)
        for (int q = 0; q < 2; q++) {
            fovea_frame_free(gpu, &xr[k][q]);
            fovea_frame_free(gpu, &xn[k][q]);
            fovea_frame_free(gpu, &xo[k][q]);
        }
}

/* Rows (b) and (c) with exact in-kernel sampling (bit-exact with the C backend). */
static void exact_rows(gpu_setup *g)
{
    const bench_opts *o = g->opts;
    fovea_stitcher_settings sx = *g->ss;
    sx.cuda_exact_sampling = 1;
    fovea_stitcher *stx = NULL;
    BENCH_FOVEA(g->gpu, fovea_stitcher_open(&stx, g->gpu, g->map, &sx));
    BENCH_FOVEA(g->gpu, fovea_stitcher_set_color(stx, bench_cc, 2));
    stitch_case c = {stx, {&g->d_rgba[0], &g->d_rgba[1]}, &g->d_out_rgba};
    gpu_row(g->table, "(b) RGBA, exact in-kernel sampling", run_stitch, &c, g->stream, o->warmup,
            o->runs, 1, g->rgba_bytes, "bit-exact with the C backend");
    stitch_case c2 = {stx, {&g->d_nv12[0], &g->d_nv12[1]}, &g->d_out_i420};
    gpu_row(g->table, "(c) NV12->I420, exact sampling", run_stitch, &c2, g->stream, o->warmup,
            o->runs, 1, g->yuv_bytes, "bit-exact with the C backend");
    fovea_stitcher_close(&stx);
}

/* Rows (b'): automatic color balance. */
static void auto_color_rows(gpu_setup *g)
{
    const bench_opts *o = g->opts;
    /* worst case: every frame analyzed, its statistics read back, solved and
     * the tables rebuilt before the call returns (deterministic mode), each
     * frame waited for */
    fovea_stitcher_settings sa = *g->ss;
    sa.color = FOVEA_COLOR_AUTO;
    sa.auto_interval = 1;
    sa.deterministic = 1;
    fovea_stitcher *sta = NULL;
    BENCH_FOVEA(g->gpu, fovea_stitcher_open(&sta, g->gpu, g->map, &sa));
    stitch_case c = {sta, {&g->d_rgba[0], &g->d_rgba[1]}, &g->d_out_rgba};
    gpu_row(g->table, "(b') RGBA + overlap stats every frame", run_stitch, &c, g->stream, o->warmup,
            o->runs, 1, g->rgba_bytes, "auto color, interval 1, deterministic");
    fovea_stitcher_close(&sta);
    /* what users run: the default schedule (statistics every 30th frame, read
     * back in the background), frames back to back; a sample of 30 frames
     * holds one analysis frame */
    sa.auto_interval = 30;
    sa.deterministic = 0;
    BENCH_FOVEA(g->gpu, fovea_stitcher_open(&sta, g->gpu, g->map, &sa));
    c.st = sta;
    const int runs = o->quick ? 2 : 20;
    gpu_row(g->table, "(b') RGBA + auto color, default interval", run_stitch, &c, g->stream,
            o->warmup, runs, 30, g->rgba_bytes, "back to back; mean of 30 frames per sample");
    fovea_stitcher_close(&sta);
}

/* Row (d) end to end: pinned host in (copies of cam_rgba), pinned host out,
 * PIPES contexts (streams) opened with gs in turn so one frame's copies
 * overlap another's kernel. */
static void e2e_row(gpu_setup *g, const fovea_settings *gs, const fovea_frame cam_rgba[2])
{
    enum { PIPES = 3 };
    const int W = g->W, H = g->H, CW = g->CW, CH = g->CH;
    fovea_context *pc[PIPES];
    fovea_stitcher *ps[PIPES];
    fovea_frame pin_in[PIPES][2], pin_out[PIPES];
    for (int p = 0; p < PIPES; p++) {
        BENCH_FOVEA(NULL, fovea_open(&pc[p], gs));
        BENCH_FOVEA(pc[p], fovea_stitcher_open(&ps[p], pc[p], g->map, g->ss));
        BENCH_FOVEA(pc[p], fovea_stitcher_set_color(ps[p], bench_cc, 2));
        for (int c = 0; c < 2; c++) {
            BENCH_FOVEA(pc[p], fovea_frame_alloc(pc[p], &pin_in[p][c], CW, CH, FOVEA_PIX_RGBA,
                                                 FOVEA_MEM_PINNED));
            BENCH_FOVEA(pc[p], fovea_frame_copy(pc[p], &pin_in[p][c], &cam_rgba[c]));
        }
        BENCH_FOVEA(pc[p],
                    fovea_frame_alloc(pc[p], &pin_out[p], W, H, FOVEA_PIX_RGBA, FOVEA_MEM_PINNED));
    }
    int frames = g->opts->quick ? 30 : 300;
    double samples[3];
    for (int rep = 0; rep < 3; rep++) {
        for (int p = 0; p < PIPES; p++)
            BENCH_FOVEA(pc[p], fovea_sync(pc[p]));
        double start = bench_now_us();
        for (int f = 0; f < frames + PIPES; f++) {
            int p = f % PIPES;
            BENCH_FOVEA(pc[p], fovea_sync(pc[p])); /* buffers of frame f-PIPES done */
            const fovea_frame *in[2] = {&pin_in[p][0], &pin_in[p][1]};
            BENCH_FOVEA(pc[p], fovea_stitcher_process_async(ps[p], in, 2, &pin_out[p]));
        }
        for (int p = 0; p < PIPES; p++)
            BENCH_FOVEA(pc[p], fovea_sync(pc[p]));
        samples[rep] = (bench_now_us() - start) / (frames + PIPES);
    }
    bench_stats s;
    bench_stats_compute(samples, 3, &s);
    bench_table_add(g->table, "(d) end to end pinned host->host", "cuda-e2e", &s,
                    2.0 * CW * CH * 4 + (double)W * H * 4, 1,
                    "3 streams; PCIe bound; bytes = host<->device traffic");
    for (int p = 0; p < PIPES; p++) {
        fovea_stitcher_close(&ps[p]);
        for (int c = 0; c < 2; c++)
            fovea_frame_free(pc[p], &pin_in[p][c]);
        fovea_frame_free(pc[p], &pin_out[p]);
        fovea_close(&pc[p]);
    }
}

/* Every GPU row, on device opts->device: the cameras (host frames cam_rgba,
 * cam_nv12) copied to the device once, then the row groups in table order.
 * @return 0, or 1 on failure */
static int gpu_rows(bench_table *table, const bench_opts *opts, const fovea_stitch_map *map,
                    const fovea_stitcher_settings *ss, const fovea_frame cam_rgba[2],
                    const fovea_frame cam_nv12[2], const bench_e2e *ee, FILE *text)
{
    gpu_setup g;
    memset(&g, 0, sizeof(g));
    g.table = table;
    g.opts = opts;
    g.map = map;
    g.ss = ss;
    int ncams = 0;
    fovea_stitch_map_geometry(map, &g.W, &g.H, &ncams);
    g.CW = cam_rgba[0].width;
    g.CH = cam_rgba[0].height;
    const int W = g.W, H = g.H, CW = g.CW, CH = g.CH;
    g.rgba_bytes = 2.0 * CW * CH * 4 + (double)W * H * 4;
    g.yuv_bytes = 2.0 * CW * CH * 1.5 + (double)W * H * 1.5;
    fovea_settings gs;
    fovea_default_settings(&gs);
    gs.backend = FOVEA_BACKEND_CUDA;
    gs.cuda_device = opts->device;
    BENCH_FOVEA(NULL, fovea_open(&g.gpu, &gs));
    fovea_context *gpu = g.gpu;
    g.stream = (cudaStream_t)fovea_context_stream(gpu);
    for (int c = 0; c < 2; c++) {
        BENCH_FOVEA(gpu,
                    fovea_frame_alloc(gpu, &g.d_rgba[c], CW, CH, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu,
                    fovea_frame_alloc(gpu, &g.d_nv12[c], CW, CH, FOVEA_PIX_NV12, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &g.d_rgba[c], &cam_rgba[c]));
        BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &g.d_nv12[c], &cam_nv12[c]));
    }
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &g.d_out_rgba, W, H, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &g.d_out_i420, W, H, FOVEA_PIX_I420, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu, fovea_sync(gpu));

    if (bench_case_enabled(opts, "baseline") && baseline_rows(&g) != 0)
        return 1;
    fovea_stitcher *st = NULL;
    BENCH_FOVEA(gpu, fovea_stitcher_open(&st, gpu, map, ss));
    BENCH_FOVEA(gpu, fovea_stitcher_set_color(st, bench_cc, 2));
    resident_rows(&g, st);
    if (bench_case_enabled(opts, "stream"))
        stream_rows(&g, st);
    if (bench_case_enabled(opts, "exact"))
        exact_rows(&g);
    if (bench_case_enabled(opts, "auto"))
        auto_color_rows(&g);
    fovea_stitcher_close(&st);
    if (bench_case_enabled(opts, "e2e"))
        e2e_row(&g, &gs, cam_rgba);
    if (ee->enabled && bench_case_enabled(opts, "cli")) {
        if (!ee->cli || access(ee->cli, X_OK) != 0)
            fprintf(text, "no fovea executable at %s (--cli PATH): row (g) skipped\n",
                    ee->cli ? ee->cli : "?");
        else
            cli_rows(table, ee->cli, ee->tmp, CW, CH, W, H, opts->quick ? 4 : 60,
                     opts->quick ? 1 : 3);
    }
    for (int c = 0; c < 2; c++) {
        fovea_frame_free(gpu, &g.d_rgba[c]);
        fovea_frame_free(gpu, &g.d_nv12[c]);
    }
    fovea_frame_free(gpu, &g.d_out_rgba);
    fovea_frame_free(gpu, &g.d_out_i420);
    fovea_close(&g.gpu);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args_ex(argc, argv, &opts, BENCH_E2E_USAGE);
    static bench_e2e ee;
    if (bench_e2e_parse(&opts, &ee, "bench_stitch") != 0)
        return 2;
    FILE *text = bench_text_stream(&opts);
    bench_table table;
    bench_table_init(&table, "stitch", "frames", &opts);

    fovea_rig *rig = NULL;
    if (fovea_rig_open_json(&rig, NULL, bench_rig_json, strlen(bench_rig_json)) < 0) {
        fprintf(stderr, "bench_stitch: rig: %s\n", fovea_last_error(NULL));
        return 1;
    }
    fovea_rig_panorama pano;
    BENCH_FOVEA(NULL, fovea_rig_get_panorama(rig, &pano));
    fovea_context *cpu = NULL;
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    BENCH_FOVEA(NULL, fovea_open(&cpu, &cs));

    fovea_stitch_map *map = NULL;
    fovea_stitch_map_settings mo;
    fovea_stitch_map_default_settings(&mo);
    double t0 = bench_now_us();
    BENCH_FOVEA(cpu, fovea_stitch_map_open_rig(&map, cpu, rig, &mo, NULL));
    fovea_stitch_map_camera_info ci[2];
    BENCH_FOVEA(NULL, fovea_stitch_map_get_camera_info(map, 0, &ci[0]));
    BENCH_FOVEA(NULL, fovea_stitch_map_get_camera_info(map, 1, &ci[1]));
    fprintf(text, "map built in %.2f s: steps %d/%d\n", (bench_now_us() - t0) / 1e6,
            ci[0].grid_step, ci[1].grid_step);
    fovea_rig_close(&rig);

    const int W = pano.width, H = pano.height, CW = 3840, CH = 2160;
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_FIXED;

    /* camera content: random bytes are the worst case for caches; real content
     * is smoother, but random makes every texel count */
    fovea_frame cam_rgba[2], cam_nv12[2];
    for (int c = 0; c < 2; c++) {
        BENCH_FOVEA(NULL,
                    fovea_frame_alloc(NULL, &cam_rgba[c], CW, CH, FOVEA_PIX_RGBA, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL,
                    fovea_frame_alloc(NULL, &cam_nv12[c], CW, CH, FOVEA_PIX_NV12, FOVEA_MEM_HOST));
        bench_fill_frame(&cam_rgba[c], 11 + (uint64_t)c);
        bench_fill_frame(&cam_nv12[c], 21 + (uint64_t)c);
    }
    const double rgba_bytes = 2.0 * CW * CH * 4 + (double)W * H * 4;

    int ndev = 0;
    fovea_device_count(&ndev);
    double copy_bw = 0.0;
#ifdef FOVEA_HAVE_CUDA
    if (ndev > 0) {
        copy_bw = bench_copy_bandwidth(0);
        if (gpu_rows(&table, &opts, map, &ss, cam_rgba, cam_nv12, &ee, text) != 0)
            return 1;
        if (bench_case_enabled(&opts, "six") &&
            bench_stitch_six(&table, &opts, &ee, copy_bw, text) != 0)
            return 1;
    } else
#endif
    {
        fprintf(text, "no CUDA device: GPU rows skipped\n");
    }
    (void)ndev;

    /* (e) the C backend on every core */
    if (bench_case_enabled(&opts, "cpu")) {
        const double yuv_bytes = 2.0 * CW * CH * 1.5 + (double)W * H * 1.5;
        int runs = opts.quick ? 2 : 10;
        cpu_row(&table, cpu, map, &ss, cam_rgba, FOVEA_PIX_RGBA, runs, "(e) C backend RGBA->RGBA",
                rgba_bytes);
        cpu_row(&table, cpu, map, &ss, cam_nv12, FOVEA_PIX_I420, runs, "(e) C backend NV12->I420",
                yuv_bytes);
    }

    for (int c = 0; c < 2; c++) {
        fovea_frame_free(NULL, &cam_rgba[c]);
        fovea_frame_free(NULL, &cam_nv12[c]);
    }
    fovea_stitch_map_close(&map);
    fovea_close(&cpu);
    return bench_table_finish(&table, copy_bw);
}
