/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* PSNR-HVS's plane score on the CPU (the C extractor, feature_psnr_hvs.c):
 * the blocks of a block row HVS_LANES at a time, every step of
 * psnr_hvs_block.h's hvs_block_terms done lane by lane (arrays with the lane
 * last, loops over lanes innermost, no branches in them), so that the
 * compiler vectorizes across blocks while each block's floats are the very
 * operations of hvs_block_terms in its order. Only the plane's float sum
 * stays serial: the blocks' terms in raster order of blocks, each block's in
 * row order, as libvmaf adds them. Compiled for x86-64-v4 (AVX-512), AVX2
 * and the baseline and picked at run time, as the other features' row loops;
 * nothing is contracted into FMA (-ffp-contract=off, ISO C; without ISO C
 * mode the v4 clone, which has FMA, is left out as in adm_rows.h).
 * FOVEA_HVS_NO_CLONES builds one version. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quality/psnr_hvs.h"
#include "quality/psnr_hvs_block.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_HVS_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16) &&              \
    (defined(__clang__) || defined(__STRICT_ANSI__))
#define HVS_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#elif defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                            \
    !defined(FOVEA_HVS_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16)
#define HVS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HVS_CLONES
#endif

/* The steps are inlined into each clone of psnr_hvs_plane (a step left out
 * of line would be compiled for the baseline only). */
#if defined(__GNUC__)
#define HVS_STEP static inline __attribute__((always_inline))
#else
#define HVS_STEP static inline
#endif

/* Blocks scored side by side. */
#define HVS_LANES 8

typedef int32_t lanes_i[HVS_LANES];
typedef float lanes_f[HVS_LANES];

/* The samples of blocks x0, x0 + 7, ... (n of them; the other lanes zero) of
 * the block row at y into px[k][lane], k in row order. */
HVS_STEP void load_blocks(lanes_i *px, const uint8_t *p, ptrdiff_t stride, int bpc, int x0, int y,
                          int n)
{
    memset(px, 0, 64 * sizeof(*px));
    for (int i = 0; i < 8; i++) {
        const uint8_t *row = p + (ptrdiff_t)(y + i) * stride;
        for (int l = 0; l < n; l++) {
            const int x = x0 + 7 * l;
            for (int j = 0; j < 8; j++)
                px[i * 8 + j][l] =
                    bpc > 8 ? (int32_t)((const uint16_t *)(const void *)row)[x + j] : row[x + j];
        }
    }
}

/* One pass of hvs_dct8x8 on every lane: hvs_dct8 of in's columns i (in[i +
 * 8 k]) into out's rows (out[8 i + k]), the lanes innermost. */
HVS_STEP void dct8_pass_lanes(const lanes_i *restrict in, lanes_i *restrict out)
{
    for (int i = 0; i < 8; i++) {
        for (int l = 0; l < HVS_LANES; l++) {
            int32_t t[8];
            hvs_dct8(t, &in[i][l], 8 * HVS_LANES);
            for (int k = 0; k < 8; k++)
                out[8 * i + k][l] = t[k];
        }
    }
}

/* hvs_dct8x8 on every lane: columns into z, then z's columns back. */
HVS_STEP void dct8x8_lanes(lanes_i *b)
{
    lanes_i z[64];
    dct8_pass_lanes(b, z);
    dct8_pass_lanes(z, b);
}

/* hvs_block_mask on every lane: px's DCT into dct, the masking values into
 * out. Each sum is one lane loop inside loops over samples in row order
 * (the whole block's, then each quarter's, quarter q holding rows 4 (q & 1)
 * on and columns 4 (q >> 1) on, hvs_block_mask's sub): the additions of
 * every sum in hvs_block_mask's order. */
HVS_STEP void block_mask_lanes(const lanes_i *px, lanes_i *dct, const float *mask, float *out)
{
    lanes_f v[64], means[4], vars[4], gmean, gvar, m;
    memset(means, 0, sizeof(means));
    memset(vars, 0, sizeof(vars));
    memset(gmean, 0, sizeof(gmean));
    memset(gvar, 0, sizeof(gvar));
    memset(m, 0, sizeof(m));
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            v[k][l] = (float)px[k][l];
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            gmean[l] += v[k][l];
    for (int q = 0; q < 4; q++)
        for (int i = 4 * (q & 1); i < 4 * (q & 1) + 4; i++)
            for (int j = 4 * (q >> 1); j < 4 * (q >> 1) + 4; j++)
                for (int l = 0; l < HVS_LANES; l++)
                    means[q][l] += v[i * 8 + j][l];
    for (int l = 0; l < HVS_LANES; l++)
        gmean[l] /= 64.f;
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < HVS_LANES; l++)
            means[q][l] /= 16.f;
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            gvar[l] += (v[k][l] - gmean[l]) * (v[k][l] - gmean[l]);
    for (int q = 0; q < 4; q++)
        for (int i = 4 * (q & 1); i < 4 * (q & 1) + 4; i++)
            for (int j = 4 * (q >> 1); j < 4 * (q >> 1) + 4; j++)
                for (int l = 0; l < HVS_LANES; l++)
                    vars[q][l] += (v[i * 8 + j][l] - means[q][l]) * (v[i * 8 + j][l] - means[q][l]);
    for (int l = 0; l < HVS_LANES; l++)
        gvar[l] *= 1 / 63.f * 64;
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < HVS_LANES; l++)
            vars[q][l] *= 1 / 15.f * 16;
    for (int l = 0; l < HVS_LANES; l++) {
        /* the quotient of a lane with gvar 0 is computed and not taken */
        const float r = (vars[0][l] + vars[1][l] + vars[2][l] + vars[3][l]) / gvar[l];
        gvar[l] = gvar[l] > 0 ? r : gvar[l];
    }
    memcpy(dct, px, 64 * sizeof(*dct));
    dct8x8_lanes(dct);
    for (int k = 1; k < 64; k++) {
        for (int l = 0; l < HVS_LANES; l++) {
            const int32_t sq = (int32_t)((uint32_t)dct[k][l] * (uint32_t)dct[k][l]);
            m[l] += (float)sq * mask[k];
        }
    }
    for (int l = 0; l < HVS_LANES; l++)
        out[l] = (float)(sqrt((double)(m[l] * gvar[l])) / 32.f);
}

/* hvs_block_terms on every lane: the weighted errors t[k][lane]. csf: the
 * plane's table with each entry repeated over the lanes. */
HVS_STEP void block_terms_lanes(const lanes_i *ps, const lanes_i *pd, const lanes_f *csf,
                                const float *mask, lanes_f *t)
{
    lanes_i ds[64], dd[64];
    lanes_f sm, dm, thr[64];
    block_mask_lanes(ps, ds, mask, sm);
    block_mask_lanes(pd, dd, mask, dm);
    for (int l = 0; l < HVS_LANES; l++) {
        sm[l] = dm[l] > sm[l] ? dm[l] : sm[l];
        /* the DC term is not masked: err - 0 is err, never below 0 */
        thr[0][l] = 0;
    }
    for (int k = 1; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            thr[k][l] = sm[l] / mask[k];
    /* one flat loop over coefficients and lanes (no short inner loop for
     * the compiler to unroll instead of vectorizing). hvs_block_terms' err <
     * thr ? 0 : err - thr is taken as err - thr < 0 ? 0 : err - thr, which
     * the compiler turns into a branchless select: the same value, as the
     * difference of two unequal floats is never zero (and a NaN fails both
     * tests) */
    const int32_t *s = ds[0], *d = dd[0];
    const float *th = thr[0], *c = csf[0];
    float *o = t[0];
    for (int q = 0; q < 64 * HVS_LANES; q++) {
        const float err = (float)abs(s[q] - d[q]), above = err - th[q];
        const float v = above < 0 ? 0 : above;
        o[q] = (v * c[q]) * (v * c[q]);
    }
}

HVS_CLONES float psnr_hvs_plane(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs,
                                int bpc, int w, int h, int plane)
{
    float csf[64], mask[64];
    psnr_hvs_tables(plane, csf, mask);
    lanes_f csf_lanes[64];
    for (int k = 0; k < 64; k++)
        for (int l = 0; l < HVS_LANES; l++)
            csf_lanes[k][l] = csf[k];
    const int nx = psnr_hvs_blocks(w), ny = psnr_hvs_blocks(h);
    lanes_i ps[64], pd[64];
    lanes_f t[64];
    float ret = 0;
    for (int by = 0; by < ny; by++) {
        for (int bx = 0; bx < nx; bx += HVS_LANES) {
            const int n = nx - bx < HVS_LANES ? nx - bx : HVS_LANES;
            load_blocks(ps, a, as, bpc, 7 * bx, 7 * by, n);
            load_blocks(pd, b, bs, bpc, 7 * bx, 7 * by, n);
            block_terms_lanes(ps, pd, csf_lanes, mask, t);
            for (int l = 0; l < n; l++)
                for (int k = 0; k < 64; k++)
                    ret += t[k][l];
        }
    }
    return psnr_hvs_score(ret, 64 * nx * ny, bpc);
}
