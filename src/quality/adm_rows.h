/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The row passes of the integer ADM reference (adm_ref.c runs them over a
 * level's rows): the DWT (adm_dwt.c), the decoupling (adm_decouple.c), the
 * CSF and masking and the row sums (adm_sums.c). Internal; docs/quality.md
 * ("Integer ADM") explains every step. */
#ifndef FOVEA_QUALITY_ADM_ROWS_H
#define FOVEA_QUALITY_ADM_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "quality/adm.h"

/* Band order: the three detail bands as libvmaf's theta (0 = h, 1 = v, 2 = d),
 * then the approximation. h is vertical high-pass + horizontal low-pass, v the
 * reverse, d high-pass both ways, a low-pass both ways. */
enum { BAND_H, BAND_V, BAND_D, BAND_A, NBANDS };

/* The row loops are compiled for AVX-512, AVX2 and the baseline and
 * picked at run time, as VIF's (plain C, vectorized by the compiler; see
 * ADM_FP_CLONES for the one with floating point). FOVEA_ADM_NO_CLONES builds
 * one version for the compiler's target (to test the others' bits). Clang before
 * 16 names the dispatcher of an extern clone "f.ifunc", so the callers in
 * adm_ref.c would not link: one version there too (the fuzz build). */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_ADM_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16)
#define ADM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define ADM_CLONES /* The decoupling of one row (adm_decouple_row's arguments). */
void adm_decouple_row_avx2(int scale, const int32_t *div_lookup, double gain, int l, int r,
                           const int32_t *const o[3], const int32_t *const t[3],
                           int32_t *const rst[3], int32_t *const add[3]);
/* The masker's rows and the numerator sums of a row (adm_mask_row's and
 * adm_num_row's arguments). */
void adm_mask_row_avx2(int scale, const uint32_t q[3], int l, int r, const int32_t *const src[3],
                       int32_t *f, int32_t *c);
void adm_num_row_avx2(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                      const int32_t *f0, const int32_t *fp, const int32_t *c, int64_t accum[3]);
/* The denominator's sums of a row (adm_den_row's arguments). */
void adm_den_row_avx2(const adm_level *L, const int32_t *const o[3], int64_t accum[3]);

#endif

/* The decoupling holds float and double steps (the angle test, the gain
 * limit): its clones must not contract them into FMA (x86-64-v4 has FMA;
 * "avx2" alone does not). CMake builds with -ffp-contract=off and GCC does
 * not contract in ISO C mode anyway; in GNU C mode the v4 clone is left out. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_ADM_NO_CLONES) && (defined(__clang__) || defined(__STRICT_ANSI__))
#define ADM_FP_CLONES ADM_CLONES
#elif defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                            \
    !defined(FOVEA_ADM_NO_CLONES)
#define ADM_FP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ADM_FP_CLONES /* The decoupling of one row (adm_decouple_row's arguments). */
void adm_decouple_row_avx2(int scale, const int32_t *div_lookup, double gain, int l, int r,
                           const int32_t *const o[3], const int32_t *const t[3],
                           int32_t *const rst[3], int32_t *const add[3]);
/* The masker's rows and the numerator sums of a row (adm_mask_row's and
 * adm_num_row's arguments). */
void adm_mask_row_avx2(int scale, const uint32_t q[3], int l, int r, const int32_t *const src[3],
                       int32_t *f, int32_t *c);
void adm_num_row_avx2(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                      const int32_t *f0, const int32_t *fp, const int32_t *c, int64_t accum[3]);
/* The denominator's sums of a row (adm_den_row's arguments). */
void adm_den_row_avx2(const adm_level *L, const int32_t *const o[3], int64_t accum[3]);

#endif

#if defined(__GNUC__)
#define ADM_INLINE static inline __attribute__((always_inline))
#else
#define ADM_INLINE static inline /* The decoupling of one row (adm_decouple_row's arguments). */
void adm_decouple_row_avx2(int scale, const int32_t *div_lookup, double gain, int l, int r,
                           const int32_t *const o[3], const int32_t *const t[3],
                           int32_t *const rst[3], int32_t *const add[3]);
/* The masker's rows and the numerator sums of a row (adm_mask_row's and
 * adm_num_row's arguments). */
void adm_mask_row_avx2(int scale, const uint32_t q[3], int l, int r, const int32_t *const src[3],
                       int32_t *f, int32_t *c);
void adm_num_row_avx2(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                      const int32_t *f0, const int32_t *fp, const int32_t *c, int64_t accum[3]);
/* The denominator's sums of a row (adm_den_row's arguments). */
void adm_den_row_avx2(const adm_level *L, const int32_t *const o[3], int64_t accum[3]);

#endif

/* The row functions. Their definitions carry ADM_CLONES / ADM_FP_CLONES;
 * these declarations must not (GCC would emit a second resolver here that
 * names the clones, which are local to the defining unit). */

/* Source index of tap k (0..3) for output n of a level with n_in inputs
 * (adm_dwt.c). */
void adm_dwt_indices(int *ind[4], int n_in);
/* The DWT's vertical pass of one output row (adm_dwt.c). */
void adm_dwt_vertical(int scale, int bpc, const uint8_t *const r8[4], const int32_t *const r32[4],
                      int w, const adm_dwt_round *vr, int32_t *restrict lo, int32_t *restrict hi);
/* The DWT's horizontal pass of one row into the four bands (adm_dwt.c). */
void adm_dwt_horizontal(int scale, int *const ind[4], const int32_t *restrict lo,
                        const int32_t *restrict hi, int w, const adm_dwt_round *hr,
                        int32_t *restrict a, int32_t *restrict v, int32_t *restrict h,
                        int32_t *restrict d);
/* The decoupling of one row of the three detail bands (adm_decouple.c). */
void adm_decouple_row(int scale, const int32_t *div_lookup, double gain, int l, int r,
                      const int32_t *const o[3], const int32_t *const t[3], int32_t *const rst[3],
                      int32_t *const add[3]);
/* The masker's rows of one row of its three bands (adm_sums.c). */
void adm_mask_row(int scale, const uint32_t q[3], int l, int r, const int32_t *const src[3],
                  int32_t *f, int32_t *c);
/* The denominator's sums of one row (adm_sums.c). */
void adm_den_row(const adm_level *L, const int32_t *const o[3], int64_t accum[3]);
/* One row's numerator sums (adm_sums.c). */
void adm_num_row(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                 const int32_t *f0, const int32_t *fp, const int32_t *c, int64_t accum[3]);

/* 1 when the CPU has AVX2 (adm_avx2.c). */
int adm_simd_cpu(void);

/* The hand-written AVX2 versions (adm_dwt_avx2.c, adm_avx2.c; x86 only,
 * called only when adm_simd_default() said so): the same integers as the
 * functions above. One row of the DWT, both passes, into the four bands; lo
 * and hi are scratch rows of at least w int32. */
void adm_dwt_row_avx2(int scale, int bpc, const uint8_t *const r8[4], const int32_t *const r32[4],
                      int w, int *const ind[4], const adm_dwt_round *vr, const adm_dwt_round *hr,
                      int32_t *lo, int32_t *hi, int32_t *a, int32_t *v, int32_t *h, int32_t *d);
/* The decoupling of one row (adm_decouple_row's arguments). */
void adm_decouple_row_avx2(int scale, const int32_t *div_lookup, double gain, int l, int r,
                           const int32_t *const o[3], const int32_t *const t[3],
                           int32_t *const rst[3], int32_t *const add[3]);
/* The masker's rows and the numerator sums of a row (adm_mask_row's and
 * adm_num_row's arguments). */
void adm_mask_row_avx2(int scale, const uint32_t q[3], int l, int r, const int32_t *const src[3],
                       int32_t *f, int32_t *c);
void adm_num_row_avx2(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                      const int32_t *f0, const int32_t *fp, const int32_t *c, int64_t accum[3]);
/* The denominator's sums of a row (adm_den_row's arguments). */
void adm_den_row_avx2(const adm_level *L, const int32_t *const o[3], int64_t accum[3]);

#endif
