/* bench_stitch: two 3840x2160 cameras -> 5700x1900 equirectangular panorama
 * (~10% overlap), color correction on. Rows: (a) the users' baseline kernel
 * (six float tables, powf gamma), (b) fovea RGBA->RGBA and (c) NV12->I420 with
 * frames resident on the device (each frame waited for, back to back, and back
 * to back over four buffer sets in turn), (d) end to end from pinned
 * host frames to host output with copies overlapped across three streams, (e) the
 * C backend on every CPU core, (f) the texture-gather floor (stitch_floor.h),
 * with and without its stores, and the same camera sectors and outputs streamed
 * with no gather ("(f) ideal"), (g) the `fovea stitch` CLI end to end on y4m
 * files, (h) the floor with a share of its tiles filtered on the SM from
 * camera boxes that the bulk tensor copy engine stages (stitch_staged.h). Every GPU row of frames notes the mean SM clock measured while it ran
 * (stitch_clock.h): the stitch kernels' times scale with it.
 *
 * Extra options: --cli PATH (the fovea executable; default: ../fovea next to
 * this program's directory), --no-e2e, --tmp DIR (for the y4m files). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "fovea/io.h"
#include "fovea/stitch.h"
#include "stitch/map_build.h"
#include "stitch/rig.h"
#include "stitch/stitch_internal.h"
#ifdef FOVEA_HAVE_CUDA
#include "stitch_baseline.h"
#include "stitch_clock.h"
#include "stitch_floor.h"
#include "stitch_staged.h"
#endif

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
 * frames per sample, back to back; 1 = each frame waited for) with the SM clock
 * probe running (stitch_clock.h), then the row added with the clock measured.
 * The warm-up runs before the probe starts: a kernel's first launch loads its
 * module, and that waits for the kernels running, the probe among them.
 * Returns 0, or non-zero when the timing failed (no row added). */
static int gpu_row(bench_table *t, const char *name, bench_fn fn, void *arg, void *stream,
                   int warmup, int runs, int calls, double bytes, const char *note)
{
    bench_stats s;
    for (int i = 0; i < warmup; i++)
        if (fn(arg) != 0)
            return 1;
    BENCH_CUDA(cudaStreamSynchronize((cudaStream_t)stream));
    int probe = bench_clock_probe_start() == 0;
    int rc = bench_time_gpu_pipelined(fn, arg, stream, 1, runs, calls, &s);
    double mhz = probe ? bench_clock_probe_stop() : 0.0;
    if (rc != 0)
        return rc;
    bench_table_add(t, name, "cuda", &s, bytes, 1, note);
    bench_table_set_clock(t, mhz);
    return 0;
}
#endif

static const fovea_color_correction bench_cc[2] = {
    {{1.05f, 1.0f, 0.95f}, 1.08f},
    {{0.97f, 1.0f, 1.04f}, 0.94f},
};

/* Row (e): the C backend stitching cams (two frames) into a host frame of out_fmt. */
static void cpu_row(bench_table *table, fovea_context *cpu, const fovea_stitch_map *map,
                    const fovea_stitch_settings *ss, fovea_frame *cams, fovea_pixfmt out_fmt,
                    int runs, const char *name, double bytes)
{
    fovea_stitcher *st = NULL;
    BENCH_FOVEA(cpu, fovea_stitcher_create(cpu, &st, map, ss));
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
    fovea_stitcher_destroy(&st);
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

typedef struct floor_case {
    floor_args args;
    cudaStream_t stream;
    int nv12;
} floor_case;

static int run_floor(void *arg)
{
    floor_case *f = arg;
    const int e = f->nv12 ? bench_floor_nv12(&f->args, f->stream)
                          : bench_floor_rgba(&f->args, f->stream);
    return e != 0;
}

/* Two rows of the floor as f is set up: with its stores (bytes_all moved), then
 * the gather alone (bytes_gather: the cameras). Returns non-zero on failure. */
static int floor_pair(bench_table *table, floor_case *f, const char *name_all,
                      const char *name_gather, double bytes_all, double bytes_gather,
                      const bench_opts *opts)
{
    const int calls = opts->quick ? 5 : 50, runs = opts->quick ? 2 : 10;
    int bad = gpu_row(table, name_all, run_floor, f, f->stream, opts->warmup, runs, calls,
                      bytes_all, "back to back; no tables, weights, overlaps") != 0;
    f->args.no_stores = 1;
    bad = bad || gpu_row(table, name_gather, run_floor, f, f->stream, opts->warmup, runs, calls,
                         bytes_gather, "the same, nothing stored (camera bytes)") != 0;
    f->args.no_stores = 0;
    return bad;
}

/* Marks the 32-byte sectors of a plane (w x h texels of bpp bytes) that a
 * bilinear fetch at texel-centre position (x, y) reads (two texels each way,
 * clamped like the floor's textures). */
typedef struct sector_set {
    uint8_t *hit;
    int w, h, bpp, per_row;
    size_t count;
} sector_set;

static int sector_set_init(sector_set *s, int w, int h, int bpp)
{
    s->w = w;
    s->h = h;
    s->bpp = bpp;
    s->per_row = (w * bpp + 31) / 32;
    s->count = 0;
    s->hit = calloc((size_t)s->per_row * (size_t)h, 1);
    return s->hit ? 0 : -1;
}

static void sector_mark(sector_set *s, float x, float y)
{
    if (!isfinite(x) || !isfinite(y))
        return;
    const float fx = floorf(x), fy = floorf(y);
    for (int b = 0; b < 2; b++)
        for (int a = 0; a < 2; a++) {
            const float cx = fx + (float)a, cy = fy + (float)b;
            const int tx = cx < 0.0f ? 0 : cx > (float)(s->w - 1) ? s->w - 1 : (int)cx;
            const int ty = cy < 0.0f ? 0 : cy > (float)(s->h - 1) ? s->h - 1 : (int)cy;
            uint8_t *h = &s->hit[(size_t)ty * (size_t)s->per_row + (size_t)(tx * s->bpp / 32)];
            s->count += !*h;
            *h = 1;
        }
}

/* Camera bytes the floor's fetches touch, whole 32-byte sectors, per camera:
 * rgba[c] (RGBA frames), luma[c] and chroma[c] (NV12 planes; chroma fetched
 * once per 2 x 2 block at its centre). The floor samples the owner camera of
 * each tile at every pixel of it. */
static int floor_touched_bytes(const fovea_stitch_map *map, const uint8_t *owner, int tiles_x,
                               double rgba[2], double luma[2], double chroma[2])
{
    sector_set set[2][3];
    int bad = 0;
    for (int c = 0; c < 2; c++) {
        const int cw = map->cam[c].cam_width, ch = map->cam[c].cam_height;
        bad |= sector_set_init(&set[c][0], cw, ch, 4) | sector_set_init(&set[c][1], cw, ch, 1) |
               sector_set_init(&set[c][2], cw / 2, ch / 2, 2);
    }
    for (int j = 0; j < map->pano_height && !bad; j++)
        for (int i = 0; i < map->pano_width; i++) {
            const int c = owner[(size_t)(j / FLOOR_TILE_H) * tiles_x + (size_t)(i / FLOOR_TILE_W)];
            if (c == FLOOR_NO_CAMERA)
                continue;
            float u, v;
            fovea_camera_map_lookup(&map->cam[c], i, j, &u, &v);
            sector_mark(&set[c][0], u, v);
            sector_mark(&set[c][1], u, v);
            if (!(i & 1) && !(j & 1) && i + 1 < map->pano_width && j + 1 < map->pano_height) {
                float u1, v1; /* the block's centre, then the chroma texel-centre position */
                fovea_camera_map_lookup(&map->cam[c], i + 1, j + 1, &u1, &v1);
                sector_mark(&set[c][2], 0.5f * (0.5f * (u + u1) + 0.5f) - 0.5f,
                            0.5f * (0.5f * (v + v1) + 0.5f) - 0.5f);
            }
        }
    for (int c = 0; c < 2; c++) {
        rgba[c] = 32.0 * (double)set[c][0].count;
        luma[c] = 32.0 * (double)set[c][1].count;
        chroma[c] = 32.0 * (double)set[c][2].count;
        for (int k = 0; k < 3; k++)
            free(set[c][k].hit);
    }
    return bad;
}

typedef struct stream_case {
    floor_stream_args args;
    cudaStream_t stream;
} stream_case;

static int run_stream(void *arg)
{
    stream_case *sc = arg;
    return bench_floor_stream(&sc->args, sc->stream) != 0;
}

/* Row "(f) ideal": the bytes of sc (the camera sectors the floor touches,
 * in_bytes[2] for the two cameras, and the whole output) read and written as
 * coalesced streams (stitch_floor.h). */
static int ideal_row(bench_table *table, stream_case *sc, const char *name, const double in_bytes[2],
                     const bench_opts *opts)
{
    const int calls = opts->quick ? 5 : 50, runs = opts->quick ? 2 : 10;
    double out = 0.0;
    for (int p = 0; p < FLOOR_STREAM_OUT; p++)
        out += (double)sc->args.out_bytes[p];
    char note[160];
    snprintf(note, sizeof(note), "back to back; no gather: %.1f + %.1f MB of camera sectors read",
             in_bytes[0] / 1e6, in_bytes[1] / 1e6);
    return gpu_row(table, name, run_stream, sc, sc->stream, opts->warmup, runs, calls,
                   in_bytes[0] + in_bytes[1] + out, note) != 0;
}

/* The camera a floor tile (tx, ty) takes: the one with the largest weight at
 * its centre (0 or 1), or FLOOR_NO_CAMERA. */
static int floor_tile_owner(const fovea_stitch_map *map, int tx, int ty)
{
    const int W = map->pano_width, H = map->pano_height;
    int i = tx * FLOOR_TILE_W + FLOOR_TILE_W / 2, j = ty * FLOOR_TILE_H + FLOOR_TILE_H / 2;
    i = i < W ? i : W - 1;
    j = j < H ? j : H - 1;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    fovea_map_weights(map, i, j, w, u, v);
    return w[0] > 0.0f || w[1] > 0.0f ? (w[1] > w[0] ? 1 : 0) : FLOOR_NO_CAMERA;
}

/* The two cameras' grid nodes copied to new device buffers d_uv[0..1] (NULL
 * where not allocated; the caller frees them). Returns non-zero on failure. */
static int upload_grids(const fovea_stitch_map *map, void *d_uv[2])
{
    const size_t uv_bytes = (size_t)map->cam[0].grid_w * map->cam[0].grid_h * 2 * sizeof(float);
    int bad = 0;
    for (int c = 0; c < 2 && !bad; c++)
        bad = cudaMalloc(&d_uv[c], uv_bytes) != cudaSuccess ||
              cudaMemcpy(d_uv[c], map->cam[c].uv, uv_bytes, cudaMemcpyHostToDevice) != cudaSuccess;
    return bad;
}

/* Rows (f): the texture-gather floor (stitch_floor.h) on the same map, frames
 * and outputs as rows (b) and (c), frames back to back like their throughput
 * rows. Each tile takes the camera with the largest weight at its centre. */
static int bench_floor_rows(bench_table *table, const fovea_stitch_map *map, const fovea_frame *rgba,
                            const fovea_frame *nv12, fovea_frame *out_rgba, fovea_frame *out_i420,
                            cudaStream_t stream, const bench_opts *opts, double rgba_bytes,
                            double yuv_bytes)
{
    const int W = map->pano_width, H = map->pano_height;
    if (map->num_cameras != 2 || map->cam[0].step != 4 || map->cam[1].step != 4 ||
        map->cam[0].grid_w != map->cam[1].grid_w || map->cam[0].grid_h != map->cam[1].grid_h) {
        fprintf(stderr, "bench_stitch: the floor rows need two cameras with grid step 4\n");
        return 1;
    }
    floor_case f;
    memset(&f, 0, sizeof(f));
    f.stream = stream;
    floor_args *a = &f.args;
    a->tiles_x = (W + FLOOR_TILE_W - 1) / FLOOR_TILE_W;
    a->tiles_y = (H + FLOOR_TILE_H - 1) / FLOOR_TILE_H;
    a->grid_w = map->cam[0].grid_w;
    a->step_shift = 2;
    a->pano_w = W;
    a->pano_h = H;
    const size_t nt = (size_t)a->tiles_x * (size_t)a->tiles_y;
    uint8_t *owner = malloc(nt);
    if (!owner) {
        fprintf(stderr, "bench_stitch: out of memory\n");
        return 1;
    }
    for (int ty = 0; ty < a->tiles_y; ty++)
        for (int tx = 0; tx < a->tiles_x; tx++)
            owner[(size_t)ty * a->tiles_x + tx] = (uint8_t)floor_tile_owner(map, tx, ty);
    double t_rgba[2], t_luma[2], t_chroma[2];
    if (floor_touched_bytes(map, owner, a->tiles_x, t_rgba, t_luma, t_chroma) != 0) {
        free(owner);
        fprintf(stderr, "bench_stitch: out of memory\n");
        return 1;
    }
    void *d_owner = NULL, *d_uv[2] = {NULL, NULL};
    int bad = cudaMalloc(&d_owner, nt) != cudaSuccess ||
              cudaMemcpy(d_owner, owner, nt, cudaMemcpyHostToDevice) != cudaSuccess;
    free(owner);
    bad = bad || upload_grids(map, d_uv);
    for (int c = 0; c < 2 && !bad; c++) {
        a->uv[c] = d_uv[c];
        bad = bench_floor_texture(rgba[c].data[0], rgba[c].width, rgba[c].height,
                                  (int)rgba[c].stride[0], 4, &a->tex[c][0]) != 0;
    }
    a->owner = d_owner;
    if (!bad) {
        a->out0 = out_rgba->data[0];
        a->stride0 = (int)out_rgba->stride[0];
        bad = floor_pair(table, &f, "(f) floor: RGBA gather + stores only",
                         "(f) floor: RGBA gather only", rgba_bytes,
                         2.0 * rgba[0].width * rgba[0].height * 4, opts);
    }
    if (!bad) {
        stream_case sc;
        memset(&sc, 0, sizeof(sc));
        sc.stream = stream;
        for (int c = 0; c < 2; c++) {
            sc.args.in[c] = rgba[c].data[0];
            sc.args.in_bytes[c] = (size_t)t_rgba[c];
        }
        sc.args.out[0] = out_rgba->data[0];
        sc.args.out_bytes[0] = out_rgba->stride[0] * (size_t)H;
        bad = ideal_row(table, &sc, "(f) ideal: RGBA floor's bytes, coalesced", t_rgba, opts);
    }
    for (int c = 0; c < 2; c++) {
        bench_floor_texture_free(a->tex[c][0]);
        a->tex[c][0] = 0;
    }
    for (int c = 0; c < 2 && !bad; c++)
        bad = bench_floor_texture(nv12[c].data[0], nv12[c].width, nv12[c].height,
                                  (int)nv12[c].stride[0], 1, &a->tex[c][0]) != 0 ||
              bench_floor_texture(nv12[c].data[1], nv12[c].width / 2, nv12[c].height / 2,
                                  (int)nv12[c].stride[1], 2, &a->tex[c][1]) != 0;
    if (!bad) {
        f.nv12 = 1;
        a->out0 = out_i420->data[0];
        a->out1 = out_i420->data[1];
        a->out2 = out_i420->data[2];
        a->stride0 = (int)out_i420->stride[0];
        a->stride1 = (int)out_i420->stride[1];
        a->stride2 = (int)out_i420->stride[2];
        bad = floor_pair(table, &f, "(f) floor: NV12->I420 gather + stores only",
                         "(f) floor: NV12 gather only", yuv_bytes,
                         2.0 * nv12[0].width * nv12[0].height * 1.5, opts);
    }
    if (!bad) {
        stream_case sc;
        memset(&sc, 0, sizeof(sc));
        sc.stream = stream;
        for (int c = 0; c < 2; c++) {
            sc.args.in[2 * c] = nv12[c].data[0];
            sc.args.in_bytes[2 * c] = (size_t)t_luma[c];
            sc.args.in[2 * c + 1] = nv12[c].data[1];
            sc.args.in_bytes[2 * c + 1] = (size_t)t_chroma[c];
        }
        for (int p = 0; p < 3; p++) {
            sc.args.out[p] = out_i420->data[p];
            sc.args.out_bytes[p] = out_i420->stride[p] * (size_t)(p ? H / 2 : H);
        }
        const double in[2] = {t_luma[0] + t_chroma[0], t_luma[1] + t_chroma[1]};
        bad = ideal_row(table, &sc, "(f) ideal: NV12 floor's bytes, coalesced", in, opts);
    }
    for (int c = 0; c < 2; c++) {
        bench_floor_texture_free(a->tex[c][0]);
        bench_floor_texture_free(a->tex[c][1]);
        cudaFree(d_uv[c]);
    }
    cudaFree(d_owner);
    if (bad)
        fprintf(stderr, "bench_stitch: the floor rows failed (%s)\n",
                cudaGetErrorString(cudaGetLastError()));
    return bad;
}

typedef struct staged_case {
    staged_args args;
    cudaStream_t stream;
} staged_case;

static int run_staged(void *arg)
{
    staged_case *sc = arg;
    return bench_staged_run(&sc->args, sc->stream) != 0;
}

static int floor_div(double x)
{
    return (int)floor(x);
}

/* Rows (h): the staged floor (stitch_staged.h) on the floor's tiles and
 * owners, with none, half or all of the tiles whose camera box fits filtered
 * on the SM (the rest through the texture unit), for two box height limits;
 * every all-SM output is compared with the all-texture one. */
static int bench_staged_rows(bench_table *table, const fovea_stitch_map *map, const fovea_frame *rgba,
                             const fovea_frame *nv12, fovea_frame *out_rgba, fovea_frame *out_i420,
                             cudaStream_t stream, const bench_opts *opts, double rgba_bytes,
                             double yuv_bytes)
{
    const int W = map->pano_width, H = map->pano_height;
    if (map->num_cameras != 2 || map->cam[0].step != 4 || map->cam[1].step != 4 ||
        map->cam[0].grid_w != map->cam[1].grid_w) {
        fprintf(stderr, "bench_stitch: the staged rows need two cameras with grid step 4\n");
        return 1;
    }
    const int tx_n = (W + FLOOR_TILE_W - 1) / FLOOR_TILE_W, ty_n = (H + FLOOR_TILE_H - 1) / FLOOR_TILE_H;
    const size_t nt = (size_t)tx_n * ty_n;
    staged_tile *tiles = calloc(nt, sizeof(*tiles));
    int *wid = calloc(nt, sizeof(int)), *cwid = calloc(nt, sizeof(int));
    if (!tiles || !wid || !cwid) {
        free(tiles);
        free(wid);
        free(cwid);
        fprintf(stderr, "bench_stitch: out of memory\n");
        return 1;
    }
    int maxw = 0, maxcw = 0, maxch = 0, maxcch = 0;
    double area = 0.0;
    for (int ty = 0; ty < ty_n; ty++)
        for (int tx = 0; tx < tx_n; tx++) {
            staged_tile *t = &tiles[(size_t)ty * tx_n + tx];
            const int c = floor_tile_owner(map, tx, ty);
            if (c == FLOOR_NO_CAMERA) {
                t->mode = STAGED_NONE;
                continue;
            }
            float umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
            for (int j = ty * FLOOR_TILE_H; j < (ty + 1) * FLOOR_TILE_H && j < H; j++)
                for (int i = tx * FLOOR_TILE_W; i < (tx + 1) * FLOOR_TILE_W && i < W; i++) {
                    float pu, pv;
                    fovea_camera_map_lookup(&map->cam[c], i, j, &pu, &pv);
                    if (!isfinite(pu) || !isfinite(pv))
                        continue;
                    umin = fminf(umin, pu);
                    umax = fmaxf(umax, pu);
                    vmin = fminf(vmin, pv);
                    vmax = fmaxf(vmax, pv);
                }
            t->cam = (uint8_t)c;
            t->mode = STAGED_TEX;
            if (!(umin >= -1e4f && umax <= 1e4f && vmin >= -1e4f && vmax <= 1e4f))
                continue; /* stays on the texture path */
            const int x0 = floor_div(umin) - 1, x1 = floor_div(umax) + 2;
            const int y0 = floor_div(vmin) - 1, y1 = floor_div(vmax) + 2;
            const int cx0 = floor_div(0.5 * umin - 0.25) - 1, cx1 = floor_div(0.5 * umax - 0.25) + 2;
            const int cy0 = floor_div(0.5 * vmin - 0.25) - 1, cy1 = floor_div(0.5 * vmax - 0.25) + 2;
            const int cw = map->cam[c].cam_width, chh = map->cam[c].cam_height;
            /* boxes reaching past the image stay on the texture path: its
             * clamp there is not the copy engine's zero fill */
            if (x0 < 0 || y0 < 0 || x1 >= cw || y1 >= chh || cx0 < 0 || cy0 < 0 ||
                cx1 >= cw / 2 || cy1 >= chh / 2)
                continue;
            t->x0 = (int16_t)x0;
            t->y0 = (int16_t)y0;
            t->cx0 = (int16_t)cx0;
            t->cy0 = (int16_t)cy0;
            const int ch = (y1 - y0 + 1 + STAGED_ROWS - 1) / STAGED_ROWS;
            const int cch = (cy1 - cy0 + 1 + STAGED_ROWS - 1) / STAGED_ROWS;
            t->chunks = (uint8_t)(ch < 255 ? ch : 255);
            t->cchunks = (uint8_t)(cch < 255 ? cch : 255);
            wid[(size_t)ty * tx_n + tx] = x1 - x0 + 1;
            cwid[(size_t)ty * tx_n + tx] = cx1 - cx0 + 1;
            area += (double)(x1 - x0 + 1) * (y1 - y0 + 1);
            maxw = wid[(size_t)ty * tx_n + tx] > maxw ? wid[(size_t)ty * tx_n + tx] : maxw;
            maxcw = cwid[(size_t)ty * tx_n + tx] > maxcw ? cwid[(size_t)ty * tx_n + tx] : maxcw;
            maxch = ch > maxch ? ch : maxch;
            maxcch = cch > maxcch ? cch : maxcch;
        }
    fprintf(stderr,
            "bench_stitch: staged boxes: widest %d texels (chroma %d), tallest %d rows (chroma %d);"
            " boxes %.2f x the two cameras' area\n",
            maxw, maxcw, maxch * STAGED_ROWS, maxcch * STAGED_ROWS,
            area / (2.0 * map->cam[0].cam_width * map->cam[0].cam_height));
    void *d_tiles = NULL, *d_uv[2] = {NULL, NULL};
    int bad = cudaMalloc(&d_tiles, nt * sizeof(staged_tile)) != cudaSuccess;
    bad = bad || upload_grids(map, d_uv);
    staged_tile *work = malloc(nt * sizeof(staged_tile));
    uint8_t *ref = NULL, *got = NULL;
    bad = bad || !work;
    for (int nv = 0; nv < 2 && !bad; nv++) {
        staged_case sc;
        memset(&sc, 0, sizeof(sc));
        sc.stream = stream;
        staged_args *a = &sc.args;
        a->nv12 = nv;
        a->tiles = d_tiles;
        a->base.grid_w = map->cam[0].grid_w;
        a->base.step_shift = 2;
        a->base.tiles_x = tx_n;
        a->base.tiles_y = ty_n;
        a->base.pano_w = W;
        a->base.pano_h = H;
        /* the box copies start at 16-byte aligned addresses (a TMA rule): origins
         * rounded down to `align` texels, widths up to a multiple of it */
        const int align = nv ? 16 : 4, calign = 8;
        const int bw = (maxw + 2 * align - 2) / align * align,
                  cbw = (maxcw + 2 * calign - 2) / calign * calign;
        a->box_w = bw < 256 ? bw : 256;
        a->cbox_w = cbw < 256 ? cbw : 256;
        for (int c = 0; c < 2 && !bad; c++) {
            a->base.uv[c] = d_uv[c];
            const fovea_frame *f = nv ? &nv12[c] : &rgba[c];
            for (int p = 0; p < 1 + nv; p++) {
                a->plane[c][p] = f->data[p];
                a->plane_w[c][p] = p ? f->width / 2 : f->width;
                a->plane_h[c][p] = p ? f->height / 2 : f->height;
                a->plane_stride[c][p] = (int)f->stride[p];
                bad = bad || bench_floor_texture(f->data[p], a->plane_w[c][p], a->plane_h[c][p],
                                                 a->plane_stride[c][p], nv ? (p ? 2 : 1) : 4,
                                                 &a->base.tex[c][p]) != 0;
            }
        }
        fovea_frame *out = nv ? out_i420 : out_rgba;
        a->base.out0 = out->data[0];
        a->base.stride0 = (int)out->stride[0];
        if (nv) {
            a->base.out1 = out->data[1];
            a->base.out2 = out->data[2];
            a->base.stride1 = (int)out->stride[1];
            a->base.stride2 = (int)out->stride[2];
        }
        const size_t out_bytes = out->stride[0] * (size_t)H +
                                 (nv ? (out->stride[1] + out->stride[2]) * (size_t)(H / 2) : 0);
        /* boxes up to `cap` copies of STAGED_ROWS rows (taller ones stay on the
         * texture path, as do those wider than the widest allowed box); the
         * shares of SM tiles in quarters; the first frame of the first
         * configuration (all texture) is the reference the all-SM ones are
         * compared with */
        static const struct {
            int cap, quarters[4];
        } cfgs[] = {{4, {0, 2, 4, -1}}, {3, {2, 4, -1}}};
        for (size_t ci = 0; ci < sizeof(cfgs) / sizeof(cfgs[0]) && !bad; ci++) {
            a->max_chunks = maxch < cfgs[ci].cap ? maxch : cfgs[ci].cap;
            a->max_cchunks = maxcch < cfgs[ci].cap ? maxcch : cfgs[ci].cap;
            if (a->d_tmap) {
                cudaFree(a->d_tmap);
                a->d_tmap = NULL;
            }
            const int e = bench_staged_init(a);
            if (e == STAGED_NEEDS_SM90) {
                fprintf(stderr, "bench_stitch: rows (h) skipped: the bulk tensor copies need "
                                "sm_90 or newer\n");
                break;
            }
            if (e) {
                fprintf(stderr, "bench_stitch: staged setup failed (%d)\n", e);
                bad = 1;
                break;
            }
            int eligible = 0, on_sm = 0;
            for (int qi = 0; cfgs[ci].quarters[qi] >= 0 && !bad; qi++) {
                const int q = cfgs[ci].quarters[qi];
                eligible = on_sm = 0;
                for (size_t k = 0; k < nt; k++) {
                    work[k] = tiles[k];
                    work[k].x0 = (int16_t)(tiles[k].x0 & ~(align - 1));
                    work[k].cx0 = (int16_t)(tiles[k].cx0 & ~(calign - 1));
                    const int need = wid[k] + (tiles[k].x0 - work[k].x0);
                    const int cneed = cwid[k] + (tiles[k].cx0 - work[k].cx0);
                    const int fits = tiles[k].mode == STAGED_TEX && wid[k] > 0 && need <= a->box_w &&
                                     cneed <= a->cbox_w && tiles[k].chunks <= a->max_chunks &&
                                     tiles[k].cchunks <= a->max_cchunks;
                    eligible += fits;
                    if (fits && (int)(k % 4) < q) {
                        work[k].mode = STAGED_SMEM;
                        on_sm++;
                    }
                }
                bad = cudaMemcpy(d_tiles, work, nt * sizeof(staged_tile), cudaMemcpyHostToDevice) !=
                      cudaSuccess;
                if (bad)
                    break;
                /* one frame into a poisoned output: the first all-texture frame is
                 * the reference, every all-SM frame is compared with it */
                const int keep = (ci == 0 && q == 0) || q == 4;
                if (keep) {
                    bad = cudaMemset(out->data[0], 0x5a, out_bytes) != cudaSuccess ||
                          run_staged(&sc) || cudaStreamSynchronize(stream) != cudaSuccess;
                    uint8_t **dst = ci == 0 && q == 0 ? &ref : &got;
                    free(*dst);
                    *dst = malloc(out_bytes);
                    bad = bad || !*dst ||
                          cudaMemcpy(*dst, out->data[0], out_bytes, cudaMemcpyDeviceToHost) !=
                              cudaSuccess;
                    if (bad)
                        break;
                }
                if (q == 4 && ref) {
                    size_t over1 = 0, diff = 0;
                    int worst = 0;
                    for (size_t k = 0; k < out_bytes; k++) {
                        const int d = abs((int)ref[k] - (int)got[k]);
                        diff += d != 0;
                        over1 += d > 1;
                        worst = d > worst ? d : worst;
                    }
                    fprintf(stderr,
                            "bench_stitch: staged %s (boxes <= %d rows): %d/%d tiles on the SM;"
                            " vs all-texture: %zu of %zu bytes differ, %zu by more than 1"
                            " (largest %d)\n",
                            nv ? "NV12" : "RGBA", a->max_chunks * STAGED_ROWS, on_sm, eligible,
                            diff, out_bytes, over1, worst);
                    /* the texture unit's positions and rounding differ from the
                     * integer filter's by a little; more than 2 codes is a bug */
                    if (worst > 2) {
                        fprintf(stderr, "bench_stitch: the staged output is wrong\n");
                        bad = 1;
                        break;
                    }
                }
                char name[96], note[200];
                snprintf(name, sizeof(name), "(h) staged %s, %d/4 on SM, boxes <= %d rows",
                         nv ? "NV12->I420" : "RGBA", q, a->max_chunks * STAGED_ROWS);
                snprintf(note, sizeof(note),
                         "back to back; %d of %d tiles filtered from TMA boxes, box %d wide",
                         on_sm, eligible, a->box_w);
                const int calls = opts->quick ? 5 : 50, runs = opts->quick ? 2 : 10;
                bad = gpu_row(table, name, run_staged, &sc, stream, opts->warmup, runs, calls,
                              nv ? yuv_bytes : rgba_bytes, note) != 0;
            }
        }
        for (int c = 0; c < 2; c++)
            for (int p = 0; p < 2; p++)
                bench_floor_texture_free(a->base.tex[c][p]);
        cudaFree(a->d_tmap);
    }
    free(ref);
    free(got);
    free(work);
    free(tiles);
    free(wid);
    free(cwid);
    cudaFree(d_tiles);
    for (int c = 0; c < 2; c++)
        cudaFree(d_uv[c]);
    if (bad)
        fprintf(stderr, "bench_stitch: the staged rows failed (%s)\n",
                cudaGetErrorString(cudaGetLastError()));
    return bad;
}

static float *upload_table(const float *host, size_t n)
{
    float *d = NULL;
    BENCH_CUDA(cudaMalloc((void **)&d, n * sizeof(float)));
    BENCH_CUDA(cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}
#endif

#ifdef FOVEA_HAVE_CUDA
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
static void cli_rows(bench_table *table, const char *cli, const char *tmp, int cw, int ch,
                     int pw, int ph, int frames, int runs)
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
                char *argv[] = {(char *)cli, "stitch", "-q", "--backend", "cuda", "--rig", rig,
                                "--json", json, cam0, cam1, "-o", k ? sink : out, NULL};
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
            snprintf(note, sizeof(note), "fovea stitch CLI, auto color, %d frames, %.0f fps "
                     "(median of %d)", frames, 1e6 / s.median_us, n);
            const double bytes = 2.0 * cw * ch * 1.5 + (double)pw * ph * 1.5;
            bench_table_add(table, k ? "(g) y4m files -> /dev/null, end to end"
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
#endif

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args_ex(argc, argv, &opts, BENCH_E2E_USAGE);
    static bench_e2e ee;
    if (bench_e2e_parse(&opts, &ee, "bench_stitch") != 0)
        return 2;
    const char *cli = ee.cli, *tmp = ee.tmp;
    int e2e = ee.enabled;
    (void)cli; /* row (g) is a GPU row */
    (void)tmp;
    (void)e2e;
    FILE *text = bench_text_stream(&opts);
    bench_table table;
    bench_table_init(&table, "stitch", "frames", &opts);

    fovea_rig rig;
    char err[512];
    if (fovea_rig_parse(bench_rig_json, strlen(bench_rig_json), &rig, err, sizeof(err)) < 0) {
        fprintf(stderr, "bench_stitch: rig: %s\n", err);
        return 1;
    }
    fovea_context *cpu = NULL;
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    BENCH_FOVEA(NULL, fovea_open(&cpu, &cs));

    fovea_stitch_map map;
    memset(&map, 0, sizeof(map));
    fovea_map_build_options mo;
    fovea_map_build_default_options(&mo);
    double t0 = bench_now_us();
    BENCH_FOVEA(cpu, fovea_map_build(cpu, &rig, &map, &mo));
    fprintf(text, "map built in %.2f s: steps %d/%d\n", (bench_now_us() - t0) / 1e6,
            map.cam[0].step, map.cam[1].step);

    const int W = rig.width, H = rig.height, CW = 3840, CH = 2160;
    fovea_stitch_settings ss;
    fovea_stitch_default_settings(&ss);
    ss.color = FOVEA_COLOR_FIXED;

    /* camera content: random bytes are the worst case for caches; real content
     * is smoother, but random makes every texel count */
    fovea_frame cam_rgba[2], cam_nv12[2];
    for (int c = 0; c < 2; c++) {
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &cam_rgba[c], CW, CH, FOVEA_PIX_RGBA, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &cam_nv12[c], CW, CH, FOVEA_PIX_NV12, FOVEA_MEM_HOST));
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
        fovea_context *gpu = NULL;
        fovea_settings gs;
        fovea_default_settings(&gs);
        gs.backend = FOVEA_BACKEND_CUDA;
        gs.cuda_device = opts.device;
        BENCH_FOVEA(NULL, fovea_open(&gpu, &gs));
        cudaStream_t stream = (cudaStream_t)fovea_context_stream(gpu);
        const double yuv_bytes = 2.0 * CW * CH * 1.5 + (double)W * H * 1.5;
        fovea_frame d_rgba[2], d_nv12[2], d_out_rgba, d_out_i420;
        for (int c = 0; c < 2; c++) {
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d_rgba[c], CW, CH, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d_nv12[c], CW, CH, FOVEA_PIX_NV12, FOVEA_MEM_DEVICE));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &d_rgba[c], &cam_rgba[c]));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &d_nv12[c], &cam_nv12[c]));
        }
        BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d_out_rgba, W, H, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d_out_i420, W, H, FOVEA_PIX_I420, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu, fovea_sync(gpu));

        /* (a) baseline: tables from the same map, exact per pixel */
        if (bench_case_enabled(&opts, "baseline")) {
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
                    fovea_map_weights(&map, i, j, w, u, v);
                    t[0][p] = w[0] > 0.0f ? u[0] : -1.0f;
                    t[1][p] = w[0] > 0.0f ? v[0] : -1.0f;
                    t[2][p] = w[1] > 0.0f ? u[1] : -1.0f;
                    t[3][p] = w[1] > 0.0f ? v[1] : -1.0f;
                    t[4][p] = w[0];
                    t[5][p] = w[1];
                }
            baseline_case b;
            memset(&b, 0, sizeof(b));
            b.stream = stream;
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
            b.args.left = d_rgba[0].data[0];
            b.args.right = d_rgba[1].data[0];
            b.args.left_stride = (int)d_rgba[0].stride[0];
            b.args.right_stride = (int)d_rgba[1].stride[0];
            b.args.cam_w = CW;
            b.args.cam_h = CH;
            b.args.out = d_out_rgba.data[0];
            b.args.out_stride = (int)d_out_rgba.stride[0];
            b.args.pano_w = W;
            b.args.pano_h = H;
            for (int k = 0; k < 3; k++) {
                b.args.gain_l[k] = bench_cc[0].gain[k];
                b.args.gain_r[k] = bench_cc[1].gain[k];
            }
            b.args.gamma_l = bench_cc[0].gamma;
            b.args.gamma_r = bench_cc[1].gamma;
            gpu_row(&table, "(a) baseline 6 float tables + powf", run_baseline, &b, stream,
                    opts.warmup, opts.runs, 1, rgba_bytes + 6.0 * 4.0 * np, "users' kernel shape");
            gpu_row(&table, "(a') the same, --use_fast_math", run_baseline_fast, &b, stream,
                    opts.warmup, opts.runs, 1, rgba_bytes + 6.0 * 4.0 * np,
                    "__powf, approximate divisions");
            for (int k = 0; k < 6; k++)
                cudaFree(d[k]);
        }

        fovea_stitcher *st = NULL;
        BENCH_FOVEA(gpu, fovea_stitcher_create(gpu, &st, &map, &ss));
        BENCH_FOVEA(gpu, fovea_stitcher_set_color(st, bench_cc, 2));
        if (bench_case_enabled(&opts, "rgba")) {
            stitch_case c = {st, {&d_rgba[0], &d_rgba[1]}, &d_out_rgba};
            gpu_row(&table, "(b) fovea RGBA->RGBA, device", run_stitch, &c, stream, opts.warmup,
                    opts.runs, 1, rgba_bytes, "each frame waited for; <= 1 code from C");
        }
        if (bench_case_enabled(&opts, "nv12")) {
            stitch_case c = {st, {&d_nv12[0], &d_nv12[1]}, &d_out_i420};
            gpu_row(&table, "(c) fovea NV12->I420, device", run_stitch, &c, stream, opts.warmup,
                    opts.runs, 1, yuv_bytes, NULL);
        }
        if (bench_case_enabled(&opts, "stream")) {
            /* throughput: frames back to back on the stream (the rows above wait
             * for each frame, so they include the host's launch path per frame) */
            const int calls = opts.quick ? 5 : 50, runs = opts.quick ? 2 : 10;
            stitch_case c = {st, {&d_rgba[0], &d_rgba[1]}, &d_out_rgba};
            gpu_row(&table, "(b) RGBA, frames back to back", run_stitch, &c, stream, opts.warmup,
                    runs, calls, rgba_bytes, "throughput, 50 frames per sample");
            stitch_case c2 = {st, {&d_nv12[0], &d_nv12[1]}, &d_out_i420};
            gpu_row(&table, "(c) NV12->I420, frames back to back", run_stitch, &c2, stream,
                    opts.warmup, runs, calls, yuv_bytes, "throughput, 50 frames per sample");
            /* the same over CYCLE frame sets in turn (set 0: the frames above;
             * the others copies of it: the caches go by address, not content) */
            fovea_frame xr[CYCLE][2], xn[CYCLE][2], xo[CYCLE][2];
            memset(xr, 0, sizeof(xr));
            memset(xn, 0, sizeof(xn));
            memset(xo, 0, sizeof(xo));
            cycle_case cr = {st, {{&d_rgba[0], &d_rgba[1]}}, {&d_out_rgba}, 0};
            cycle_case cn = {st, {{&d_nv12[0], &d_nv12[1]}}, {&d_out_i420}, 0};
            for (int k = 1; k < CYCLE; k++) {
                for (int q = 0; q < 2; q++) {
                    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &xr[k][q], CW, CH, FOVEA_PIX_RGBA,
                                                       FOVEA_MEM_DEVICE));
                    BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &xn[k][q], CW, CH, FOVEA_PIX_NV12,
                                                       FOVEA_MEM_DEVICE));
                    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &xr[k][q], &d_rgba[q]));
                    BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &xn[k][q], &d_nv12[q]));
                    cr.in[k][q] = &xr[k][q];
                    cn.in[k][q] = &xn[k][q];
                }
                BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &xo[k][0], W, H, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
                BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &xo[k][1], W, H, FOVEA_PIX_I420, FOVEA_MEM_DEVICE));
                cr.out[k] = &xo[k][0];
                cn.out[k] = &xo[k][1];
            }
            BENCH_FOVEA(gpu, fovea_sync(gpu));
            gpu_row(&table, "(b) RGBA, 4 frame sets in turn, back to back", run_cycle, &cr, stream,
                    opts.warmup, runs, calls, rgba_bytes,
                    "no frame's buffers in L2 from the previous one");
            gpu_row(&table, "(c) NV12, 4 frame sets in turn, back to back", run_cycle, &cn, stream,
                    opts.warmup, runs, calls, yuv_bytes,
                    "no frame's buffers in L2 from the previous one");
            for (int k = 1; k < CYCLE; k++)
                for (int q = 0; q < 2; q++) {
                    fovea_frame_free(gpu, &xr[k][q]);
                    fovea_frame_free(gpu, &xn[k][q]);
                    fovea_frame_free(gpu, &xo[k][q]);
                }
        }
        if (bench_case_enabled(&opts, "l2")) {
            /* rows (b) and (c) again in a context opened with cuda_l2_fetch_bytes
             * = 128 (the device's limit, for the whole process: restored after) */
            size_t before = 0;
            BENCH_CUDA(cudaDeviceGetLimit(&before, cudaLimitMaxL2FetchGranularity));
            fovea_settings s128;
            fovea_default_settings(&s128);
            s128.backend = FOVEA_BACKEND_CUDA;
            s128.cuda_l2_fetch_bytes = 128;
            fovea_context *g128 = NULL;
            BENCH_FOVEA(NULL, fovea_open(&g128, &s128));
            fovea_stitcher *st128 = NULL;
            BENCH_FOVEA(g128, fovea_stitcher_create(g128, &st128, &map, &ss));
            BENCH_FOVEA(g128, fovea_stitcher_set_color(st128, bench_cc, 2));
            cudaStream_t s2 = (cudaStream_t)fovea_context_stream(g128);
            const int calls = opts.quick ? 5 : 50, runs = opts.quick ? 2 : 10;
            stitch_case cases[2] = {{st128, {&d_rgba[0], &d_rgba[1]}, &d_out_rgba},
                                    {st128, {&d_nv12[0], &d_nv12[1]}, &d_out_i420}};
            const char *names[2][2] = {
                {"(b) RGBA, L2 fetch 128 B", "(b) RGBA, L2 fetch 128 B, back to back"},
                {"(c) NV12->I420, L2 fetch 128 B", "(c) NV12, L2 fetch 128 B, back to back"}};
            for (int k = 0; k < 2; k++) {
                const double bytes = k ? yuv_bytes : rgba_bytes;
                gpu_row(&table, names[k][0], run_stitch, &cases[k], s2, opts.warmup, opts.runs, 1,
                        bytes, "each frame waited for; fovea_settings.cuda_l2_fetch_bytes");
                gpu_row(&table, names[k][1], run_stitch, &cases[k], s2, opts.warmup, runs, calls,
                        bytes, "throughput, 50 frames per sample");
            }
            fovea_stitcher_destroy(&st128);
            fovea_close(&g128);
            BENCH_CUDA(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, before));
        }
        if (bench_case_enabled(&opts, "floor") &&
            bench_floor_rows(&table, &map, d_rgba, d_nv12, &d_out_rgba, &d_out_i420, stream, &opts,
                             rgba_bytes, yuv_bytes) != 0)
            return 1;
        if (bench_case_enabled(&opts, "staged") &&
            bench_staged_rows(&table, &map, d_rgba, d_nv12, &d_out_rgba, &d_out_i420, stream, &opts,
                              rgba_bytes, yuv_bytes) != 0)
            return 1;
        if (bench_case_enabled(&opts, "exact")) {
            fovea_stitch_settings sx = ss;
            sx.cuda_exact_sampling = 1;
            fovea_stitcher *stx = NULL;
            BENCH_FOVEA(gpu, fovea_stitcher_create(gpu, &stx, &map, &sx));
            BENCH_FOVEA(gpu, fovea_stitcher_set_color(stx, bench_cc, 2));
            stitch_case c = {stx, {&d_rgba[0], &d_rgba[1]}, &d_out_rgba};
            gpu_row(&table, "(b) RGBA, exact in-kernel sampling", run_stitch, &c, stream,
                    opts.warmup, opts.runs, 1, rgba_bytes, "bit-exact with the C backend");
            stitch_case c2 = {stx, {&d_nv12[0], &d_nv12[1]}, &d_out_i420};
            gpu_row(&table, "(c) NV12->I420, exact sampling", run_stitch, &c2, stream, opts.warmup,
                    opts.runs, 1, yuv_bytes, "bit-exact with the C backend");
            fovea_stitcher_destroy(&stx);
        }
        if (bench_case_enabled(&opts, "auto")) {
            /* worst case: every frame analysed, its statistics read back,
             * solved and the tables rebuilt before the call returns
             * (deterministic mode), each frame waited for */
            fovea_stitch_settings sa = ss;
            sa.color = FOVEA_COLOR_AUTO;
            sa.auto_interval = 1;
            sa.deterministic = 1;
            fovea_stitcher *sta = NULL;
            BENCH_FOVEA(gpu, fovea_stitcher_create(gpu, &sta, &map, &sa));
            stitch_case c = {sta, {&d_rgba[0], &d_rgba[1]}, &d_out_rgba};
            gpu_row(&table, "(b') RGBA + overlap stats every frame", run_stitch, &c, stream,
                    opts.warmup, opts.runs, 1, rgba_bytes, "auto color, interval 1, deterministic");
            fovea_stitcher_destroy(&sta);
            /* what users run: the default schedule (statistics every 30th frame,
             * read back in the background), frames back to back; a sample of
             * 30 frames holds one analysis frame */
            sa.auto_interval = 30;
            sa.deterministic = 0;
            BENCH_FOVEA(gpu, fovea_stitcher_create(gpu, &sta, &map, &sa));
            c.st = sta;
            const int runs = opts.quick ? 2 : 20;
            gpu_row(&table, "(b') RGBA + auto color, default interval", run_stitch, &c, stream,
                    opts.warmup, runs, 30, rgba_bytes, "back to back; mean of 30 frames per sample");
            fovea_stitcher_destroy(&sta);
        }
        fovea_stitcher_destroy(&st);

        /* (d) end to end: pinned host in, pinned host out, PIPES contexts
         * (streams) in turn so one frame's copies overlap another's kernel */
        if (bench_case_enabled(&opts, "e2e")) {
            enum { PIPES = 3 };
            fovea_context *pc[PIPES];
            fovea_stitcher *ps[PIPES];
            fovea_frame pin_in[PIPES][2], pin_out[PIPES];
            for (int p = 0; p < PIPES; p++) {
                BENCH_FOVEA(NULL, fovea_open(&pc[p], &gs));
                BENCH_FOVEA(pc[p], fovea_stitcher_create(pc[p], &ps[p], &map, &ss));
                BENCH_FOVEA(pc[p], fovea_stitcher_set_color(ps[p], bench_cc, 2));
                for (int c = 0; c < 2; c++) {
                    BENCH_FOVEA(pc[p], fovea_frame_alloc(pc[p], &pin_in[p][c], CW, CH, FOVEA_PIX_RGBA, FOVEA_MEM_PINNED));
                    BENCH_FOVEA(pc[p], fovea_frame_copy(pc[p], &pin_in[p][c], &cam_rgba[c]));
                }
                BENCH_FOVEA(pc[p], fovea_frame_alloc(pc[p], &pin_out[p], W, H, FOVEA_PIX_RGBA, FOVEA_MEM_PINNED));
            }
            int frames = opts.quick ? 30 : 300;
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
            bench_table_add(&table, "(d) end to end pinned host->host", "cuda-e2e", &s,
                            2.0 * CW * CH * 4 + (double)W * H * 4, 1,
                            "3 streams; PCIe bound; bytes = host<->device traffic");
            for (int p = 0; p < PIPES; p++) {
                fovea_stitcher_destroy(&ps[p]);
                for (int c = 0; c < 2; c++)
                    fovea_frame_free(pc[p], &pin_in[p][c]);
                fovea_frame_free(pc[p], &pin_out[p]);
                fovea_close(&pc[p]);
            }
        }
        if (e2e && bench_case_enabled(&opts, "cli")) {
            if (!cli || access(cli, X_OK) != 0)
                fprintf(text, "no fovea executable at %s (--cli PATH): row (g) skipped\n",
                        cli ? cli : "?");
            else
                cli_rows(&table, cli, tmp, CW, CH, W, H, opts.quick ? 4 : 60, opts.quick ? 1 : 3);
        }
        for (int c = 0; c < 2; c++) {
            fovea_frame_free(gpu, &d_rgba[c]);
            fovea_frame_free(gpu, &d_nv12[c]);
        }
        fovea_frame_free(gpu, &d_out_rgba);
        fovea_frame_free(gpu, &d_out_i420);
        fovea_close(&gpu);
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
        cpu_row(&table, cpu, &map, &ss, cam_rgba, FOVEA_PIX_RGBA, runs, "(e) C backend RGBA->RGBA",
                rgba_bytes);
        cpu_row(&table, cpu, &map, &ss, cam_nv12, FOVEA_PIX_I420, runs, "(e) C backend NV12->I420",
                yuv_bytes);
    }

    for (int c = 0; c < 2; c++) {
        fovea_frame_free(NULL, &cam_rgba[c]);
        fovea_frame_free(NULL, &cam_nv12[c]);
    }
    fovea_stitch_map_free(&map);
    fovea_close(&cpu);
    return bench_table_finish(&table, copy_bw);
}
