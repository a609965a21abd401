/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Frame differencing on a CUDA device: every output of the CUDA backend has
 * the bytes of the C reference (heat map RGB24/RGBA/I420, noise map black and
 * overlay, overlay into the current frame itself, change mask with flags,
 * counters and the list, sigma, the automatic threshold), for every input
 * format, odd sizes (1x1 .. 1921x1081), random and structured frames (a single
 * changed pixel, a moving square, gradients), host/pinned/device frames in any
 * mix, outputs poisoned before each call, every tile size, median3 (also the
 * fused heat-map pass), gauss5 and the temporal filter over several steps with
 * resets and size changes, fovea_diff_denoise, the warp kernel's unit and
 * chunk borders, device views off 16 bytes (the other map kernels), the
 * banded maps of pinned frames, and fovea_diff_mask_submit / _receive. Exits 77 (skipped) without a CUDA
 * device. */
#include <stdlib.h>
#include <string.h>

#include "fovea/diff.h"
#include "fovea/fovea.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA

static fovea_context *cctx, *gctx;
static int sanitizer;
static long long runs;

static const fovea_pixfmt all_fmts[] = {
    FOVEA_PIX_GRAY8,   FOVEA_PIX_GRAY10,  FOVEA_PIX_GRAY12,  FOVEA_PIX_GRAY16,  FOVEA_PIX_I420,
    FOVEA_PIX_I420P10, FOVEA_PIX_I420P12, FOVEA_PIX_I420P16, FOVEA_PIX_I422,    FOVEA_PIX_I422P10,
    FOVEA_PIX_I422P12, FOVEA_PIX_I422P16, FOVEA_PIX_I444,    FOVEA_PIX_I444P10, FOVEA_PIX_I444P12,
    FOVEA_PIX_I444P16, FOVEA_PIX_NV12,    FOVEA_PIX_RGB24,   FOVEA_PIX_RGBA,    FOVEA_PIX_RGB48,
    FOVEA_PIX_RGBA64,
};
#define NFMTS ((int)(sizeof all_fmts / sizeof all_fmts[0]))

static const fovea_pixfmt out_fmts[3] = {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA, FOVEA_PIX_I420};
static const fovea_memtype mems[3] = {FOVEA_MEM_HOST, FOVEA_MEM_PINNED, FOVEA_MEM_DEVICE};

static const char *mem_name(fovea_memtype m)
{
    return m == FOVEA_MEM_DEVICE ? "device" : m == FOVEA_MEM_PINNED ? "pinned" : "host";
}

/* ---------------------------------------------------------------- samples */

static int maxval_of(fovea_pixfmt fmt)
{
    return (1 << fovea_pixfmt_get_desc(fmt)->bit_depth) - 1;
}

static int plane_samples(const fovea_frame *f, int p)
{
    return (int)(fovea_plane_row_bytes(f->fmt, f->width, p) /
                 (size_t)fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample);
}

static int get_s(const fovea_frame *f, int p, int i, int y)
{
    const uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    return fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2 ? r[2 * i] | r[2 * i + 1] << 8
                                                                : r[i];
}

static void set_s(fovea_frame *f, int p, int i, int y, int v)
{
    const int maxv = maxval_of(f->fmt);
    v = v < 0 ? 0 : v > maxv ? maxv : v;
    uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2) {
        r[2 * i] = (uint8_t)(v & 255);
        r[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        r[i] = (uint8_t)v;
    }
}

/* samples a pixel of plane p and its width in pixels */
static void plane_geom(const fovea_frame *f, int p, int *comps, int *pw, int *ph)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    *comps = p == 0 ? d->components : d->planes == 2 ? 2 : 1;
    *pw = plane_samples(f, p) / *comps;
    *ph = fovea_plane_height(f->fmt, f->height, p);
}

static fovea_frame host_frame(int w, int h, fovea_pixfmt fmt)
{
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(NULL, &f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    return f;
}

/* The pair kinds: 0 random (cur = prev + noise in a third of the samples, the
 * rest random elsewhere), 1 a single changed sample of every plane, 2 a
 * square moved by (3, 2) over a gradient, 3 a horizontal against a vertical
 * gradient, 4 two unrelated random frames. */
static void make_pair(fovea_frame *a, fovea_frame *b, int kind, test_rng *r)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(a->fmt);
    const int maxv = maxval_of(a->fmt);
    test_fill_random(a, r);
    test_fill_random(b, r);
    if (kind == 4)
        return;
    for (int p = 0; p < d->planes; p++) {
        int comps, pw, ph;
        plane_geom(a, p, &comps, &pw, &ph);
        /* the plane's square: a quarter of its size, at least one sample */
        const int sq = pw / 4 > 0 ? pw / 4 : 1, sx = pw / 3, sy = ph / 3;
        const int ox = p == 0 ? 3 : 1, oy = p == 0 ? 2 : 1;
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++)
                for (int c = 0; c < comps; c++) {
                    const int i = x * comps + c;
                    int va, vb;
                    if (kind == 0) {
                        va = get_s(a, p, i, y);
                        vb = test_rng_below(r, 3) == 0
                                 ? va + (int)test_rng_below(r, (uint32_t)(maxv / 10 + 3)) -
                                       maxv / 20 - 1
                                 : va;
                    } else if (kind == 1) {
                        va = get_s(a, p, i, y);
                        vb = x == pw / 2 && y == ph / 2
                                 ? (va > maxv / 2 ? va - maxv / 3 - 1 : va + maxv / 3 + 1)
                                 : va;
                    } else if (kind == 2) {
                        const int bg = (int)((long long)maxv * (x + 2 * y + c) / (pw + 2 * ph + 4));
                        const int ina = x >= sx && x < sx + sq && y >= sy && y < sy + sq;
                        const int inb =
                            x >= sx + ox && x < sx + ox + sq && y >= sy + oy && y < sy + oy + sq;
                        va = ina ? maxv - maxv / 8 : bg;
                        vb = inb ? maxv - maxv / 8 : bg;
                    } else {
                        va = (int)((long long)maxv * x / (pw > 1 ? pw - 1 : 1));
                        vb = (int)((long long)maxv * y / (ph > 1 ? ph - 1 : 1));
                        va = (va + c * 37) % (maxv + 1);
                    }
                    set_s(a, p, i, y, va);
                    set_s(b, p, i, y, vb);
                }
    }
}

/* ---------------------------------------------------------------- frames */

/* A frame on the GPU context in memory mem, with src's pixels (or poisoned). */
static fovea_frame gpu_frame(fovea_memtype mem, int w, int h, fovea_pixfmt fmt,
                             const fovea_frame *src)
{
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(gctx, &f, w, h, fmt, mem) == FOVEA_OK);
    if (src)
        REQUIRE(fovea_frame_copy(gctx, &f, src) == FOVEA_OK);
    else
        REQUIRE(fovea_frame_fill(gctx, &f, 0xa5) == FOVEA_OK);
    REQUIRE(fovea_sync(gctx) == FOVEA_OK);
    return f;
}

/* Report the first differing sample of two host frames. */
static void report_diff(const fovea_frame *want, const fovea_frame *got, const char *what)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(want->fmt);
    for (int p = 0; p < d->planes; p++)
        for (int y = 0; y < fovea_plane_height(want->fmt, want->height, p); y++)
            for (int i = 0; i < plane_samples(want, p); i++)
                if (get_s(want, p, i, y) != get_s(got, p, i, y)) {
                    fprintf(stderr, "  %s: %s %dx%d plane %d sample %d row %d: C %d, CUDA %d\n",
                            what, fovea_pixfmt_name(want->fmt), want->width, want->height, p, i, y,
                            get_s(want, p, i, y), get_s(got, p, i, y));
                    return;
                }
}

/* got (any memory, on the GPU context) has want's (host) bytes. */
static int same_frame(const fovea_frame *want, const fovea_frame *got, const char *what)
{
    REQUIRE(fovea_sync(gctx) == FOVEA_OK);
    fovea_frame h = host_frame(got->width, got->height, got->fmt);
    REQUIRE(fovea_frame_copy(gctx, &h, got) == FOVEA_OK);
    REQUIRE(fovea_sync(gctx) == FOVEA_OK);
    const int eq = fovea_frame_equal(want, &h);
    if (!eq)
        report_diff(want, &h, what);
    fovea_frame_free(NULL, &h);
    return eq;
}

static int same_mask(const fovea_diff_mask_result *a, const fovea_diff_mask_result *b)
{
    int ok = a->tile == b->tile && a->tiles_x == b->tiles_x && a->tiles_y == b->tiles_y &&
             a->changed_tiles == b->changed_tiles && a->changed_pixels == b->changed_pixels &&
             a->diff_sum == b->diff_sum && a->diff_max == b->diff_max &&
             a->threshold == b->threshold;
    if (ok) {
        const size_t tiles = (size_t)a->tiles_x * (size_t)a->tiles_y;
        ok = memcmp(a->changed, b->changed, tiles) == 0 &&
             (a->changed_tiles == 0 ||
              memcmp(a->list, b->list, (size_t)a->changed_tiles * sizeof(int32_t)) == 0);
    }
    if (!ok)
        fprintf(stderr,
                "  mask: C tiles %lld pixels %lld sum %lld max %d T %d, CUDA tiles %lld "
                "pixels %lld sum %lld max %d T %d\n",
                (long long)a->changed_tiles, (long long)a->changed_pixels, (long long)a->diff_sum,
                a->diff_max, a->threshold, (long long)b->changed_tiles,
                (long long)b->changed_pixels, (long long)b->diff_sum, b->diff_max, b->threshold);
    return ok;
}

/* ---------------------------------------------------------------- one case */

typedef struct diff_case {
    fovea_diff_settings s;
    fovea_pixfmt heat_fmt, noise_fmt;
    fovea_memtype prev_mem, cur_mem, heat_mem, noise_mem;
    int overlay_in_place;
} diff_case;

static fovea_diff *open_diff(fovea_context *ctx, const fovea_diff_settings *s)
{
    fovea_diff *d = NULL;
    const int st = fovea_diff_open(&d, ctx, s);
    if (st != FOVEA_OK)
        fprintf(stderr, "fovea_diff_open: %s\n", fovea_last_error(ctx));
    REQUIRE(st == FOVEA_OK);
    return d;
}

static void describe(const diff_case *k, const fovea_frame *a, const char *what)
{
    fprintf(stderr,
            "FAILED %s: %s %dx%d measure %d normalize %d threshold %d tile %d noise %d "
            "denoise %d S %d | heat %s noise %s | prev %s cur %s heat %s noise %s%s\n",
            what, fovea_pixfmt_name(a->fmt), a->width, a->height, (int)k->s.measure,
            k->s.normalize_max, k->s.threshold, k->s.tile, (int)k->s.noise_mode, (int)k->s.denoise,
            k->s.temporal_strength, fovea_pixfmt_name(k->heat_fmt), fovea_pixfmt_name(k->noise_fmt),
            mem_name(k->prev_mem), mem_name(k->cur_mem), mem_name(k->heat_mem),
            mem_name(k->noise_mem), k->overlay_in_place ? " (overlay into cur)" : "");
}

/* One step on both backends: compute with every output (the GPU frames in
 * the case's memories, outputs poisoned), compared. dc/dg are open contexts
 * (the temporal state carries over between steps). */
static void step_both(fovea_diff *dc, fovea_diff *dg, const diff_case *k, const fovea_frame *a,
                      const fovea_frame *b)
{
    const int w = a->width, h = a->height;
    const int overlay = k->s.noise_mode == FOVEA_DIFF_NOISE_OVERLAY;
    runs++;
    /* C reference */
    fovea_frame hc = host_frame(w, h, k->heat_fmt);
    fovea_frame bc = host_frame(w, h, b->fmt), nc;
    REQUIRE(fovea_frame_copy(NULL, &bc, b) == FOVEA_OK);
    if (overlay && k->overlay_in_place)
        nc = bc;
    else
        nc = host_frame(w, h, overlay ? b->fmt : k->noise_fmt);
    fovea_diff_mask_result mc, mg;
    double sc = -1.0, sg = -2.0;
    fovea_diff_outputs oc = {&hc, &nc, &mc, &sc};
    CHECK_EQ_INT(fovea_diff_compute(dc, a, &bc, &oc), FOVEA_OK);
    /* CUDA */
    fovea_frame ag = gpu_frame(k->prev_mem, w, h, a->fmt, a);
    fovea_frame bg = gpu_frame(k->cur_mem, w, h, b->fmt, b);
    fovea_frame hg = gpu_frame(k->heat_mem, w, h, k->heat_fmt, NULL), ng;
    if (overlay && k->overlay_in_place)
        ng = bg;
    else
        ng = gpu_frame(k->noise_mem, w, h, overlay ? b->fmt : k->noise_fmt, NULL);
    fovea_diff_outputs og = {&hg, &ng, &mg, &sg};
    const int st = fovea_diff_compute(dg, &ag, &bg, &og);
    if (st != FOVEA_OK)
        fprintf(stderr, "  CUDA compute: %s\n", fovea_last_error(gctx));
    CHECK_EQ_INT(st, FOVEA_OK);
    int ok = st == FOVEA_OK;
    ok &= same_frame(&hc, &hg, "heat map");
    ok &= same_frame(&nc, &ng, "noise map");
    ok &= same_mask(&mc, &mg);
    if (sc != sg) {
        fprintf(stderr, "  sigma: C %.17g, CUDA %.17g\n", sc, sg);
        ok = 0;
    }
    if (!ok) {
        describe(k, a, "compute");
        test_failures++;
    }
    fovea_frame_free(NULL, &hc);
    fovea_frame_free(NULL, &bc);
    if (!(overlay && k->overlay_in_place))
        fovea_frame_free(NULL, &nc);
    fovea_frame_free(gctx, &ag);
    fovea_frame_free(gctx, &bg);
    fovea_frame_free(gctx, &hg);
    if (!(overlay && k->overlay_in_place))
        fovea_frame_free(gctx, &ng);
}

/* The single-output calls on fresh contexts (the fused median3 + heat map is
 * the heat map alone with median3), and the sigma of the pair as given. */
static void single_calls(const diff_case *k, const fovea_frame *a, const fovea_frame *b)
{
    const int w = a->width, h = a->height;
    fovea_diff *dc = open_diff(cctx, &k->s), *dg = open_diff(gctx, &k->s);
    fovea_frame hc = host_frame(w, h, k->heat_fmt);
    fovea_frame ag = gpu_frame(k->prev_mem, w, h, a->fmt, a);
    fovea_frame bg = gpu_frame(k->cur_mem, w, h, b->fmt, b);
    fovea_frame hg = gpu_frame(k->heat_mem, w, h, k->heat_fmt, NULL);
    CHECK_EQ_INT(fovea_diff_heatmap(dc, a, b, &hc), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_heatmap(dg, &ag, &bg, &hg), FOVEA_OK);
    if (!same_frame(&hc, &hg, "heat map alone")) {
        describe(k, a, "heat map alone");
        test_failures++;
    }
    fovea_diff_mask_result mc, mg;
    CHECK_EQ_INT(fovea_diff_mask(dc, a, b, &mc), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_mask(dg, &ag, &bg, &mg), FOVEA_OK);
    if (!same_mask(&mc, &mg)) {
        describe(k, a, "mask alone");
        test_failures++;
    }
    double sc = -1.0, sg = -2.0;
    CHECK_EQ_INT(fovea_diff_noise_sigma(dc, a, b, &sc), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_noise_sigma(dg, &ag, &bg, &sg), FOVEA_OK);
    if (sc != sg) {
        fprintf(stderr, "  sigma as given: C %.17g, CUDA %.17g\n", sc, sg);
        describe(k, a, "noise sigma");
        test_failures++;
    }
    fovea_frame_free(NULL, &hc);
    fovea_frame_free(gctx, &ag);
    fovea_frame_free(gctx, &bg);
    fovea_frame_free(gctx, &hg);
    fovea_diff_close(&dc);
    fovea_diff_close(&dg);
}

static int is_map_fmt(fovea_pixfmt f)
{
    return f == FOVEA_PIX_RGB24 || f == FOVEA_PIX_RGBA || f == FOVEA_PIX_I420;
}

/* A case's settings and memories from a counter, so that the combinations
 * rotate through every value. */
static void case_of(long long n, fovea_pixfmt fmt, int denoise, int overlay, diff_case *k)
{
    memset(k, 0, sizeof(*k));
    fovea_diff_default_settings(&k->s);
    const int maxv = maxval_of(fmt);
    k->s.measure = n % 2 ? FOVEA_DIFF_MAX : FOVEA_DIFF_SUM;
    static const int norms[3] = {0, 40, 1};
    k->s.normalize_max = norms[(n / 2) % 3];
    const int thr[4] = {10, 0, FOVEA_DIFF_THRESHOLD_AUTO, maxv / 8};
    k->s.threshold = thr[(n / 3) % 4];
    k->s.auto_k = (n / 5) % 2 ? 3.0 : 0.7;
    static const int tiles[4] = {8, 16, 32, 64};
    k->s.tile = tiles[(n / 7) % 4];
    k->s.denoise = (fovea_diff_denoise_mode)denoise;
    k->s.temporal_strength = (int)((n * 67) % 256);
    k->s.noise_mode = overlay ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
    k->heat_fmt = out_fmts[n % 3];
    k->noise_fmt = out_fmts[(n / 3) % 3];
    k->prev_mem = mems[n % 3];
    k->cur_mem = mems[(n / 3) % 3];
    k->heat_mem = mems[(n / 9) % 3];
    k->noise_mem = mems[(n / 2) % 3];
    k->overlay_in_place = overlay && (n / 4) % 2;
}

/* Every format, odd sizes, pair kinds, filters, noise modes. */
static void test_formats(void)
{
    static const int sizes[][2] = {{33, 17}, {1, 1}, {7, 5}, {2, 3}};
    test_rng r;
    test_rng_seed(&r, 3737);
    long long n = 0;
    /* compute-sanitizer makes every call slow: two sizes and two kinds there */
    const size_t nsizes = sanitizer ? 2 : sizeof sizes / sizeof sizes[0];
    for (int f = 0; f < NFMTS; f++)
        for (size_t z = 0; z < nsizes; z++)
            for (int kind = 0; kind < 5; kind += sanitizer ? 2 : 1) {
                const fovea_pixfmt fmt = all_fmts[f];
                const int w = sizes[z][0], h = sizes[z][1];
                fovea_frame a = host_frame(w, h, fmt), b = host_frame(w, h, fmt);
                make_pair(&a, &b, kind, &r);
                for (int dn = 0; dn < 4; dn++)
                    for (int ov = 0; ov < (is_map_fmt(fmt) ? 2 : 1); ov++) {
                        diff_case k;
                        case_of(n++, fmt, dn, ov, &k);
                        fovea_diff *dc = open_diff(cctx, &k.s), *dg = open_diff(gctx, &k.s);
                        step_both(dc, dg, &k, &a, &b);
                        fovea_diff_close(&dc);
                        fovea_diff_close(&dg);
                        if (dn != FOVEA_DIFF_DENOISE_TEMPORAL && (kind + dn + ov) % 3 == 0)
                            single_calls(&k, &a, &b);
                    }
                fovea_frame_free(NULL, &a);
                fovea_frame_free(NULL, &b);
            }
}

/* Full HD + 1 (odd, partial tiles, a list longer than what comes back with
 * the counters), the speed paths: RGB24/RGBA words, the fused median, and a
 * few other layouts. */
static void test_large(void)
{
    static const fovea_pixfmt fmts[] = {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA,   FOVEA_PIX_I420,
                                        FOVEA_PIX_NV12,  FOVEA_PIX_GRAY16, FOVEA_PIX_I444P10,
                                        FOVEA_PIX_RGB48};
    const int nf = sanitizer ? 2 : (int)(sizeof fmts / sizeof fmts[0]);
    test_rng r;
    test_rng_seed(&r, 1921);
    long long n = 1;
    for (int f = 0; f < nf; f++)
        for (int kind = 0; kind < (sanitizer ? 1 : 3); kind++) {
            const fovea_pixfmt fmt = fmts[f];
            const int w = 1921, h = 1081;
            fovea_frame a = host_frame(w, h, fmt), b = host_frame(w, h, fmt);
            make_pair(&a, &b, kind == 2 ? 4 : kind == 1 ? 2 : 0, &r);
            for (int dn = 0; dn < 4; dn++) {
                diff_case k;
                case_of(n++, fmt, dn, is_map_fmt(fmt) && dn % 2, &k);
                if (kind == 2) { /* everything changes: the whole list comes back */
                    k.s.tile = 8;
                    k.s.threshold = 0;
                }
                fovea_diff *dc = open_diff(cctx, &k.s), *dg = open_diff(gctx, &k.s);
                step_both(dc, dg, &k, &a, &b);
                fovea_diff_close(&dc);
                fovea_diff_close(&dg);
                if (dn == FOVEA_DIFF_DENOISE_MEDIAN3 || dn == FOVEA_DIFF_DENOISE_NONE) {
                    /* the fused pass (RGB24/RGBA heat map alone with median3) */
                    k.heat_fmt = fmt == FOVEA_PIX_RGBA ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24;
                    k.heat_mem = FOVEA_MEM_DEVICE;
                    single_calls(&k, &a, &b);
                }
            }
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &b);
        }
}

/* The temporal filter over several steps: a drifting sequence, the state kept
 * on both backends; fovea_diff_reset, a size change and back, a format
 * change; the per-map calls (each one step). */
static void test_temporal(void)
{
    static const fovea_pixfmt fmts[] = {FOVEA_PIX_RGB24,  FOVEA_PIX_I420P10, FOVEA_PIX_NV12,
                                        FOVEA_PIX_RGBA64, FOVEA_PIX_GRAY8,   FOVEA_PIX_RGBA};
    test_rng r;
    test_rng_seed(&r, 192);
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        const fovea_pixfmt fmt = fmts[f];
        const int w = 37 + (int)f * 64, h = 23 + (int)f * 16;
        diff_case k;
        case_of((long long)f * 5 + 3, fmt, FOVEA_DIFF_DENOISE_TEMPORAL, 0, &k);
        k.s.temporal_strength = 100 + 30 * (int)f;
        fovea_diff *dc = open_diff(cctx, &k.s), *dg = open_diff(gctx, &k.s);
        fovea_frame seq[7];
        for (int i = 0; i < 7; i++)
            seq[i] = host_frame(w, h, fmt);
        fovea_frame junk = host_frame(w, h, fmt);
        make_pair(&seq[0], &seq[1], 2, &r);
        for (int i = 2; i < 7; i++) {
            fovea_frame tmp = host_frame(w, h, fmt);
            make_pair(&tmp, &seq[i], 0, &r); /* seq[i] random: large steps */
            fovea_frame_free(NULL, &tmp);
        }
        test_fill_random(&junk, &r);
        for (int i = 0; i + 1 < 7; i++) {
            k.prev_mem = mems[i % 3];
            k.cur_mem = mems[(i + 1) % 3];
            k.heat_mem = mems[(i + 2) % 3];
            /* after the first step prev is not read: give both backends junk */
            step_both(dc, dg, &k, i == 0 || i == 3 ? &seq[i] : &junk, &seq[i + 1]);
            if (i == 2) {
                fovea_diff_reset(dc);
                fovea_diff_reset(dg);
            }
            if (i == 4) { /* another size for one step, then back: both start again */
                fovea_frame a2 = host_frame(w - 1, h + 1, fmt), b2 = host_frame(w - 1, h + 1, fmt);
                make_pair(&a2, &b2, 0, &r);
                step_both(dc, dg, &k, &a2, &b2);
                fovea_frame_free(NULL, &a2);
                fovea_frame_free(NULL, &b2);
                step_both(dc, dg, &k, &seq[i], &seq[i + 1]);
            }
        }
        /* the per-map calls each advance the filter */
        fovea_frame hc = host_frame(w, h, FOVEA_PIX_RGB24);
        fovea_frame hg = gpu_frame(FOVEA_MEM_DEVICE, w, h, FOVEA_PIX_RGB24, NULL);
        fovea_frame bg = gpu_frame(FOVEA_MEM_PINNED, w, h, fmt, &seq[2]);
        fovea_diff_mask_result mc, mg;
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_INT(fovea_diff_heatmap(dc, &junk, &seq[2], &hc), FOVEA_OK);
            CHECK_EQ_INT(fovea_diff_heatmap(dg, &junk, &bg, &hg), FOVEA_OK);
            CHECK(same_frame(&hc, &hg, "temporal heat map call"));
            CHECK_EQ_INT(fovea_diff_mask(dc, &junk, &seq[2], &mc), FOVEA_OK);
            CHECK_EQ_INT(fovea_diff_mask(dg, &junk, &bg, &mg), FOVEA_OK);
            CHECK(same_mask(&mc, &mg));
        }
        /* a format change restarts both */
        fovea_frame g1 = host_frame(w, h, FOVEA_PIX_GRAY12);
        fovea_frame g2 = host_frame(w, h, FOVEA_PIX_GRAY12);
        make_pair(&g1, &g2, 0, &r);
        k.prev_mem = FOVEA_MEM_HOST;
        k.cur_mem = FOVEA_MEM_DEVICE;
        step_both(dc, dg, &k, &g1, &g2);
        step_both(dc, dg, &k, &junk, &seq[6]);
        fovea_frame_free(NULL, &g1);
        fovea_frame_free(NULL, &g2);
        fovea_frame_free(NULL, &hc);
        fovea_frame_free(gctx, &hg);
        fovea_frame_free(gctx, &bg);
        fovea_frame_free(NULL, &junk);
        for (int i = 0; i < 7; i++)
            fovea_frame_free(NULL, &seq[i]);
        fovea_diff_close(&dc);
        fovea_diff_close(&dg);
    }
}

/* fovea_diff_denoise: every filter, every format, host/pinned/device in and
 * out; the temporal filter over three steps. */
static void test_denoise(void)
{
    test_rng r;
    test_rng_seed(&r, 5);
    int n = 0;
    for (int f = 0; f < NFMTS; f++)
        for (int mode = FOVEA_DIFF_DENOISE_MEDIAN3; mode <= FOVEA_DIFF_DENOISE_TEMPORAL; mode++) {
            const fovea_pixfmt fmt = all_fmts[f];
            const int w = 33 - f % 3, h = 17 + mode;
            fovea_diff_settings s;
            fovea_diff_default_settings(&s);
            s.denoise = (fovea_diff_denoise_mode)mode;
            s.temporal_strength = 50 + 9 * f;
            fovea_diff *dc = open_diff(cctx, &s), *dg = open_diff(gctx, &s);
            for (int step = 0; step < (mode == FOVEA_DIFF_DENOISE_TEMPORAL ? 3 : 1); step++, n++) {
                fovea_frame in = host_frame(w, h, fmt), oc = host_frame(w, h, fmt);
                test_fill_random(&in, &r);
                fovea_frame ig = gpu_frame(mems[n % 3], w, h, fmt, &in);
                fovea_frame og = gpu_frame(mems[(n / 3) % 3], w, h, fmt, NULL);
                CHECK_EQ_INT(fovea_diff_denoise(dc, &in, &oc), FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_denoise(dg, &ig, &og), FOVEA_OK);
                if (!same_frame(&oc, &og, "denoise")) {
                    fprintf(stderr, "FAILED denoise %d step %d: %s %dx%d in %s out %s\n", mode,
                            step, fovea_pixfmt_name(fmt), w, h, mem_name(ig.mem), mem_name(og.mem));
                    test_failures++;
                }
                fovea_frame_free(NULL, &in);
                fovea_frame_free(NULL, &oc);
                fovea_frame_free(gctx, &ig);
                fovea_frame_free(gctx, &og);
            }
            fovea_diff_close(&dc);
            fovea_diff_close(&dg);
        }
}

/* One context, many calls: sizes and tiles change between calls (the mask's
 * ticket, look-back epochs and result buffers are reused), two contexts
 * interleaved share nothing. */
static void test_reuse(void)
{
    test_rng r;
    test_rng_seed(&r, 42);
    diff_case k1, k2;
    case_of(11, FOVEA_PIX_RGB24, FOVEA_DIFF_DENOISE_NONE, 0, &k1);
    case_of(22, FOVEA_PIX_RGB24, FOVEA_DIFF_DENOISE_MEDIAN3, 1, &k2);
    k1.s.threshold = 5;
    fovea_diff *c1 = open_diff(cctx, &k1.s), *g1 = open_diff(gctx, &k1.s);
    fovea_diff *c2 = open_diff(cctx, &k2.s), *g2 = open_diff(gctx, &k2.s);
    const int calls = sanitizer ? 6 : 40;
    for (int i = 0; i < calls; i++) {
        const int w = 100 + 37 * (i % 5), h = 60 + 11 * (i % 3);
        fovea_frame a = host_frame(w, h, FOVEA_PIX_RGB24), b = host_frame(w, h, FOVEA_PIX_RGB24);
        make_pair(&a, &b, i % 4, &r);
        step_both(c1, g1, &k1, &a, &b);
        step_both(c2, g2, &k2, &a, &b);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
    fovea_diff_close(&c1);
    fovea_diff_close(&g1);
    fovea_diff_close(&c2);
    fovea_diff_close(&g2);
}

/* The warp kernel of 8-bit RGB24/RGBA maps at unit boundaries (512 px) and
 * 16-byte chunk tails; device views whose planes start off 16 bytes (the
 * 4-pixel kernel with word readers, and sample by sample). */
static fovea_frame view_of(fovea_frame *big, int w, int off)
{
    fovea_frame v = *big;
    v.width = w;
    v.data[0] += off;
    return v;
}

static void test_units(void)
{
    static const int widths[] = {4, 16, 511, 512, 513, 528, 1920};
    static const fovea_pixfmt ins[2] = {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA};
    test_rng r;
    test_rng_seed(&r, 512);
    long long n = 0;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        for (int f = 0; f < 2; f++) {
            const int w = widths[i], h = 3 + (int)i % 3;
            fovea_frame a = host_frame(w, h, ins[f]), b = host_frame(w, h, ins[f]);
            make_pair(&a, &b, (int)(i + (size_t)f) % 5, &r);
            for (int ov = 0; ov < 2; ov++, n++) {
                diff_case k;
                case_of(n * 7 + 1, ins[f], FOVEA_DIFF_DENOISE_NONE, ov, &k);
                k.heat_fmt = out_fmts[n % 2];
                k.noise_fmt = out_fmts[(n / 2) % 2];
                k.prev_mem = k.cur_mem = k.heat_mem = k.noise_mem = FOVEA_MEM_DEVICE;
                fovea_diff *dc = open_diff(cctx, &k.s), *dg = open_diff(gctx, &k.s);
                step_both(dc, dg, &k, &a, &b);
                fovea_diff_close(&dc);
                fovea_diff_close(&dg);
            }
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &b);
        }
    /* device views 1 and 4 bytes off: every map and the mask against C */
    for (int f = 0; f < 2; f++)
        for (int off = 1; off <= 4; off += 3) {
            const int w = 45, h = 7;
            fovea_frame a = host_frame(w, h, ins[f]), b = host_frame(w, h, ins[f]);
            make_pair(&a, &b, 0, &r);
            fovea_frame ba = gpu_frame(FOVEA_MEM_DEVICE, w + 8, h, ins[f], NULL);
            fovea_frame bb = gpu_frame(FOVEA_MEM_DEVICE, w + 8, h, ins[f], NULL);
            fovea_frame bo = gpu_frame(FOVEA_MEM_DEVICE, w + 8, h, ins[f], NULL);
            fovea_frame va = view_of(&ba, w, off), vb = view_of(&bb, w, off);
            fovea_frame vo = view_of(&bo, w, ins[f] == FOVEA_PIX_RGBA ? 4 * off : off);
            REQUIRE(fovea_frame_copy(gctx, &va, &a) == FOVEA_OK);
            REQUIRE(fovea_frame_copy(gctx, &vb, &b) == FOVEA_OK);
            for (int kind = 0; kind < 3; kind++) {
                fovea_diff_settings s;
                fovea_diff_default_settings(&s);
                s.measure = kind == 1 ? FOVEA_DIFF_MAX : FOVEA_DIFF_SUM;
                s.noise_mode = kind == 2 ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
                s.threshold = 3;
                fovea_diff *dc = open_diff(cctx, &s), *dg = open_diff(gctx, &s);
                fovea_frame oc = host_frame(w, h, ins[f]);
                REQUIRE(fovea_frame_copy(NULL, &oc, &b) == FOVEA_OK);
                if (kind == 2) /* overlay into the current frame's view itself */
                    CHECK_EQ_INT(fovea_diff_noise(dc, &a, &oc, &oc), FOVEA_OK);
                else
                    CHECK_EQ_INT(fovea_diff_heatmap(dc, &a, &b, &oc), FOVEA_OK);
                fovea_frame vcur = vb;
                if (kind == 2) {
                    CHECK_EQ_INT(fovea_diff_noise(dg, &va, &vcur, &vcur), FOVEA_OK);
                } else {
                    CHECK_EQ_INT(fovea_diff_heatmap(dg, &va, &vb, &vo), FOVEA_OK);
                }
                if (!same_frame(&oc, kind == 2 ? &vcur : &vo, "unaligned view")) {
                    fprintf(stderr, "FAILED unaligned %s offset %d kind %d\n",
                            fovea_pixfmt_name(ins[f]), off, kind);
                    test_failures++;
                }
                if (kind == 2) /* restore cur */
                    REQUIRE(fovea_frame_copy(gctx, &vb, &b) == FOVEA_OK);
                fovea_diff_mask_result mc, mg;
                CHECK_EQ_INT(fovea_diff_mask(dc, &a, &b, &mc), FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_mask(dg, &va, &vb, &mg), FOVEA_OK);
                CHECK(same_mask(&mc, &mg));
                fovea_frame_free(NULL, &oc);
                fovea_diff_close(&dc);
                fovea_diff_close(&dg);
            }
            fovea_frame_free(gctx, &ba);
            fovea_frame_free(gctx, &bb);
            fovea_frame_free(gctx, &bo);
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &b);
        }
}

/* Maps of pinned frames made band by band (uploads, kernels and downloads
 * overlapped): heat and black noise maps into pinned and device frames of
 * every map format, against C; odd sizes make a short last band. */
static void test_bands(void)
{
    static const struct {
        fovea_pixfmt fmt;
        int w, h;
    } cases[] = {{FOVEA_PIX_RGB24, 1920, 1080}, {FOVEA_PIX_I420, 1921, 1081},
                 {FOVEA_PIX_RGBA, 1280, 721},   {FOVEA_PIX_I444P10, 999, 700},
                 {FOVEA_PIX_NV12, 2000, 1003},  {FOVEA_PIX_GRAY8, 4096, 601}};
    test_rng r;
    test_rng_seed(&r, 808);
    const int nc = sanitizer ? 2 : (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < nc; i++) {
        const int w = cases[i].w, h = cases[i].h;
        fovea_frame a = host_frame(w, h, cases[i].fmt), b = host_frame(w, h, cases[i].fmt);
        make_pair(&a, &b, i % 3, &r);
        fovea_frame ap = gpu_frame(FOVEA_MEM_PINNED, w, h, cases[i].fmt, &a);
        fovea_frame bp = gpu_frame(FOVEA_MEM_PINNED, w, h, cases[i].fmt, &b);
        for (int k = 0; k < 3; k++) {
            fovea_diff_settings s;
            fovea_diff_default_settings(&s);
            s.measure = k == 1 ? FOVEA_DIFF_MAX : FOVEA_DIFF_SUM;
            s.normalize_max = k == 2 ? 37 : 0;
            s.threshold = 2 + k;
            const fovea_pixfmt hf = out_fmts[(i + k) % 3], nf = out_fmts[(i + k + 1) % 3];
            fovea_diff *dc = open_diff(cctx, &s), *dg = open_diff(gctx, &s);
            fovea_frame hc = host_frame(w, h, hf), nc_ = host_frame(w, h, nf);
            fovea_diff_outputs oc = {&hc, &nc_, NULL, NULL};
            CHECK_EQ_INT(fovea_diff_compute(dc, &a, &b, &oc), FOVEA_OK);
            /* pinned + pinned, pinned + device, device + device (returns early) */
            fovea_frame hg =
                gpu_frame(k == 2 ? FOVEA_MEM_DEVICE : FOVEA_MEM_PINNED, w, h, hf, NULL);
            fovea_frame ng =
                gpu_frame(k == 0 ? FOVEA_MEM_PINNED : FOVEA_MEM_DEVICE, w, h, nf, NULL);
            fovea_diff_outputs og = {&hg, &ng, NULL, NULL};
            CHECK_EQ_INT(fovea_diff_compute(dg, &ap, &bp, &og), FOVEA_OK);
            if (!same_frame(&hc, &hg, "banded heat map") ||
                !same_frame(&nc_, &ng, "banded noise map")) {
                fprintf(stderr, "FAILED bands: %s %dx%d case %d\n", fovea_pixfmt_name(cases[i].fmt),
                        w, h, k);
                test_failures++;
            }
            /* the heat map alone, twice: the second call reuses everything */
            for (int rep = 0; rep < 2; rep++) {
                REQUIRE(fovea_frame_fill(gctx, &hg, 0x33) == FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_heatmap(dg, &ap, &bp, &hg), FOVEA_OK);
                CHECK(same_frame(&hc, &hg, "banded heat map alone"));
            }
            fovea_frame_free(NULL, &hc);
            fovea_frame_free(NULL, &nc_);
            fovea_frame_free(gctx, &hg);
            fovea_frame_free(gctx, &ng);
            fovea_diff_close(&dc);
            fovea_diff_close(&dg);
        }
        fovea_frame_free(gctx, &ap);
        fovea_frame_free(gctx, &bp);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
}

/* fovea_diff_mask_submit / _receive on the device: the mask of the C
 * reference, for frames in every memory, other calls refused while pending. */
static void test_submit(void)
{
    test_rng r;
    test_rng_seed(&r, 4096);
    for (int i = 0; i < 6; i++) {
        const fovea_pixfmt fmt = i % 2 ? FOVEA_PIX_I420 : FOVEA_PIX_RGB24;
        const int w = 300 + 37 * i, h = 200 + 11 * i;
        fovea_frame a = host_frame(w, h, fmt), b = host_frame(w, h, fmt);
        make_pair(&a, &b, i % 3, &r);
        fovea_diff_settings s;
        fovea_diff_default_settings(&s);
        s.tile = 8 << (i % 4);
        s.threshold = 7;
        fovea_diff *dc = open_diff(cctx, &s), *dg = open_diff(gctx, &s);
        fovea_frame ag = gpu_frame(mems[i % 3], w, h, fmt, &a);
        fovea_frame bg = gpu_frame(mems[(i + 1) % 3], w, h, fmt, &b);
        fovea_diff_mask_result mc, mg;
        CHECK_EQ_INT(fovea_diff_mask(dc, &a, &b, &mc), FOVEA_OK);
        CHECK_EQ_INT(fovea_diff_mask_receive(dg, &mg), FOVEA_AGAIN);
        CHECK_EQ_INT(fovea_diff_mask_submit(dg, &ag, &bg), FOVEA_OK);
        CHECK_EQ_INT(fovea_diff_mask_submit(dg, &ag, &bg), FOVEA_AGAIN);
        CHECK_EQ_INT(fovea_diff_mask(dg, &ag, &bg, &mg), FOVEA_ERR_INVALID_ARG);
        CHECK_EQ_INT(fovea_diff_mask_receive(dg, &mg), FOVEA_OK);
        if (!same_mask(&mc, &mg)) {
            fprintf(stderr, "FAILED mask submit %d\n", i);
            test_failures++;
        }
        /* twice in a row, then the synchronous call: the same */
        CHECK_EQ_INT(fovea_diff_mask_submit(dg, &ag, &bg), FOVEA_OK);
        CHECK_EQ_INT(fovea_diff_mask_receive(dg, &mg), FOVEA_OK);
        CHECK(same_mask(&mc, &mg));
        CHECK_EQ_INT(fovea_diff_mask(dg, &ag, &bg, &mg), FOVEA_OK);
        CHECK(same_mask(&mc, &mg));
        CHECK_EQ_INT(fovea_diff_mask_submit(dg, &ag, &bg), FOVEA_OK); /* closed pending */
        fovea_diff_close(&dc);
        fovea_diff_close(&dg);
        fovea_frame_free(gctx, &ag);
        fovea_frame_free(gctx, &bg);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
}

/* Device frames: refused by the C reference, frames of another size refused
 * before any work. */
static void test_errors(void)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    fovea_diff *dc = open_diff(cctx, &s), *dg = open_diff(gctx, &s);
    CHECK_EQ_INT(fovea_diff_backend(dc), FOVEA_BACKEND_CPU);
    CHECK_EQ_INT(fovea_diff_backend(dg), FOVEA_BACKEND_CUDA);
    fovea_frame a = gpu_frame(FOVEA_MEM_DEVICE, 8, 8, FOVEA_PIX_RGB24, NULL);
    fovea_frame b = gpu_frame(FOVEA_MEM_DEVICE, 8, 8, FOVEA_PIX_RGB24, NULL);
    fovea_frame c = gpu_frame(FOVEA_MEM_DEVICE, 9, 8, FOVEA_PIX_RGB24, NULL);
    fovea_frame o = gpu_frame(FOVEA_MEM_DEVICE, 8, 8, FOVEA_PIX_RGB24, NULL);
    CHECK_EQ_INT(fovea_diff_heatmap(dc, &a, &b, &o), FOVEA_ERR_UNSUPPORTED);
    CHECK_EQ_INT(fovea_diff_heatmap(dg, &a, &c, &o), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_diff_heatmap(dg, &a, &b, &b), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_heatmap(dg, &a, &b, &o), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(gctx), FOVEA_OK);
    fovea_frame_free(gctx, &a);
    fovea_frame_free(gctx, &b);
    fovea_frame_free(gctx, &c);
    fovea_frame_free(gctx, &o);
    fovea_diff_close(&dc);
    fovea_diff_close(&dg);
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    sanitizer = getenv("FOVEA_TEST_SANITIZER") != NULL;
    cctx = test_open_ctx(FOVEA_BACKEND_CPU, 2, NULL);
    gctx = test_open_ctx(FOVEA_BACKEND_CUDA, 2, NULL);
    test_errors();
    test_formats();
    test_large();
    test_temporal();
    test_denoise();
    test_reuse();
    test_units();
    test_bands();
    test_submit();
    printf("%lld compared calls\n", runs);
    fovea_close(&cctx);
    fovea_close(&gctx);
    return test_finish("test_gpu_diff");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
