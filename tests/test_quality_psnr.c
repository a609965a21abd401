/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* psnr, ciede and psnr_hvs beyond the golden sets: what libvmaf refuses
 * (psnr_hvs above 12 bits, the chroma features on gray input) fovea refuses
 * with a message naming the feature and the reason; psnr's values and apsnr
 * aggregates on a synthetic pair whose squared errors are known. */
#include <math.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "testutil.h"

/* A w x h frame of fmt, every sample v (chroma 128 << (bpc - 8)). */
static void make(fovea_frame *f, fovea_pixfmt fmt, int w, int h, int v)
{
    memset(f, 0, sizeof(*f));
    REQUIRE(fovea_frame_alloc(NULL, f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    for (int p = 0; p < d->planes; p++) {
        const int pw = fovea_plane_width(fmt, w, p), ph = fovea_plane_height(fmt, h, p);
        const int x = p ? 128 << (d->bit_depth - 8) : v;
        for (int y = 0; y < ph; y++) {
            uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
            for (int i = 0; i < pw; i++) {
                if (d->bytes_per_sample == 2)
                    ((uint16_t *)(void *)row)[i] = (uint16_t)x;
                else
                    row[i] = (uint8_t)x;
            }
        }
    }
}

/* Score one pair with features; the status, and the message in msg. */
static int score(const char *features, fovea_pixfmt fmt, int ref, int dis, fovea_vmaf_scores *sc,
                 fovea_vmaf_aggregates *ag, char *msg, size_t n)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    vs.features = features;
    vs.flags = FOVEA_VMAF_NO_PREDICTION;
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, &vs) == FOVEA_OK);
    fovea_frame a, b;
    make(&a, fmt, 64, 48, ref);
    make(&b, fmt, 64, 48, dis);
    const int rc = fovea_vmaf_process(v, &a, &b, sc);
    snprintf(msg, n, "%s", rc < 0 ? fovea_last_error(ctx) : "");
    if (ag)
        REQUIRE(fovea_vmaf_aggregate(v, ag) == FOVEA_OK);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
    return rc;
}

static void test_refusals(void)
{
    fovea_vmaf_scores sc;
    char msg[512];
    CHECK(score("psnr_hvs", fovea_pixfmt_yuv(420, 16), 100, 90, &sc, NULL, msg, sizeof msg) < 0);
    CHECK(strstr(msg, "psnr_hvs") && strstr(msg, "12 bits"));
    CHECK(score("psnr_hvs", fovea_pixfmt_yuv(420, 12), 100, 90, &sc, NULL, msg, sizeof msg) ==
          FOVEA_OK);
    const char *chroma[] = {"psnr_hvs", "ciede", "psnr"};
    for (int i = 0; i < 3; i++) {
        CHECK(score(chroma[i], fovea_pixfmt_yuv(400, 8), 100, 90, &sc, NULL, msg, sizeof msg) < 0);
        CHECK(strstr(msg, chroma[i]) && strstr(msg, "gray"));
    }
    /* luma-only psnr takes gray input */
    CHECK(score("psnr:enable_chroma=false", fovea_pixfmt_yuv(400, 8), 100, 90, &sc, NULL, msg,
                sizeof msg) == FOVEA_OK);
    CHECK(sc.count == 1);
}

static void test_psnr_values(void)
{
    fovea_vmaf_scores sc;
    fovea_vmaf_aggregates ag;
    char msg[512];
    /* luma error 10 everywhere: MSE 100, PSNR 10 log10(255^2 / 100); chroma equal: the
     * 6 * 8 + 12 = 60 dB clamp */
    REQUIRE(score("psnr:enable_mse=true:enable_apsnr=true", fovea_pixfmt_yuv(420, 8), 100, 90, &sc,
                  &ag, msg, sizeof msg) == FOVEA_OK);
    CHECK(sc.count == 6);
    CHECK(sc.value[0] == 10. * log10(65025. / 100.));
    CHECK(sc.value[1] == 100.0);
    CHECK(sc.value[2] == 60.0 && sc.value[3] == 0.0);
    REQUIRE(ag.count == 3);
    CHECK(!strcmp(ag.name[0], "apsnr_y") && !strcmp(ag.name[2], "apsnr_cr"));
    CHECK(fabs(ag.value[0] - sc.value[0]) < 1e-12);
    /* no error: the aggregate's cap ceil(10 log10(255^2 * n * 2)) */
    CHECK(ag.value[1] == ceil(10 * log10(65025.0 * 32 * 24 * 2)));
    /* without enable_apsnr: no aggregates */
    REQUIRE(score("psnr", fovea_pixfmt_yuv(420, 8), 100, 90, &sc, &ag, msg, sizeof msg) ==
            FOVEA_OK);
    CHECK(ag.count == 0 && sc.count == 3);
}

int main(void)
{
    test_refusals();
    test_psnr_values();
    return test_finish("test_quality_psnr");
}
