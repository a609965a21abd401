/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hand-written AVX2 version of the integer ADM's DWT row (both passes; the
 * reference is adm_dwt.c): the same integers for every input. adm_ref.c
 * calls it where adm_simd_default() allows (adm_avx2.c). */
#include <stdint.h>

#include "quality/adm.h"
#include "quality/adm_avx2.h"
#include "quality/adm_rows.h"

#if defined(__x86_64__) || defined(__i386__)

/* db2 in Q15, as adm_dwt.c's */
static const int32_t lo_q15[4] = {15826, 27411, 7345, -4240};
static const int32_t hi_q15[4] = {-4240, -7345, 27411, -15826};

/* Two Q15 taps as the int16 pair of a pmaddwd operand. */
AVX2 static inline __m256i tap_pair(int32_t c0, int32_t c1)
{
    return _mm256_set1_epi32((int32_t)(((uint32_t)c1 << 16) | ((uint32_t)c0 & 0xffff)));
}

/* ---------------------------------------------------------------- level 0
 *
 * Level 0's samples are centered first, s - 2^(bpc-1), which fits int16 at
 * every depth: the low-pass sum then equals the reference's (sum - sub +
 * add) since the low-pass taps sum to 46342 (sub = 46342 * 2^(bpc-1)), and
 * the high-pass taps sum to 0. Every sum of int16 values times Q15 taps is
 * at most 54822 * 2^15 < 2^31, so pmaddwd's 32-bit sums are exact; the
 * results (<= 27411 in magnitude) fit int16 and are kept as int16 rows. */

/* One column of the vertical pass of level 0, centered samples c[4]. */
static inline void v0_col(const int32_t c[4], int bpc, int16_t *lo, int16_t *hi)
{
    int32_t l = 0, h = 0;
    for (int k = 0; k < 4; k++) {
        l += lo_q15[k] * c[k];
        h += hi_q15[k] * c[k];
    }
    const int32_t add = 1 << (bpc - 1);
    *lo = (int16_t)((l + add) >> bpc);
    *hi = (int16_t)((h + add) >> bpc);
}

/* The low and high sums of 16 columns of centered int16 rows c0..c3, shifted
 * and packed to int16 in column order. */
AVX2 static inline void v0_sums(__m256i c0, __m256i c1, __m256i c2, __m256i c3, __m128i sh,
                                __m256i add, int16_t *lo, int16_t *hi)
{
    const __m256i l01 = tap_pair(lo_q15[0], lo_q15[1]), l23 = tap_pair(lo_q15[2], lo_q15[3]);
    const __m256i h01 = tap_pair(hi_q15[0], hi_q15[1]), h23 = tap_pair(hi_q15[2], hi_q15[3]);
    /* unpacklo: columns 0-3 and 8-11; unpackhi: 4-7 and 12-15; packs puts
     * them back in order */
    const __m256i a0 = _mm256_unpacklo_epi16(c0, c1), b0 = _mm256_unpacklo_epi16(c2, c3);
    const __m256i a1 = _mm256_unpackhi_epi16(c0, c1), b1 = _mm256_unpackhi_epi16(c2, c3);
    __m256i la = _mm256_add_epi32(_mm256_madd_epi16(a0, l01), _mm256_madd_epi16(b0, l23));
    __m256i lb = _mm256_add_epi32(_mm256_madd_epi16(a1, l01), _mm256_madd_epi16(b1, l23));
    __m256i ha = _mm256_add_epi32(_mm256_madd_epi16(a0, h01), _mm256_madd_epi16(b0, h23));
    __m256i hb = _mm256_add_epi32(_mm256_madd_epi16(a1, h01), _mm256_madd_epi16(b1, h23));
    la = _mm256_sra_epi32(_mm256_add_epi32(la, add), sh);
    lb = _mm256_sra_epi32(_mm256_add_epi32(lb, add), sh);
    ha = _mm256_sra_epi32(_mm256_add_epi32(ha, add), sh);
    hb = _mm256_sra_epi32(_mm256_add_epi32(hb, add), sh);
    _mm256_storeu_si256((__m256i *)(void *)lo, _mm256_packs_epi32(la, lb));
    _mm256_storeu_si256((__m256i *)(void *)hi, _mm256_packs_epi32(ha, hb));
}

/* The vertical pass of level 0 into int16 rows. */
AVX2 static void vertical0(int bpc, const uint8_t *const r8[4], int w, int16_t *lo, int16_t *hi)
{
    const __m128i sh = _mm_cvtsi32_si128(bpc);
    const __m256i add = _mm256_set1_epi32(1 << (bpc - 1));
    const int32_t mid = 1 << (bpc - 1);
    int j = 0;
    if (bpc == 8) {
        const __m256i m = _mm256_set1_epi16(128);
        for (; j + 16 <= w; j += 16) {
            __m256i c[4];
            for (int k = 0; k < 4; k++)
                c[k] = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128(
                                            (const __m128i *)(const void *)(r8[k] + j))),
                                        m);
            v0_sums(c[0], c[1], c[2], c[3], sh, add, lo + j, hi + j);
        }
        for (; j < w; j++) {
            const int32_t c[4] = {r8[0][j] - mid, r8[1][j] - mid, r8[2][j] - mid, r8[3][j] - mid};
            v0_col(c, bpc, lo + j, hi + j);
        }
    } else {
        const uint16_t *q[4];
        for (int k = 0; k < 4; k++)
            q[k] = (const uint16_t *)(const void *)r8[k];
        /* s - 2^(bpc-1) in wrapping 16-bit lanes is the centered value (at 16
         * bits too: the result is in [-2^15, 2^15)) */
        const __m256i m = _mm256_set1_epi16((int16_t)(uint16_t)mid);
        for (; j + 16 <= w; j += 16) {
            __m256i c[4];
            for (int k = 0; k < 4; k++)
                c[k] = _mm256_sub_epi16(
                    _mm256_loadu_si256((const __m256i *)(const void *)(q[k] + j)), m);
            v0_sums(c[0], c[1], c[2], c[3], sh, add, lo + j, hi + j);
        }
        for (; j < w; j++) {
            const int32_t c[4] = {q[0][j] - mid, q[1][j] - mid, q[2][j] - mid, q[3][j] - mid};
            v0_col(c, bpc, lo + j, hi + j);
        }
    }
}

/* One output column of level 0's horizontal pass through the mirrored
 * column indices. */
static inline void h0_col(int *const ind[4], const int16_t *lo, const int16_t *hi, int j,
                          int32_t *a, int32_t *v, int32_t *h, int32_t *d)
{
    int32_t ll = 0, lh = 0, hl = 0, hh = 0;
    for (int k = 0; k < 4; k++) {
        const int c = ind[k][j];
        ll += lo_q15[k] * lo[c];
        lh += hi_q15[k] * lo[c];
        hl += lo_q15[k] * hi[c];
        hh += hi_q15[k] * hi[c];
    }
    a[j] = (int16_t)((ll + 32768) >> 16);
    v[j] = (int16_t)((lh + 32768) >> 16);
    h[j] = (int16_t)((hl + 32768) >> 16);
    d[j] = (int16_t)((hh + 32768) >> 16);
}

/* Level 0's horizontal pass: output j reads columns 2j-1 .. 2j+2. A 32-bit
 * lane of the int16 row loaded at 2j - 1 holds the pair of taps 0, 1 of its
 * output, loaded at 2j + 1 the pair of taps 2, 3: two pmaddwd a band. */
AVX2 static void horizontal0(int *const ind[4], const int16_t *lo, const int16_t *hi, int w,
                             int32_t *a, int32_t *v, int32_t *h, int32_t *d)
{
    const int bw = (w + 1) / 2;
    const int j0 = bw < 1 ? bw : 1;
    const int j1 = (w - 1) / 2 > j0 ? (w - 1) / 2 : j0;
    const __m256i l01 = tap_pair(lo_q15[0], lo_q15[1]), l23 = tap_pair(lo_q15[2], lo_q15[3]);
    const __m256i h01 = tap_pair(hi_q15[0], hi_q15[1]), h23 = tap_pair(hi_q15[2], hi_q15[3]);
    const __m256i rnd = _mm256_set1_epi32(32768);
    int j = 0;
    for (; j < j0; j++)
        h0_col(ind, lo, hi, j, a, v, h, d);
    for (; j + 8 <= j1; j += 8) {
        const __m256i la = _mm256_loadu_si256((const __m256i *)(const void *)(lo + 2 * j - 1));
        const __m256i lb = _mm256_loadu_si256((const __m256i *)(const void *)(lo + 2 * j + 1));
        const __m256i ha = _mm256_loadu_si256((const __m256i *)(const void *)(hi + 2 * j - 1));
        const __m256i hb = _mm256_loadu_si256((const __m256i *)(const void *)(hi + 2 * j + 1));
        const __m256i ll = _mm256_add_epi32(_mm256_madd_epi16(la, l01), _mm256_madd_epi16(lb, l23));
        const __m256i lh = _mm256_add_epi32(_mm256_madd_epi16(la, h01), _mm256_madd_epi16(lb, h23));
        const __m256i hl = _mm256_add_epi32(_mm256_madd_epi16(ha, l01), _mm256_madd_epi16(hb, l23));
        const __m256i hh = _mm256_add_epi32(_mm256_madd_epi16(ha, h01), _mm256_madd_epi16(hb, h23));
        _mm256_storeu_si256((__m256i *)(void *)(a + j),
                            _mm256_srai_epi32(_mm256_add_epi32(ll, rnd), 16));
        _mm256_storeu_si256((__m256i *)(void *)(v + j),
                            _mm256_srai_epi32(_mm256_add_epi32(lh, rnd), 16));
        _mm256_storeu_si256((__m256i *)(void *)(h + j),
                            _mm256_srai_epi32(_mm256_add_epi32(hl, rnd), 16));
        _mm256_storeu_si256((__m256i *)(void *)(d + j),
                            _mm256_srai_epi32(_mm256_add_epi32(hh, rnd), 16));
    }
    for (; j < bw; j++)
        h0_col(ind, lo, hi, j, a, v, h, d);
}

/* ---------------------------------------------------------------- levels 1..3 */

/* Level 1's vertical pass reads level 0's approximation band (int16 values
 * in int32 storage) with no rounding: pmaddwd on the rows' low halves, exact
 * as at level 0. */
AVX2 static void vertical1(const int32_t *const r[4], int w, int32_t *lo, int32_t *hi)
{
    const __m256i l01 = tap_pair(lo_q15[0], lo_q15[1]), l23 = tap_pair(lo_q15[2], lo_q15[3]);
    const __m256i h01 = tap_pair(hi_q15[0], hi_q15[1]), h23 = tap_pair(hi_q15[2], hi_q15[3]);
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        __m256i x[4];
        for (int k = 0; k < 4; k++)
            x[k] = _mm256_loadu_si256((const __m256i *)(const void *)(r[k] + j));
        /* (row k, row k + 1) as the int16 pair of each 32-bit lane */
        const __m256i p01 = _mm256_blend_epi16(x[0], _mm256_slli_epi32(x[1], 16), 0xAA);
        const __m256i p23 = _mm256_blend_epi16(x[2], _mm256_slli_epi32(x[3], 16), 0xAA);
        _mm256_storeu_si256(
            (__m256i *)(void *)(lo + j),
            _mm256_add_epi32(_mm256_madd_epi16(p01, l01), _mm256_madd_epi16(p23, l23)));
        _mm256_storeu_si256(
            (__m256i *)(void *)(hi + j),
            _mm256_add_epi32(_mm256_madd_epi16(p01, h01), _mm256_madd_epi16(p23, h23)));
    }
    for (; j < w; j++) {
        int32_t l = 0, h = 0;
        for (int k = 0; k < 4; k++) {
            l += lo_q15[k] * r[k][j];
            h += hi_q15[k] * r[k][j];
        }
        lo[j] = l;
        hi[j] = h;
    }
}

/* Sum of four 64-bit products of the low 32 bits (signed) of x[k]'s 64-bit
 * lanes with the taps c[k]. */
AVX2 static inline __m256i dot4_64(const __m256i x[4], const int32_t c[4])
{
    __m256i s = _mm256_mul_epi32(x[0], _mm256_set1_epi64x(c[0]));
    for (int k = 1; k < 4; k++)
        s = _mm256_add_epi64(s, _mm256_mul_epi32(x[k], _mm256_set1_epi64x(c[k])));
    return s;
}

/* The vertical pass of levels 2 and 3 (int32 inputs, 64-bit sums):
 * (int32_t)((sum + add) >> shift). Even and odd columns in 64-bit lanes. */
AVX2 static void vertical23(const int32_t *const r[4], int w, const adm_dwt_round *vr, int32_t *lo,
                            int32_t *hi)
{
    const __m256i add = _mm256_set1_epi64x(vr->add);
    const __m128i sh = _mm_cvtsi32_si128(vr->shift);
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        __m256i xe[4], xo[4];
        for (int k = 0; k < 4; k++) {
            xe[k] = _mm256_loadu_si256((const __m256i *)(const void *)(r[k] + j));
            xo[k] = _mm256_srli_epi64(xe[k], 32);
        }
        const __m256i le = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xe, lo_q15), add), sh);
        const __m256i lo_ = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xo, lo_q15), add), sh);
        const __m256i he = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xe, hi_q15), add), sh);
        const __m256i ho = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xo, hi_q15), add), sh);
        /* even columns in the low halves, odd ones in the high halves */
        _mm256_storeu_si256((__m256i *)(void *)(lo + j),
                            _mm256_blend_epi32(le, _mm256_slli_epi64(lo_, 32), 0xAA));
        _mm256_storeu_si256((__m256i *)(void *)(hi + j),
                            _mm256_blend_epi32(he, _mm256_slli_epi64(ho, 32), 0xAA));
    }
    for (; j < w; j++) {
        int64_t l = 0, h = 0;
        for (int k = 0; k < 4; k++) {
            l += (int64_t)lo_q15[k] * r[k][j];
            h += (int64_t)hi_q15[k] * r[k][j];
        }
        lo[j] = (int32_t)((l + vr->add) >> vr->shift);
        hi[j] = (int32_t)((h + vr->add) >> vr->shift);
    }
}

/* One output column of the horizontal pass of levels 1..3 through the
 * mirrored column indices. */
static inline void h1_col(int *const ind[4], const int32_t *lo, const int32_t *hi, int j,
                          const adm_dwt_round *hr, int32_t *a, int32_t *v, int32_t *h, int32_t *d)
{
    int64_t ll = 0, lh = 0, hl = 0, hh = 0;
    for (int k = 0; k < 4; k++) {
        const int c = ind[k][j];
        ll += (int64_t)lo_q15[k] * lo[c];
        lh += (int64_t)hi_q15[k] * lo[c];
        hl += (int64_t)lo_q15[k] * hi[c];
        hh += (int64_t)hi_q15[k] * hi[c];
    }
    a[j] = (int32_t)((ll + hr->add) >> hr->shift);
    v[j] = (int32_t)((lh + hr->add) >> hr->shift);
    h[j] = (int32_t)((hl + hr->add) >> hr->shift);
    d[j] = (int32_t)((hh + hr->add) >> hr->shift);
}

/* The horizontal pass of levels 1..3 (int32 inputs, 64-bit sums), four
 * outputs at a time: the 64-bit lane i of the row loaded at 2j - 1 holds tap
 * 0 of output j + i in its low half and tap 1 in its high half; loaded at
 * 2j + 1, taps 2 and 3. */
AVX2 static void horizontal123(int *const ind[4], const int32_t *lo, const int32_t *hi, int w,
                               const adm_dwt_round *hr, int32_t *a, int32_t *v, int32_t *h,
                               int32_t *d)
{
    const int bw = (w + 1) / 2;
    const int j0 = bw < 1 ? bw : 1;
    const int j1 = (w - 1) / 2 > j0 ? (w - 1) / 2 : j0;
    const __m256i add = _mm256_set1_epi64x(hr->add);
    const __m128i sh = _mm_cvtsi32_si128(hr->shift);
    int j = 0;
    for (; j < j0; j++)
        h1_col(ind, lo, hi, j, hr, a, v, h, d);
    for (; j + 4 <= j1; j += 4) {
        __m256i xl[4], xh[4];
        xl[0] = _mm256_loadu_si256((const __m256i *)(const void *)(lo + 2 * j - 1));
        xl[2] = _mm256_loadu_si256((const __m256i *)(const void *)(lo + 2 * j + 1));
        xh[0] = _mm256_loadu_si256((const __m256i *)(const void *)(hi + 2 * j - 1));
        xh[2] = _mm256_loadu_si256((const __m256i *)(const void *)(hi + 2 * j + 1));
        xl[1] = _mm256_srli_epi64(xl[0], 32);
        xl[3] = _mm256_srli_epi64(xl[2], 32);
        xh[1] = _mm256_srli_epi64(xh[0], 32);
        xh[3] = _mm256_srli_epi64(xh[2], 32);
        const __m256i ll = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xl, lo_q15), add), sh);
        const __m256i lh = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xl, hi_q15), add), sh);
        const __m256i hl = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xh, lo_q15), add), sh);
        const __m256i hh = _mm256_srl_epi64(_mm256_add_epi64(dot4_64(xh, hi_q15), add), sh);
        _mm_storeu_si128((__m128i *)(void *)(a + j), low32(ll));
        _mm_storeu_si128((__m128i *)(void *)(v + j), low32(lh));
        _mm_storeu_si128((__m128i *)(void *)(h + j), low32(hl));
        _mm_storeu_si128((__m128i *)(void *)(d + j), low32(hh));
    }
    for (; j < bw; j++)
        h1_col(ind, lo, hi, j, hr, a, v, h, d);
}

AVX2 void adm_dwt_row_avx2(int scale, int bpc, const uint8_t *const r8[4],
                           const int32_t *const r32[4], int w, int *const ind[4],
                           const adm_dwt_round *vr, const adm_dwt_round *hr, int32_t *lo,
                           int32_t *hi, int32_t *a, int32_t *v, int32_t *h, int32_t *d)
{
    if (scale == 0) {
        /* int16 rows in the int32 scratch */
        int16_t *lo16 = (int16_t *)(void *)lo, *hi16 = (int16_t *)(void *)hi;
        vertical0(bpc, r8, w, lo16, hi16);
        horizontal0(ind, lo16, hi16, w, a, v, h, d);
        return;
    }
    if (scale == 1)
        vertical1(r32, w, lo, hi);
    else
        vertical23(r32, w, vr, lo, hi);
    horizontal123(ind, lo, hi, w, hr, a, v, h, d);
}

#endif
