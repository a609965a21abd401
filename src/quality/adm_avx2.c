/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hand-written AVX2 row passes of the integer ADM (adm_ref.c picks them at
 * run time): the same integers as the C reference's (adm_dwt.c,
 * adm_decouple.c, adm_sums.c) for every input, by construction. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quality/adm.h"
#include "quality/adm_rows.h"

/* The double steps must round as the reference's: no contraction (the
 * "avx2" target has no FMA; clang is told too). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Set once (pthread_once) and only read after: the CPU's AVX2 and the
 * environment's FOVEA_SIMD. */
static int cpu_avx2 = 0, simd_on = 0;
static pthread_once_t simd_once = PTHREAD_ONCE_INIT;

static void simd_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    cpu_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    const char *e = getenv("FOVEA_SIMD");
    simd_on = cpu_avx2 && !(e && strcmp(e, "0") == 0);
}

int adm_simd_default(void)
{
    pthread_once(&simd_once, simd_init);
    return simd_on;
}

int adm_simd_cpu(void)
{
    pthread_once(&simd_once, simd_init);
    return cpu_avx2;
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

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

/* The low 32 bits of the four 64-bit lanes of x, in order, as 128 bits. The
 * low 32 bits of an arithmetic shift right are those of a logical one (up to
 * 32 bits of shift), so (int32_t)(v >> s) never needs a 64-bit sign shift. */
AVX2 static inline __m128i low32(__m256i x)
{
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, idx));
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

/* ---------------------------------------------------------------- decoupling
 *
 * Four columns at a time: int32 values in 128-bit vectors, their 64-bit
 * products in 256-bit ones, the float and double steps of the angle test
 * and the gain limit in four doubles, each operation as the reference's
 * (adm_decouple.c), in its order. */

/* The low 32 bits of four 64-bit lanes (see low32). */
#define LOW32(x) low32(x)

/* k = clamp(t / o, 0, 1) in Q15 through the reciprocal table, as
 * ratio_q15: p is the rounded 64-bit product, cnt its shift. A negative p
 * clamps to 0; otherwise the logical shift is the arithmetic one. */
AVX2 static inline __m128i clamp_ratio(__m256i p, __m256i cnt, __m128i o)
{
    const __m256i q15 = _mm256_set1_epi64x(32768);
    const __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
    __m256i k = _mm256_srlv_epi64(p, cnt);
    k = _mm256_blendv_epi8(k, q15, _mm256_cmpgt_epi64(k, q15));
    k = _mm256_andnot_si256(neg, k);
    const __m128i zero = _mm_cmpeq_epi32(o, _mm_setzero_si128());
    return _mm_blendv_epi8(LOW32(k), _mm_set1_epi32(32768), zero);
}

/* Levels 1..3: |o| rounded to its 15 leading bits (sh = the bits of |o| >>
 * 15, from the exponent of its exact float), the table read at o's sign
 * times that, the shift undone after the multiply; x = k*o rounded in 64
 * bits, its low 32 bits. */
AVX2 static inline __m128i ratio1(const int32_t *div, __m128i o, __m128i t, __m128i *x)
{
    const __m128i ao = _mm_abs_epi32(o); /* 2^31 for INT32_MIN, as uint32 */
    const __m128i top = _mm_srli_epi32(ao, 15);
    const __m128i e = _mm_sub_epi32(_mm_srli_epi32(_mm_castps_si128(_mm_cvtepi32_ps(top)), 23),
                                    _mm_set1_epi32(126));
    const __m128i sh = _mm_max_epi32(e, _mm_setzero_si128());
    const __m128i half = _mm_srli_epi32(_mm_sllv_epi32(_mm_set1_epi32(1), sh), 1);
    const __m128i m = _mm_srlv_epi32(_mm_add_epi32(ao, half), sh);
    const __m128i d = _mm_i32gather_epi32(div + 32768, _mm_sign_epi32(m, o), 4);
    const __m256i sh64 = _mm256_cvtepi32_epi64(sh);
    const __m256i rnd =
        _mm256_sllv_epi64(_mm256_set1_epi64x(1), _mm256_add_epi64(sh64, _mm256_set1_epi64x(14)));
    const __m256i p =
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_cvtepi32_epi64(d), _mm256_cvtepi32_epi64(t)), rnd);
    const __m128i k = clamp_ratio(p, _mm256_add_epi64(sh64, _mm256_set1_epi64x(15)), o);
    const __m256i ko =
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_cvtepi32_epi64(k), _mm256_cvtepi32_epi64(o)),
                         _mm256_set1_epi64x(16384));
    *x = LOW32(_mm256_srli_epi64(ko, 15));
    return k;
}

/* (float)(a*b + c*d) of int32 values in 64 bits (wrapping), rounded once.
 * AVX2 has no int64 to float: sums in [-2^51, 2^51) go through a double
 * exactly (the bits of s + 1.5 * 2^52, less that), then to float (one
 * rounding); larger ones are converted one by one. */
AVX2 static inline __m128 dot32_ps(__m128i a, __m128i b, __m128i c, __m128i d)
{
    const __m256i s =
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_cvtepi32_epi64(a), _mm256_cvtepi32_epi64(b)),
                         _mm256_mul_epi32(_mm256_cvtepi32_epi64(c), _mm256_cvtepi32_epi64(d)));
    const __m256i biased = _mm256_add_epi64(s, _mm256_set1_epi64x((int64_t)1 << 51));
    if (_mm256_testz_si256(biased, _mm256_set1_epi64x(~(((int64_t)1 << 52) - 1)))) {
        const __m256i magic = _mm256_set1_epi64x(0x4338000000000000);
        const __m256d v = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(s, magic)),
                                        _mm256_castsi256_pd(magic));
        return _mm256_cvtpd_ps(v);
    }
    int64_t v[4];
    _mm256_storeu_si256((__m256i *)(void *)v, s);
    return _mm_setr_ps((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
}

/* The restored value of a band (see restored in adm_decouple.c): x = k*o
 * rounded, ok the angle test's mask. */
AVX2 static inline __m128i restore4(int scale, __m128i o, __m128i t, __m128i x, __m128i k,
                                    __m128i ok, __m256d gain)
{
    const __m256d g = _mm256_mul_pd(_mm256_cvtepi32_pd(x), gain);
    const __m256d td = _mm256_cvtepi32_pd(t);
    const __m256d up = _mm256_blendv_pd(td, g, _mm256_cmp_pd(g, td, _CMP_LT_OQ));
    const __m256d dn = _mm256_blendv_pd(td, g, _mm256_cmp_pd(g, td, _CMP_GT_OQ));
    const __m256i pos = _mm256_cvtepi32_epi64(_mm_cmpgt_epi32(o, _mm_setzero_si128()));
    const __m256d v = _mm256_blendv_pd(dn, up, _mm256_castsi256_pd(pos));
    __m128i e = _mm256_cvttpd_epi32(v);
    if (scale == 0)
        e = _mm_srai_epi32(_mm_slli_epi32(e, 16), 16);
    const __m128i zero = _mm_setzero_si128();
    const __m128i use =
        _mm_andnot_si128(_mm_cmpeq_epi32(o, zero), _mm_and_si128(ok, _mm_cmpgt_epi32(k, zero)));
    return _mm_blendv_epi8(x, e, use);
}

AVX2 static inline __m128i load4(const int32_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

AVX2 static inline void store4(int32_t *p, __m128i v)
{
    _mm_storeu_si128((__m128i *)(void *)p, v);
}

/* Level 0's k for eight columns, in 32-bit lanes: with the table entry d =
 * dh * 2^15 + dl (dh = d >> 15, 0 <= dl < 2^15), (d*t + 2^14) >> 15 is
 * dh*t + ((dl*t + 2^14) >> 15) exactly, and every term fits 32 bits
 * (|dh|, |t| <= 2^15). x = k*o rounded, kept int16. */
AVX2 static inline __m256i ratio0_8(const int32_t *div, __m256i o, __m256i t, __m256i *x)
{
    const __m256i d = _mm256_i32gather_epi32(div + 32768, o, 4);
    const __m256i dh = _mm256_srai_epi32(d, 15), dl = _mm256_and_si256(d, _mm256_set1_epi32(32767));
    const __m256i r14 = _mm256_set1_epi32(16384), q15 = _mm256_set1_epi32(32768);
    __m256i k =
        _mm256_add_epi32(_mm256_mullo_epi32(dh, t),
                         _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(dl, t), r14), 15));
    k = _mm256_min_epi32(_mm256_max_epi32(k, _mm256_setzero_si256()), q15);
    k = _mm256_blendv_epi8(k, q15, _mm256_cmpeq_epi32(o, _mm256_setzero_si256()));
    const __m256i ko = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(k, o), r14), 15);
    *x = _mm256_srai_epi32(_mm256_slli_epi32(ko, 16), 16);
    return k;
}

/* (float)(a*b + c*d) of int16 values: pmaddwd's int32 sum is exact but for
 * the one sum that wraps, 2 * (-2^15)^2 = 2^31, which reads INT32_MIN (no
 * other sum gives it); converted with the reference's rounding. */
AVX2 static inline __m256 dot16_8(__m256i a, __m256i b, __m256i c, __m256i d)
{
    const __m256i ac = _mm256_blend_epi16(a, _mm256_slli_epi32(c, 16), 0xAA);
    const __m256i bd = _mm256_blend_epi16(b, _mm256_slli_epi32(d, 16), 0xAA);
    const __m256i s = _mm256_madd_epi16(ac, bd);
    const __m256i wrap = _mm256_cmpeq_epi32(s, _mm256_set1_epi32(INT32_MIN));
    return _mm256_blendv_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(2147483648.0f),
                            _mm256_castsi256_ps(wrap));
}

/* The angle test of four columns from its float sums (see restore_cols). */
AVX2 static inline __m128i angle4(__m128 ot_dp, __m128 o_mag, __m128 t_mag)
{
    const __m256d cos_sq = _mm256_set1_pd((double)adm_cos_1deg_sq());
    const __m256d inv4096 = _mm256_set1_pd(1.0 / 4096.0);
    /* x / 4096.0 is x * 2^-12 exactly (no subnormals here) */
    const __m256d dp = _mm256_mul_pd(_mm256_cvtps_pd(ot_dp), inv4096);
    const __m256d rhs =
        _mm256_mul_pd(_mm256_mul_pd(cos_sq, _mm256_mul_pd(_mm256_cvtps_pd(o_mag), inv4096)),
                      _mm256_mul_pd(_mm256_cvtps_pd(t_mag), inv4096));
    const __m256d angle = _mm256_and_pd(_mm256_cmp_pd(dp, _mm256_setzero_pd(), _CMP_GE_OQ),
                                        _mm256_cmp_pd(_mm256_mul_pd(dp, dp), rhs, _CMP_GE_OQ));
    return LOW32(_mm256_castpd_si256(angle));
}

/* The restored value with an integer gain limit g (libvmaf's defaults 100
 * and its v1 models' 1): (double)x * g is then exact and truncates to
 * itself, so the limited value is min(x*g, t) where o > 0 (x, t >= 0 where
 * it is used) and max(x*g, t) where o < 0, in 32-bit lanes (|x| <= 2^15 at
 * level 0, g <= 100; above, g == 1 only). */
AVX2 static inline __m256i restore8_int(__m256i o, __m256i t, __m256i x, __m256i k, __m256i ok,
                                        int g)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i xg = g == 1 ? x : _mm256_mullo_epi32(x, _mm256_set1_epi32(g));
    const __m256i v = _mm256_blendv_epi8(_mm256_max_epi32(xg, t), _mm256_min_epi32(xg, t),
                                         _mm256_cmpgt_epi32(o, zero));
    const __m256i use = _mm256_andnot_si256(_mm256_cmpeq_epi32(o, zero),
                                            _mm256_and_si256(ok, _mm256_cmpgt_epi32(k, zero)));
    return _mm256_blendv_epi8(x, v, use);
}

/* gain as an integer when it is one (1..100), else 0. */
static inline int integer_gain(double gain)
{
    return gain >= 1.0 && gain <= 100.0 && gain == (double)(int)gain ? (int)gain : 0;
}

#define LO128(v) _mm256_castsi256_si128(v)
#define HI128(v) _mm256_extracti128_si256(v, 1)

/* Level 0, eight columns at a time. */
AVX2 static void decouple0(const int32_t *div, double gain, int l, int r, const int32_t *const o[3],
                           const int32_t *const t[3], int32_t *const rst[3], int32_t *const add[3])
{
    const __m256d vgain = _mm256_set1_pd(gain);
    const int gi = integer_gain(gain);
    int j = l;
    for (; j + 8 <= r; j += 8) {
        __m256i ov[3], tv[3], x[3], k[3];
        for (int b = 0; b < 3; b++) {
            ov[b] = _mm256_loadu_si256((const __m256i *)(const void *)(o[b] + j));
            tv[b] = _mm256_loadu_si256((const __m256i *)(const void *)(t[b] + j));
            k[b] = ratio0_8(div, ov[b], tv[b], &x[b]);
        }
        const __m256 ot_dp = dot16_8(ov[BAND_H], tv[BAND_H], ov[BAND_V], tv[BAND_V]);
        const __m256 o_mag = dot16_8(ov[BAND_H], ov[BAND_H], ov[BAND_V], ov[BAND_V]);
        const __m256 t_mag = dot16_8(tv[BAND_H], tv[BAND_H], tv[BAND_V], tv[BAND_V]);
        const __m128i ok0 = angle4(_mm256_castps256_ps128(ot_dp), _mm256_castps256_ps128(o_mag),
                                   _mm256_castps256_ps128(t_mag));
        const __m128i ok1 = angle4(_mm256_extractf128_ps(ot_dp, 1), _mm256_extractf128_ps(o_mag, 1),
                                   _mm256_extractf128_ps(t_mag, 1));
        const __m256i ok = _mm256_inserti128_si256(_mm256_castsi128_si256(ok0), ok1, 1);
        for (int b = 0; b < 3; b++) {
            __m256i e;
            if (gi) {
                e = restore8_int(ov[b], tv[b], x[b], k[b], ok, gi);
            } else {
                const __m128i e0 =
                    restore4(0, LO128(ov[b]), LO128(tv[b]), LO128(x[b]), LO128(k[b]), ok0, vgain);
                const __m128i e1 =
                    restore4(0, HI128(ov[b]), HI128(tv[b]), HI128(x[b]), HI128(k[b]), ok1, vgain);
                e = _mm256_inserti128_si256(_mm256_castsi128_si256(e0), e1, 1);
            }
            const __m256i a = _mm256_sub_epi32(tv[b], e);
            _mm256_storeu_si256((__m256i *)(void *)(rst[b] + j), e);
            _mm256_storeu_si256((__m256i *)(void *)(add[b] + j),
                                _mm256_srai_epi32(_mm256_slli_epi32(a, 16), 16));
        }
    }
    if (j < r)
        adm_decouple_row(0, div, gain, j, r, o, t, rst, add);
}

/* Levels 1..3, four columns at a time. */
AVX2 static void decouple1(const int32_t *div, double gain, int l, int r, const int32_t *const o[3],
                           const int32_t *const t[3], int32_t *const rst[3], int32_t *const add[3])
{
    const __m256d vgain = _mm256_set1_pd(gain);
    const int g1 = gain == 1.0;
    int j = l;
    for (; j + 4 <= r; j += 4) {
        __m128i ov[3], tv[3], x[3], k[3];
        for (int b = 0; b < 3; b++) {
            ov[b] = load4(o[b] + j);
            tv[b] = load4(t[b] + j);
            k[b] = ratio1(div, ov[b], tv[b], &x[b]);
        }
        const __m128i ok = angle4(dot32_ps(ov[BAND_H], tv[BAND_H], ov[BAND_V], tv[BAND_V]),
                                  dot32_ps(ov[BAND_H], ov[BAND_H], ov[BAND_V], ov[BAND_V]),
                                  dot32_ps(tv[BAND_H], tv[BAND_H], tv[BAND_V], tv[BAND_V]));
        for (int b = 0; b < 3; b++) {
            const __m128i e = g1 ? _mm256_castsi256_si128(restore8_int(
                                       _mm256_castsi128_si256(ov[b]), _mm256_castsi128_si256(tv[b]),
                                       _mm256_castsi128_si256(x[b]), _mm256_castsi128_si256(k[b]),
                                       _mm256_castsi128_si256(ok), 1))
                                 : restore4(1, ov[b], tv[b], x[b], k[b], ok, vgain);
            store4(rst[b] + j, e);
            store4(add[b] + j, _mm_sub_epi32(tv[b], e));
        }
    }
    if (j < r)
        adm_decouple_row(1, div, gain, j, r, o, t, rst, add);
}

AVX2 void adm_decouple_row_avx2(int scale, const int32_t *div_lookup, double gain, int l, int r,
                                const int32_t *const o[3], const int32_t *const t[3],
                                int32_t *const rst[3], int32_t *const add[3])
{
    if (scale == 0)
        decouple0(div_lookup, gain, l, r, o, t, rst, add);
    else
        decouple1(div_lookup, gain, l, r, o, t, rst, add);
}

/* ---------------------------------------------------------------- masking and sums
 *
 * Eight columns at a time; the 64-bit steps on the even columns (the low
 * halves of the 64-bit lanes) and the odd ones (shifted down) separately. */

/* Arithmetic shift right of 64-bit lanes (AVX2 has the logical one only). */
AVX2 static inline __m256i srai64(__m256i v, __m128i n)
{
    const __m256i s = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(v, s), n), s);
}

/* (int64_t)x * q of x's low halves (signed) and an unsigned 32-bit q: the
 * signed product with q read as int32, plus x * 2^32 where q >= 2^31. */
AVX2 static inline __m256i mul_s32_u32(__m256i x, uint32_t q)
{
    const __m256i p = _mm256_mul_epi32(x, _mm256_set1_epi64x((int64_t)q));
    return q >> 31 ? _mm256_add_epi64(p, _mm256_slli_epi64(x, 32)) : p;
}

/* The masker's rows of eight columns (mask_cols in adm_sums.c). */
AVX2 static inline void mask8(const int scale, const uint32_t q[3], const int32_t *const src[3],
                              int j, int32_t *f, int32_t *c)
{
    __m256i fs = _mm256_setzero_si256(), cs = _mm256_setzero_si256();
    for (int b = 0; b < 3; b++) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(src[b] + j));
        if (scale == 0) {
            const int sh = b == 2 ? 17 : 15, rnd = b == 2 ? 65535 : 16384;
            __m256i v = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_set1_epi32((int32_t)q[b]), x),
                                         _mm256_set1_epi32(rnd));
            v = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_srai_epi32(v, sh), 16), 16);
            const __m256i a = _mm256_abs_epi32(v);
            const __m256i r = _mm256_set1_epi32(2048);
            __m256i fa = _mm256_srai_epi32(
                _mm256_add_epi32(_mm256_mullo_epi32(a, _mm256_set1_epi32(4369)), r), 12);
            __m256i ca = _mm256_srai_epi32(
                _mm256_add_epi32(_mm256_mullo_epi32(a, _mm256_set1_epi32(8738)), r), 12);
            fa = _mm256_srai_epi32(_mm256_slli_epi32(fa, 16), 16);
            ca = _mm256_srai_epi32(_mm256_slli_epi32(ca, 16), 16);
            fs = _mm256_add_epi32(fs, fa);
            cs = _mm256_add_epi32(cs, ca);
        } else {
            /* v = (int32_t)((x * q + 2^27) >> 28): the low 32 bits of a
             * logical shift are those of the arithmetic one */
            const __m256i rnd = _mm256_set1_epi64x(1 << 27);
            const __m256i ve = _mm256_srli_epi64(_mm256_add_epi64(mul_s32_u32(x, q[b]), rnd), 28);
            const __m256i vo = _mm256_srli_epi64(
                _mm256_add_epi64(mul_s32_u32(_mm256_srli_epi64(x, 32), q[b]), rnd), 28);
            const __m256i v = _mm256_blend_epi32(ve, _mm256_slli_epi64(vo, 32), 0xAA);
            const __m256i a = _mm256_abs_epi32(v); /* INT32_MIN stays */
            /* (k * a - 2^31) >> 32: the high halves of the 64-bit results */
            const __m256i m31 = _mm256_set1_epi64x(-((int64_t)1 << 31));
            const __m256i k30 = _mm256_set1_epi64x(143165577), k15 = _mm256_set1_epi64x(286331153);
            const __m256i ao = _mm256_srli_epi64(a, 32);
            const __m256i fe = _mm256_add_epi64(_mm256_mul_epi32(a, k30), m31);
            const __m256i fo = _mm256_add_epi64(_mm256_mul_epi32(ao, k30), m31);
            const __m256i ce = _mm256_add_epi64(_mm256_mul_epi32(a, k15), m31);
            const __m256i co = _mm256_add_epi64(_mm256_mul_epi32(ao, k15), m31);
            fs = _mm256_add_epi32(fs, _mm256_blend_epi32(_mm256_srli_epi64(fe, 32), fo, 0xAA));
            cs = _mm256_add_epi32(cs, _mm256_blend_epi32(_mm256_srli_epi64(ce, 32), co, 0xAA));
        }
    }
    _mm256_storeu_si256((__m256i *)(void *)(f + j), fs);
    _mm256_storeu_si256((__m256i *)(void *)(c + j), cs);
}

AVX2 void adm_mask_row_avx2(int scale, const uint32_t q[3], int l, int r,
                            const int32_t *const src[3], int32_t *f, int32_t *c)
{
    int j = l;
    if (scale == 0)
        for (; j + 8 <= r; j += 8)
            mask8(0, q, src, j, f, c);
    else
        for (; j + 8 <= r; j += 8)
            mask8(1, q, src, j, f, c);
    if (j < r)
        adm_mask_row(scale, q, j, r, src, f, c);
}

/* The cubed, masked terms of one band at eight columns (num_term in
 * adm_sums.c), summed into the 64-bit lanes of acc. */
AVX2 static inline __m256i num8(const int scale, int b, uint32_t q, __m256i r, __m256i thr,
                                __m128i sh_cub, __m256i rnd_cub, __m256i acc)
{
    __m256i x;
    __m128i sh_sq;
    __m256i rnd_sq;
    if (scale == 0) {
        const int sub = b == 2 ? 12 : 10, shq = b == 2 ? 30 : 29;
        const __m256i xv = _mm256_mullo_epi32(r, _mm256_set1_epi32((int32_t)q));
        x = _mm256_sub_epi32(_mm256_abs_epi32(xv), _mm256_slli_epi32(thr, sub));
        sh_sq = _mm_cvtsi32_si128(shq);
        rnd_sq = _mm256_set1_epi64x((int64_t)1 << (shq - 1));
    } else {
        const __m256i rnd = _mm256_set1_epi64x(1 << 27);
        const __m256i ve = _mm256_srli_epi64(_mm256_add_epi64(mul_s32_u32(r, q), rnd), 28);
        const __m256i vo =
            _mm256_srli_epi64(_mm256_add_epi64(mul_s32_u32(_mm256_srli_epi64(r, 32), q), rnd), 28);
        const __m256i xv = _mm256_blend_epi32(ve, _mm256_slli_epi64(vo, 32), 0xAA);
        x = _mm256_sub_epi32(_mm256_abs_epi32(xv), thr);
        sh_sq = _mm_cvtsi32_si128(30);
        rnd_sq = _mm256_set1_epi64x((int64_t)1 << 29);
    }
    x = _mm256_max_epi32(x, _mm256_setzero_si256());
    const __m256i xo = _mm256_srli_epi64(x, 32);
    /* x_sq = (int32_t)((x * x + rnd) >> sh), x >= 0: its low 32 bits */
    const __m256i qe = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(x, x), rnd_sq), sh_sq);
    const __m256i qo = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(xo, xo), rnd_sq), sh_sq);
    /* (int64_t)x_sq * x, x_sq signed */
    const __m256i te = srai64(_mm256_add_epi64(_mm256_mul_epi32(qe, x), rnd_cub), sh_cub);
    const __m256i to = srai64(_mm256_add_epi64(_mm256_mul_epi32(qo, xo), rnd_cub), sh_cub);
    return _mm256_add_epi64(acc, _mm256_add_epi64(te, to));
}

AVX2 static inline int64_t hsum64(__m256i v)
{
    int64_t t[4];
    _mm256_storeu_si256((__m256i *)(void *)t, v);
    return (int64_t)((uint64_t)t[0] + (uint64_t)t[1] + (uint64_t)t[2] + (uint64_t)t[3]);
}

/* The numerator sums of a row's scored columns (num_cols in adm_sums.c); the
 * integer sums are the same in any order. */
AVX2 static inline void num_cols8(const int scale, const adm_level *L, const int32_t *const x[3],
                                  const int32_t *m, const int32_t *z, const int32_t *p,
                                  const int32_t *c, int64_t inner[3])
{
    __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    __m128i sh[3];
    __m256i rnd[3];
    for (int b = 0; b < 3; b++) {
        sh[b] = _mm_cvtsi32_si128((int)L->num_cub_shift[b]);
        rnd[b] = _mm256_set1_epi64x(L->num_cub_round[b]);
    }
    int j = L->sl;
    for (; j + 8 <= L->sr; j += 8) {
#define LD(ptr) _mm256_loadu_si256((const __m256i *)(const void *)(ptr))
        __m256i t = _mm256_add_epi32(_mm256_add_epi32(LD(m + j - 1), LD(m + j)), LD(m + j + 1));
        t = _mm256_add_epi32(t, _mm256_add_epi32(LD(z + j - 1), LD(z + j + 1)));
        t = _mm256_add_epi32(t, _mm256_add_epi32(LD(p + j - 1), LD(p + j)));
        t = _mm256_add_epi32(t, _mm256_add_epi32(LD(p + j + 1), LD(c + j)));
        for (int b = 0; b < 3; b++)
            acc[b] = num8(scale, b, L->q[b], LD(x[b] + j), t, sh[b], rnd[b], acc[b]);
#undef LD
    }
    for (int b = 0; b < 3; b++)
        inner[b] = hsum64(acc[b]);
    if (j < L->sr) {
        /* the last columns by the reference, on a copy of L with those only */
        adm_level T = *L;
        int64_t rest[3] = {0, 0, 0};
        T.sl = j;
        T.num_row_round = 0;
        T.num_row_shift = 0;
        adm_num_row(&T, x, m, z, p, c, rest);
        for (int b = 0; b < 3; b++)
            inner[b] = (int64_t)((uint64_t)inner[b] + (uint64_t)rest[b]);
    }
}

AVX2 void adm_num_row_avx2(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                           const int32_t *f0, const int32_t *fp, const int32_t *c, int64_t accum[3])
{
    int64_t inner[3];
    if (L->scale == 0)
        num_cols8(0, L, x, fm, f0, fp, c, inner);
    else
        num_cols8(1, L, x, fm, f0, fp, c, inner);
    for (int b = 0; b < 3; b++)
        accum[b] += (inner[b] + L->num_row_round) >> L->num_row_shift;
}

/* The denominator's row sums (adm_den_row in adm_sums.c), eight columns at
 * a time, the cubes in unsigned 64-bit lanes (even and odd columns). */
AVX2 static inline __m256i den8_0(__m256i x, __m256i acc)
{
    const __m256i a = _mm256_and_si256(_mm256_abs_epi32(x), _mm256_set1_epi32(0xffff));
    const __m256i sq = _mm256_mullo_epi32(a, a); /* <= 2^30 */
    acc = _mm256_add_epi64(acc, _mm256_mul_epu32(sq, a));
    return _mm256_add_epi64(acc,
                            _mm256_mul_epu32(_mm256_srli_epi64(sq, 32), _mm256_srli_epi64(a, 32)));
}

/* ((a*a + 2^sq) >> sq) * a in wrapping uint64 (a < 2^32 in the low half:
 * the product of the 64-bit square by a from its two halves), rounded. */
AVX2 static inline __m256i den_cube(__m256i a, __m128i sq, __m256i rsq, __m128i sh, __m256i rnd)
{
    const __m256i t = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, a), rsq), sq);
    const __m256i ta =
        _mm256_add_epi64(_mm256_mul_epu32(t, a),
                         _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(t, 32), a), 32));
    return _mm256_srl_epi64(_mm256_add_epi64(ta, rnd), sh);
}

AVX2 void adm_den_row_avx2(const adm_level *L, const int32_t *const o[3], int64_t accum[3])
{
    for (int b = 0; b < 3; b++) {
        const int32_t *x = o[b];
        __m256i acc = _mm256_setzero_si256();
        int j = L->sl;
        if (L->scale == 0) {
            for (; j + 8 <= L->sr; j += 8)
                acc = den8_0(_mm256_loadu_si256((const __m256i *)(const void *)(x + j)), acc);
        } else {
            const __m128i sq = _mm_cvtsi32_si128((int)L->den_sq);
            const __m128i sh = _mm_cvtsi32_si128((int)L->den_cub_shift);
            const __m256i rsq = _mm256_set1_epi64x((int64_t)((uint64_t)1 << L->den_sq));
            const __m256i rnd = _mm256_set1_epi64x((int64_t)L->den_cub_round);
            for (; j + 8 <= L->sr; j += 8) {
                const __m256i a =
                    _mm256_abs_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(x + j)));
                acc = _mm256_add_epi64(acc, den_cube(a, sq, rsq, sh, rnd));
                acc = _mm256_add_epi64(acc, den_cube(_mm256_srli_epi64(a, 32), sq, rsq, sh, rnd));
            }
        }
        uint64_t inner = (uint64_t)hsum64(acc);
        /* the last columns by the reference, on a copy of L with those only */
        if (j < L->sr) {
            adm_level T = *L;
            const int32_t *one[3] = {x, x, x};
            int64_t rest[3] = {0, 0, 0};
            T.sl = j;
            T.den_row_round = 0;
            T.den_row_shift = 0;
            adm_den_row(&T, one, rest);
            inner += (uint64_t)rest[0];
        }
        accum[b] = (int64_t)((uint64_t)accum[b] + ((inner + L->den_row_round) >> L->den_row_shift));
    }
}

#endif
