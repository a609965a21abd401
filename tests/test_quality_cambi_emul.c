/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA CAMBI's arithmetic on the CPU: the per-pixel functions its kernels
 * run (quality/cambi_pixel.h), driven in the order of feature_cambi_cuda.c
 * (scaling, mask, per scale decimation, mode filter, contrast values from
 * window counts, the top-k sum by radix select and exact fixed point where
 * cambi_topk_mean shows it is libvmaf's, else the C pooling), against the C
 * reference (cambi_ref.c)
 * on generated banded pictures of odd sizes at 8, 10, 12 and 16 bits with the
 * options varied: the same doubles, bit for bit. The GPU test
 * (tests/gpu/test_gpu_cambi.c) runs the kernels themselves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quality/cambi.h"
#include "quality/cambi_pixel.h"
#include "testutil.h"

/* A w x h luma plane of bpc bits with bands: a slow quantized ramp in 10-bit
 * levels (shifted to bpc, finer bits as sparse dither), a flat block, a noisy
 * block and a sharp stripe pattern. */
static uint8_t *make_plane(int w, int h, int bpc, uint64_t seed, ptrdiff_t *stride)
{
    test_rng r;
    test_rng_seed(&r, seed);
    const int bytes = bpc > 8 ? 2 : 1;
    *stride = (ptrdiff_t)w * bytes + 3 * bytes; /* a padded pitch */
    uint8_t *p = malloc((size_t)*stride * (size_t)h);
    REQUIRE(p);
    memset(p, 0xa5, (size_t)*stride * (size_t)h);
    const int maxv = (1 << bpc) - 1;
    const double lo = 80 + test_rng_below(&r, 300), span = 12 + test_rng_below(&r, 60);
    const double ph = test_rng_double(&r) * 6.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double t = 0.7 * x / w + 0.3 * y / h + 0.04 * sin(x * 0.013 + ph);
            int v10 = (int)(lo + span * t);
            int v;
            if (x > w / 2 && x < w / 2 + w / 8 && y > h / 4 && y < h / 2)
                v10 = (int)lo; /* flat */
            if (bpc >= 10)
                v = (v10 << (bpc - 10)) +
                    (test_rng_below(&r, 16) == 0 ? (int)test_rng_below(&r, 1u << (bpc - 10)) : 0);
            else
                v = v10 >> 2;
            if (y > h * 3 / 4 && x < w / 5) /* noise */
                v = (int)test_rng_below(&r, (uint32_t)maxv + 1);
            if (y < h / 8 && x > w * 4 / 5) /* stripes */
                v = (x / 3) % 2 ? maxv / 2 : maxv / 3;
            v = v < 1 ? 1 : v > maxv ? maxv : v;
            uint8_t *row = p + (ptrdiff_t)y * *stride;
            if (bytes == 1) {
                row[x] = (uint8_t)v;
            } else {
                row[2 * x] = (uint8_t)(v & 0xff);
                row[2 * x + 1] = (uint8_t)(v >> 8);
            }
        }
    return p;
}

static int compared, exact_means, host_means;

/* The device's top-k counters of the n values cv (cambi.cu: four radix
 * passes with cambi_px_pick, then the sum above T with cambi_px_fix), on the
 * CPU. */
static void topk_counters(const float *cv, int n, int k, uint64_t *c)
{
    uint32_t prefix = 0, mask = 0;
    int32_t kleft = k;
    for (int shift = 24; shift >= 0; shift -= 8) {
        uint32_t hist[256] = {0};
        for (int i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &cv[i], 4);
            if ((u & mask) == prefix)
                hist[(u >> shift) & 255u]++;
        }
        cambi_px_pick(hist, shift, &prefix, &mask, &kleft);
    }
    memset(c, 0, CAMBI_SUM_COUNT * sizeof(*c));
    unsigned __int128 sum = 0;
    for (int i = 0; i < n; i++) {
        uint32_t u, lsb;
        uint64_t units;
        memcpy(&u, &cv[i], 4);
        if (u <= prefix)
            continue;
        if (!cambi_px_fix(u, &units, &lsb))
            c[CAMBI_SUM_BAD] = 1;
        sum += units;
        c[CAMBI_SUM_LSB] = lsb > c[CAMBI_SUM_LSB] ? lsb : c[CAMBI_SUM_LSB];
    }
    c[CAMBI_SUM_LO] = (uint64_t)sum;
    c[CAMBI_SUM_HI] = (uint64_t)(sum >> 64);
    c[CAMBI_SUM_T] = prefix;
    c[CAMBI_SUM_KLEFT] = (uint64_t)kleft;
}

/* libvmaf's top-k mean of the w x h values cv (reordered) by the C pooling,
 * checked against the device's exact sum wherever that one gives a value. */
static double pool_checked(float *cv, double topk, int w, int h)
{
    const int n = w * h, k = cambi_topk_count(topk, n);
    uint64_t c[CAMBI_SUM_COUNT];
    topk_counters(cv, n, k, c);
    double exact = 0.0;
    const int have = cambi_topk_mean(c, k, &exact);
    const double want = cambi_pool(cv, topk, w, h);
    if (have) {
        exact_means++;
        if (memcmp(&exact, &want, sizeof(double)) != 0) {
            fprintf(stderr, "  top-k mean of %dx%d (k %d): C %.17g, exact sum %.17g\n", w, h, k,
                    want, exact);
            CHECK(0);
        }
    } else {
        host_means++;
    }
    return want;
}

/* One picture's score as feature_cambi_cuda.c computes it: which 0 the
 * encode, 1 the source. */
static double emulate(const cambi_plan *pl, double topk, const uint8_t *src, ptrdiff_t stride,
                      int bpc, int iw, int ih, int which)
{
    int w = which ? pl->src_w : pl->enc_w, h = which ? pl->src_h : pl->enc_h;
    const int window = which ? pl->src_window : pl->window, pad = window >> 1;
    const size_t px = (size_t)w * (size_t)h;
    int *pos_x = malloc((size_t)w * sizeof(int)), *pos_y = malloc((size_t)h * sizeof(int));
    uint16_t *img[2] = {malloc(px * 2), malloc(px * 2)};
    uint8_t *mask[2] = {malloc(px), malloc(px)};
    float *cv = malloc(px * sizeof(float));
    uint16_t *keys = malloc((size_t)(w + 2 * pad) * (size_t)(h + 2 * pad) * 2);
    REQUIRE(pos_x && pos_y && img[0] && img[1] && mask[0] && mask[1] && cv && keys);
    cambi_positions(iw, w, pos_x);
    cambi_positions(ih, h, pos_y);
    const cambi_cuda_pre pre = {src, stride, bpc, w, h, pos_x, pos_y, pl->enc_bd < 10, img[0]};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            img[0][(size_t)y * w + x] = cambi_px_pre(&pre, x, y);
    const uint32_t threshold = cambi_mask_threshold(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            mask[0][(size_t)y * w + x] = cambi_px_mask(img[0], w, h, x, y, threshold);
    cambi_cuda_cv a;
    memset(&a, 0, sizeof(a));
    a.window = window;
    a.num_diffs = pl->num_diffs;
    for (int d = 0; d < CAMBI_MAX_DIFFS; d++) {
        a.weight[d] = cambi_contrast_weight[d];
        a.tvi[d] = pl->tvi[d];
    }
    a.vlt_luma = pl->vlt_luma;
    a.band_base = pl->band_base;
    a.band_size = pl->band_size;
    a.recip = pl->recip;
    double per_scale[CAMBI_SCALES];
    int cur = 0, mcur = 0;
    for (int s = 0; s < CAMBI_SCALES; s++) {
        if (s > 0 || pl->speedup) {
            const int ow = (w + 1) >> 1, oh = (h + 1) >> 1;
            for (int y = 0; y < oh; y++)
                for (int x = 0; x < ow; x++) {
                    img[!cur][(size_t)y * ow + x] = img[cur][(size_t)(2 * y) * w + 2 * x];
                    mask[!mcur][(size_t)y * ow + x] = mask[mcur][(size_t)(2 * y) * w + 2 * x];
                }
            cur = !cur;
            mcur = !mcur;
            w = ow;
            h = oh;
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                img[!cur][(size_t)y * w + x] = cambi_px_mode(img[cur], w, h, x, y);
        cur = !cur;
        /* the keys with a margin of pad outside the picture, as the kernel's tile */
        const int kw = w + 2 * pad;
        for (int y = -pad; y < h + pad; y++)
            for (int x = -pad; x < w + pad; x++) {
                uint16_t k = (uint16_t)CAMBI_NO_KEY;
                if (x >= 0 && x < w && y >= 0 && y < h)
                    k = cambi_px_key(&a, img[cur][(size_t)y * w + x],
                                     mask[mcur][(size_t)y * w + x]);
                keys[(size_t)(y + pad) * kw + (x + pad)] = k;
            }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint16_t cnt[2 * CAMBI_MAX_DIFFS + 1];
                const uint16_t v = keys[(size_t)(y + pad) * kw + (x + pad)];
                cv[(size_t)y * w + x] =
                    cambi_px_cvalue(&a, keys + (size_t)y * kw + x, kw, v, cnt, 1);
            }
        per_scale[s] = pool_checked(cv, topk, w, h);
    }
    free(pos_x);
    free(pos_y);
    free(img[0]);
    free(img[1]);
    free(mask[0]);
    free(mask[1]);
    free(cv);
    free(keys);
    return cambi_combine(per_scale, window);
}

static void check(const char *name, const cambi_params *p, uint64_t seed)
{
    ptrdiff_t ds, rs;
    uint8_t *dis = make_plane(p->width, p->height, p->bpc, seed, &ds);
    uint8_t *ref = make_plane(p->width, p->height, p->bpc, seed + 1000, &rs);
    void *st = NULL;
    REQUIRE(cambi_ref_open(&st, NULL, p) == FOVEA_OK);
    double want_dis = -1.0, want_src = -1.0;
    REQUIRE(cambi_ref_process(st, NULL, dis, ds, ref, rs, &want_dis, &want_src) == FOVEA_OK);
    cambi_ref_close(&st);
    cambi_plan *pl = malloc(sizeof(*pl));
    REQUIRE(pl);
    REQUIRE(cambi_plan_make(pl, NULL, p) == FOVEA_OK);
    const double got_dis = emulate(pl, p->topk, dis, ds, p->bpc, p->width, p->height, 0);
    int bad = memcmp(&got_dis, &want_dis, sizeof(double)) != 0;
    double got_src = -1.0;
    if (p->full_ref) {
        got_src = emulate(pl, p->topk, ref, rs, p->bpc, p->width, p->height, 1);
        bad |= memcmp(&got_src, &want_src, sizeof(double)) != 0;
    }
    compared++;
    printf("  %-44s C %.17g / %.17g, emulated %.17g / %.17g%s\n", name, want_dis,
           p->full_ref ? want_src : 0.0, got_dis, p->full_ref ? got_src : 0.0,
           bad ? "  MISMATCH" : "");
    CHECK(!bad);
    CHECK(want_dis > 0.0); /* banded content: the test sees contrast values */
    free(pl);
    free(dis);
    free(ref);
}

static cambi_params defaults(int w, int h, int bpc)
{
    cambi_params p;
    memset(&p, 0, sizeof(p));
    p.width = w;
    p.height = h;
    p.bpc = bpc;
    p.window_size = 65;
    p.topk = 0.6;
    p.tvi_threshold = 0.019;
    p.max_log_contrast = 2;
    return p;
}

int main(void)
{
    static const struct {
        int w, h, bpc;
    } sizes[] = {{251, 237, 8}, {333, 219, 10}, {217, 301, 12}, {401, 229, 16}, {641, 363, 10}};
    char name[96];
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        cambi_params p = defaults(sizes[i].w, sizes[i].h, sizes[i].bpc);
        snprintf(name, sizeof name, "%dx%d %d-bit defaults", p.width, p.height, p.bpc);
        check(name, &p, 11 + i);
    }
    cambi_params p = defaults(333, 251, 10);
    p.enc_width = 241;
    p.enc_height = 221;
    p.enc_bitdepth = 8;
    check("333x251 10-bit enc 241x221 8-bit", &p, 21);
    p = defaults(301, 223, 12);
    p.full_ref = 1;
    p.src_width = 451;
    p.src_height = 335;
    p.enc_width = 257;
    p.enc_height = 219;
    check("301x223 12-bit full_ref src 451x335 enc 257x219", &p, 22);
    p = defaults(287, 233, 16);
    p.window_size = 33;
    p.topk = 0.3;
    p.tvi_threshold = 0.01;
    p.max_log_contrast = 3;
    p.pq = 1;
    check("287x233 16-bit ws 33 topk .3 tvi .01 mlc 3 pq", &p, 23);
    p = defaults(263, 241, 8);
    p.window_size = 63;
    p.topk = 0.9;
    p.max_log_contrast = 5;
    p.vis_lum_threshold = 0.06;
    check("263x241 8-bit ws 63 topk .9 mlc 5 vlt .06", &p, 24);
    p = defaults(271, 219, 10);
    p.max_log_contrast = 0;
    p.window_size = 127;
    p.topk = 0.0001;
    check("271x219 10-bit mlc 0 ws 127 topk 1e-4", &p, 25);
    p = defaults(1920, 1080, 10);
    p.high_res_speedup = 1080;
    p.vis_lum_threshold = 0.06;
    check("1920x1080 10-bit hrs 1080 vlt .06 (v1)", &p, 26);
    p = defaults(1921, 1081, 8);
    p.high_res_speedup = 1080;
    p.full_ref = 1;
    check("1921x1081 8-bit hrs 1080 full_ref", &p, 27);
    printf("test_quality_cambi_emul: %d pictures compared; top-k means: %d from the exact sum "
           "(equal to the C pooling), %d left to the C pooling\n",
           compared, exact_means, host_means);
    CHECK(exact_means > 0);
    return test_finish("test_quality_cambi_emul");
}
