/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hand-written AVX2 row passes of the integer ADM (adm_ref.c picks them at
 * run time; the DWT's are adm_dwt_avx2.c): the decoupling, the masking and
 * the sums, the same integers as the C reference's (adm_decouple.c,
 * adm_sums.c) for every input in its ranges; and the run-time switch. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quality/simd.h"
#include "quality/adm.h"
#include "quality/adm_avx2.h"
#include "quality/adm_rows.h"

/* The double steps must round as the reference's: no contraction (the
 * "avx2" target has no FMA; clang is told too). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Set once (pthread_once) and only read after: the CPU's AVX2, and whether
 * the AVX2 paths run by default (simd.h: the one policy of every feature,
 * FOVEA_SIMD included). */
static int cpu_avx2 = 0, simd_on = 0;
static pthread_once_t simd_once = PTHREAD_ONCE_INIT;

static void simd_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    cpu_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    simd_on = fv_simd_avx2();
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

/* ---------------------------------------------------------------- decoupling
 *
 * Level 0 eight columns at a time in 32-bit lanes; levels 1..3 four at a
 * time, int32 values in 128-bit vectors and their 64-bit products in
 * 256-bit ones; the float and double steps of the angle test and the gain
 * limit in four doubles, each operation as the reference's
 * (adm_decouple.c), in its order. */

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
    return _mm_blendv_epi8(low32(k), _mm_set1_epi32(32768), zero);
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
    *x = low32(_mm256_srli_epi64(ko, 15));
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
    return low32(_mm256_castpd_si256(angle));
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
