/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the multi-band blending kernels (multiband.cu), callable
 * from C. Every level is a plain w x h int16/int32 array (rows w apart); each
 * launcher returns the cudaError_t of its launch as an int (0 = success). */
#ifndef FOVEA_MULTIBAND_CUDA_H
#define FOVEA_MULTIBAND_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MB_MAXC 16
#define MB_SEAM_CELL 4 /* = SEAM_CELL */

/* The warped images' first planes (RGBA or Y), for the seam's differences;
 * or a plane of each and of the feathered panorama (after them), to load. */
typedef struct mb_planes {
    const uint8_t *p[MB_MAXC + 1];
    int stride[MB_MAXC + 1];
} mb_planes;

/* diffs[i] = sum over cell i's pixels (clipped to w x h) of |luma of left -
 * luma of right|, luma Y or (R + 2 G + B + 2) >> 2 (rgba); cells as
 * fv_seam_cells. */
int fv_mb_seam_diffs(const mb_planes *pl, int rgba, int w, int h, const uint32_t *cells, int ncells,
                     int32_t *diffs, void *stream);

/* mask[p] = label[p] == c ? PYR_ONE : 0 */
int fv_mb_mask0(const uint8_t *label, int w, int h, int c, int16_t *mask, void *stream);

/* The chroma mask of a luma mask: (sum of the 2x2 block, indices clamped, + 2) >> 2. */
int fv_mb_chroma_mask(const int16_t *m, int w, int h, int16_t *cm, int cw, int ch, void *stream);

/* A box [x0, x1) x [y0, y1) of a level; several boxes run in one launch
 * (one grid of tiles over all the boxes), job j on the arrays of its slot
 * (a camera, or the feathered panorama after the cameras): slot s's arrays
 * start s * *_bstride entries after the pointers given. Boxes come from the
 * plan of pyramid.h (restricted blending). */
typedef struct mb_box {
    int x0, x1, y0, y1;
} mb_box;

#define MB_MAXJ (2 * MB_MAXC + 1)

typedef struct mb_jobs {
    int count;
    int slot[MB_MAXJ];
    mb_box b[MB_MAXJ];
} mb_jobs;

/* dst(x, y) = src(x, y) where !seen(x, y) (bpp bytes per pixel), inside b
 * (seen: rows w apart). */
int fv_mb_fill_unseen(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                      const uint8_t *seen, int w, mb_box b, int bpp, void *stream);

/* Level 0 (w wide) in each job's box: dst = 8-bit sample of plane slot
 * (every step bytes) << PYR_FRAC. */
int fv_mb_load(const mb_planes *src, int step, int w, const mb_jobs *jobs, int16_t *dst,
               size_t dst_bstride, void *stream);

/* REDUCE of src (sw x sh) into dst (pyr_half of both) through tmp (dw x sh),
 * inside each job's box of dst (the horizontal pass on the rows it reads);
 * src and dst: levels of one pyramid (bstride apart per slot). */
int fv_mb_reduce(const int16_t *src, int sw, int sh, int32_t *tmp, int16_t *dst, size_t bstride,
                 size_t tmp_bstride, const mb_jobs *jobs, void *stream);

/* EXPAND, horizontal pass: tmp (dw x sh) from src (sw x sh), for each job's
 * box of the level below (dw wide: the rows of src its vertical pass reads);
 * the vertical pass is fused into blend_level and collapse. */
int fv_mb_expand_h(const int16_t *src, int sw, int sh, int32_t *tmp, int dw, size_t bstride,
                   size_t tmp_bstride, const mb_jobs *jobs, void *stream);

/* Level k's masks, one pointer per camera. */
typedef struct mb_masks {
    const int16_t *m[MB_MAXC];
} mb_masks;

/* The blended Laplacian of a w x h level of n cameras into lap (int16),
 * inside box b: slot n is the feathered panorama F; a camera's Laplacian is
 * g - EXPAND of the level below (whose horizontal pass is its slot of tmp, ch
 * rows; tmp NULL at the top) inside its pieces' boxes (pieces: slot = camera)
 * and F's elsewhere (where its mask is 0); then sum(mask * lap) / sum(mask)
 * rounded (pyr_div_round), or the rounded mean where no mask weighs. */
int fv_mb_blend_level(const int16_t *g, size_t g_bstride, const int32_t *tmp, size_t tmp_bstride,
                      int w, int ch, const mb_masks *masks, int n, const mb_jobs *pieces, mb_box b,
                      int16_t *lap, void *stream);

/* The collapse of a w-wide level in place inside box b: lap = clamp(lap +
 * EXPAND of the collapsed level below (tmp, ch rows; NULL at the top), 0,
 * PYR_MAX). */
int fv_mb_collapse(int16_t *lap, const int32_t *tmp, int w, int ch, mb_box b, void *stream);

/* dst sample (every step bytes) = pyr_to_u8(g) where covered, inside b. */
int fv_mb_store(const int16_t *g, int w, const uint8_t *covered, uint8_t *dst, ptrdiff_t stride,
                int step, mb_box b, void *stream);

#ifdef __cplusplus
}
#endif

#endif
