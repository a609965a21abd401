/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The integer arithmetic of multi-band blending (pyramid.c, the C reference,
 * and multiband.cu), in one plain header usable from C and CUDA: every value
 * is an integer and every rounding is written out, so both backends compute
 * the same numbers. */
#ifndef FOVEA_PYRAMID_MATH_H
#define FOVEA_PYRAMID_MATH_H

#include <stdint.h>

#include "stitch/stitch_math.h"

/* Level 0 of an image's pyramid is its 8-bit samples times 16 (4 fraction
 * bits), 0 .. PYR_MAX; Laplacian levels lie in -PYR_MAX .. PYR_MAX (int16). */
#define PYR_FRAC 4
#define PYR_MAX (255 << PYR_FRAC)
/* A seam mask is PYR_ONE where the camera owns the pixel, 0 elsewhere; its
 * Gaussian levels stay within 0 .. PYR_ONE. */
#define PYR_ONE 256
/* Most reductions (levels) a pyramid may have. */
#define PYR_MAX_LEVELS 10

/* Size of the level below one of size n: ceil(n / 2). */
FOVEA_HD int pyr_half(int n)
{
    return (n + 1) >> 1;
}

/* Border rule of every filter: replicate (indices clamped to 0 .. n - 1). */
FOVEA_HD int pyr_clamp(int x, int n)
{
    return x < 0 ? 0 : (x >= n ? n - 1 : x);
}

/* REDUCE tap t (-2 .. 2) of the binomial [1 4 6 4 1] / 16 per dimension:
 * level k+1 at (x, y) = (sum over s, t of tap(s) tap(t) g_k(2x + s, 2y + t)
 * + 128) >> 8 with clamped indices. Inputs are >= 0, so the shift floors a
 * nonnegative number. */
FOVEA_HD int pyr_tap(int t)
{
    return t == 0 ? 6 : (t == 1 || t == -1 ? 4 : 1);
}

/* EXPAND of a coarse level c (size cn) to fine index x, one dimension: the
 * zero-inserted upsampling filtered by 2 x [1 4 6 4 1] / 16, i.e.
 *   x even: (c[x/2 - 1] + 6 c[x/2] + c[x/2 + 1]) / 8
 *   x odd:  (4 c[(x-1)/2] + 4 c[(x+1)/2]) / 8
 * (coarse indices clamped). In two dimensions the products of the two
 * dimensions' weights (sum 64) multiply the coarse samples, then
 * (sum + 32) >> 6: one rounding, of a nonnegative sum (expanded levels are
 * Gaussian levels or collapsed levels clamped to 0 .. PYR_MAX).
 * pyr_expand_taps gives the three coarse indices and weights of x. */
FOVEA_HD void pyr_expand_taps(int x, int cn, int idx[3], int wt[3])
{
    const int h = x >> 1;
    if (x & 1) {
        idx[0] = pyr_clamp(h, cn);
        idx[1] = pyr_clamp(h + 1, cn);
        idx[2] = idx[1];
        wt[0] = 4;
        wt[1] = 4;
        wt[2] = 0;
    } else {
        idx[0] = pyr_clamp(h - 1, cn);
        idx[1] = pyr_clamp(h, cn);
        idx[2] = pyr_clamp(h + 1, cn);
        wt[0] = 1;
        wt[1] = 6;
        wt[2] = 1;
    }
}

/* Blend of one Laplacian sample: num = sum of mask * lap over the cameras,
 * den = sum of the masks (> 0): num / den rounded half away from zero
 * (C and CUDA integer division truncate toward zero alike). Identical
 * Laplacians give lap * den / den = lap exactly. */
FOVEA_HD int pyr_div_round(int32_t num, int32_t den)
{
    return num >= 0 ? (int)((num + den / 2) / den) : -(int)((-num + den / 2) / den);
}

/* Collapsed levels are clamped to the range of images so that expanding them
 * shifts only nonnegative sums; a level-0 value v becomes the 8-bit
 * (v + 8) >> 4. */
FOVEA_HD int pyr_clamp_level(int v)
{
    return v < 0 ? 0 : (v > PYR_MAX ? PYR_MAX : v);
}

FOVEA_HD int pyr_to_u8(int v)
{
    return (pyr_clamp_level(v) + (1 << (PYR_FRAC - 1))) >> PYR_FRAC;
}

#endif
