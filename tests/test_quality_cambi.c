/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CAMBI beyond the golden sets (tests/golden/libvmaf/cambi*): libvmaf's
 * output names with options and full_ref, the refusals (pictures below 216,
 * heatmaps_path, out-of-range options), and the high-res speed-up on a
 * generated 1920x1080 picture against the value libvmaf 3.2.0's plain C
 * (vmaf-c-17g) printed for it. FOVEA_CAMBI_WRITE=FILE writes that picture as
 * raw 4:2:0 for libvmaf:
 *   vmaf-c-17g -r FILE -d FILE -w 1920 -h 1080 -p 420 -b 8 --feature
 *   cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06 --feature cambi
 *   --no_prediction --threads 1 --json -o out.json */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "testutil.h"

static fovea_context *open_ctx(void)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    return ctx;
}

static int open_features(fovea_vmaf **v, fovea_context *ctx, const char *features)
{
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    vs.features = features;
    vs.flags = FOVEA_VMAF_NO_PREDICTION;
    return fovea_vmaf_open(v, ctx, &vs);
}

/* A 4:2:0 picture with bands: a slow ramp in steps of one code every 80
 * columns, a flat dark block, a noisy block (LCG) and a sharp pattern. */
static void make_picture(fovea_frame *f, int w, int h)
{
    memset(f, 0, sizeof(*f));
    REQUIRE(fovea_frame_alloc(NULL, f, w, h, fovea_pixfmt_yuv(420, 8), FOVEA_MEM_HOST) == FOVEA_OK);
    uint32_t seed = 12345u;
    for (int y = 0; y < h; y++) {
        uint8_t *row = f->data[0] + (ptrdiff_t)y * f->stride[0];
        for (int x = 0; x < w; x++) {
            int v = 40 + x / 80 + y / 270;
            if (x < w / 4 && y < h / 3)
                v = 24;
            if (x >= w / 2 && x < w / 2 + 300 && y >= h / 2 && y < h / 2 + 200) {
                seed = seed * 1664525u + 1013904223u;
                v = 90 + (int)(seed >> 29);
            }
            if (x >= w - 200 && y >= h - 200)
                v = ((x / 3 + y / 5) & 1) ? 200 : 60;
            row[x] = (uint8_t)v;
        }
    }
    for (int p = 1; p < 3; p++)
        for (int y = 0; y < (h + 1) / 2; y++)
            memset(f->data[p] + (ptrdiff_t)y * f->stride[p], 128, (size_t)(w + 1) / 2);
}

static void write_raw(const fovea_frame *f, const char *path)
{
    FILE *o = fopen(path, "wb");
    REQUIRE(o);
    for (int p = 0; p < 3; p++) {
        const int w = p ? (f->width + 1) / 2 : f->width, h = p ? (f->height + 1) / 2 : f->height;
        for (int y = 0; y < h; y++)
            REQUIRE(fwrite(f->data[p] + (ptrdiff_t)y * f->stride[p], 1, (size_t)w, o) == (size_t)w);
    }
    REQUIRE(fclose(o) == 0);
}

/* libvmaf's names: the score suffixed by the options in alphabetical order,
 * the full-reference outputs never suffixed. */
static void test_names(void)
{
    fovea_context *ctx = open_ctx();
    fovea_vmaf *v = NULL;
    REQUIRE(open_features(&v, ctx,
                          "cambi:cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:"
                          "cambi_max_val=17,cambi:full_ref=true:src_width=480:src_height=360,"
                          "cambi:eotf=pq:topk=0.3:enc_bitdepth=8") == FOVEA_OK);
    static const char *const want[] = {"cambi_hrs_1080_cmxv_17_vlt_0.06", "cambi_srch_360_srcw_480",
                                       "cambi_source", "cambi_full_reference",
                                       "cambi_encbd_8_eotf_pq_topk_0.3"};
    CHECK_EQ_INT(fovea_vmaf_metric_count(v), 5);
    for (int i = 0; i < 5 && i < fovea_vmaf_metric_count(v); i++)
        CHECK(!strcmp(fovea_vmaf_metric_name(v, i), want[i]));
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
}

static void expect_open_error(const char *features, const char *part)
{
    fovea_context *ctx = open_ctx();
    fovea_vmaf *v = NULL;
    CHECK(open_features(&v, ctx, features) < 0);
    const char *msg = fovea_last_error(ctx);
    if (!strstr(msg, part))
        fprintf(stderr, "    %s: \"%s\" lacks \"%s\"\n", features, msg, part);
    CHECK(strstr(msg, part) != NULL);
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
}

/* A submit of a w x h pair fails with a message holding part. */
static void expect_submit_error(const char *features, int w, int h, const char *part)
{
    fovea_context *ctx = open_ctx();
    fovea_vmaf *v = NULL;
    REQUIRE(open_features(&v, ctx, features) == FOVEA_OK);
    fovea_frame f;
    make_picture(&f, w, h);
    CHECK(fovea_vmaf_submit(v, &f, &f) < 0);
    const char *msg = fovea_last_error(ctx);
    if (!strstr(msg, part))
        fprintf(stderr, "    %dx%d: \"%s\" lacks \"%s\"\n", w, h, msg, part);
    CHECK(strstr(msg, part) != NULL);
    fovea_frame_free(NULL, &f);
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
}

static void test_refusals(void)
{
    expect_open_error("cambi:heatmaps_path=/tmp/x", "heatmaps_path is not supported");
    expect_open_error("cambi:window_size=13", "window_size 13 outside");
    expect_open_error("cambi:src_width=256", "src_width 256 outside");
    expect_open_error("cambi:eotf=hlg", "must be one of bt1886, pq");
    /* both sides below 216: libvmaf refuses; one side at 216 is enough */
    expect_submit_error("cambi", 215, 215, "at least 216");
    expect_submit_error("cambi", 160, 90, "at least 216");
    expect_submit_error("cambi:enc_width=200:enc_height=200", 320, 240, "at least 216");
    /* libvmaf refuses a source and an encode not ordered in both dimensions */
    expect_submit_error("cambi:full_ref=true:src_width=480:src_height=200", 320, 240,
                        "not ordered");
    /* a window too large for libvmaf's table */
    expect_submit_error("cambi:window_size=127", 2048, 1152, "larger than");
    /* a picture so narrow that libvmaf's histogram reads outside it */
    expect_submit_error("cambi", 1920, 64, "too narrow");
}

/* One value of one picture. */
static double score_of(const fovea_frame *f, const char *features)
{
    fovea_context *ctx = open_ctx();
    fovea_vmaf *v = NULL;
    REQUIRE(open_features(&v, ctx, features) == FOVEA_OK);
    int rc = fovea_vmaf_submit(v, f, f);
    if (rc < 0)
        fprintf(stderr, "    %s\n", fovea_last_error(ctx));
    REQUIRE(rc == FOVEA_OK);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    fovea_vmaf_scores sc;
    REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
    const double x = sc.value[0];
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
    return x;
}

/* vmaf-c-17g's values for the picture (the command above, the speed-up
 * without cambi_max_val: the v1 models' 17 clamps it) */
#define CAMBI_WANT_HRS 18.21316945418031
#define CAMBI_WANT_DEFAULT 18.004706776864229

static void test_high_res(void)
{
    fovea_frame f;
    make_picture(&f, 1920, 1080);
    const char *dump = getenv("FOVEA_CAMBI_WRITE");
    if (dump)
        write_raw(&f, dump);
    const double hrs =
        score_of(&f, "cambi:cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06");
    const double v1 = score_of(
        &f, "cambi:cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17");
    const double def = score_of(&f, "cambi");
    printf("  1920x1080: speed-up %.17g, v1 %.17g, defaults %.17g\n", hrs, v1, def);
    CHECK(hrs == CAMBI_WANT_HRS);
    CHECK(v1 == 17.0);
    CHECK(def == CAMBI_WANT_DEFAULT);
    fovea_frame_free(NULL, &f);
}

int main(void)
{
    test_names();
    test_refusals();
    test_high_res();
    return test_finish("test_quality_cambi");
}
