/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Differencing (C reference): the temporal filter's exact steps (negative
 * differences, the floor rule, 16-bit range, every format), its state (start
 * from prev, reset, new size or format, one step per call) and
 * fovea_diff_compute against the separate calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/diff.h"
#include "testutil.h"

static fovea_context *ctx;

static int get_s(const fovea_frame *f, int p, int i, int y)
{
    const uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    return fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2 ? r[2 * i] | r[2 * i + 1] << 8
                                                                : r[i];
}

static void set_s(fovea_frame *f, int p, int i, int y, int v)
{
    uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2) {
        r[2 * i] = (uint8_t)(v & 255);
        r[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        r[i] = (uint8_t)v;
    }
}

/* samples per row of plane p */
static int plane_n(const fovea_frame *f, int p)
{
    return (int)(fovea_plane_row_bytes(f->fmt, f->width, p) /
                 (size_t)fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample);
}

static void fill_const(fovea_frame *f, int v)
{
    for (int p = 0; p < fovea_pixfmt_get_desc(f->fmt)->planes; p++)
        for (int y = 0; y < fovea_plane_height(f->fmt, f->height, p); y++)
            for (int i = 0; i < plane_n(f, p); i++)
                set_s(f, p, i, y, v);
}

static fovea_frame make(int w, int h, fovea_pixfmt fmt)
{
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(ctx, &f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    return f;
}

static fovea_diff *open_temporal(int strength, int threshold)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.denoise = FOVEA_DIFF_DENOISE_TEMPORAL;
    s.temporal_strength = strength;
    s.threshold = threshold;
    fovea_diff *d = NULL;
    REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
    return d;
}

/* The step computed independently: floor of a real quotient. */
static int step_of(int s, int x, int strength)
{
    return s + (int)floor(((double)(x - s) * (256 - strength) + 128.0) / 256.0);
}

/* One row of samples through two steps of fovea_diff_denoise, against values
 * worked out by hand. */
static void test_known_steps(void)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    CHECK_EQ_INT(s.temporal_strength, 192);

    /* S = 192, weight of the new sample 64/256; state 100 everywhere */
    static const int x[8] = {200, 0, 102, 101, 98, 97, 99, 255};
    /* 100 + floor((d * 64 + 128) / 256): d = 100 -> 25 (6528/256 = 25.5);
     * d = -100 -> -25 (-6272/256 = -24.5); d = 2 -> 1; d = 1 -> 0 (0.75);
     * d = -2 -> 0 (0/256); d = -3 -> -1 (-64/256 floors to -1, truncation
     * would keep 100); d = -1 -> 0 (0.25); d = 155 -> 39 (10048/256 = 39.25) */
    static const int want1[8] = {125, 75, 101, 100, 100, 99, 100, 139};
    /* second step from want1 towards x: 125 -> 200 adds floor(4928/256) = 19;
     * 75 -> 0 adds floor(-4672/256) = -19 (-18.25); 99 -> 97 adds floor(0) = 0;
     * 139 -> 255 adds floor(7552/256) = 29 (29.5) */
    static const int want2[8] = {144, 56, 101, 100, 100, 99, 100, 168};
    fovea_frame prev = make(8, 1, FOVEA_PIX_GRAY8), cur = make(8, 1, FOVEA_PIX_GRAY8);
    fovea_frame out = make(8, 1, FOVEA_PIX_GRAY8);
    fill_const(&prev, 100);
    for (int i = 0; i < 8; i++)
        set_s(&cur, 0, i, 0, x[i]);
    fovea_diff *d = open_temporal(192, 10);
    /* the first frame starts the state: the output is that frame */
    CHECK_EQ_INT(fovea_diff_denoise(d, &prev, &out), FOVEA_OK);
    CHECK(fovea_frame_equal(&out, &prev));
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(get_s(&out, 0, i, 0), want1[i]);
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(get_s(&out, 0, i, 0), want2[i]);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(step_of(100, x[i], 192), want1[i]);
        CHECK_EQ_INT(step_of(want1[i], x[i], 192), want2[i]);
    }
    /* reset: the next frame starts the state again */
    fovea_diff_reset(d);
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    CHECK(fovea_frame_equal(&out, &cur));
    fovea_diff_close(&d);

    /* S = 128: d = -2 gives floor(-128/256) = -1 (half a step rounds down,
     * also below zero), d = 3 gives floor(512/256) = 2, d = -3 gives -1 */
    d = open_temporal(128, 10);
    fill_const(&prev, 10);
    fill_const(&cur, 8);
    set_s(&cur, 0, 1, 0, 13);
    set_s(&cur, 0, 2, 0, 7);
    set_s(&cur, 0, 3, 0, 9); /* d = -1: floor(0/256) = 0 */
    CHECK_EQ_INT(fovea_diff_denoise(d, &prev, &out), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    CHECK_EQ_INT(get_s(&out, 0, 0, 0), 9);
    CHECK_EQ_INT(get_s(&out, 0, 1, 0), 12);
    CHECK_EQ_INT(get_s(&out, 0, 2, 0), 9);
    CHECK_EQ_INT(get_s(&out, 0, 3, 0), 10);
    fovea_diff_close(&d);

    /* S = 0: no filtering, the output is the frame; S = 255: 1/256 a step,
     * 100 -> 228 moves by floor(256/256) = 1, 100 -> 227 by 0, 200 -> 0 by
     * floor(-72/256) = -1 */
    d = open_temporal(0, 10);
    CHECK_EQ_INT(fovea_diff_denoise(d, &prev, &out), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    CHECK(fovea_frame_equal(&out, &cur));
    fovea_diff_close(&d);
    d = open_temporal(255, 10);
    fill_const(&prev, 100);
    set_s(&prev, 0, 2, 0, 200);
    fill_const(&cur, 0);
    set_s(&cur, 0, 0, 0, 228);
    set_s(&cur, 0, 1, 0, 227);
    CHECK_EQ_INT(fovea_diff_denoise(d, &prev, &out), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    CHECK_EQ_INT(get_s(&out, 0, 0, 0), 101);
    CHECK_EQ_INT(get_s(&out, 0, 1, 0), 100);
    CHECK_EQ_INT(get_s(&out, 0, 2, 0), 199);
    CHECK_EQ_INT(get_s(&out, 0, 3, 0), 100); /* 100 -> 0: floor(28/256) = 0 */
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &prev);
    fovea_frame_free(ctx, &cur);
    fovea_frame_free(ctx, &out);

    /* 16 bits: the full range without overflow; 60000 -> 0 moves by
     * floor(-3839872/256) = -15000 (-14999.5), 0 -> 65535 by
     * floor(4194368/256) = 16384 */
    prev = make(2, 1, FOVEA_PIX_GRAY16);
    cur = make(2, 1, FOVEA_PIX_GRAY16);
    out = make(2, 1, FOVEA_PIX_GRAY16);
    set_s(&prev, 0, 0, 0, 60000);
    set_s(&prev, 0, 1, 0, 0);
    set_s(&cur, 0, 0, 0, 0);
    set_s(&cur, 0, 1, 0, 65535);
    d = open_temporal(192, 10);
    CHECK_EQ_INT(fovea_diff_denoise(d, &prev, &out), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_denoise(d, &cur, &out), FOVEA_OK);
    CHECK_EQ_INT(get_s(&out, 0, 0, 0), 45000);
    CHECK_EQ_INT(get_s(&out, 0, 1, 0), 16384);
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &prev);
    fovea_frame_free(ctx, &cur);
    fovea_frame_free(ctx, &out);
}

/* The mask of a compute call: one pixel 100 -> 200 in a gray frame of 100. */
static fovea_diff_mask_result mask_of(fovea_diff *d, const fovea_frame *prev,
                                      const fovea_frame *cur)
{
    fovea_diff_mask_result m;
    memset(&m, 0, sizeof(m));
    fovea_diff_outputs o = {0};
    o.mask = &m;
    CHECK_EQ_INT(fovea_diff_compute(d, prev, cur, &o), FOVEA_OK);
    return m;
}

/* The state: compute compares the state before and after each step; prev is
 * read at the start only; reset, a new size and a new format start again;
 * every map call advances the filter; a refused call does not. */
static void test_state(void)
{
    const int w = 9, h = 7;
    fovea_frame prev = make(w, h, FOVEA_PIX_GRAY8), cur = make(w, h, FOVEA_PIX_GRAY8);
    fovea_frame junk = make(w, h, FOVEA_PIX_GRAY8);
    fill_const(&prev, 100);
    fill_const(&cur, 100);
    set_s(&cur, 0, 4, 3, 200);
    test_rng r;
    test_rng_seed(&r, 37);
    test_fill_random(&junk, &r);
    fovea_diff *d = open_temporal(192, 10);
    /* 100 -> 125 -> 144 -> 158 (floor(3712/256) = 14): differences 25, 19, 14 */
    fovea_diff_mask_result m = mask_of(d, &prev, &cur);
    CHECK_EQ_INT(m.diff_sum, 25);
    CHECK_EQ_INT(m.diff_max, 25);
    CHECK_EQ_INT(m.changed_pixels, 1);
    m = mask_of(d, &junk, &cur); /* prev is not read once the state exists */
    CHECK_EQ_INT(m.diff_sum, 19);
    CHECK_EQ_INT(m.changed_pixels, 1);
    m = mask_of(d, &junk, &cur);
    CHECK_EQ_INT(m.diff_sum, 14);
    CHECK_EQ_INT(m.changed_pixels, 1);
    /* later steps: 158 -> 169 (2816/256 = 11 exactly), then 169 -> 177
     * (8.25): not > 10 */
    m = mask_of(d, &junk, &cur);
    CHECK_EQ_INT(m.diff_sum, 11);
    CHECK_EQ_INT(m.changed_pixels, 1);
    m = mask_of(d, &junk, &cur);
    CHECK_EQ_INT(m.diff_sum, 8);
    CHECK_EQ_INT(m.changed_pixels, 0);
    CHECK_EQ_INT(m.changed_tiles, 0);

    fovea_diff_reset(d);
    m = mask_of(d, &prev, &cur);
    CHECK_EQ_INT(m.diff_sum, 25);

    /* a new size starts from its prev, and so does the old size after it */
    fovea_frame p2 = make(w + 1, h, FOVEA_PIX_GRAY8), c2 = make(w + 1, h, FOVEA_PIX_GRAY8);
    fill_const(&p2, 50);
    fill_const(&c2, 50);
    set_s(&c2, 0, 0, 0, 0); /* 50 -> floor((-3200 + 128) / 256) = -12 */
    m = mask_of(d, &p2, &c2);
    CHECK_EQ_INT(m.diff_sum, 12);
    m = mask_of(d, &prev, &cur);
    CHECK_EQ_INT(m.diff_sum, 25);
    /* a new format of the same size too */
    fovea_frame p3 = make(w, h, FOVEA_PIX_GRAY10), c3 = make(w, h, FOVEA_PIX_GRAY10);
    fill_const(&p3, 1000);
    fill_const(&c3, 1000);
    set_s(&c3, 0, 1, 1, 0); /* floor((-64000 + 128) / 256) = -250 (-249.5) */
    m = mask_of(d, &p3, &c3);
    CHECK_EQ_INT(m.diff_sum, 250);
    m = mask_of(d, &prev, &cur);
    CHECK_EQ_INT(m.diff_sum, 25);

    /* a refused call leaves the state alone: the output shares prev's plane */
    fovea_frame rgb_prev = make(w, h, FOVEA_PIX_RGB24), rgb_cur = make(w, h, FOVEA_PIX_RGB24);
    fill_const(&rgb_prev, 100);
    fill_const(&rgb_cur, 100);
    set_s(&rgb_cur, 0, 0, 0, 200);
    fovea_diff_reset(d);
    fovea_diff_outputs o = {0};
    o.heatmap = &rgb_prev;
    CHECK_EQ_INT(fovea_diff_compute(d, &rgb_prev, &rgb_cur, &o), FOVEA_ERR_INVALID_ARG);
    m = mask_of(d, &rgb_prev, &rgb_cur);
    CHECK_EQ_INT(m.diff_sum, 25);
    m = mask_of(d, &junk, &cur); /* back to gray: starts again from its prev */
    CHECK(m.diff_sum > 25);      /* the random frame against cur */

    fovea_diff_close(&d);

    /* the map calls: each advances the filter. With threshold 20, heat map
     * (25), then mask (19: unchanged), then noise (14: black); compute gives
     * all three from the first step (25: changed, red) */
    d = open_temporal(192, 20);
    fovea_frame heat1 = make(w, h, FOVEA_PIX_RGB24), heat2 = make(w, h, FOVEA_PIX_RGB24);
    fovea_frame noise = make(w, h, FOVEA_PIX_RGB24);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &prev, &cur, &heat1), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_mask(d, &prev, &cur, &m), FOVEA_OK);
    CHECK_EQ_INT(m.diff_sum, 19);
    CHECK_EQ_INT(m.changed_pixels, 0);
    CHECK_EQ_INT(fovea_diff_noise(d, &prev, &cur, &noise), FOVEA_OK);
    CHECK_EQ_INT(get_s(&noise, 0, 3 * 4, 3), 0);
    fovea_diff_reset(d);
    o.heatmap = &heat2;
    o.mask = &m;
    o.noise = &noise;
    CHECK_EQ_INT(fovea_diff_compute(d, &prev, &cur, &o), FOVEA_OK);
    CHECK_EQ_INT(m.diff_sum, 25);
    CHECK_EQ_INT(m.changed_pixels, 1);
    CHECK(fovea_frame_equal(&heat1, &heat2));
    CHECK_EQ_INT(get_s(&noise, 0, 3 * 4, 3), 255);
    fovea_diff_close(&d);

    fovea_frame *fr[] = {&prev, &cur,      &junk,    &p2,    &c2,    &p3,
                         &c3,   &rgb_prev, &rgb_cur, &heat1, &heat2, &noise};
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++)
        fovea_frame_free(ctx, fr[i]);
}

static const fovea_pixfmt all_fmts[] = {
    FOVEA_PIX_GRAY8,   FOVEA_PIX_GRAY10,  FOVEA_PIX_GRAY12,  FOVEA_PIX_GRAY16,  FOVEA_PIX_I420,
    FOVEA_PIX_I420P10, FOVEA_PIX_I420P12, FOVEA_PIX_I420P16, FOVEA_PIX_I422,    FOVEA_PIX_I422P10,
    FOVEA_PIX_I422P12, FOVEA_PIX_I422P16, FOVEA_PIX_I444,    FOVEA_PIX_I444P10, FOVEA_PIX_I444P12,
    FOVEA_PIX_I444P16, FOVEA_PIX_NV12,    FOVEA_PIX_RGB24,   FOVEA_PIX_RGBA,    FOVEA_PIX_RGB48,
    FOVEA_PIX_RGBA64,
};

/* Every format: three steps on random frames equal the formula on every
 * sample of every plane (alpha and NV12's U, V included), on 1 and 3 threads. */
static void test_formats(void)
{
    fovea_context *c3 = NULL;
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 3;
    REQUIRE(fovea_open(&c3, &cs) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, 3737);
    for (size_t f = 0; f < sizeof all_fmts / sizeof all_fmts[0]; f++) {
        const fovea_pixfmt fmt = all_fmts[f];
        const int w = 17, h = 11, strength = 77 + 50 * (int)(f % 4);
        fovea_frame x[3], want = make(w, h, fmt), out = make(w, h, fmt), out3 = make(w, h, fmt);
        for (int k = 0; k < 3; k++) {
            x[k] = make(w, h, fmt);
            test_fill_random(&x[k], &r);
        }
        fovea_diff_settings s;
        fovea_diff_default_settings(&s);
        s.denoise = FOVEA_DIFF_DENOISE_TEMPORAL;
        s.temporal_strength = strength;
        fovea_diff *d = NULL, *d3 = NULL;
        REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
        REQUIRE(fovea_diff_open(&d3, c3, &s) == FOVEA_OK);
        REQUIRE(fovea_frame_copy(ctx, &want, &x[0]) == FOVEA_OK);
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(fovea_diff_denoise(d, &x[k], &out), FOVEA_OK);
            CHECK_EQ_INT(fovea_diff_denoise(d3, &x[k], &out3), FOVEA_OK);
            const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc(fmt);
            for (int p = 0; p < desc->planes; p++)
                for (int y = 0; y < fovea_plane_height(fmt, h, p); y++)
                    for (int i = 0; i < plane_n(&want, p); i++)
                        set_s(&want, p, i, y,
                              step_of(get_s(&want, p, i, y), get_s(&x[k], p, i, y), strength));
            CHECK(fovea_frame_equal(&out, &want));
            CHECK(fovea_frame_equal(&out3, &want));
        }
        CHECK(!fovea_frame_equal(&out, &x[2]));
        fovea_diff_close(&d);
        fovea_diff_close(&d3);
        for (int k = 0; k < 3; k++)
            fovea_frame_free(ctx, &x[k]);
        fovea_frame_free(ctx, &want);
        fovea_frame_free(ctx, &out);
        fovea_frame_free(ctx, &out3);
    }
    fovea_close(&c3);
}

/* compute == the separate calls for NONE, MEDIAN3 and GAUSS5 (fresh contexts),
 * with a fixed and the automatic threshold, black and overlay noise (overlay
 * also into cur itself, after which the heat map and mask of the same call
 * still compare the frames as given); compute's sigma is that of the
 * compared (denoised) pair. */
static void test_compute_equals_calls(void)
{
    static const fovea_pixfmt fmts[] = {FOVEA_PIX_RGB24, FOVEA_PIX_I420, FOVEA_PIX_GRAY10,
                                        FOVEA_PIX_NV12, FOVEA_PIX_RGBA};
    test_rng r;
    test_rng_seed(&r, 1037);
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (int mode = FOVEA_DIFF_DENOISE_NONE; mode <= FOVEA_DIFF_DENOISE_GAUSS5; mode++)
            for (int variant = 0; variant < 2; variant++) {
                const fovea_pixfmt fmt = fmts[f];
                const int w = 21, h = 13;
                const int maxval = (1 << fovea_pixfmt_get_desc(fmt)->bit_depth) - 1;
                /* a noisy pair: prev random, cur = prev + small noise + a square */
                fovea_frame a = make(w, h, fmt), b = make(w, h, fmt);
                test_fill_random(&a, &r);
                REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
                const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc(fmt);
                for (int p = 0; p < desc->planes; p++)
                    for (int y = 0; y < fovea_plane_height(fmt, h, p); y++)
                        for (int i = 0; i < plane_n(&b, p); i++) {
                            int v = get_s(&b, p, i, y) + (int)test_rng_below(&r, 9) - 4;
                            if (p == 0 && y >= 3 && y < 9 && i >= 4 && i < 10)
                                v += maxval / 3;
                            set_s(&b, p, i, y, v < 0 ? 0 : v > maxval ? maxval : v);
                        }
                fovea_diff_settings s;
                fovea_diff_default_settings(&s);
                s.denoise = (fovea_diff_denoise_mode)mode;
                s.threshold = variant ? FOVEA_DIFF_THRESHOLD_AUTO : maxval / 20;
                s.noise_mode = variant && fmt != FOVEA_PIX_GRAY10 && fmt != FOVEA_PIX_NV12
                                   ? FOVEA_DIFF_NOISE_OVERLAY
                                   : FOVEA_DIFF_NOISE_BLACK;
                s.tile = 8;
                const fovea_pixfmt outfmt =
                    s.noise_mode == FOVEA_DIFF_NOISE_OVERLAY ? fmt : FOVEA_PIX_I420;
                fovea_diff *d1 = NULL, *d2 = NULL, *plain = NULL;
                REQUIRE(fovea_diff_open(&d1, ctx, &s) == FOVEA_OK);
                REQUIRE(fovea_diff_open(&d2, ctx, &s) == FOVEA_OK);
                fovea_diff_settings ps = s;
                ps.denoise = FOVEA_DIFF_DENOISE_NONE;
                REQUIRE(fovea_diff_open(&plain, ctx, &ps) == FOVEA_OK);

                fovea_frame h1 = make(w, h, FOVEA_PIX_RGB24), h2 = make(w, h, FOVEA_PIX_RGB24);
                fovea_frame n1 = make(w, h, outfmt), n2 = make(w, h, outfmt);
                fovea_diff_mask_result m1, m2;
                CHECK_EQ_INT(fovea_diff_heatmap(d1, &a, &b, &h1), FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_noise(d1, &a, &b, &n1), FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_mask(d1, &a, &b, &m1), FOVEA_OK);
                double sigma1 = -1, sigma2 = -2;
                fovea_frame fa = make(w, h, fmt), fb = make(w, h, fmt);
                CHECK_EQ_INT(fovea_diff_denoise(d1, &a, &fa), FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_denoise(d1, &b, &fb), FOVEA_OK);
                CHECK_EQ_INT(fovea_diff_noise_sigma(plain, &fa, &fb, &sigma1), FOVEA_OK);

                fovea_diff_outputs o = {0};
                o.heatmap = &h2;
                o.noise = &n2;
                o.mask = &m2;
                o.sigma = &sigma2;
                CHECK_EQ_INT(fovea_diff_compute(d2, &a, &b, &o), FOVEA_OK);
                CHECK(fovea_frame_equal(&h1, &h2));
                CHECK(fovea_frame_equal(&n1, &n2));
                CHECK(sigma1 == sigma2);
                CHECK_EQ_INT(m1.threshold, m2.threshold);
                CHECK_EQ_INT(m1.changed_tiles, m2.changed_tiles);
                CHECK_EQ_INT(m1.changed_pixels, m2.changed_pixels);
                CHECK_EQ_INT(m1.diff_sum, m2.diff_sum);
                CHECK_EQ_INT(m1.diff_max, m2.diff_max);
                CHECK(m2.changed_pixels > 0);
                if (!variant)
                    CHECK(m2.changed_tiles < (int64_t)m2.tiles_x * m2.tiles_y);
                CHECK(memcmp(m1.changed, m2.changed, (size_t)m1.tiles_x * m1.tiles_y) == 0);
                CHECK(memcmp(m1.list, m2.list, (size_t)m1.changed_tiles * sizeof(int32_t)) == 0);

                if (s.noise_mode == FOVEA_DIFF_NOISE_OVERLAY) {
                    /* into cur itself: the same bytes as the copy, and the heat
                     * map of the call still from the frames as given */
                    fovea_frame bb = make(w, h, fmt);
                    REQUIRE(fovea_frame_copy(ctx, &bb, &b) == FOVEA_OK);
                    fovea_diff *d3 = NULL;
                    REQUIRE(fovea_diff_open(&d3, ctx, &s) == FOVEA_OK);
                    o.noise = &bb;
                    CHECK_EQ_INT(fovea_diff_compute(d3, &a, &bb, &o), FOVEA_OK);
                    CHECK(fovea_frame_equal(&bb, &n1));
                    CHECK(fovea_frame_equal(&h1, &h2));
                    CHECK_EQ_INT(m1.diff_sum, m2.diff_sum);
                    fovea_diff_close(&d3);
                    fovea_frame_free(ctx, &bb);
                }
                fovea_diff_close(&d1);
                fovea_diff_close(&d2);
                fovea_diff_close(&plain);
                fovea_frame *fr[] = {&a, &b, &h1, &h2, &n1, &n2, &fa, &fb};
                for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++)
                    fovea_frame_free(ctx, fr[i]);
            }
}

static void test_errors(void)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    fovea_diff *d = NULL;
    s.denoise = FOVEA_DIFF_DENOISE_TEMPORAL;
    s.temporal_strength = 256;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    s.temporal_strength = -1;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    CHECK(d == NULL);
    s.temporal_strength = 255;
    REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
    fovea_frame a = make(8, 8, FOVEA_PIX_RGB24), b = make(8, 8, FOVEA_PIX_RGB24);
    fovea_frame c = make(8, 8, FOVEA_PIX_RGB24);
    fill_const(&a, 1);
    fill_const(&b, 2);
    CHECK_EQ_INT(fovea_diff_compute(d, &a, &b, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_compute(NULL, &a, &b, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_diff_outputs o = {0};
    CHECK_EQ_INT(fovea_diff_compute(d, &a, &b, &o), FOVEA_OK); /* no output: a step only */
    o.heatmap = &b;                                            /* the output is an input */
    CHECK_EQ_INT(fovea_diff_compute(d, &a, &b, &o), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &b), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_noise(d, &a, &b, &a), FOVEA_ERR_INVALID_ARG);
    o.heatmap = &c;
    o.noise = &c; /* two outputs in one frame */
    CHECK_EQ_INT(fovea_diff_compute(d, &a, &b, &o), FOVEA_ERR_INVALID_ARG);
    fovea_diff_reset(NULL);
    fovea_diff_reset(d);
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
    fovea_frame_free(ctx, &c);
}

int main(void)
{
    fovea_settings set;
    fovea_default_settings(&set);
    set.backend = FOVEA_BACKEND_CPU;
    set.threads = 2;
    REQUIRE(fovea_open(&ctx, &set) == FOVEA_OK);
    test_known_steps();
    test_state();
    test_formats();
    test_compute_equals_calls();
    test_errors();
    fovea_close(&ctx);
    return test_finish("test_diff_temporal");
}
