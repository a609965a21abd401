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

/* The warped images' first planes (RGBA or Y), for the seam's differences. */
typedef struct mb_planes {
    const uint8_t *p[MB_MAXC];
    int stride[MB_MAXC];
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

/* dst(x, y) = src(x, y) where !seen(x, y) (bpp bytes per pixel). */
int fv_mb_fill_unseen(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                      const uint8_t *seen, int w, int h, int bpp, void *stream);

/* Level 0: dst = 8-bit sample (every step bytes, rows stride apart) << PYR_FRAC. */
int fv_mb_load(const uint8_t *src, ptrdiff_t stride, int step, int w, int h, int16_t *dst,
               void *stream);

/* REDUCE of src (sw x sh) into dst (pyr_half of both) through tmp (dw x sh). */
int fv_mb_reduce(const int16_t *src, int sw, int sh, int32_t *tmp, int16_t *dst, void *stream);

/* EXPAND, horizontal pass: tmp (dw x sh) from src (sw x sh); the vertical pass
 * is fused into accumulate and collapse. */
int fv_mb_expand_h(const int16_t *src, int sw, int sh, int32_t *tmp, int dw, void *stream);

/* One camera's Laplacian of a w x h level (g minus the expansion of the level
 * below, whose horizontal pass is tmp with ch rows; tmp NULL at the top)
 * into num += mask * lap, den += mask, sum += lap (first: =). */
int fv_mb_accumulate(const int16_t *g, const int32_t *tmp, int w, int h, int ch,
                     const int16_t *mask, int32_t *num, int32_t *den, int32_t *sum, int first,
                     void *stream);

/* The collapse of a w x h level: g = clamp(blended Laplacian + expansion of
 * the collapsed level below (tmp as accumulate's; NULL at the top)). */
int fv_mb_collapse(int16_t *g, const int32_t *tmp, int w, int h, int ch, const int32_t *num,
                   const int32_t *den, const int32_t *sum, int n, void *stream);

/* dst sample (every step bytes) = pyr_to_u8(g) where covered. */
int fv_mb_store(const int16_t *g, int w, int h, const uint8_t *covered, uint8_t *dst,
                ptrdiff_t stride, int step, void *stream);

#ifdef __cplusplus
}
#endif

#endif
