/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Pixel format conversion on the CPU (threaded through the context's pool):
 * YUV <-> RGB (BT.601 / BT.709, limited or full range), chroma resampling,
 * bit-depth changes, NV12 <-> planar, gray <-> anything. */
#ifndef FOVEA_CONVERT_H
#define FOVEA_CONVERT_H

#include "fovea/frame.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fovea_colorspace {
    FOVEA_CS_BT601 = 0, /**< default: what y4m from ffmpeg usually carries at SD */
    FOVEA_CS_BT709 = 1
} fovea_colorspace;

typedef enum fovea_range {
    FOVEA_RANGE_LIMITED = 0, /**< Y 16..235, UV 16..240 (scaled for >8 bits); default */
    FOVEA_RANGE_FULL = 1
} fovea_range;

typedef struct fovea_convert_options {
    fovea_colorspace colorspace; /**< default BT601 */
    fovea_range range;           /**< default LIMITED */
    uint8_t alpha;               /**< alpha written when the source has none; default 255 */
} fovea_convert_options;

/** Fill o with defaults (BT.601, limited range, alpha 255). */
FOVEA_API void fovea_convert_options_init(fovea_convert_options *o);

/** Convert src into dst (same width/height, any two formats, host frames).
 *  Chroma downsampling averages the covered samples; upsampling replicates the
 *  nearest chroma sample (center-aligned siting, as y4m "420jpeg"). Bit depth
 *  changes: in limited range (and for chroma in either range) values scale by 2^k
 *  (up: shift, down: shift with rounding, so 16/128/235 -> 64/512/940 at 10 bits);
 *  full-range luma/gray maps max to max (up: replicate high bits, down: rounded
 *  rescale). Either way up-then-down round-trips exactly (8->10->8, ...).
 *  Gray is YUV luma with neutral chroma. RGB -> YUV -> RGB is lossy (rounding);
 *  YUV -> YUV of the same depth and subsampling is an exact copy.
 *  16-bit RGB (rgb48, rgba64) uses the same matrices and ranges with RGB spanning
 *  0..65535 instead of 0..255 (more fractional bits, so YUV at 10 bits and more
 *  keeps its precision through it). 8-bit <-> 16-bit RGB: up is v * 257 (exact),
 *  down is (v * 255 + 32767) / 65535 = round(v / 257), so 8 -> 16 -> 8 is exact.
 *  Alpha is rescaled the same way between rgba and rgba64 and dropped when the
 *  destination has none; an alpha-less source gives opt->alpha (times 257 at
 *  16 bits). src and dst must not overlap.
 *  @param ctx for threads (may be NULL = single thread)
 *  @param opt NULL = defaults
 *  @return FOVEA_OK, FOVEA_ERR_MISMATCH (sizes), FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_frame_convert(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src,
                                  const fovea_convert_options *opt);

#ifdef __cplusplus
}
#endif

#endif
