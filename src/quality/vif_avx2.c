/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* AVX2 path of integer VIF's per-pixel statistic (vif_ref.c's row_statistic),
 * eight columns at a time, giving the C reference's integer sums bit for bit.
 * The double operations are the reference's, in its order, one IEEE operation
 * each (no FMA: the target is AVX2 alone). The bit lengths the reference takes
 * with count-leading-zeros come from the exponent of the exactly converted
 * double (every value is below 2^52). */
#include "quality/simd.h"
#include "quality/vif_internal.h"

#if FV_HAVE_AVX2

#include <immintrin.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define AVX2 __attribute__((target("avx2")))

/* 2^52 as a double and as its bits: x | bits is the double 2^52 + x for
 * 0 <= x < 2^52. */
#define TWO52 4503599627370496.0
#define TWO52_BITS 0x4330000000000000LL

/* Bit length of each 64-bit lane minus 16 (0 < x < 2^52): the reference's
 * 16 - clz32 and 48 - clz64. */
AVX2 static inline __m256i bitlen16(__m256i x)
{
    const __m256i magic = _mm256_set1_epi64x(TWO52_BITS);
    const __m256d d =
        _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, magic)), _mm256_set1_pd(TWO52));
    const __m256i e = _mm256_srli_epi64(_mm256_castpd_si256(d), 52);
    return _mm256_sub_epi64(e, _mm256_set1_epi64x(1023 + 15));
}

/* The low 32 bits of four 64-bit lanes. */
AVX2 static inline __m128i low32(__m256i x)
{
    const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, pick));
}

typedef struct quad_out {
    __m128i i_den, i_n1, i_n2; /* table indices, 0 where unused */
} quad_out;

/* Four columns: the floating-point part (gain, residual variance) and the
 * integer logs' exponents, accumulated in 64-bit lanes. */
AVX2 static inline quad_out quad(__m128i s1, __m128i s2, __m128i s12, __m128i big, __m128i use,
                                 __m256d limit, __m256i *k_den, __m256i *k_num)
{
    const __m256d eps = _mm256_set1_pd(65536 * 1.0e-10);
    const __m256d d1 = _mm256_cvtepi32_pd(s1), d2 = _mm256_cvtepi32_pd(s2);
    const __m256d d12 = _mm256_cvtepi32_pd(s12);
    const __m256i big64 = _mm256_cvtepi32_epi64(big), use64 = _mm256_cvtepi32_epi64(use);
    const __m256d g = _mm256_div_pd(d12, _mm256_add_pd(d1, eps));
    const __m256d sv = _mm256_sub_pd(d2, _mm256_mul_pd(g, d12));
    /* min_pd(g, limit) is g < limit ? g : limit: the reference's clamp */
    const __m256d gl = _mm256_min_pd(g, limit);
    const __m256d gg = _mm256_mul_pd(_mm256_mul_pd(gl, gl), d1);
    const __m256d sv_pos = _mm256_cmp_pd(sv, _mm256_setzero_pd(), _CMP_GT_OQ);
    const __m256d svc = _mm256_and_pd(sv, _mm256_and_pd(sv_pos, _mm256_castsi256_pd(use64)));
    const __m128i svq = _mm256_cvttpd_epi32(svc);
    /* gg < 2^45 where used: truncated, then its integer bits via 2^52 */
    const __m256d ggt = _mm256_round_pd(_mm256_and_pd(gg, _mm256_castsi256_pd(use64)),
                                        _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256i gg_int =
        _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(ggt, _mm256_set1_pd(TWO52))),
                         _mm256_set1_epi64x(TWO52_BITS));

    const __m128i nsq = _mm_set1_epi32(2 << 16);
    const __m256i a = _mm256_cvtepu32_epi64(_mm_add_epi32(s1, nsq));
    const __m256i numer1 = _mm256_cvtepu32_epi64(_mm_add_epi32(svq, nsq));
    const __m256i numer2 = _mm256_add_epi64(gg_int, numer1);
    const __m256i ka = bitlen16(a), k1 = bitlen16(numer1), k2 = bitlen16(numer2);
    *k_den = _mm256_add_epi64(
        *k_den, _mm256_and_si256(_mm256_sub_epi64(ka, _mm256_set1_epi64x(17)), big64));
    *k_num = _mm256_add_epi64(*k_num, _mm256_and_si256(_mm256_sub_epi64(k2, k1), use64));
    quad_out o;
    o.i_den = low32(_mm256_and_si256(_mm256_srlv_epi64(a, ka), big64));
    o.i_n1 = low32(_mm256_and_si256(_mm256_srlv_epi64(numer1, k1), use64));
    o.i_n2 = low32(_mm256_and_si256(_mm256_srlv_epi64(numer2, k2), use64));
    return o;
}

/* Sum of the table entries at eight indices. Scalar loads: AVX2's gathers
 * are microcoded on AMD's Zen 2 and 3 and cost more than eight loads there
 * (a third of the statistic's time with gathers). */
AVX2 static inline int32_t entries(const uint16_t *table, __m128i lo, __m128i hi)
{
    uint32_t idx[8];
    _mm256_storeu_si256((__m256i *)(void *)idx, _mm256_set_m128i(hi, lo));
    int32_t s = 0;
    for (int k = 0; k < 8; k++)
        s += table[idx[k]];
    return s;
}

AVX2 static inline int64_t hsum64(__m256i v)
{
    int64_t s[4]; /* 64-bit lane extraction is x86-64 only */
    _mm256_storeu_si256((__m256i *)(void *)s, v);
    return s[0] + s[1] + s[2] + s[3];
}

AVX2 static inline int64_t hsum32(__m256i v)
{
    const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
    const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
    return hsum64(_mm256_add_epi64(lo, hi));
}

/* ------------------------------------------------------------ filters */

#if defined(__GNUC__)
#define AVX2_INLINE AVX2 static inline __attribute__((always_inline))
#else
#define AVX2_INLINE AVX2 static inline
#endif

/* Lanes j .. j + 7 that are below w. */
AVX2_INLINE __m256i lanes_below(int j, int w)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w - j), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

AVX2_INLINE __m256i load(const uint32_t *p, int tail, __m256i mask)
{
    if (tail)
        return _mm256_maskload_epi32((const int *)(const void *)p, mask);
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

AVX2_INLINE void store(uint32_t *p, __m256i v, int tail, __m256i mask)
{
    if (tail)
        _mm256_maskstore_epi32((int *)(void *)p, mask, v);
    else
        _mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* Eight columns of vif_ref.c's vstat_u16 (scale, shift constants after
 * inlining). The taps are symmetric, so mirrored rows are added before the
 * multiply as vstat_u8 does: every off-center tap is below 2^15 and a pair of
 * 16-bit halves below 2^17, so each product stays within 32 bits. */
AVX2_INLINE void vstat8(const int scale, const uint32_t *const *rr, const uint32_t *const *dd,
                        int j, int shift, uint32_t *const *out, int tail, __m256i mask)
{
    const int taps = fv_vif_taps[scale], half = taps / 2;
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    __m256i x = load(rr[half] + j, tail, mask), y = load(dd[half] + j, tail, mask);
    __m256i c = _mm256_set1_epi32(fv_vif_filter[scale][half]);
    __m256i xx = _mm256_mullo_epi32(x, x), yy = _mm256_mullo_epi32(y, y);
    __m256i xy = _mm256_mullo_epi32(x, y);
    /* the center tap may reach 2^16 - 1: its products need no pair sum */
    __m256i s0 = _mm256_mullo_epi32(c, x), s1 = _mm256_mullo_epi32(c, y);
    __m256i s2 = _mm256_mullo_epi32(c, _mm256_srli_epi32(xx, 16));
    __m256i s3 = _mm256_mullo_epi32(c, _mm256_and_si256(xx, lo16));
    __m256i s4 = _mm256_mullo_epi32(c, _mm256_srli_epi32(yy, 16));
    __m256i s5 = _mm256_mullo_epi32(c, _mm256_and_si256(yy, lo16));
    __m256i s6 = _mm256_mullo_epi32(c, _mm256_srli_epi32(xy, 16));
    __m256i s7 = _mm256_mullo_epi32(c, _mm256_and_si256(xy, lo16));
    for (int k = 0; k < half; k++) {
        const __m256i xa = load(rr[k] + j, tail, mask), xb = load(rr[taps - 1 - k] + j, tail, mask);
        const __m256i ya = load(dd[k] + j, tail, mask), yb = load(dd[taps - 1 - k] + j, tail, mask);
        c = _mm256_set1_epi32(fv_vif_filter[scale][k]);
        s0 = _mm256_add_epi32(s0, _mm256_mullo_epi32(c, _mm256_add_epi32(xa, xb)));
        s1 = _mm256_add_epi32(s1, _mm256_mullo_epi32(c, _mm256_add_epi32(ya, yb)));
        if (shift == 8) {
            /* 8-bit samples: every product is below 2^16, its high half 0 */
            s3 = _mm256_add_epi32(
                s3, _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_mullo_epi32(xa, xa),
                                                           _mm256_mullo_epi32(xb, xb))));
            s5 = _mm256_add_epi32(
                s5, _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_mullo_epi32(ya, ya),
                                                           _mm256_mullo_epi32(yb, yb))));
            s7 = _mm256_add_epi32(
                s7, _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_mullo_epi32(xa, ya),
                                                           _mm256_mullo_epi32(xb, yb))));
            continue;
        }
        const __m256i xxa = _mm256_mullo_epi32(xa, xa), xxb = _mm256_mullo_epi32(xb, xb);
        s2 = _mm256_add_epi32(s2,
                              _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_srli_epi32(xxa, 16),
                                                                     _mm256_srli_epi32(xxb, 16))));
        s3 = _mm256_add_epi32(s3,
                              _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_and_si256(xxa, lo16),
                                                                     _mm256_and_si256(xxb, lo16))));
        const __m256i yya = _mm256_mullo_epi32(ya, ya), yyb = _mm256_mullo_epi32(yb, yb);
        s4 = _mm256_add_epi32(s4,
                              _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_srli_epi32(yya, 16),
                                                                     _mm256_srli_epi32(yyb, 16))));
        s5 = _mm256_add_epi32(s5,
                              _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_and_si256(yya, lo16),
                                                                     _mm256_and_si256(yyb, lo16))));
        const __m256i xya = _mm256_mullo_epi32(xa, ya), xyb = _mm256_mullo_epi32(xb, yb);
        s6 = _mm256_add_epi32(s6,
                              _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_srli_epi32(xya, 16),
                                                                     _mm256_srli_epi32(xyb, 16))));
        s7 = _mm256_add_epi32(s7,
                              _mm256_mullo_epi32(c, _mm256_add_epi32(_mm256_and_si256(xya, lo16),
                                                                     _mm256_and_si256(xyb, lo16))));
    }
    const int sh = 2 * (shift - 8);
    const __m128i cnt = _mm_cvtsi32_si128(shift), cnt_sq = _mm_cvtsi32_si128(sh);
    const __m128i cnt_up = _mm_cvtsi32_si128(16 - sh);
    const __m256i rnd = _mm256_set1_epi32(1 << (shift - 1));
    const __m256i sq_rnd = _mm256_set1_epi32(sh ? 1 << (sh - 1) : 0);
#define VIF_RECOMBINE(hi, lo)                                                                      \
    _mm256_add_epi32(_mm256_sll_epi32((hi), cnt_up),                                               \
                     _mm256_srl_epi32(_mm256_add_epi32((lo), sq_rnd), cnt_sq))
    const __m256i vxx = VIF_RECOMBINE(s2, s3), vyy = VIF_RECOMBINE(s4, s5);
    const __m256i vxy = VIF_RECOMBINE(s6, s7);
#undef VIF_RECOMBINE
    store(out[0] + j, _mm256_and_si256(_mm256_srl_epi32(_mm256_add_epi32(s0, rnd), cnt), lo16),
          tail, mask);
    store(out[1] + j, _mm256_and_si256(_mm256_srl_epi32(_mm256_add_epi32(s1, rnd), cnt), lo16),
          tail, mask);
    store(out[2] + j, _mm256_srli_epi32(vxx, 16), tail, mask);
    store(out[3] + j, _mm256_and_si256(vxx, lo16), tail, mask);
    store(out[4] + j, _mm256_srli_epi32(vyy, 16), tail, mask);
    store(out[5] + j, _mm256_and_si256(vyy, lo16), tail, mask);
    store(out[6] + j, _mm256_srli_epi32(vxy, 16), tail, mask);
    store(out[7] + j, _mm256_and_si256(vxy, lo16), tail, mask);
}

AVX2_INLINE void vstat_scale(const int scale, const uint32_t *const *rr, const uint32_t *const *dd,
                             int w, int shift, uint32_t *const *out)
{
    int j = 0;
    const __m256i all = _mm256_set1_epi32(-1);
    for (; j + 8 <= w; j += 8)
        vstat8(scale, rr, dd, j, shift, out, 0, all);
    if (j < w)
        vstat8(scale, rr, dd, j, shift, out, 1, lanes_below(j, w));
}

AVX2 void vif_vstat_avx2(int scale, const uint32_t *const *rr, const uint32_t *const *dd, int w,
                         int shift, uint32_t *const *out)
{
    switch (scale) {
    case 0:
        if (shift == 8)
            vstat_scale(0, rr, dd, w, 8, out);
        else
            vstat_scale(0, rr, dd, w, shift, out);
        break;
    case 1: vstat_scale(1, rr, dd, w, 16, out); break;
    case 2: vstat_scale(2, rr, dd, w, 16, out); break;
    default: vstat_scale(3, rr, dd, w, 16, out); break;
    }
}

/* Folded horizontal sum of eight columns of a padded row (vif_ref.c's
 * VIF_HSUM). */
AVX2_INLINE __m256i hsum8(const int scale, const uint32_t *v, int j, int tail, __m256i mask)
{
    const int taps = fv_vif_taps[scale], half = taps / 2;
    __m256i acc =
        _mm256_mullo_epi32(_mm256_set1_epi32(fv_vif_filter[scale][half]), load(v + j, tail, mask));
    for (int k = 0; k < half; k++) {
        const __m256i pair = _mm256_add_epi32(load(v + j - half + k, tail, mask),
                                              load(v + j + half - k, tail, mask));
        acc = _mm256_add_epi32(
            acc, _mm256_mullo_epi32(_mm256_set1_epi32(fv_vif_filter[scale][k]), pair));
    }
    return acc;
}

/* ((uint64_t)a * b + 2^31) >> 32 of each 32-bit lane. */
AVX2_INLINE __m256i mul_hi_round8(__m256i a, __m256i b)
{
    const __m256i r = _mm256_set1_epi64x(1LL << 31);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epu32(a, b), r);
    const __m256i odd =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), r);
    /* high halves: the even products' to the even lanes, the odd ones' stay */
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
}

AVX2_INLINE void hstat8(const int scale, uint32_t *const *in, int j, int32_t *const *sig, int tail,
                        __m256i mask)
{
    const __m256i r16 = _mm256_set1_epi32(32768);
#define VIF_WIDE(h, l)                                                                             \
    _mm256_add_epi32(                                                                              \
        hsum8(scale, in[h], j, tail, mask),                                                        \
        _mm256_srli_epi32(_mm256_add_epi32(hsum8(scale, in[l], j, tail, mask), r16), 16))
    const __m256i a1 = hsum8(scale, in[0], j, tail, mask), a2 = hsum8(scale, in[1], j, tail, mask);
    const __m256i xx = VIF_WIDE(2, 3), yy = VIF_WIDE(4, 5), xy = VIF_WIDE(6, 7);
#undef VIF_WIDE
    const __m256i v1 = _mm256_sub_epi32(xx, mul_hi_round8(a1, a1));
    const __m256i v2 = _mm256_sub_epi32(yy, mul_hi_round8(a2, a2));
    const __m256i v12 = _mm256_sub_epi32(xy, mul_hi_round8(a1, a2));
    store((uint32_t *)sig[0] + j, v1, tail, mask);
    store((uint32_t *)sig[1] + j, _mm256_max_epi32(v2, _mm256_setzero_si256()), tail, mask);
    store((uint32_t *)sig[2] + j, v12, tail, mask);
}

AVX2_INLINE void hstat_scale(const int scale, uint32_t *const *in, int w, int32_t *const *sig)
{
    int j = 0;
    const __m256i all = _mm256_set1_epi32(-1);
    for (; j + 8 <= w; j += 8)
        hstat8(scale, in, j, sig, 0, all);
    if (j < w)
        hstat8(scale, in, j, sig, 1, lanes_below(j, w));
}

AVX2 void vif_hstat_avx2(int scale, uint32_t *const *in, int w, int32_t *const *sig)
{
    switch (scale) {
    case 0: hstat_scale(0, in, w, sig); break;
    case 1: hstat_scale(1, in, w, sig); break;
    case 2: hstat_scale(2, in, w, sig); break;
    default: hstat_scale(3, in, w, sig); break;
    }
}

/* ---------------------------------------------------------- statistic */

AVX2 void vif_statistic_avx2(const int32_t *s1, const int32_t *s2, const int32_t *s12, int w,
                             double limit, const uint16_t *log2_table, int64_t sums[4])
{
    const __m256d lim = _mm256_set1_pd(limit);
    const __m256i nsq_m1 = _mm256_set1_epi32((2 << 16) - 1), zero = _mm256_setzero_si256();
    __m256i k_den = zero, k_num = zero, non_log = zero, count = zero;
    int64_t t_num = 0, t_den = 0;
    for (int j = 0; j < w; j += 8) {
        /* the last columns: lanes past w read nothing and count nowhere */
        const __m256i valid =
            _mm256_cmpgt_epi32(_mm256_set1_epi32(w - j), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256i v1 = _mm256_maskload_epi32(s1 + j, valid);
        const __m256i v2 = _mm256_maskload_epi32(s2 + j, valid);
        const __m256i v12 = _mm256_maskload_epi32(s12 + j, valid);
        const __m256i big = _mm256_and_si256(_mm256_cmpgt_epi32(v1, nsq_m1), valid);
        const __m256i use = _mm256_and_si256(
            big, _mm256_and_si256(_mm256_cmpgt_epi32(v12, zero), _mm256_cmpgt_epi32(v2, zero)));
        const __m256i small = _mm256_andnot_si256(big, valid);
        count = _mm256_sub_epi32(count, small);
        const __m256i s2_small = _mm256_and_si256(v2, small); /* v2 >= 0 */
        non_log =
            _mm256_add_epi64(non_log, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(s2_small)));
        non_log =
            _mm256_add_epi64(non_log, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(s2_small, 1)));
#define HALF(x, h) ((h) ? _mm256_extracti128_si256((x), 1) : _mm256_castsi256_si128(x))
        const quad_out lo = quad(HALF(v1, 0), HALF(v2, 0), HALF(v12, 0), HALF(big, 0), HALF(use, 0),
                                 lim, &k_den, &k_num);
        const quad_out hi = quad(HALF(v1, 1), HALF(v2, 1), HALF(v12, 1), HALF(big, 1), HALF(use, 1),
                                 lim, &k_den, &k_num);
#undef HALF
        t_num += entries(log2_table, lo.i_n2, hi.i_n2) - entries(log2_table, lo.i_n1, hi.i_n1);
        t_den += entries(log2_table, lo.i_den, hi.i_den);
    }
    sums[0] += 2048 * hsum64(k_num) + t_num;
    sums[1] += 2048 * hsum64(k_den) + t_den;
    sums[2] += hsum64(non_log);
    sums[3] += hsum32(count);
}

#else
typedef int vif_avx2_none; /* ISO C wants a declaration in every file */
#endif
