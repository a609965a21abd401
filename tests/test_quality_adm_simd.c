/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Integer ADM's AVX2 row passes (src/quality/adm_avx2.c) against the C
 * reference: each row pass on random rows including the extremes of its
 * input range, and whole frames (random, structured, extreme) at 8, 10, 12
 * and 16 bits, odd sizes and every CSF mode, to the same bits. Skips where
 * the CPU has no AVX2. */
#include <stdlib.h>
#include <string.h>

#include "quality/adm.h"
#include "quality/adm_rows.h"
#include "testutil.h"

#if defined(__x86_64__) || defined(__i386__)
/* A random value in [lo, hi], the ends themselves one time in eight. */
static int32_t rnd_in(test_rng *r, int32_t lo, int32_t hi)
{
    const uint32_t u = test_rng_below(r, 16);
    if (u == 0)
        return lo;
    if (u == 1)
        return hi;
    return (int32_t)((int64_t)lo + (int64_t)(test_rng_u32(r) % ((uint64_t)hi - lo + 1)));
}

/* ---------------------------------------------------------------- DWT rows */

/* One DWT row of `scale` for an input width w, both ways, compared. */
static void dwt_case(test_rng *r, int scale, int bpc, int w)
{
    const int bw = (w + 1) / 2;
    const size_t n = (size_t)w + 64;
    int *ind[4];
    int *ind_mem = malloc(4 * (size_t)bw * sizeof(int));
    REQUIRE(ind_mem);
    for (int k = 0; k < 4; k++)
        ind[k] = ind_mem + k * bw;
    adm_dwt_indices(ind, w);
    adm_dwt_round vr, hr;
    adm_dwt_rounding(bpc, scale, &vr, &hr);
    uint8_t *r8[4];
    int32_t *r32[4];
    /* level 0: samples of bpc bits; level 1: level 0's int16 bands; above:
     * any int32 */
    for (int k = 0; k < 4; k++) {
        r8[k] = malloc(2 * n);
        r32[k] = malloc(n * sizeof(int32_t));
        REQUIRE(r8[k] && r32[k]);
        for (size_t j = 0; j < n; j++) {
            const uint32_t s = (uint32_t)rnd_in(r, 0, (1 << bpc) - 1);
            if (bpc == 8) {
                r8[k][j] = (uint8_t)s;
            } else {
                r8[k][2 * j] = (uint8_t)s;
                r8[k][2 * j + 1] = (uint8_t)(s >> 8);
            }
            r32[k][j] = scale == 1 ? rnd_in(r, -32768, 32767) : rnd_in(r, INT32_MIN, INT32_MAX);
        }
    }
    int32_t *out[2][6];
    for (int p = 0; p < 2; p++)
        for (int b = 0; b < 6; b++) {
            out[p][b] = calloc(n, sizeof(int32_t));
            REQUIRE(out[p][b]);
        }
    const uint8_t *const c8[4] = {r8[0], r8[1], r8[2], r8[3]};
    const int32_t *const c32[4] = {r32[0], r32[1], r32[2], r32[3]};
    /* reference: out[0] = lo, hi, a, v, h, d */
    adm_dwt_vertical(scale, bpc, c8, c32, w, &vr, out[0][0], out[0][1]);
    adm_dwt_horizontal(scale, ind, out[0][0], out[0][1], w, &hr, out[0][2], out[0][3], out[0][4],
                       out[0][5]);
    adm_dwt_row_avx2(scale, bpc, c8, c32, w, ind, &vr, &hr, out[1][0], out[1][1], out[1][2],
                     out[1][3], out[1][4], out[1][5]);
    int bad = 0;
    for (int b = 2; b < 6; b++)
        bad += memcmp(out[0][b], out[1][b], (size_t)bw * sizeof(int32_t)) != 0;
    if (bad)
        fprintf(stderr, "dwt row differs: scale %d, %d bits, width %d\n", scale, bpc, w);
    CHECK(bad == 0);
    for (int p = 0; p < 2; p++)
        for (int b = 0; b < 6; b++)
            free(out[p][b]);
    for (int k = 0; k < 4; k++) {
        free(r8[k]);
        free(r32[k]);
    }
    free(ind_mem);
}

static void test_dwt_rows(test_rng *r)
{
    static const int widths[] = {33, 34, 35, 47, 64, 67, 129, 250, 1921};
    static const int depths[] = {8, 10, 12, 16};
    for (int scale = 0; scale < ADM_SCALES; scale++)
        for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
            for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
                for (int rep = 0; rep < 4; rep++)
                    dwt_case(r, scale, depths[d], widths[i]);
}

/* ---------------------------------------------------------------- decoupling and sums rows */

/* A row of n + 2 values (one of padding each side, at index -1 and n) in
 * [lo, hi]; the pointer is to index 0. */
static int32_t *rand_row(test_rng *r, int n, int32_t lo, int32_t hi)
{
    int32_t *p = malloc(((size_t)n + 2) * sizeof(int32_t));
    REQUIRE(p);
    for (int j = 0; j < n + 2; j++)
        p[j] = rnd_in(r, lo, hi);
    return p + 1;
}

/* The decoupling, masking and sums of one row of level `scale` of a w x h
 * stream, each both ways, on random band values of the level's range
 * (int16 at level 0) including its ends, and masking rows of a range whose
 * thresholds keep the reference's int32 steps defined. */
static void rows_case(test_rng *r, const adm_params *p, int scale, const int32_t *div)
{
    adm_level L;
    adm_level_setup(p, scale, &L);
    const int n = L.w;
    const int32_t lo = scale == 0 ? -32768 : INT32_MIN + 1, hi = scale == 0 ? 32767 : INT32_MAX;
    int32_t *o[3], *t[3], *out[2][2][3], *f[3], *c, *fc[2][2];
    for (int b = 0; b < 3; b++) {
        o[b] = rand_row(r, n, lo, hi);
        t[b] = rand_row(r, n, lo, hi);
        /* sometimes t near o: the angle test and the gain limit */
        if (test_rng_below(r, 2))
            for (int j = 0; j < n; j++) {
                const double v = (double)o[b][j] * (0.75 + 0.5 * test_rng_double(r));
                t[b][j] = v < lo ? lo : (v > hi ? hi : (int32_t)v);
            }
        f[b] = rand_row(r, n, -(1 << 20), 1 << 26);
        for (int s = 0; s < 2; s++)
            for (int x = 0; x < 2; x++)
                out[s][x][b] = rand_row(r, n, 0, 0);
    }
    c = rand_row(r, n, -(1 << 20), 1 << 26);
    for (int s = 0; s < 2; s++)
        for (int x = 0; x < 2; x++)
            fc[s][x] = rand_row(r, n, 0, 0);
    const int l = (int)test_rng_below(r, 3) % (n / 2 + 1),
              rr = n - (int)test_rng_below(r, 3) % (n / 2 + 1);
    static const double gains[4] = {100.0, 1.2, 1.0, 7.0}; /* integer ones: a path of their own */
    const double gain = gains[test_rng_below(r, 4)];
    const int32_t *const co[3] = {o[0], o[1], o[2]}, *const ct[3] = {t[0], t[1], t[2]};
    adm_decouple_row(scale, div, gain, l, rr, co, ct, out[0][0], out[0][1]);
    adm_decouple_row_avx2(scale, div, gain, l, rr, co, ct, out[1][0], out[1][1]);
    int bad = 0;
    for (int x = 0; x < 2; x++)
        for (int b = 0; b < 3; b++)
            bad += memcmp(out[0][x][b] + l, out[1][x][b] + l, (size_t)(rr - l) * 4) != 0;
    for (int x = 0; x < 2; x++)
        for (int b = 0; b < 3; b++)
            for (int j = l; j < rr; j++)
                if (out[0][x][b][j] != out[1][x][b][j])
                    fprintf(stderr,
                            "decoupling differs: scale %d, [%d][%d][%d]: o %d t %d: %d vs %d\n",
                            scale, x, b, j, o[b][j], t[b][j], out[0][x][b][j], out[1][x][b][j]);
    CHECK(bad == 0);

    adm_mask_row(scale, L.q, l, rr, co, fc[0][0], fc[0][1]);
    adm_mask_row_avx2(scale, L.q, l, rr, co, fc[1][0], fc[1][1]);
    bad = 0;
    for (int x = 0; x < 2; x++)
        bad += memcmp(fc[0][x] + l, fc[1][x] + l, (size_t)(rr - l) * 4) != 0;
    if (bad)
        fprintf(stderr, "masking differs: scale %d, width %d\n", scale, n);
    CHECK(bad == 0);

    /* the scored columns: any range inside the row */
    L.sl = (int)test_rng_below(r, 4) % (n / 2 + 1);
    L.sr = n - (int)test_rng_below(r, 4) % (n / 2 + 1);
    int64_t acc[2][3] = {{1, 2, 3}, {1, 2, 3}};
    adm_den_row(&L, co, acc[0]);
    adm_den_row_avx2(&L, co, acc[1]);
    if (memcmp(acc[0], acc[1], sizeof(acc[0])) != 0)
        fprintf(stderr, "denominator differs: scale %d, width %d\n", scale, n);
    CHECK(memcmp(acc[0], acc[1], sizeof(acc[0])) == 0);
    int64_t num[2][3] = {{4, 5, 6}, {4, 5, 6}};
    adm_num_row(&L, ct, f[0], f[1], f[2], c, num[0]);
    adm_num_row_avx2(&L, ct, f[0], f[1], f[2], c, num[1]);
    if (memcmp(num[0], num[1], sizeof(num[0])) != 0)
        fprintf(stderr, "numerator differs: scale %d, width %d\n", scale, n);
    CHECK(memcmp(num[0], num[1], sizeof(num[0])) == 0);

    for (int b = 0; b < 3; b++) {
        free(o[b] - 1);
        free(t[b] - 1);
        free(f[b] - 1);
        for (int s = 0; s < 2; s++)
            for (int x = 0; x < 2; x++)
                free(out[s][x][b] - 1);
    }
    free(c - 1);
    for (int s = 0; s < 2; s++)
        for (int x = 0; x < 2; x++)
            free(fc[s][x] - 1);
}

static void test_sum_rows(test_rng *r)
{
    static const int sizes[][2] = {{33, 33}, {70, 41}, {131, 77}, {1920, 1080}};
    int32_t *div = malloc(65537 * sizeof(int32_t));
    REQUIRE(div);
    div[32768] = 0;
    for (int i = 1; i <= 32768; i++) {
        div[32768 + i] = (int32_t)(1073741824 / i);
        div[32768 - i] = -(int32_t)(1073741824 / i);
    }
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int mode = 0; mode < ADM_CSF_MODES; mode++)
            for (int scale = 0; scale < ADM_SCALES; scale++)
                for (int rep = 0; rep < 6; rep++) {
                    adm_params p;
                    adm_default_params(&p, sizes[s][0], sizes[s][1], 8);
                    p.csf_mode = mode;
                    if (mode == ADM_CSF_BARTEN)
                        p.csf_scale = p.csf_diag_scale = 1.0 + 10.0 * rep;
                    rows_case(r, &p, scale, div);
                }
    free(div);
}
#else
static void test_dwt_rows(test_rng *r)
{
    (void)r;
}
static void test_sum_rows(test_rng *r)
{
    (void)r;
}
#endif

/* ---------------------------------------------------------------- frames */

/* A w x h plane of bpc-bit samples (16-bit containers above 8): kind 0
 * uniform noise, 1 a gradient with texture, 2 only the two extremes, 3 flat. */
static uint8_t *make_plane(test_rng *r, int kind, int w, int h, int bpc, ptrdiff_t *stride)
{
    const int bps = bpc > 8 ? 2 : 1;
    *stride = (ptrdiff_t)w * bps + 3 * bps; /* not a multiple of the vector */
    uint8_t *p = malloc((size_t)*stride * (size_t)h);
    REQUIRE(p);
    const uint32_t max = (1u << bpc) - 1;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            uint32_t v;
            if (kind == 0)
                v = test_rng_below(r, max + 1);
            else if (kind == 1)
                v = (uint32_t)(((uint64_t)(i * 3 + j * 5) * max / (3u * h + 5u * w) +
                                test_rng_below(r, (max >> 3) + 1)) %
                               (max + 1));
            else if (kind == 2)
                v = test_rng_below(r, 2) ? max : 0;
            else
                v = max / 3;
            if (bps == 1) {
                p[i * *stride + j] = (uint8_t)v;
            } else {
                p[i * *stride + 2 * j] = (uint8_t)v;
                p[i * *stride + 2 * j + 1] = (uint8_t)(v >> 8);
            }
        }
    return p;
}

/* dis from ref: 0 independent noise (kind), 1 ref with a gain of 1.25 and
 * noise (enhancement: the gain limit), 2 ref attenuated toward mid-gray
 * with noise. */
static uint8_t *make_dis(test_rng *r, int how, int kind, const uint8_t *ref, int w, int h, int bpc,
                         ptrdiff_t stride)
{
    if (how == 0) {
        ptrdiff_t s2;
        uint8_t *p = make_plane(r, kind, w, h, bpc, &s2);
        REQUIRE(s2 == stride);
        return p;
    }
    const int bps = bpc > 8 ? 2 : 1;
    const int32_t max = (1 << bpc) - 1, mid = 1 << (bpc - 1);
    uint8_t *p = malloc((size_t)stride * (size_t)h);
    REQUIRE(p);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            const uint8_t *q = ref + i * stride + j * bps;
            const int32_t s = bps == 1 ? q[0] : (q[0] | q[1] << 8);
            const int32_t noise = (int32_t)test_rng_below(r, (uint32_t)(max >> 5) + 1) - (max >> 6);
            int32_t v = how == 1 ? mid + (s - mid) * 5 / 4 + noise : mid + (s - mid) / 2 + noise;
            v = v < 0 ? 0 : (v > max ? max : v);
            uint8_t *o = p + i * stride + j * bps;
            o[0] = (uint8_t)v;
            if (bps == 2)
                o[1] = (uint8_t)(v >> 8);
        }
    return p;
}

static int frame_case(test_rng *r, const adm_params *p, int kind, int how)
{
    ptrdiff_t stride;
    uint8_t *ref = make_plane(r, kind, p->width, p->height, p->bpc, &stride);
    uint8_t *dis = make_dis(r, how, kind, ref, p->width, p->height, p->bpc, stride);
    adm_state *st = NULL;
    REQUIRE(adm_open(&st, p) == FOVEA_OK);
    adm_raw raw[2];
    for (int s = 0; s < 2; s++) {
        CHECK_EQ_INT(adm_set_simd(st, s), s);
        adm_compute_raw(st, NULL, ref, stride, dis, stride, &raw[s]);
    }
    adm_close(&st);
    free(ref);
    free(dis);
    const int same = memcmp(&raw[0], &raw[1], sizeof(raw[0])) == 0;
    if (!same)
        fprintf(stderr,
                "frame differs: %dx%d, %d bits, csf mode %d, kind %d, dis %d: num0 %.9g vs %.9g\n",
                p->width, p->height, p->bpc, p->csf_mode, kind, how, raw[0].num[0], raw[1].num[0]);
    CHECK(same);
    return same;
}

static void test_frames(test_rng *r)
{
    static const int sizes[][2] = {{33, 33}, {35, 47}, {64, 36}, {97, 65}, {161, 90}, {333, 187}};
    static const int depths[] = {8, 10, 12, 16};
    int n = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
            for (int mode = 0; mode < ADM_CSF_MODES; mode++)
                for (int kind = 0; kind < 4; kind++)
                    for (int how = 0; how < 3; how++) {
                        adm_params p;
                        adm_default_params(&p, sizes[s][0], sizes[s][1], depths[d]);
                        p.csf_mode = mode;
                        if (mode == ADM_CSF_BARTEN) {
                            p.csf_scale = 1.5;
                            p.csf_diag_scale = 0.75;
                        }
                        if (how == 1) /* v1's 1.0, and one not an integer */
                            p.enhn_gain_limit = kind & 1 ? 1.2 : 1.0;
                        n += frame_case(r, &p, kind, how);
                    }
    /* a size of real video, once per depth */
    for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
        adm_params p;
        adm_default_params(&p, 1280, 720, depths[d]);
        n += frame_case(r, &p, 1, 1);
    }
    CHECK(n > 0);
}

int main(int argc, char **argv)
{
    if (!adm_simd_cpu()) {
        fprintf(stderr, "test_quality_adm_simd: no AVX2 on this CPU: skipped\n");
        return TEST_SKIP;
    }
    test_rng r;
    test_rng_seed(&r, argc > 1 ? strtoull(argv[1], NULL, 0) : 0xad3a5u);
    test_dwt_rows(&r);
    test_sum_rows(&r);
    test_frames(&r);
    return test_finish("test_quality_adm_simd");
}
