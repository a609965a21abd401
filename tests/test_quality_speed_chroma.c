/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* speed_chroma (libvmaf's SpEED on U and V) beyond its golden sets
 * (tests/golden/libvmaf/speed_chroma*): the inputs and options libvmaf fails
 * on are refused with a message naming the feature; the model names; output
 * names with libvmaf's suffixes; the same values for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "quality/feature.h"
#include "testutil.h"

static fovea_context *open_ctx(int threads)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = threads;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    return ctx;
}

/* Score one random pair of fmt at w x h with features; the status of the
 * pair, its values in out (when it succeeds). */
static int score_pair(fovea_context *ctx, const char *features, fovea_pixfmt fmt, int w, int h,
                      uint64_t seed, double *out, int *count)
{
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.features = features;
    s.flags = FOVEA_VMAF_NO_PREDICTION;
    fovea_vmaf *v = NULL;
    int st = fovea_vmaf_open(&v, ctx, &s);
    if (st != FOVEA_OK)
        return st;
    fovea_frame ref, dis;
    REQUIRE(fovea_frame_alloc(ctx, &ref, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &dis, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, seed);
    test_fill_random(&ref, &r);
    test_fill_random(&dis, &r);
    fovea_vmaf_scores sc;
    st = fovea_vmaf_process(v, &ref, &dis, &sc);
    if (st == FOVEA_OK) {
        *count = sc.count;
        for (int i = 0; i < sc.count; i++)
            out[i] = sc.value[i];
    }
    if (st == FOVEA_OK && seed == 1) {
        CHECK_EQ_INT(fovea_vmaf_metric_count(v), 3);
        CHECK(!strcmp(fovea_vmaf_metric_name(v, 0), "speed_chroma_u"));
        CHECK(!strcmp(fovea_vmaf_metric_name(v, 2), "speed_chroma_uv"));
    }
    if (st == FOVEA_OK && seed == 2)
        CHECK(!strcmp(fovea_vmaf_metric_name(v, 2),
                      "speed_chroma_uv_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5"));
    fovea_frame_free(ctx, &ref);
    fovea_frame_free(ctx, &dis);
    fovea_vmaf_close(&v);
    return st;
}

static void test_refusals(void)
{
    fovea_context *ctx = open_ctx(2);
    double out[FOVEA_VMAF_MAX_METRICS];
    int n = 0;
    /* gray input: no chroma planes (libvmaf's init fails on 4:0:0) */
    CHECK(score_pair(ctx, "speed_chroma", FOVEA_PIX_GRAY8, 320, 240, 3, out, &n) < 0);
    CHECK(strstr(fovea_last_error(ctx), "speed_chroma") != NULL);
    CHECK(strstr(fovea_last_error(ctx), "gray") != NULL);
    /* 80x45 chroma planes: libvmaf crashes */
    CHECK_EQ_INT(score_pair(ctx, "speed_chroma", FOVEA_PIX_I420, 160, 90, 3, out, &n),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "speed_chroma") != NULL);
    CHECK(strstr(fovea_last_error(ctx), "too small") != NULL);
    /* 160x160 passes at prescale 1, not at 0.9 */
    CHECK_EQ_INT(score_pair(ctx, "speed_chroma", FOVEA_PIX_I420, 160, 160, 3, out, &n), FOVEA_OK);
    CHECK_EQ_INT(
        score_pair(ctx, "speed_chroma:speed_prescale=0.9", FOVEA_PIX_I420, 160, 160, 3, out, &n),
        FOVEA_ERR_INVALID_ARG);
    /* below libvmaf's smallest luma size for any option */
    CHECK_EQ_INT(
        score_pair(ctx, "speed_chroma:speed_prescale=4", FOVEA_PIX_I444, 19, 40, 3, out, &n),
        FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(
        score_pair(ctx, "speed_chroma:speed_prescale=4", FOVEA_PIX_I444, 20, 20, 3, out, &n),
        FOVEA_OK);
    /* a kernel scale libvmaf does not know */
    CHECK(score_pair(ctx, "speed_chroma:speed_kernelscale=0.3", FOVEA_PIX_I420, 320, 240, 3, out,
                     &n) < 0);
    CHECK(strstr(fovea_last_error(ctx), "speed_kernelscale") != NULL);
    /* a prescale libvmaf skips (within 1e-3 of 1) but sizes the planes by */
    CHECK_EQ_INT(
        score_pair(ctx, "speed_chroma:speed_prescale=1.0009", FOVEA_PIX_I444, 1200, 96, 3, out, &n),
        FOVEA_ERR_UNSUPPORTED);
    CHECK(strstr(fovea_last_error(ctx), "speed_chroma") != NULL);
    CHECK_EQ_INT(
        score_pair(ctx, "speed_chroma:speed_prescale=1.0009", FOVEA_PIX_I444, 400, 96, 3, out, &n),
        FOVEA_OK);
    /* out of libvmaf's ranges, an unknown method */
    CHECK(score_pair(ctx, "speed_chroma:speed_weight_var_mode=7", FOVEA_PIX_I420, 320, 240, 3, out,
                     &n) < 0);
    CHECK(score_pair(ctx, "speed_chroma:speed_prescale_method=area", FOVEA_PIX_I420, 320, 240, 3,
                     out, &n) < 0);
    fovea_close(&ctx);
}

/* Names, and the same doubles for 1 and 3 threads (slots run in parallel). */
static void test_values(void)
{
    const feature_def *d = feature_find("speed_chroma");
    REQUIRE(d != NULL);
    CHECK(d->flags & FEATURE_CHROMA);
    int k = -1;
    CHECK(feature_find_model_name("Speed_chroma_feature_speed_chroma_uv_score", &k) == d);
    CHECK_EQ_INT(k, 2);
    CHECK(feature_find_model_name("Speed_chroma_feature_speed_chroma_u_score", &k) == d);
    CHECK_EQ_INT(k, 0);
    static const char *const v1 = "speed_chroma:speed_prescale=0.6:speed_prescale_method=bilinear:"
                                  "speed_nn_floor=0.1:speed_sigma_nn=0.19:"
                                  "speed_weight_var_mode=5:speed_max_val=45";
    for (int fmt = 0; fmt < 3; fmt++) {
        const fovea_pixfmt f[3] = {FOVEA_PIX_I420, FOVEA_PIX_I422P10, FOVEA_PIX_I444P16};
        double a[FOVEA_VMAF_MAX_METRICS], b[FOVEA_VMAF_MAX_METRICS];
        int na = 0, nb = 0;
        fovea_context *c1 = open_ctx(1), *c3 = open_ctx(3);
        for (int seed = 1; seed <= 2; seed++) {
            const char *feat = seed == 1 ? "speed_chroma" : v1;
            REQUIRE(score_pair(c1, feat, f[fmt], 401, 353, (uint64_t)seed, a, &na) == FOVEA_OK);
            REQUIRE(score_pair(c3, feat, f[fmt], 401, 353, (uint64_t)seed, b, &nb) == FOVEA_OK);
            CHECK_EQ_INT(na, 3);
            CHECK_EQ_INT(nb, 3);
            for (int i = 0; i < 3; i++) {
                CHECK(memcmp(&a[i], &b[i], sizeof(double)) == 0);
                CHECK(isfinite(a[i]));
            }
        }
        fovea_close(&c1);
        fovea_close(&c3);
    }
}

int main(void)
{
    test_refusals();
    test_values();
    return test_finish("test_quality_speed_chroma");
}
