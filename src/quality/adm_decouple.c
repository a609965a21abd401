/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference of libvmaf's integer ADM: the decoupling of the distorted
 * bands into restored and additive parts, with libvmaf's reciprocal table,
 * angle test and gain limit, including its wrap-arounds (docs/quality.md,
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

#define ADM_PI 3.14159265358979323846

/* ---------------------------------------------------------------- decoupling */

/* The number of significant bits of v above the low 15 (0 when v < 2^15),
 * without a branch or a bit-scan so the callers vectorize everywhere. */
ADM_INLINE int bits_above_15(uint32_t v)
{
    uint32_t x = v >> 15; /* < 2^17 */
    int n = 0, s;
    s = (x >= 1u << 16) ? 16 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 8) ? 8 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 4) ? 4 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 2) ? 2 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 1) ? 1 : 0;
    n += s;
    x >>= s;
    return n + (int)x;
}

/* k = clamp(t / o, 0, 1) in Q15 through libvmaf's reciprocal table. Level 0
 * indexes the table with o itself (|o| <= 32768); above, o is first rounded to
 * its 15 leading bits and the shift undone after the multiply. o == 0 gives
 * 32768. Written without branches (every path is computed, the table read at
 * an index in range) so the column loops vectorize. */
ADM_INLINE int32_t ratio_q15(const int32_t *div_lookup, int scale, int32_t o, int32_t t)
{
    int64_t k;
    if (scale == 0) {
        k = (int32_t)(((int64_t)div_lookup[o + 32768] * t + 16384) >> 15);
    } else {
        const uint32_t ao = o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
        const int sh = bits_above_15(ao);                  /* 0, or the shift to 15 bits */
        const uint32_t m = (ao + ((1u << sh) >> 1)) >> sh; /* <= 32768 */
        /* libvmaf multiplies the entry of m by o's sign; the table is odd
         * (entry 32768 - m is minus entry 32768 + m), so this reads the entry
         * of o's sign times m (a signed index, which vectorizes as a gather) */
        const int32_t sm = o < 0 ? -(int32_t)m : (int32_t)m;
        /* rounding term 2^(14 + sh) <= 2^31, made by a 32-bit shift; the shift
         * count in 64 bits (GCC vectorizes a 64-bit shift only so) */
        k = ((int64_t)div_lookup[sm + 32768] * t + (int64_t)(16384u << sh)) >> (int64_t)(15 + sh);
    }
    k = k < 0 ? 0 : (k > 32768 ? 32768 : k);
    return o == 0 ? 32768 : (int32_t)k;
}

float adm_cos_1deg_sq(void)
{
    return (float)(cos(ADM_PI / 180.0) * cos(ADM_PI / 180.0));
}

/* Split each distorted detail coefficient t into the part explained by the
 * reference o (restored: k*o, k = t/o clamped to [0,1]) and the rest
 * (additive: t - restored), columns [l, r) of one row. Where (oh,ov) and
 * (th,tv) point within 1 degree of each other, an enhancement (|t| > |o|) is
 * restored up to enhn_gain_limit * k*o.
 *
 * Two loops, each of which GCC vectorizes (one loop with both the table and
 * the float steps it turns into branches): first, per band, k and k*o (into
 * the restored and additive rows), then the angle test and the gain limit. */

/* Pass 1 of one band: x = k*o rounded (at level 0 |k*o| <= 2^30 fits 32 bits
 * and the value stays in int16), kk = k. A function of its own: inlined,
 * GCC no longer sees that the table read does not alias the stores. */
ADM_CLONES static void ratio_row(int scale, const int32_t *restrict div_lookup, int l, int r,
                                 const int32_t *restrict o, const int32_t *restrict t,
                                 int32_t *restrict x, int32_t *restrict kk)
{
    if (scale == 0) {
        for (int j = l; j < r; j++) {
            const int32_t k = ratio_q15(div_lookup, 0, o[j], t[j]);
            x[j] = (int16_t)((k * o[j] + 16384) >> 15);
            kk[j] = k;
        }
    } else {
        for (int j = l; j < r; j++) {
            const int32_t k = ratio_q15(div_lookup, 1, o[j], t[j]);
            x[j] = (int32_t)(((int64_t)k * o[j] + 16384) >> 15);
            kk[j] = k;
        }
    }
}

/* The restored value of one coefficient from pass 1's x = k*o: where the
 * angle test passed and k*o points as o does (libvmaf tests the sign of k*o
 * as a float product: k > 0 and o's sign), up to gain * k*o toward t,
 * truncated toward 0. The limited value lies between 0 and t, so the
 * conversion is in range. */
ADM_INLINE int32_t restored(int scale, int32_t o, int32_t t, int32_t x, int32_t k, int angle,
                            double gain)
{
    const double g = (double)x * gain;
    const double v = o > 0 ? (g < t ? g : (double)t) : (g > t ? g : (double)t);
    const int32_t e = scale == 0 ? (int16_t)v : (int32_t)v;
    return (angle & (k > 0) & (o != 0)) ? e : x;
}

/* t - restored, wrapped to the level's width. */
ADM_INLINE int32_t additive(int scale, int32_t t, int32_t x)
{
    return scale == 0 ? (int16_t)(t - x) : (int32_t)((uint32_t)t - (uint32_t)x);
}

/* Pass 2: rh/rv/rd hold x and ah/av/ad hold k from pass 1; they get the
 * restored and additive parts. */
ADM_INLINE void restore_cols(const int scale, double gain, float cos_1deg_sq, int l, int r,
                             const int32_t *restrict oh, const int32_t *restrict ov,
                             const int32_t *restrict od, const int32_t *restrict th,
                             const int32_t *restrict tv, const int32_t *restrict td,
                             int32_t *restrict rh, int32_t *restrict rv, int32_t *restrict rd,
                             int32_t *restrict ah, int32_t *restrict av, int32_t *restrict ad)
{
    for (int j = l; j < r; j++) {
        /* the angle test runs in float/double on values scaled by 1/4096;
         * level 0's products (|x| <= 2^15) and their sums (<= 2^31) are exact
         * in double, so rounding them to float equals rounding the int64 sums */
        float ot_dp, o_mag, t_mag;
        if (scale == 0) {
            ot_dp = (float)((double)oh[j] * th[j] + (double)ov[j] * tv[j]);
            o_mag = (float)((double)oh[j] * oh[j] + (double)ov[j] * ov[j]);
            t_mag = (float)((double)th[j] * th[j] + (double)tv[j] * tv[j]);
        } else {
            ot_dp = (float)((int64_t)oh[j] * th[j] + (int64_t)ov[j] * tv[j]);
            o_mag = (float)((int64_t)oh[j] * oh[j] + (int64_t)ov[j] * ov[j]);
            t_mag = (float)((int64_t)th[j] * th[j] + (int64_t)tv[j] * tv[j]);
        }
        const double dp = ot_dp / 4096.0;
        /* both comparisons evaluated (&, not &&): a loop without branches */
        const int angle =
            (dp >= 0.0f) & (dp * dp >= cos_1deg_sq * (o_mag / 4096.0) * (t_mag / 4096.0));
        const int32_t xh = restored(scale, oh[j], th[j], rh[j], ah[j], angle, gain);
        const int32_t xv = restored(scale, ov[j], tv[j], rv[j], av[j], angle, gain);
        const int32_t xd = restored(scale, od[j], td[j], rd[j], ad[j], angle, gain);
        rh[j] = xh;
        rv[j] = xv;
        rd[j] = xd;
        ah[j] = additive(scale, th[j], xh);
        av[j] = additive(scale, tv[j], xv);
        ad[j] = additive(scale, td[j], xd);
    }
}

ADM_INLINE void decouple_cols(const int scale, const int32_t *div_lookup, double gain, int l, int r,
                              const int32_t *const o[3], const int32_t *const t[3],
                              int32_t *const rst[3], int32_t *const add[3])
{
    for (int b = 0; b < 3; b++)
        ratio_row(scale, div_lookup, l, r, o[b], t[b], rst[b], add[b]);
    restore_cols(scale, gain, adm_cos_1deg_sq(), l, r, o[BAND_H], o[BAND_V], o[BAND_D], t[BAND_H],
                 t[BAND_V], t[BAND_D], rst[BAND_H], rst[BAND_V], rst[BAND_D], add[BAND_H],
                 add[BAND_V], add[BAND_D]);
}

ADM_FP_CLONES void adm_decouple_row(int scale, const int32_t *div_lookup, double gain, int l, int r,
                                    const int32_t *const o[3], const int32_t *const t[3],
                                    int32_t *const rst[3], int32_t *const add[3])
{
    if (scale == 0)
        decouple_cols(0, div_lookup, gain, l, r, o, t, rst, add);
    else
        decouple_cols(1, div_lookup, gain, l, r, o, t, rst, add);
}
