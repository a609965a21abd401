/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Differencing denoise (C reference): known answers of median3 and gauss5,
 * every format at odd sizes, the maps on denoised frames, and identical
 * output for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "fovea/diff.h"
#include "testutil.h"

static fovea_context *open_ctx(int threads)
{
    fovea_context *ctx = NULL;
    fovea_settings set;
    fovea_default_settings(&set);
    set.backend = FOVEA_BACKEND_CPU;
    set.threads = threads;
    REQUIRE(fovea_open(&ctx, &set) == FOVEA_OK);
    return ctx;
}

static fovea_diff *open_diff(fovea_context *ctx, fovea_diff_denoise_mode mode)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.denoise = mode;
    fovea_diff *d = NULL;
    REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
    return d;
}

static int sample(const fovea_frame *f, int p, int i, int y)
{
    const uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    return fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2 ? r[2 * i] | r[2 * i + 1] << 8
                                                                : r[i];
}

static void set_sample(fovea_frame *f, int p, int i, int y, int v)
{
    uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2) {
        r[2 * i] = (uint8_t)(v & 255);
        r[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        r[i] = (uint8_t)v;
    }
}

static void fill_const(fovea_frame *f, int v)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int p = 0; p < d->planes; p++) {
        const int n =
            (int)(fovea_plane_row_bytes(f->fmt, f->width, p) / (size_t)d->bytes_per_sample);
        for (int y = 0; y < fovea_plane_height(f->fmt, f->height, p); y++)
            for (int i = 0; i < n; i++)
                set_sample(f, p, i, y, v);
    }
}

/* A 9x9 gray frame with one sample of value v at (4, 4). */
static void impulse(fovea_frame *f, fovea_pixfmt fmt, int v)
{
    REQUIRE(fovea_frame_alloc(NULL, f, 9, 9, fmt, FOVEA_MEM_HOST) == 0);
    fill_const(f, 0);
    set_sample(f, 0, 4, 4, v);
}

static void test_gauss_impulse(fovea_context *ctx)
{
    /* v = 90 through [1 4 6 4 1]/16 rounded half up per pass: horizontal
     * (90*t + 8) >> 4 = 6, 23, 34, 23, 6; then vertically (t*h + 8) >> 4. One
     * 2D pass /256 would give another answer at 8 of the 25 places. */
    static const int want[5][5] = {
        {0, 1, 2, 1, 0}, {2, 6, 9, 6, 2}, {2, 9, 13, 9, 2}, {2, 6, 9, 6, 2}, {0, 1, 2, 1, 0}};
    fovea_diff *d = open_diff(ctx, FOVEA_DIFF_DENOISE_GAUSS5);
    fovea_frame in, out;
    impulse(&in, FOVEA_PIX_GRAY8, 90);
    REQUIRE(fovea_frame_alloc(NULL, &out, 9, 9, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fovea_diff_denoise(d, &in, &out), FOVEA_OK);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++) {
            const int in5 = x >= 2 && x <= 6 && y >= 2 && y <= 6;
            CHECK_EQ_INT(sample(&out, 0, x, y), in5 ? want[y - 2][x - 2] : 0);
        }
    /* at a corner the replicated border counts the impulse again: (0,0) sees it
     * at taps 6+4+1 = 11 of 16 in both directions: h = (90*11 + 8) >> 4 = 62,
     * v = (62*11 + 8) >> 4 = 43 */
    fill_const(&in, 0);
    set_sample(&in, 0, 0, 0, 90);
    CHECK_EQ_INT(fovea_diff_denoise(d, &in, &out), FOVEA_OK);
    CHECK_EQ_INT(sample(&out, 0, 0, 0), 43);
    fovea_frame_free(NULL, &in);
    fovea_frame_free(NULL, &out);
    fovea_diff_close(&d);
}

static void test_median_salt(fovea_context *ctx)
{
    fovea_diff *d = open_diff(ctx, FOVEA_DIFF_DENOISE_MEDIAN3);
    fovea_frame in, out;
    impulse(&in, FOVEA_PIX_GRAY10, 1023);
    set_sample(&in, 0, 0, 8, 900); /* salt in a corner: replicated 4 times, still a minority */
    REQUIRE(fovea_frame_alloc(NULL, &out, 9, 9, FOVEA_PIX_GRAY10, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fovea_diff_denoise(d, &in, &out), FOVEA_OK);
    fovea_frame zero;
    REQUIRE(fovea_frame_alloc(NULL, &zero, 9, 9, FOVEA_PIX_GRAY10, FOVEA_MEM_HOST) == 0);
    fill_const(&zero, 0);
    CHECK(fovea_frame_equal(&out, &zero));
    /* an edge survives: left half 50, right half 200 */
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++)
            set_sample(&in, 0, x, y, x < 4 ? 50 : 200);
    CHECK_EQ_INT(fovea_diff_denoise(d, &in, &out), FOVEA_OK);
    CHECK(fovea_frame_equal(&out, &in));
    /* exact median of 9 distinct values: 3x3 of 10..90 in a 3x3 frame, center */
    fovea_frame small, so;
    REQUIRE(fovea_frame_alloc(NULL, &small, 3, 3, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &so, 3, 3, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    static const int vals[9] = {90, 10, 70, 30, 20, 80, 60, 40, 50};
    for (int i = 0; i < 9; i++)
        set_sample(&small, 0, i % 3, i / 3, vals[i]);
    CHECK_EQ_INT(fovea_diff_denoise(d, &small, &so), FOVEA_OK);
    CHECK_EQ_INT(sample(&so, 0, 1, 1), 50);
    /* corner (0,0) with replication: 90 90 10 / 90 90 10 / 30 30 20 -> 30 */
    CHECK_EQ_INT(sample(&so, 0, 0, 0), 30);
    fovea_frame_free(NULL, &small);
    fovea_frame_free(NULL, &so);
    fovea_frame_free(NULL, &zero);
    fovea_frame_free(NULL, &in);
    fovea_frame_free(NULL, &out);
    fovea_diff_close(&d);
}

static const fovea_pixfmt all_fmts[] = {
    FOVEA_PIX_GRAY8,   FOVEA_PIX_GRAY10,  FOVEA_PIX_GRAY12,  FOVEA_PIX_GRAY16,  FOVEA_PIX_I420,
    FOVEA_PIX_I420P10, FOVEA_PIX_I420P12, FOVEA_PIX_I420P16, FOVEA_PIX_I422,    FOVEA_PIX_I422P10,
    FOVEA_PIX_I422P12, FOVEA_PIX_I422P16, FOVEA_PIX_I444,    FOVEA_PIX_I444P10, FOVEA_PIX_I444P12,
    FOVEA_PIX_I444P16, FOVEA_PIX_NV12,    FOVEA_PIX_RGB24,   FOVEA_PIX_RGBA,    FOVEA_PIX_RGB48,
    FOVEA_PIX_RGBA64,
};

/* Every format at an odd size: a constant frame is unchanged by both filters;
 * a salt sample in the middle of every plane and component is removed by
 * median3 and spread (not kept) by gauss5; output identical on 1..8 threads;
 * the maps of a salted pair see no change after median3. */
static void test_formats(void)
{
    fovea_context *c1 = open_ctx(1), *c3 = open_ctx(3), *c8 = open_ctx(8);
    test_rng rng;
    test_rng_seed(&rng, 37);
    for (size_t f = 0; f < sizeof all_fmts / sizeof all_fmts[0]; f++) {
        const fovea_pixfmt fmt = all_fmts[f];
        const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc(fmt);
        const int maxval = (1 << desc->bit_depth) - 1, w = 23, h = 17;
        fovea_frame in, out, ref, rnd, r1, r2;
        REQUIRE(fovea_frame_alloc(NULL, &in, w, h, fmt, FOVEA_MEM_HOST) == 0);
        REQUIRE(fovea_frame_alloc(NULL, &out, w, h, fmt, FOVEA_MEM_HOST) == 0);
        REQUIRE(fovea_frame_alloc(NULL, &ref, w, h, fmt, FOVEA_MEM_HOST) == 0);
        REQUIRE(fovea_frame_alloc(NULL, &rnd, w, h, fmt, FOVEA_MEM_HOST) == 0);
        REQUIRE(fovea_frame_alloc(NULL, &r1, w, h, fmt, FOVEA_MEM_HOST) == 0);
        REQUIRE(fovea_frame_alloc(NULL, &r2, w, h, fmt, FOVEA_MEM_HOST) == 0);
        test_fill_random(&rnd, &rng);
        for (int m = FOVEA_DIFF_DENOISE_MEDIAN3; m <= FOVEA_DIFF_DENOISE_GAUSS5; m++) {
            fovea_diff *d1 = open_diff(c1, (fovea_diff_denoise_mode)m);
            const int cval = maxval / 3;
            fill_const(&in, cval);
            fill_const(&ref, cval);
            CHECK_EQ_INT(fovea_diff_denoise(d1, &in, &out), FOVEA_OK);
            CHECK(fovea_frame_equal(&out, &ref));
            /* salt: the middle sample of every component of every plane */
            for (int p = 0; p < desc->planes; p++) {
                const int comps = p == 0 ? desc->components : desc->planes == 2 ? 2 : 1;
                const int pw = (int)(fovea_plane_row_bytes(fmt, w, p) /
                                     (size_t)(desc->bytes_per_sample * comps));
                const int ph = fovea_plane_height(fmt, h, p);
                for (int c = 0; c < comps; c++)
                    set_sample(&in, p, (pw / 2) * comps + c, ph / 2, maxval);
            }
            CHECK(!fovea_frame_equal(&in, &ref));
            CHECK_EQ_INT(fovea_diff_denoise(d1, &in, &out), FOVEA_OK);
            if (m == FOVEA_DIFF_DENOISE_MEDIAN3)
                CHECK(fovea_frame_equal(&out, &ref));
            else
                CHECK(!fovea_frame_equal(&out, &ref) && !fovea_frame_equal(&out, &in));
            if (m == FOVEA_DIFF_DENOISE_MEDIAN3) {
                /* the maps compare the filtered pair: no changed pixel */
                fovea_diff_mask_result mr;
                CHECK_EQ_INT(fovea_diff_mask(d1, &ref, &in, &mr), FOVEA_OK);
                CHECK_EQ_INT(mr.changed_pixels, 0);
                fovea_diff *plain = open_diff(c1, FOVEA_DIFF_DENOISE_NONE);
                CHECK_EQ_INT(fovea_diff_mask(plain, &ref, &in, &mr), FOVEA_OK);
                CHECK(mr.changed_pixels > 0);
                fovea_diff_close(&plain);
            }
            /* threads: random frame, 1 vs 3 vs 8 workers */
            fovea_diff *d3 = open_diff(c3, (fovea_diff_denoise_mode)m);
            fovea_diff *d8 = open_diff(c8, (fovea_diff_denoise_mode)m);
            CHECK_EQ_INT(fovea_diff_denoise(d1, &rnd, &out), FOVEA_OK);
            CHECK_EQ_INT(fovea_diff_denoise(d3, &rnd, &r1), FOVEA_OK);
            CHECK_EQ_INT(fovea_diff_denoise(d8, &rnd, &r2), FOVEA_OK);
            CHECK(fovea_frame_equal(&out, &r1));
            CHECK(fovea_frame_equal(&out, &r2));
            CHECK(!fovea_frame_equal(&out, &rnd));
            fovea_diff_close(&d3);
            fovea_diff_close(&d8);
            fovea_diff_close(&d1);
        }
        fovea_frame_free(NULL, &in);
        fovea_frame_free(NULL, &out);
        fovea_frame_free(NULL, &ref);
        fovea_frame_free(NULL, &rnd);
        fovea_frame_free(NULL, &r1);
        fovea_frame_free(NULL, &r2);
    }
    fovea_close(&c1);
    fovea_close(&c3);
    fovea_close(&c8);
}

static void test_errors(fovea_context *ctx)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    CHECK_EQ_INT(s.denoise, FOVEA_DIFF_DENOISE_NONE);
    s.denoise = (fovea_diff_denoise_mode)99;
    fovea_diff *d = NULL;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    d = open_diff(ctx, FOVEA_DIFF_DENOISE_MEDIAN3);
    fovea_frame a, b;
    REQUIRE(fovea_frame_alloc(NULL, &a, 8, 8, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &b, 8, 9, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    fill_const(&a, 1);
    CHECK_EQ_INT(fovea_diff_denoise(d, &a, &a), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_denoise(d, &a, &b), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_diff_denoise(d, NULL, &b), FOVEA_ERR_INVALID_ARG);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_diff_close(&d);
}

int main(void)
{
    fovea_context *ctx = open_ctx(2);
    test_gauss_impulse(ctx);
    test_median_salt(ctx);
    test_errors(ctx);
    fovea_close(&ctx);
    test_formats();
    return test_finish("test_diff_denoise");
}
