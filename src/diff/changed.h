/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The differencing system's change rule, one definition for C and CUDA: a
 * sample changed beyond threshold T when its absolute difference exceeds T,
 * and a pixel when its largest channel difference does (docs/diff.md). The
 * diff maps and mask, and the stream encoders' change flags, all use it. */
#ifndef FOVEA_DIFF_CHANGED_H
#define FOVEA_DIFF_CHANGED_H

#ifdef __CUDACC__
#define DIFF_CHANGED_FN static __host__ __device__ __forceinline__
#else
#define DIFF_CHANGED_FN static inline
#endif

/* |a - b| of two samples. */
DIFF_CHANGED_FN int diff_absdiff(int a, int b)
{
    return a > b ? a - b : b - a;
}

/* Whether difference d (>= 0: a sample's, or a pixel's largest channel's) is
 * a change beyond threshold t. */
DIFF_CHANGED_FN int diff_beyond(int d, int t)
{
    return d > t;
}

/* Whether samples a and b differ beyond threshold t. */
DIFF_CHANGED_FN int diff_changed(int a, int b, int t)
{
    return diff_beyond(diff_absdiff(a, b), t);
}

#undef DIFF_CHANGED_FN

#endif
