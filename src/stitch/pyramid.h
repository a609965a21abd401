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
    int16_t *lapf;       /* restricted blending: F's Laplacian levels */
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

/* Restricted blending (docs/stitch.md, "Where each camera matters"): a
 * camera's image differs from the feathered panorama F only where it sees,
 * so its Laplacian differs from F's, and its mask is nonzero, only within
 * the footprint of the reduce and expand filters around that region. Each
 * camera is one or two pieces (two when its region straddles the panorama's
 * left and right edges, longitude 180 degrees), each a box per level:
 * q, where its Gaussian levels are computed (closed under REDUCE and under
 * the EXPAND the Laplacian needs), and r, where its Laplacian is used
 * (outside r the camera's Laplacian is F's and its mask is 0, exactly).
 * F's pyramid is computed on fq and the blend and collapse on c (the
 * covered pixels' box and what it needs of the coarser levels). Boxes are
 * half-open, [x0, x1) x [y0, y1), in the level's own coordinates. */
typedef struct fv_pyr_box {
    int x0, x1, y0, y1;
} fv_pyr_box;

#define PYR_MAX_PIECES 32

typedef struct fv_pyr_plan {
    int npieces;
    int cam[PYR_MAX_PIECES];
    fv_pyr_box q[PYR_MAX_PIECES][PYR_MAX_LEVELS + 1];
    fv_pyr_box r[PYR_MAX_PIECES][PYR_MAX_LEVELS + 1];
    fv_pyr_box fq[PYR_MAX_LEVELS + 1];
    fv_pyr_box c[PYR_MAX_LEVELS + 1];
} fv_pyr_plan;

/* The plan of geometry g for n cameras (n <= 16): own[c] (lw x lh bytes,
 * rows own_stride apart; NULL: nothing) is nonzero where camera c's image
 * may differ from F or its mask be nonzero (it sees the pixel or holds its
 * label); with half = 1 (chroma) a pixel of own stands for the g-level-0
 * pixel (x / 2, y / 2). covered (g's level-0 size, rows cov_stride apart):
 * where the blend is stored. A camera whose region has a gap wider than the
 * one across the panorama's left and right edges (longitude 180 degrees)
 * becomes two pieces when their boxes stay apart at every level. */
void fv_pyr_plan_make(fv_pyr_plan *p, const fv_pyr_geom *g, int n, const uint8_t *const *own,
                      ptrdiff_t own_stride, int lw, int lh, int half, const uint8_t *covered,
                      ptrdiff_t cov_stride);

/* fv_pyr_blend_plane's result computed only inside the plan's boxes: F is
 * read from dst (the feathered panorama) before dst's covered pixels are
 * written; wk needs fv_pyr_work_alloc's buffers (lapf included). Equal to
 * fv_pyr_blend_plane byte for byte when the images equal F outside the
 * pieces' regions. */
void fv_pyr_blend_plane_plan(fovea_context *ctx, fv_pyr_work *wk, const fv_pyr_plan *plan, int n,
                             const uint8_t *const *src, ptrdiff_t stride, int step,
                             const int16_t *const *masks, const uint8_t *covered,
                             ptrdiff_t cov_stride, uint8_t *dst, ptrdiff_t dst_stride,
                             int dst_step);

#endif
