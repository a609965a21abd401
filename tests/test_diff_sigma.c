/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Differencing noise estimate: the robust sigma exactly on hand-made
 * differences, within tolerance on deterministic synthetic noise, thread
 * counts identical, and the automatic threshold ceil(k x sigma). */
#include <math.h>
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

static fovea_diff *open_diff(fovea_context *ctx, int threshold, double k)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.threshold = threshold;
    s.auto_k = k;
    fovea_diff *d = NULL;
    REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
    return d;
}

/* One-row gray frames prev = base, cur = base + diffs[i]. */
static void row_pair(fovea_frame *a, fovea_frame *b, int base, const int *diffs, int n)
{
    REQUIRE(fovea_frame_alloc(NULL, a, n, 1, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, b, n, 1, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    for (int i = 0; i < n; i++) {
        a->data[0][i] = (uint8_t)base;
        b->data[0][i] = (uint8_t)(base + diffs[i]);
    }
}

static void test_exact(fovea_context *ctx)
{
    fovea_diff *d = open_diff(ctx, FOVEA_DIFF_THRESHOLD_AUTO, 3.0);
    fovea_frame a, b;
    double sigma = -1;
    /* d = 0 1 2 3 10: median 2; |d - 2| = 2 1 0 1 8 -> median 1; sigma 1.4826 */
    static const int d5[5] = {0, 1, 2, 3, 10};
    row_pair(&a, &b, 20, d5, 5);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 1.4826);
    /* auto: ceil(3 x 1.4826) = 5, so only the pixel that moved by 10 changed */
    fovea_diff_mask_result m;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.threshold, 5);
    CHECK_EQ_INT(m.changed_pixels, 1);
    /* the same differences negated (cur < prev): median -2, MAD 1 */
    static const int n5[5] = {0, -1, -2, -3, -10};
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    row_pair(&a, &b, 20, n5, 5);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 1.4826);
    /* even count: lower medians. d = 0 1 2 10: median 1; |d-1| = 1 0 1 9 -> 1 */
    static const int d4[4] = {0, 1, 2, 10};
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    row_pair(&a, &b, 20, d4, 4);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 1.4826);
    /* d = 0 4 4 4 9 9: median 4; |d-4| = 4 0 0 0 5 5 -> lower median 0 */
    static const int d6[6] = {0, 4, 4, 4, 9, 9};
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    row_pair(&a, &b, 20, d6, 6);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 0.0);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.threshold, 0); /* ceil(0) = 0: any difference changes */
    CHECK_EQ_INT(m.changed_pixels, 5);
    /* k = 0.5 on the first case: ceil(0.7413) = 1 */
    fovea_diff_close(&d);
    d = open_diff(ctx, FOVEA_DIFF_THRESHOLD_AUTO, 0.5);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    row_pair(&a, &b, 20, d5, 5);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.threshold, 1);
    CHECK_EQ_INT(m.changed_pixels, 3);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_diff_close(&d);
    /* settings */
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    CHECK(s.auto_k == 3.0);
    s.auto_k = 0.0;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    fovea_diff_default_settings(&s);
    s.threshold = -2;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
}

/* Deterministic LCG (Knuth's MMIX constants); 12 uniforms minus 6 ~ N(0, 1). */
static uint64_t lcg_state;
static double lcg_unit(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}
static double lcg_gauss(void)
{
    double s = 0;
    for (int i = 0; i < 12; i++)
        s += lcg_unit();
    return s - 6.0;
}

static void test_synthetic(void)
{
    /* each frame 512 + N(0, 8) in 10-bit I420 (luma only counts): the
     * difference has sigma 8 sqrt(2) ~ 11.31 (+ rounding, ~11.32) */
    const int w = 301, h = 203;
    fovea_frame a, b;
    REQUIRE(fovea_frame_alloc(NULL, &a, w, h, FOVEA_PIX_I420P10, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &b, w, h, FOVEA_PIX_I420P10, FOVEA_MEM_HOST) == 0);
    test_rng rng;
    test_rng_seed(&rng, 5);
    test_fill_random(&a, &rng); /* chroma random: must not matter */
    test_fill_random(&b, &rng);
    lcg_state = 37;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            fovea_frame *f[2] = {&a, &b};
            for (int k = 0; k < 2; k++) {
                const int v = (int)lround(512.0 + 8.0 * lcg_gauss());
                uint8_t *p = f[k]->data[0] + (ptrdiff_t)y * f[k]->stride[0] + 2 * x;
                p[0] = (uint8_t)(v & 255);
                p[1] = (uint8_t)(v >> 8);
            }
        }
    double s1 = 0, s3 = 0;
    fovea_context *c1 = open_ctx(1), *c3 = open_ctx(3);
    fovea_diff *d1 = open_diff(c1, 10, 3.0), *d3 = open_diff(c3, FOVEA_DIFF_THRESHOLD_AUTO, 3.0);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d1, &a, &b, &s1), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d3, &a, &b, &s3), FOVEA_OK);
    CHECK(s1 == s3);
    /* MAD is an integer: 8 -> 11.86 here, so 8% of the true value is allowed */
    CHECK(fabs(s1 - 11.32) < 0.08 * 11.32);
    /* auto threshold: about 0.27% of a Gaussian lies beyond 3 sigma (chroma
     * made equal first: a changed pixel is any channel over the threshold) */
    for (int p = 1; p < 3; p++)
        for (int y = 0; y < fovea_plane_height(a.fmt, h, p); y++)
            memcpy(b.data[p] + (ptrdiff_t)y * b.stride[p], a.data[p] + (ptrdiff_t)y * a.stride[p],
                   fovea_plane_row_bytes(a.fmt, w, p));
    fovea_diff_mask_result m;
    CHECK_EQ_INT(fovea_diff_mask(d3, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.threshold, (int)ceil(3.0 * s1));
    CHECK(m.changed_pixels < (int64_t)w * h / 100 * 3);
    fovea_diff_close(&d1);
    fovea_diff_close(&d3);
    fovea_close(&c1);
    fovea_close(&c3);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
}

/* Compressed video: more than half the differences exactly 0. */
static void test_mostly_unchanged(fovea_context *ctx)
{
    fovea_diff *d = open_diff(ctx, FOVEA_DIFF_THRESHOLD_AUTO, 3.0);
    fovea_frame a, b;
    double sigma = -1;
    /* v = 0 0 0 1 -2 3: median 0, MAD 0; the changed |v| 1 2 3 have median 2 */
    static const int z6[6] = {0, 0, 0, 1, -2, 3};
    row_pair(&a, &b, 20, z6, 6);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 1.4826 * 2);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    /* only a large change (not noise: above 256 / 16): 0, so it counts */
    static const int l5[5] = {0, 0, 0, 0, 30};
    row_pair(&a, &b, 20, l5, 5);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 0.0);
    fovea_diff_mask_result m1;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m1), FOVEA_OK);
    CHECK_EQ_INT(m1.changed_pixels, 1);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    /* all equal: 0, and no pixel changes at threshold 0 */
    static const int e3[3] = {0, 0, 0};
    row_pair(&a, &b, 20, e3, 3);
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma == 0.0);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);

    /* a generated clip as an encoder leaves it: 70 % of the 8x8 blocks copied
     * exactly, the others re-quantized (noise of sigma 1.5), and a 32x32
     * square that really changed (+60). The MAD alone gives threshold 0,
     * which marks every tile holding a re-quantized block (about 3 in 4). */
    const int w = 256, h = 192, tile = 16;
    REQUIRE(fovea_frame_alloc(NULL, &a, w, h, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &b, w, h, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    lcg_state = 11;
    for (int by = 0; by < h; by += 8)
        for (int bx = 0; bx < w; bx += 8) {
            const int coded = lcg_unit() < 0.3;
            for (int y = by; y < by + 8; y++)
                for (int x = bx; x < bx + 8; x++) {
                    const int base = 60 + (x + 2 * y) % 120;
                    int v = base;
                    if (coded)
                        v += (int)lround(1.5 * lcg_gauss());
                    if (x >= 96 && x < 128 && y >= 64 && y < 96)
                        v = base + 60;
                    a.data[0][(ptrdiff_t)y * a.stride[0] + x] = (uint8_t)base;
                    b.data[0][(ptrdiff_t)y * b.stride[0] + x] = (uint8_t)v;
                }
        }
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_OK);
    CHECK(sigma > 0.5 && sigma < 6.0);
    fovea_diff_mask_result m;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK(m.threshold > 0);
    CHECK_EQ_INT(m.threshold, (int)ceil(3.0 * sigma));
    /* the square's 2 x 2 tiles, and few of the others (about 0.1 % of the
     * noisy pixels lie beyond 3.3 sigma) */
    for (int ty = 4; ty < 6; ty++)
        for (int tx = 6; tx < 8; tx++)
            CHECK(m.changed[ty * (w / tile) + tx] == 1);
    CHECK(m.changed_tiles >= 4);
    CHECK(m.changed_tiles < (int64_t)(w / tile) * (h / tile) / 10);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_diff_close(&d);
}

int main(void)
{
    fovea_context *ctx = open_ctx(2);
    test_exact(ctx);
    test_mostly_unchanged(ctx);
    fovea_close(&ctx);
    test_synthetic();
    return test_finish("test_diff_sigma");
}
