/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* float_ssim and float_ms_ssim beyond the golden sets (test_quality_libvmaf):
 * their output names, option checks, the sizes fovea refuses as libvmaf does
 * (MS-SSIM below 176x176, a scale libvmaf would read outside the picture
 * with), libvmaf's automatic scale and its decimated sizes, and identical
 * results for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "quality/ssim_iqa.h"
#include "testutil.h"

static void make_pair(fovea_frame *ref, fovea_frame *dis, int w, int h, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, 8);
    REQUIRE(fovea_frame_alloc(NULL, ref, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, dis, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(ref, &r);
    test_fill_random(dis, &r);
    /* a smooth reference, the distorted one near it */
    for (int y = 0; y < h; y++) {
        uint8_t *a = ref->data[0] + (ptrdiff_t)y * ref->stride[0];
        uint8_t *b = dis->data[0] + (ptrdiff_t)y * dis->stride[0];
        for (int x = 0; x < w; x++) {
            a[x] = (uint8_t)(128 + 100 * sin(x / 9.0) * cos(y / 7.0));
            b[x] = (uint8_t)(a[x] / 2 + b[x] / 4 + 32);
        }
    }
}

static int open_features(fovea_context *ctx, fovea_vmaf **v, const char *features)
{
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.model = NULL;
    s.flags |= FOVEA_VMAF_NO_PREDICTION;
    s.features = features;
    return fovea_vmaf_open(v, ctx, &s);
}

static void names(fovea_context *ctx)
{
    fovea_vmaf *v = NULL;
    REQUIRE(open_features(ctx, &v, "float_ssim") == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_metric_count(v), 1);
    CHECK(!strcmp(fovea_vmaf_metric_name(v, 0), "float_ssim"));
    fovea_vmaf_close(&v);
    /* libvmaf's options are no feature parameters: the names keep no suffix */
    REQUIRE(open_features(ctx, &v, "float_ssim:enable_lcs=true:scale=2:enable_db=true") ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_metric_count(v), 4);
    CHECK(!strcmp(fovea_vmaf_metric_name(v, 0), "float_ssim"));
    CHECK(!strcmp(fovea_vmaf_metric_name(v, 3), "float_ssim_s"));
    fovea_vmaf_close(&v);
    REQUIRE(open_features(ctx, &v, "float_ms_ssim:enable_lcs=true") == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_metric_count(v), 16);
    CHECK(fovea_vmaf_metric_index(v, "float_ms_ssim_c_scale4") >= 0);
    CHECK(fovea_vmaf_metric_index(v, "float_ms_ssim_l_scale0") >= 0);
    fovea_vmaf_close(&v);
    /* scale is 0 (automatic) to 10 */
    CHECK(open_features(ctx, &v, "float_ssim:scale=11") == FOVEA_ERR_INVALID_ARG);
    CHECK(open_features(ctx, &v, "float_ms_ssim:scale=2") == FOVEA_ERR_INVALID_ARG);
}

/* Score one pair; @return the status of the submit. */
static int score_one(fovea_context *ctx, const char *features, int w, int h, double *out, int n)
{
    fovea_vmaf *v = NULL;
    REQUIRE(open_features(ctx, &v, features) == FOVEA_OK);
    fovea_frame ref, dis;
    make_pair(&ref, &dis, w, h, (uint64_t)w * 977u + (uint64_t)h);
    int st = fovea_vmaf_submit(v, &ref, &dis);
    if (st == FOVEA_OK) {
        REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
        fovea_vmaf_scores sc;
        REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
        REQUIRE(sc.count >= n);
        for (int i = 0; i < n; i++)
            out[i] = sc.value[i];
    }
    fovea_frame_free(NULL, &ref);
    fovea_frame_free(NULL, &dis);
    fovea_vmaf_close(&v);
    return st;
}

static void refusals(fovea_context *ctx)
{
    double got[16];
    /* libvmaf: "error: scale below 1x1!" and no float_ms_ssim below 176x176 */
    CHECK_EQ_INT(score_one(ctx, "float_ms_ssim", 175, 200, got, 1), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "float_ms_ssim") != NULL);
    CHECK(strstr(fovea_last_error(ctx), "176") != NULL);
    CHECK_EQ_INT(score_one(ctx, "float_ms_ssim", 200, 175, got, 1), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(score_one(ctx, "float_ms_ssim", 176, 177, got, 1), FOVEA_OK);
    CHECK(got[0] > 0.0 && got[0] < 1.0);
    /* a 10x10 box on a 3-wide picture reflects outside it in libvmaf */
    CHECK(score_one(ctx, "float_ssim:scale=10", 3, 40, got, 1) != FOVEA_OK);
    CHECK(strstr(fovea_last_error(ctx), "float_ssim: scale 10") != NULL);
    /* below the window: libvmaf's sums of nothing over (w - 10) (h - 10) */
    CHECK_EQ_INT(score_one(ctx, "float_ssim", 9, 8, got, 1), FOVEA_OK);
    CHECK(got[0] == 0.0);
    CHECK_EQ_INT(score_one(ctx, "float_ssim", 10, 30, got, 1), FOVEA_OK);
    CHECK(isnan(got[0]));
}

static void arithmetic(void)
{
    /* round(min / 256) with libvmaf's float rounding, at least 1 */
    CHECK_EQ_INT(iqa_auto_scale(1920, 1080), 4);
    CHECK_EQ_INT(iqa_auto_scale(640, 383), 1);
    CHECK_EQ_INT(iqa_auto_scale(640, 384), 2);
    CHECK_EQ_INT(iqa_auto_scale(100, 100), 1);
    /* w / factor + (w & 1) */
    CHECK_EQ_INT(iqa_decimated(577, 2), 289);
    CHECK_EQ_INT(iqa_decimated(10, 3), 3);
    CHECK_EQ_INT(iqa_decimated(11, 3), 4);
    CHECK(iqa_decimate_fits(18, 22, 10, 10));
    CHECK(!iqa_decimate_fits(3, 40, 10, 10));
    CHECK_EQ_INT(iqa_max_db(0, 0, 8, 0) == INFINITY, 1);
    /* 255^2 / (0.5 / (160 * 90)): 10 log10 = 92.7.. */
    CHECK(iqa_max_db(160, 90, 8, 1) == 93.0);
    CHECK(iqa_db(1.0, 77.0) == 77.0);
}

/* The same doubles whatever the context's thread count. */
static void threads(void)
{
    double a[16], b[16];
    fovea_context *c1 = NULL, *c2 = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 1;
    REQUIRE(fovea_open(&c1, &s) == FOVEA_OK);
    s.threads = 3;
    REQUIRE(fovea_open(&c2, &s) == FOVEA_OK);
    REQUIRE(score_one(c1, "float_ms_ssim:enable_lcs=true", 301, 203, a, 16) == FOVEA_OK);
    REQUIRE(score_one(c2, "float_ms_ssim:enable_lcs=true", 301, 203, b, 16) == FOVEA_OK);
    CHECK(!memcmp(a, b, sizeof a));
    REQUIRE(score_one(c1, "float_ssim:enable_lcs=true:scale=3", 301, 203, a, 4) == FOVEA_OK);
    REQUIRE(score_one(c2, "float_ssim:enable_lcs=true:scale=3", 301, 203, b, 4) == FOVEA_OK);
    CHECK(!memcmp(a, b, 4 * sizeof a[0]));
    fovea_close(&c1);
    fovea_close(&c2);
}

int main(void)
{
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    names(ctx);
    refusals(ctx);
    arithmetic();
    threads();
    fovea_close(&ctx);
    return test_finish("test_quality_ssim");
}
