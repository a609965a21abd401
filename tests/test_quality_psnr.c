/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* psnr, ciede and psnr_hvs beyond the golden sets: what libvmaf refuses
 * (psnr_hvs above 12 bits, the chroma features on gray input) fovea refuses
 * with a message naming the feature and the reason; psnr's values and apsnr
 * aggregates on a synthetic pair whose squared errors are known; the C
 * extractor's PSNR-HVS plane score (blocks side by side, psnr_hvs_rows.c)
 * against the block loop of psnr_hvs_block.h, bit for bit, on random,
 * smooth and extreme planes of odd sizes at 8, 10 and 12 bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "quality/psnr_hvs.h"
#include "quality/psnr_hvs_block.h"
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

/* libvmaf's calc_psnrhvs loop: hvs_block_terms on every 8x8 block every 7
 * samples in raster order, the terms added to one float in order. */
static float hvs_plane_ref(const uint8_t *a, const uint8_t *b, ptrdiff_t stride, int bpc, int w,
                           int h, int plane)
{
    float csf[64], mask[64], t[64], ret = 0;
    int pixels = 0;
    psnr_hvs_tables(plane, csf, mask);
    for (int y = 0; y < h - 7; y += 7) {
        for (int x = 0; x < w - 7; x += 7) {
            int32_t ps[64], pd[64];
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++) {
                    const ptrdiff_t o = (ptrdiff_t)(y + i) * stride;
                    const int k = i * 8 + j;
                    if (bpc > 8) {
                        ps[k] = ((const uint16_t *)(const void *)(a + o))[x + j];
                        pd[k] = ((const uint16_t *)(const void *)(b + o))[x + j];
                    } else {
                        ps[k] = a[o + x + j];
                        pd[k] = b[o + x + j];
                    }
                }
            hvs_block_terms(ps, pd, csf, mask, t);
            for (int k = 0; k < 64; k++) {
                ret += t[k];
                pixels++;
            }
        }
    }
    return psnr_hvs_score(ret, pixels, bpc);
}

/* Plane contents: smooth texture with a distorted copy, independent noise,
 * flat (zero variance) areas, the extremes in checkerboards. */
enum { HVS_SMOOTH, HVS_NOISE, HVS_FLAT, HVS_EXTREMES, HVS_FILLS };

static void hvs_fill(int kind, uint8_t *a, uint8_t *b, ptrdiff_t stride, int bpc, int w, int h,
                     test_rng *r)
{
    const int max = (1 << bpc) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int va, vb;
            switch (kind) {
            case HVS_SMOOTH:
                va = (int)((x * 5 + y * 3) % (max + 1)) / 2 + (int)test_rng_below(r, 8);
                vb = va + (int)test_rng_below(r, (uint32_t)(max / 16 + 1)) - max / 32;
                break;
            case HVS_NOISE:
                va = (int)test_rng_below(r, (uint32_t)max + 1);
                vb = (int)test_rng_below(r, (uint32_t)max + 1);
                break;
            case HVS_FLAT:
                va = (x / 9 + y / 11) % 2 ? max / 3 : max / 2;
                vb = va + ((x / 13) % 2);
                break;
            default:
                va = ((x + y) % 2) ? max : 0;
                vb = ((x / 2 + y) % 2) ? 0 : max;
                break;
            }
            va = va < 0 ? 0 : va > max ? max : va;
            vb = vb < 0 ? 0 : vb > max ? max : vb;
            const ptrdiff_t o = (ptrdiff_t)y * stride;
            if (bpc > 8) {
                ((uint16_t *)(void *)(a + o))[x] = (uint16_t)va;
                ((uint16_t *)(void *)(b + o))[x] = (uint16_t)vb;
            } else {
                a[o + x] = (uint8_t)va;
                b[o + x] = (uint8_t)vb;
            }
        }
}

static void test_hvs_blocks(void)
{
    /* sizes with no block, one, a partial group of blocks and several */
    static const int sizes[][2] = {{7, 20},  {8, 8},   {9, 15},  {15, 8},
                                   {64, 48}, {71, 29}, {120, 9}, {183, 37}};
    static const int depths[] = {8, 10, 12};
    test_rng r;
    test_rng_seed(&r, 47);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int d = 0; d < 3; d++)
            for (int kind = 0; kind < HVS_FILLS; kind++) {
                const int w = sizes[s][0], h = sizes[s][1], bpc = depths[d];
                /* rows padded past the width */
                const ptrdiff_t stride = (ptrdiff_t)(w + 5) * (bpc > 8 ? 2 : 1);
                uint8_t *a = calloc((size_t)(stride * h), 1), *b = calloc((size_t)(stride * h), 1);
                REQUIRE(a && b);
                hvs_fill(kind, a, b, stride, bpc, w, h, &r);
                for (int plane = 0; plane < 3; plane++) {
                    const float want = hvs_plane_ref(a, b, stride, bpc, w, h, plane);
                    const float got = psnr_hvs_plane(a, stride, b, stride, bpc, w, h, plane);
                    if (memcmp(&want, &got, sizeof(float)) != 0)
                        fprintf(stderr, "psnr_hvs %dx%d %d-bit fill %d plane %d: %.9g != %.9g\n", w,
                                h, bpc, kind, plane, got, want);
                    CHECK(memcmp(&want, &got, sizeof(float)) == 0);
                }
                free(a);
                free(b);
            }
}

int main(void)
{
    test_refusals();
    test_psnr_values();
    test_hvs_blocks();
    return test_finish("test_quality_psnr");
}
