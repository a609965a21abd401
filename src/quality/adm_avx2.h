/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* What the AVX2 row passes of the integer ADM (adm_dwt_avx2.c, adm_avx2.c)
 * share. x86 only; internal. */
#ifndef FOVEA_QUALITY_ADM_AVX2_H
#define FOVEA_QUALITY_ADM_AVX2_H

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* Functions compiled for AVX2 alone (no -mavx2 for the build; no FMA, so
 * no contraction of the double steps). */
#define AVX2 __attribute__((target("avx2")))

/* The low 32 bits of the four 64-bit lanes of x, in order, as 128 bits. The
 * low 32 bits of an arithmetic shift right are those of a logical one (up to
 * 32 bits of shift), so (int32_t)(v >> s) never needs a 64-bit sign shift. */
AVX2 static inline __m128i low32(__m256i x)
{
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, idx));
}

#endif
#endif
