/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* AVX2 path of integer motion's SAD (motion_ref.c's motion_sad_rows), eight
 * columns at a time in 32-bit lanes, giving the C reference's sum bit for bit.
 * Where a 5-tap sum can pass 2^31 (the 16-bit vertical pass, every horizontal
 * pass) the values are split as v = 2 * (v >> 1) + (v & 1): the taps sum to
 * 2^16, so (2a + b + 2^15) >> 16 == (a + ((b + 2^15) >> 1)) >> 15 with a, b the
 * two halves' sums, each within 32 bits. */
#include "quality/motion.h"
#include "quality/simd.h"

#if FV_HAVE_AVX2

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

static inline int mirror(int i, int n)
{
    if (i < 0)
        return -i;
    if (i >= n)
        return 2 * n - i - 2;
    return i;
}

/* One vertical output column in the reference's arithmetic (the last columns
 * of a row). */
static int32_t vertical_at(const uint8_t *const p[MOTION_TAPS], const uint8_t *const c[MOTION_TAPS],
                           int x, int bpc)
{
    int64_t acc = 0;
    for (int k = 0; k < MOTION_TAPS; k++) {
        const int d = bpc == 8 ? p[k][x] - c[k][x]
                               : ((const uint16_t *)(const void *)p[k])[x] -
                                     ((const uint16_t *)(const void *)c[k])[x];
        acc += (int64_t)motion_filter[k] * d;
    }
    return (int32_t)((acc + ((int64_t)1 << (bpc - 1))) >> bpc);
}

/* |(sum_k tap[k] * row[mirror(x - 2 + k)] + 2^15) >> 16|. */
static uint64_t horizontal_at(const int32_t *row, int x, int w)
{
    int64_t acc = 0;
    for (int k = 0; k < MOTION_TAPS; k++)
        acc += (int64_t)motion_filter[k] * row[mirror(x - MOTION_TAPS / 2 + k, w)];
    const int64_t v = (acc + (1 << 15)) >> 16;
    return (uint64_t)(v < 0 ? -v : v);
}

/* Eight samples of row x of plane k, widened to 32 bits. */
AVX2 static inline __m256i load8(const uint8_t *row, int x, int bpc)
{
    if (bpc == 8)
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(row + x)));
    return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(row + 2 * x)));
}

/* t0 * (v0 + v4) + t1 * (v1 + v3) + t2 * v2 */
AVX2 static inline __m256i taps5(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i v4)
{
    const __m256i t0 = _mm256_set1_epi32(motion_filter[0]);
    const __m256i t1 = _mm256_set1_epi32(motion_filter[1]);
    const __m256i t2 = _mm256_set1_epi32(motion_filter[2]);
    return _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(t0, _mm256_add_epi32(v0, v4)),
                                             _mm256_mullo_epi32(t1, _mm256_add_epi32(v1, v3))),
                            _mm256_mullo_epi32(t2, v2));
}

/* (5-tap sum of v + 2^15) >> 16 for |v| < 2^16, through the halves. */
AVX2 static inline __m256i taps5_shift16(const __m256i v[MOTION_TAPS])
{
    const __m256i one = _mm256_set1_epi32(1);
    __m256i h[MOTION_TAPS], l[MOTION_TAPS];
    for (int k = 0; k < MOTION_TAPS; k++) {
        h[k] = _mm256_srai_epi32(v[k], 1);
        l[k] = _mm256_and_si256(v[k], one);
    }
    const __m256i a = taps5(h[0], h[1], h[2], h[3], h[4]);
    const __m256i b = taps5(l[0], l[1], l[2], l[3], l[4]);
    const __m256i b2 = _mm256_srai_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(1 << 15)), 1);
    return _mm256_srai_epi32(_mm256_add_epi32(a, b2), 15);
}

AVX2 static void vertical(const uint8_t *const p[MOTION_TAPS], const uint8_t *const c[MOTION_TAPS],
                          int w, int bpc, int32_t *row)
{
    const __m256i rnd = _mm256_set1_epi32(1 << (bpc - 1));
    const __m128i sh = _mm_cvtsi32_si128(bpc);
    int x = 0;
    for (; x + 8 <= w; x += 8) {
        __m256i d[MOTION_TAPS];
        for (int k = 0; k < MOTION_TAPS; k++)
            d[k] = _mm256_sub_epi32(load8(p[k], x, bpc), load8(c[k], x, bpc));
        __m256i v;
        if (bpc <= 12) /* |sum| < 2^16 * 2^12 */
            v = _mm256_sra_epi32(_mm256_add_epi32(taps5(d[0], d[1], d[2], d[3], d[4]), rnd), sh);
        else
            v = taps5_shift16(d);
        _mm256_storeu_si256((__m256i *)(void *)(row + x), v);
    }
    for (; x < w; x++)
        row[x] = vertical_at(p, c, x, bpc);
}

AVX2 static uint64_t horizontal(const int32_t *row, int w)
{
    const int lo = w < 2 ? w : 2, hi = w - 2 > lo ? w - 2 : lo;
    uint64_t sad = 0;
    for (int x = 0; x < lo; x++)
        sad += horizontal_at(row, x, w);
    /* per lane at most 2048 values below 2^16 a row: 32 bits */
    __m256i acc = _mm256_setzero_si256();
    int x = lo;
    for (; x + 8 <= hi; x += 8) {
        __m256i v[MOTION_TAPS];
        for (int k = 0; k < MOTION_TAPS; k++)
            v[k] = _mm256_loadu_si256((const __m256i *)(const void *)(row + x - 2 + k));
        acc = _mm256_add_epi32(acc, _mm256_abs_epi32(taps5_shift16(v)));
    }
    uint32_t lane[8]; /* 64-bit lane extraction is x86-64 only */
    _mm256_storeu_si256((__m256i *)(void *)lane, acc);
    for (int k = 0; k < 8; k++)
        sad += lane[k];
    for (; x < w; x++)
        sad += horizontal_at(row, x, w);
    return sad;
}

uint64_t motion_sad_rows_avx2(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                              ptrdiff_t cur_stride, int w, int h, int bpc, int y0, int y1,
                              int32_t *row)
{
    uint64_t sad = 0;
    for (int y = y0; y < y1; y++) {
        const uint8_t *p[MOTION_TAPS], *c[MOTION_TAPS];
        for (int k = 0; k < MOTION_TAPS; k++) {
            const int r = mirror(y - MOTION_TAPS / 2 + k, h);
            p[k] = prev + r * prev_stride;
            c[k] = cur + r * cur_stride;
        }
        vertical(p, c, w, bpc, row);
        sad += horizontal(row, w);
    }
    return sad;
}

#else
typedef int motion_avx2_none; /* ISO C wants a declaration in every file */
#endif
