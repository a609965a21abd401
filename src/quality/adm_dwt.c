/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference of libvmaf's integer ADM: the 4-level db2 DWT's row passes
 * (vertical, then horizontal into the four bands), in libvmaf's fixed-point
 * arithmetic (docs/quality.md, "Integer ADM"). */
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

/* db2 analysis filters in Q15 (the low-pass taps sum to 46342 = sqrt(2) * 2^15). */
static const int32_t db2_lo[4] = {15826, 27411, 7345, -4240};
static const int32_t db2_hi[4] = {-4240, -7345, 27411, -15826};

/* ---------------------------------------------------------------- DWT */

/* Source index of tap k (0..3) for output n of a level with n_in inputs: taps
 * 2n-1 .. 2n+2; index -1 reads 1 (mirror without repeating the edge), index
 * n_in + e reads n_in - 1 - e (mirror repeating it). */
void adm_dwt_indices(int *ind[4], int n_in)
{
    int n_out = (n_in + 1) / 2;
    for (int n = 0; n < n_out; n++) {
        for (int k = 0; k < 4; k++) {
            int i = 2 * n - 1 + k;
            if (i < 0)
                i = -i;
            if (i >= n_in)
                i = 2 * n_in - i - 1;
            ind[k][n] = i;
        }
    }
}

/* The vertical pass of one output row from its four source rows (r8: level
 * 0's samples, r32: the previous approximation band above), every column:
 * lo = (sum_k lo_k * s_k - sub + add) >> shift, hi = (sum_k hi_k * s_k + add)
 * >> shift. Level 0 keeps int16 results, as libvmaf does. At 8 bits the sums
 * (< 2^24) are exact in 32 bits, and so are level 1's; else 64 bits. */
ADM_CLONES void adm_dwt_vertical(int scale, int bpc, const uint8_t *const r8[4],
                                 const int32_t *const r32[4], int w, const adm_dwt_round *vr,
                                 int32_t *restrict lo, int32_t *restrict hi)
{
    if (scale == 0 && bpc == 8) {
        const int32_t sub = (int32_t)vr->sub, add = (int32_t)vr->add;
        for (int j = 0; j < w; j++) {
            const int32_t s0 = r8[0][j], s1 = r8[1][j], s2 = r8[2][j], s3 = r8[3][j];
            const int32_t l = db2_lo[0] * s0 + db2_lo[1] * s1 + db2_lo[2] * s2 + db2_lo[3] * s3;
            const int32_t h = db2_hi[0] * s0 + db2_hi[1] * s1 + db2_hi[2] * s2 + db2_hi[3] * s3;
            lo[j] = (int16_t)((l - sub + add) >> 8);
            hi[j] = (int16_t)((h + add) >> 8);
        }
    } else if (scale == 0) {
        /* libvmaf sums in int32, whose intermediate wrap-around at 16 bits
         * cancels (the final sums fit); exact 64-bit sums give the same values */
        const uint16_t *q[4];
        for (int k = 0; k < 4; k++)
            q[k] = (const uint16_t *)(const void *)r8[k];
        for (int j = 0; j < w; j++) {
            int64_t l = 0, h = 0;
            for (int k = 0; k < 4; k++) {
                l += (int64_t)db2_lo[k] * q[k][j];
                h += (int64_t)db2_hi[k] * q[k][j];
            }
            lo[j] = (int16_t)((l - vr->sub + vr->add) >> vr->shift);
            hi[j] = (int16_t)((h + vr->add) >> vr->shift);
        }
    } else if (scale == 1 && vr->add == 0 && vr->shift == 0) {
        /* level 1 reads level 0's approximation band, int16 values: every sum
         * (|sum| <= 54822 * 2^15 < 2^31) is exact in 32 bits */
        for (int j = 0; j < w; j++) {
            int32_t l = 0, h = 0;
            for (int k = 0; k < 4; k++) {
                l += db2_lo[k] * r32[k][j];
                h += db2_hi[k] * r32[k][j];
            }
            lo[j] = l;
            hi[j] = h;
        }
    } else {
        for (int j = 0; j < w; j++) {
            int64_t l = 0, h = 0;
            for (int k = 0; k < 4; k++) {
                l += (int64_t)db2_lo[k] * r32[k][j];
                h += (int64_t)db2_hi[k] * r32[k][j];
            }
            lo[j] = (int32_t)((l + vr->add) >> vr->shift);
            hi[j] = (int32_t)((h + vr->add) >> vr->shift);
        }
    }
}

/* One output column j of the horizontal pass through the mirrored column
 * indices (the edges). */
static inline void dwt_h_at(int scale, int *const ind[4], const int32_t *lo, const int32_t *hi,
                            int j, const adm_dwt_round *hr, int32_t *a, int32_t *v, int32_t *h,
                            int32_t *d)
{
    int64_t ll = 0, lh = 0, hl = 0, h2 = 0;
    for (int k = 0; k < 4; k++) {
        const int c = ind[k][j];
        ll += db2_lo[k] * (int64_t)lo[c];
        lh += db2_hi[k] * (int64_t)lo[c];
        hl += db2_lo[k] * (int64_t)hi[c];
        h2 += db2_hi[k] * (int64_t)hi[c];
    }
    const int64_t out[4] = {(ll + hr->add) >> hr->shift, (lh + hr->add) >> hr->shift,
                            (hl + hr->add) >> hr->shift, (h2 + hr->add) >> hr->shift};
    a[j] = scale == 0 ? (int16_t)out[0] : (int32_t)out[0];
    v[j] = scale == 0 ? (int16_t)out[1] : (int32_t)out[1];
    h[j] = scale == 0 ? (int16_t)out[2] : (int32_t)out[2];
    d[j] = scale == 0 ? (int16_t)out[3] : (int32_t)out[3];
}

/* The horizontal pass at the even columns of one row into the four bands
 * (a: lo lo, v: lo hi, h: hi lo, d: hi hi). Output column j reads columns
 * 2j-1 .. 2j+2, mirrored at the edges; the columns in between read them
 * directly. Level 0's inputs are int16, so its sums (< 54822 * 2^15 + 2^15 <
 * 2^31) are exact in 32 bits. */
ADM_CLONES void adm_dwt_horizontal(int scale, int *const ind[4], const int32_t *restrict lo,
                                   const int32_t *restrict hi, int w, const adm_dwt_round *hr,
                                   int32_t *restrict a, int32_t *restrict v, int32_t *restrict h,
                                   int32_t *restrict d)
{
    const int bw = (w + 1) / 2;
    /* inside: 2j - 1 >= 0 and 2j + 2 <= w - 1 */
    const int j0 = bw < 1 ? bw : 1;
    const int j1 = (w - 1) / 2 > j0 ? (w - 1) / 2 : j0;
    for (int j = 0; j < j0; j++)
        dwt_h_at(scale, ind, lo, hi, j, hr, a, v, h, d);
    if (scale == 0) {
        for (int j = j0; j < j1; j++) {
            const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
            const int32_t ll =
                db2_lo[0] * l[0] + db2_lo[1] * l[1] + db2_lo[2] * l[2] + db2_lo[3] * l[3];
            const int32_t lh =
                db2_hi[0] * l[0] + db2_hi[1] * l[1] + db2_hi[2] * l[2] + db2_hi[3] * l[3];
            const int32_t hl =
                db2_lo[0] * g[0] + db2_lo[1] * g[1] + db2_lo[2] * g[2] + db2_lo[3] * g[3];
            const int32_t h2 =
                db2_hi[0] * g[0] + db2_hi[1] * g[1] + db2_hi[2] * g[2] + db2_hi[3] * g[3];
            a[j] = (int16_t)((ll + 32768) >> 16);
            v[j] = (int16_t)((lh + 32768) >> 16);
            h[j] = (int16_t)((hl + 32768) >> 16);
            d[j] = (int16_t)((h2 + 32768) >> 16);
        }
    } else {
        for (int j = j0; j < j1; j++) {
            const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
            int64_t ll = 0, lh = 0, hl = 0, h2 = 0;
            for (int k = 0; k < 4; k++) {
                ll += (int64_t)db2_lo[k] * l[k];
                lh += (int64_t)db2_hi[k] * l[k];
                hl += (int64_t)db2_lo[k] * g[k];
                h2 += (int64_t)db2_hi[k] * g[k];
            }
            a[j] = (int32_t)((ll + hr->add) >> hr->shift);
            v[j] = (int32_t)((lh + hr->add) >> hr->shift);
            h[j] = (int32_t)((hl + hr->add) >> hr->shift);
            d[j] = (int32_t)((h2 + hr->add) >> hr->shift);
        }
    }
    for (int j = j1; j < bw; j++)
        dwt_h_at(scale, ind, lo, hi, j, hr, a, v, h, d);
}
