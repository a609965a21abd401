/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Differencing (C reference): the fast paths for 8-bit RGB24, RGBA and I420
 * pairs (src/diff/diff_fast.c) give the bytes of the generic path on random
 * pairs of odd sizes, for every measure, normalization, threshold, tile,
 * noise mode, output format, denoise filter and thread count; and their row
 * functions match the arithmetic of docs/diff.md computed here. */
#include <stdlib.h>
#include <string.h>

#include "diff/diff_internal.h"
#include "testutil.h"

static long long compared;

static fovea_context *open_ctx(int threads)
{
    fovea_settings set;
    fovea_default_settings(&set);
    set.backend = FOVEA_BACKEND_CPU;
    set.threads = threads;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &set) == FOVEA_OK);
    return ctx;
}

static fovea_frame make(int w, int h, fovea_pixfmt fmt)
{
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(NULL, &f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    return f;
}

/* A pair: b = a with noise of amplitude amp in a share of the samples (1 in
 * `every`), and some samples anywhere in 0..255, so every difference from 0
 * to 255 a channel occurs. */
static void make_pair(fovea_frame *a, fovea_frame *b, int amp, int every, test_rng *r)
{
    test_fill_random(a, r);
    REQUIRE(fovea_frame_copy(NULL, b, a) == FOVEA_OK);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(a->fmt);
    for (int p = 0; p < d->planes; p++) {
        const size_t n = fovea_plane_row_bytes(a->fmt, a->width, p);
        for (int y = 0; y < fovea_plane_height(a->fmt, a->height, p); y++) {
            uint8_t *row = b->data[p] + (ptrdiff_t)y * b->stride[p];
            for (size_t i = 0; i < n; i++) {
                const uint32_t k = test_rng_below(r, (uint32_t)every);
                if (k == 0) {
                    int v = row[i] + (int)test_rng_below(r, (uint32_t)(2 * amp + 1)) - amp;
                    row[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                } else if (k == 1 && every > 2) {
                    row[i] = (uint8_t)test_rng_below(r, 256);
                }
            }
        }
    }
}

/* Every output of one compute on the fast and the generic differencer. */
typedef struct outs {
    fovea_frame heat, noise;
    fovea_diff_mask_result m;
    uint8_t *flags;
    int32_t *list;
} outs;

static void run(fovea_diff *d, const fovea_frame *a, const fovea_frame *b, fovea_pixfmt heat_fmt,
                fovea_pixfmt noise_fmt, int in_place, outs *o)
{
    const int w = a->width, h = a->height;
    o->heat = make(w, h, heat_fmt);
    o->noise = make(w, h, noise_fmt);
    REQUIRE(fovea_frame_fill(NULL, &o->heat, 0x5a) == FOVEA_OK);
    fovea_frame cur = make(w, h, b->fmt);
    REQUIRE(fovea_frame_copy(NULL, &cur, b) == FOVEA_OK);
    fovea_diff_outputs out = {&o->heat, in_place ? &cur : &o->noise, &o->m, NULL};
    if (!in_place)
        REQUIRE(fovea_frame_fill(NULL, &o->noise, 0xa5) == FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_compute(d, a, &cur, &out), FOVEA_OK);
    if (in_place) { /* the painted current frame is the noise map */
        fovea_frame_free(NULL, &o->noise);
        o->noise = cur;
    } else {
        fovea_frame_free(NULL, &cur);
    }
    const size_t tiles = (size_t)o->m.tiles_x * (size_t)o->m.tiles_y;
    o->flags = malloc(tiles);
    o->list = malloc(tiles * sizeof(int32_t));
    REQUIRE(o->flags && o->list);
    memcpy(o->flags, o->m.changed, tiles);
    memcpy(o->list, o->m.list, (size_t)o->m.changed_tiles * sizeof(int32_t));
}

static void release(outs *o)
{
    fovea_frame_free(NULL, &o->heat);
    fovea_frame_free(NULL, &o->noise);
    free(o->flags);
    free(o->list);
}

static int same(const outs *f, const outs *g)
{
    int ok = fovea_frame_equal(&f->heat, &g->heat) && fovea_frame_equal(&f->noise, &g->noise);
    ok = ok && f->m.changed_tiles == g->m.changed_tiles &&
         f->m.changed_pixels == g->m.changed_pixels && f->m.diff_sum == g->m.diff_sum &&
         f->m.diff_max == g->m.diff_max && f->m.threshold == g->m.threshold &&
         f->m.tiles_x == g->m.tiles_x && f->m.tiles_y == g->m.tiles_y;
    ok = ok && memcmp(f->flags, g->flags, (size_t)f->m.tiles_x * (size_t)f->m.tiles_y) == 0;
    ok = ok && memcmp(f->list, g->list, (size_t)f->m.changed_tiles * sizeof(int32_t)) == 0;
    return ok;
}

/* The fast differencer against the generic one, on one context. */
static void compare(fovea_context *ctx, const fovea_diff_settings *s, const fovea_frame *a,
                    const fovea_frame *b, fovea_pixfmt heat_fmt, fovea_pixfmt noise_fmt,
                    int in_place)
{
    fovea_diff *df = NULL, *dg = NULL;
    REQUIRE(fovea_diff_open(&df, ctx, s) == FOVEA_OK);
    REQUIRE(diff_open_generic(&dg, ctx, s) == FOVEA_OK);
    /* two calls: the second one uses the tables the first made */
    for (int k = 0; k < 2; k++) {
        outs f, g;
        run(df, a, b, heat_fmt, noise_fmt, in_place, &f);
        run(dg, a, b, heat_fmt, noise_fmt, in_place, &g);
        compared++;
        if (!same(&f, &g)) {
            fprintf(stderr,
                    "FAILED: %s %dx%d threads %d measure %d normalize %d threshold %d tile %d "
                    "noise %d denoise %d heat %s noise %s%s (mask: fast %lld/%lld/%lld/%d, "
                    "generic %lld/%lld/%lld/%d)\n",
                    fovea_pixfmt_name(a->fmt), a->width, a->height, fovea_context_threads(ctx),
                    (int)s->measure, s->normalize_max, s->threshold, s->tile, (int)s->noise_mode,
                    (int)s->denoise, fovea_pixfmt_name(heat_fmt), fovea_pixfmt_name(noise_fmt),
                    in_place ? " in place" : "", (long long)f.m.changed_tiles,
                    (long long)f.m.changed_pixels, (long long)f.m.diff_sum, f.m.diff_max,
                    (long long)g.m.changed_tiles, (long long)g.m.changed_pixels,
                    (long long)g.m.diff_sum, g.m.diff_max);
            test_failures++;
        }
        release(&f);
        release(&g);
    }
    fovea_diff_close(&df);
    fovea_diff_close(&dg);
}

static const fovea_pixfmt fmts[3] = {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA, FOVEA_PIX_I420};

static void test_api(void)
{
    static const int sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {33, 17}, {130, 77}, {257, 66}};
    static const int norms[] = {0, 1, 2, 40, 254, 255, 256, 764, 765, 766, 1000, 196605};
    static const int thresholds[] = {0,   1,   10,  127,   254,
                                     255, 300, 765, 65535, FOVEA_DIFF_THRESHOLD_AUTO};
    static const int tiles[] = {8, 16, 32, 64};
    fovea_context *ctx1 = open_ctx(1), *ctx3 = open_ctx(3);
    test_rng r;
    test_rng_seed(&r, 3801);
    long long n = 0;
    for (int f = 0; f < 3; f++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int kind = 0; kind < 3; kind++) {
                const int w = sizes[z][0], h = sizes[z][1];
                fovea_frame a = make(w, h, fmts[f]), b = make(w, h, fmts[f]);
                /* small noise; small noise and random samples; unrelated frames */
                make_pair(&a, &b, kind == 0 ? 6 : 40, kind == 2 ? 1 : 3, &r);
                if (kind == 2)
                    test_fill_random(&b, &r);
                for (int measure = 0; measure < 2; measure++)
                    for (int i = 0; i < 6; i++, n++) {
                        fovea_diff_settings s;
                        fovea_diff_default_settings(&s);
                        s.measure = (fovea_diff_measure)measure;
                        s.normalize_max = norms[(n * 5 + i) % (sizeof norms / sizeof norms[0])];
                        s.threshold =
                            thresholds[(n * 3 + i) % (sizeof thresholds / sizeof thresholds[0])];
                        s.auto_k = i % 2 ? 3.0 : 0.5;
                        s.tile = tiles[(n + i) % 4];
                        s.noise_mode = i % 2 ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
                        s.denoise = i == 4 ? FOVEA_DIFF_DENOISE_MEDIAN3 : FOVEA_DIFF_DENOISE_NONE;
                        const fovea_pixfmt heat_fmt = fmts[(n + f) % 3];
                        const fovea_pixfmt noise_fmt =
                            s.noise_mode == FOVEA_DIFF_NOISE_OVERLAY ? fmts[f] : fmts[(n / 3) % 3];
                        const int in_place =
                            s.noise_mode == FOVEA_DIFF_NOISE_OVERLAY && (n / 2) % 2;
                        compare(n % 2 ? ctx3 : ctx1, &s, &a, &b, heat_fmt, noise_fmt, in_place);
                    }
                fovea_frame_free(NULL, &a);
                fovea_frame_free(NULL, &b);
            }
    fovea_close(&ctx1);
    fovea_close(&ctx3);
}

/* The temporal filter: the fast path on the filtered pairs of several steps. */
static void test_temporal(void)
{
    fovea_context *ctx = open_ctx(2);
    test_rng r;
    test_rng_seed(&r, 77);
    for (int f = 0; f < 3; f++) {
        fovea_diff_settings s;
        fovea_diff_default_settings(&s);
        s.denoise = FOVEA_DIFF_DENOISE_TEMPORAL;
        s.temporal_strength = 120;
        s.threshold = 3;
        fovea_diff *df = NULL, *dg = NULL;
        REQUIRE(fovea_diff_open(&df, ctx, &s) == FOVEA_OK);
        REQUIRE(diff_open_generic(&dg, ctx, &s) == FOVEA_OK);
        const int w = 45, h = 31;
        fovea_frame a = make(w, h, fmts[f]), b = make(w, h, fmts[f]);
        for (int step = 0; step < 4; step++) {
            make_pair(&a, &b, 30, 2, &r);
            outs o1, o2;
            run(df, &a, &b, FOVEA_PIX_I420, FOVEA_PIX_RGB24, 0, &o1);
            run(dg, &a, &b, FOVEA_PIX_I420, FOVEA_PIX_RGB24, 0, &o2);
            compared++;
            if (!same(&o1, &o2)) {
                fprintf(stderr, "FAILED: temporal %s step %d\n", fovea_pixfmt_name(fmts[f]), step);
                test_failures++;
            }
            release(&o1);
            release(&o2);
        }
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
        fovea_diff_close(&df);
        fovea_diff_close(&dg);
    }
    fovea_close(&ctx);
}

static int absd(int a, int b)
{
    return a > b ? a - b : b - a;
}

/* diff_fast_row and diff_fast_color_rows themselves, against docs/diff.md's
 * arithmetic written out here (so the comparison above has a fast side). */
static void test_rows(void)
{
    test_rng r;
    test_rng_seed(&r, 5150);
    uint8_t heat[DIFF_HEAT_ENTRIES][3];
    diff_heat_table(heat);
    for (int f = 0; f < 3; f++) {
        REQUIRE(diff_fast_format(fmts[f]));
        const int w = 67, h = 4;
        fovea_frame a = make(w, h, fmts[f]), b = make(w, h, fmts[f]);
        test_fill_random(&a, &r);
        test_fill_random(&b, &r);
        uint8_t *scratch = malloc(diff_fast_scratch_bytes(w));
        uint16_t sum[2][67], mx[2][67];
        REQUIRE(scratch);
        for (int y = 0; y < 2; y++) {
            diff_fast_row(&a, &b, y, scratch, sum[y], mx[y]);
            for (int x = 0; x < w; x++) {
                int d[3];
                if (fmts[f] == FOVEA_PIX_I420) {
                    d[0] = absd(a.data[0][y * a.stride[0] + x], b.data[0][y * b.stride[0] + x]);
                    for (int p = 1; p < 3; p++)
                        d[p] = absd(a.data[p][(y / 2) * a.stride[p] + x / 2],
                                    b.data[p][(y / 2) * b.stride[p] + x / 2]);
                } else {
                    const int c = fmts[f] == FOVEA_PIX_RGBA ? 4 : 3;
                    for (int k = 0; k < 3; k++)
                        d[k] = absd(a.data[0][y * a.stride[0] + c * x + k],
                                    b.data[0][y * b.stride[0] + c * x + k]);
                }
                const int m = d[0] > d[1] ? d[0] : d[1];
                CHECK_EQ_INT(sum[y][x], d[0] + d[1] + d[2]);
                CHECK_EQ_INT(mx[y][x], m > d[2] ? m : d[2]);
            }
        }
        /* colors of the SUM, normalized to 100 */
        static diff_fast_lut lut;
        diff_fast_heat_lut(heat, 100, &lut);
        fovea_frame o = make(w, 2, FOVEA_PIX_RGB24);
        const uint16_t *const v[2] = {sum[0], sum[1]};
        diff_fast_color_rows(&o, 0, 2, v, &lut);
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < w; x++) {
                const int s = sum[y][x] < 100 ? sum[y][x] : 100;
                const uint8_t *want = heat[(s * 1023 + 50) / 100];
                const uint8_t *got = o.data[0] + y * o.stride[0] + 3 * x;
                CHECK(memcmp(want, got, 3) == 0);
            }
        fovea_frame_free(NULL, &o);
        free(scratch);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
}

int main(void)
{
    test_rows();
    test_api();
    test_temporal();
    printf("%lld compared computes\n", compared);
    return test_finish("test_diff_fast");
}
