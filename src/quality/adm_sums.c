/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference of libvmaf's integer ADM: CSF weighting and contrast masking
 * of a row, and the denominator's and numerators' row sums, in libvmaf's
 * fixed-point arithmetic, including its wrap-arounds (docs/quality.md,
 * "Integer ADM"). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "quality/adm.h"
#include "quality/adm_rows.h"

/* The float and double steps must round as libvmaf's do (CMake builds with
 * -ffp-contract=off; clang is told here too). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---------------------------------------------------------------- CSF and masking */

/* The masker's rows for the masking threshold, from one row of its three
 * bands (src; restored or additive part), columns [l, r): csf = band
 * weighted by the CSF; f = sum over the bands of |csf| / 30 (the 3x3
 * neighborhood's off-center weight) and c = sum over the bands of |csf| / 15
 * (the center's). The threshold is a sum over bands and neighbors, so the
 * bands are added first; in uint32, as the int32 sums wrap in libvmaf. */
ADM_INLINE void mask_cols(const int scale, const uint32_t q[3], int l, int r,
                          const int32_t *const src[3], int32_t *restrict f, int32_t *restrict c)
{
    const int32_t *restrict s0 = src[0], *restrict s1 = src[1], *restrict s2 = src[2];
    for (int j = l; j < r; j++) {
        const int32_t x[3] = {s0[j], s1[j], s2[j]};
        uint32_t fs = 0, cs = 0;
        for (int b = 0; b < 3; b++) {
            if (scale == 0) {
                /* Q21 (h, v) or Q23 (d) weight, back to the band's Q */
                static const int sh[3] = {15, 15, 17}, rnd[3] = {16384, 16384, 65535};
                const int16_t v = (int16_t)(((int32_t)q[b] * x[b] + rnd[b]) >> sh[b]);
                const int32_t a = abs(v);
                fs += (uint32_t)(int16_t)((4369 * a + 2048) >> 12); /* 1/30 in Q17 */
                cs += (uint32_t)(int16_t)((8738 * a + 2048) >> 12); /* 1/15 in Q17 */
            } else {
                const int32_t v = (int32_t)(((int64_t)q[b] * x[b] + (1 << 27)) >> 28);
                const int32_t a = abs(v);
                /* 1/30 and 1/15 in Q32; libvmaf's rounding constant 2^31 is
                 * stored in an int32 and so becomes -2^31 */
                fs += (uint32_t)(int32_t)(((int64_t)143165577 * a - ((int64_t)1 << 31)) >> 32);
                cs += (uint32_t)(int32_t)(((int64_t)286331153 * a - ((int64_t)1 << 31)) >> 32);
            }
        }
        f[j] = (int32_t)fs;
        c[j] = (int32_t)cs;
    }
}

ADM_CLONES void adm_mask_row(int scale, const uint32_t q[3], int l, int r,
                             const int32_t *const src[3], int32_t *f, int32_t *c)
{
    if (scale == 0)
        mask_cols(0, q, l, r, src, f, c);
    else
        mask_cols(1, q, l, r, src, f, c);
}

/* The denominator's sums of one row of the reference's three detail bands
 * (o), columns [l, r), added to accum (see adm_den_float, adm_level.c). Level 0 sums |x|^3
 * exactly (|x| <= 2^15: x*x fits 32 bits, the cube 45) and rounds the row
 * sum down by row_shift bits; above, every cube is rounded as libvmaf does. */
ADM_CLONES void adm_den_row(const adm_level *L, const int32_t *const o[3], int64_t accum[3])
{
    for (int b = 0; b < 3; b++) {
        const int32_t *restrict x = o[b];
        uint64_t inner = 0;
        if (L->scale == 0) {
            for (int j = L->sl; j < L->sr; j++) {
                const uint32_t a = (uint16_t)abs(x[j]);
                inner += (uint64_t)(a * a) * a;
            }
        } else {
            const uint32_t sq = L->den_sq, sh_cub = L->den_cub_shift;
            const uint64_t rnd_cub = L->den_cub_round;
            for (int j = L->sl; j < L->sr; j++) {
                const uint64_t a = (uint32_t)abs(x[j]);
                /* rounding constant 2^sq, not 2^(sq-1), as in libvmaf */
                inner += ((((a * a) + ((uint64_t)1 << sq)) >> sq) * a + rnd_cub) >> sh_cub;
            }
        }
        accum[b] = (int64_t)((uint64_t)accum[b] + ((inner + L->den_row_round) >> L->den_row_shift));
    }
}

/* The cubed, masked term of band b at one sample: r the band's value, q its
 * CSF weight, thr the threshold. */
ADM_INLINE int64_t num_term(int scale, int b, uint32_t q, int32_t r, int32_t thr, uint32_t sh_cub,
                            int64_t rnd_cub)
{
    int32_t x, x_sq;
    if (scale == 0) {
        /* x in Q(21|23 + band); thr << 10 (h, v) or 12 (d) brings the threshold
         * to the same Q; both in wrapping int32 */
        const int sub = b == 2 ? 12 : 10, sh_sq = b == 2 ? 30 : 29;
        const int32_t xv = (int32_t)((uint32_t)r * q);
        x = (int32_t)((uint32_t)abs(xv) - ((uint32_t)thr << sub));
        x = x < 0 ? 0 : x;
        x_sq = (int32_t)(((int64_t)x * x + ((int64_t)1 << (sh_sq - 1))) >> sh_sq);
    } else {
        const int32_t xv = (int32_t)(((int64_t)r * q + (1 << 27)) >> 28);
        x = abs(xv) - thr;
        x = x < 0 ? 0 : x;
        x_sq = (int32_t)(((int64_t)x * x + (1 << 29)) >> 30);
    }
    return ((int64_t)x_sq * x + rnd_cub) >> sh_cub;
}

/* The numerator's sums of one row over the scored columns into inner[3]:
 * x the row of the three bands scored, fm / f0 / fp the masker's f rows above,
 * at and below (mirrored at the band's edges, one column of padding each
 * side), c its center row. The threshold of a sample is the 3x3
 * neighborhood of f without its center, plus c. */
ADM_INLINE void num_cols(const int scale, const adm_level *L, const int32_t *const x[3],
                         const int32_t *fm, const int32_t *f0, const int32_t *fp, const int32_t *c,
                         int64_t inner[3])
{
    const int32_t *restrict x0 = x[0], *restrict x1 = x[1], *restrict x2 = x[2];
    const int32_t *restrict m = fm, *restrict z = f0, *restrict p = fp, *restrict cc = c;
    const uint32_t q0 = L->q[0], q1 = L->q[1], q2 = L->q[2];
    const uint32_t h0 = L->num_cub_shift[0], h1 = L->num_cub_shift[1], h2 = L->num_cub_shift[2];
    const int64_t r0 = L->num_cub_round[0], r1 = L->num_cub_round[1], r2 = L->num_cub_round[2];
    int64_t s0 = 0, s1 = 0, s2 = 0;
    for (int j = L->sl; j < L->sr; j++) {
        const uint32_t t = (uint32_t)m[j - 1] + (uint32_t)m[j] + (uint32_t)m[j + 1] +
                           (uint32_t)z[j - 1] + (uint32_t)z[j + 1] + (uint32_t)p[j - 1] +
                           (uint32_t)p[j] + (uint32_t)p[j + 1] + (uint32_t)cc[j];
        const int32_t thr = (int32_t)t;
        s0 += num_term(scale, 0, q0, x0[j], thr, h0, r0);
        s1 += num_term(scale, 1, q1, x1[j], thr, h1, r1);
        s2 += num_term(scale, 2, q2, x2[j], thr, h2, r2);
    }
    inner[0] = s0;
    inner[1] = s1;
    inner[2] = s2;
}

/* One row's numerator sums, each rounded and added to accum (see adm_num_float, adm_level.c). */
ADM_CLONES void adm_num_row(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                            const int32_t *f0, const int32_t *fp, const int32_t *c,
                            int64_t accum[3])
{
    int64_t inner[3];
    if (L->scale == 0)
        num_cols(0, L, x, fm, f0, fp, c, inner);
    else
        num_cols(1, L, x, fm, f0, fp, c, inner);
    for (int b = 0; b < 3; b++)
        accum[b] += (inner[b] + L->num_row_round) >> L->num_row_shift;
}
