/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending of 8-bit planes on the CPU, the C reference (integer
 * arithmetic of pyramid_math.h): Gaussian and Laplacian pyramids, the blend
 * by the masks' Gaussian pyramids, the collapse. */
#ifndef FOVEA_PYRAMID_H
#define FOVEA_PYRAMID_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "stitch/pyramid_math.h"

/* Level sizes of a pyramid and where each level starts in one buffer holding
 * them all (level k is w[k] x h[k], rows of w[k] entries). */
typedef struct fv_pyr_geom {
    int levels; /* reductions: levels + 1 levels */
    int w[PYR_MAX_LEVELS + 1], h[PYR_MAX_LEVELS + 1];
    size_t off[PYR_MAX_LEVELS + 1];
    size_t total; /* entries of all levels */
} fv_pyr_geom;

/* levels in 0 .. PYR_MAX_LEVELS, w and h >= 1 */
void fv_pyr_geom_init(fv_pyr_geom *g, int w, int h, int levels);

/* Scratch of fv_pyr_blend_plane and fv_pyr_gauss for one geometry. */
typedef struct fv_pyr_work {
    fv_pyr_geom g;
    int16_t *gauss;      /* one camera's Gaussian levels, then the collapse */
    int32_t *num, *den;  /* per level: sum of mask * lap, sum of masks */
    int32_t *sum;        /* per level: sum of laps (where no mask weighs) */
    int32_t *tmp, *expd; /* a level's horizontal pass; an expanded level */
} fv_pyr_work;

int fv_pyr_work_alloc(fv_pyr_work *wk, int w, int h, int levels);
void fv_pyr_work_free(fv_pyr_work *wk);

/* Levels 1 .. g->levels of a pyramid whose level 0 is filled (REDUCE). */
void fv_pyr_gauss(fovea_context *ctx, fv_pyr_work *wk, int16_t *pyr);

/* One plane of n cameras' images (8-bit samples every `step` bytes, rows
 * `stride` apart, the work's geometry at level 0) blended by their masks'
 * Gaussian pyramids (masks[c], g->total entries each: level 0 of 0 ..
 * PYR_ONE, then fv_pyr_gauss) into dst, written only where covered[p] is not
 * 0 (covered: one byte per pixel, rows cov_stride apart). At every level the
 * blended Laplacian is sum(mask * lap) / sum(mask) (pyr_div_round), or the
 * rounded mean of the cameras' Laplacians where no mask weighs; then the
 * collapse. n images that are all the same give that image exactly, as does
 * one camera (fv_pyr_blend_plane of one image is the identity). */
void fv_pyr_blend_plane(fovea_context *ctx, fv_pyr_work *wk, int n, const uint8_t *const *src,
                        ptrdiff_t stride, int step, const int16_t *const *masks,
                        const uint8_t *covered, ptrdiff_t cov_stride, uint8_t *dst,
                        ptrdiff_t dst_stride, int dst_step);

#endif
