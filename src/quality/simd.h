/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Run-time choice of the quality features' hand-written x86 SIMD paths
 * (vif_avx2.c, motion_avx2.c): they give the C reference's integers bit for
 * bit, and FOVEA_SIMD=0 forces the plain C path so tests can compare both. */
#ifndef FOVEA_QUALITY_SIMD_H
#define FOVEA_QUALITY_SIMD_H

/* The AVX2 paths are compiled (x86 with GCC or clang). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FV_HAVE_AVX2 1
#else
#define FV_HAVE_AVX2 0
#endif

/* 1 when the AVX2 paths run: compiled (x86), the CPU has AVX2, and either it
 * lacks AVX-512 (there the plain C runs as its x86-64-v4 clone) or the
 * environment variable FOVEA_SIMD is "avx2"; FOVEA_SIMD=0 gives 0 everywhere.
 * Read once per process, at the first call (extractors call it when they
 * open). */
int fv_simd_avx2(void);

#endif
