/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea frames: pixel formats, plane layout, host/pinned/device allocation,
 * host<->device copies on the context stream, and a frame pool. */
#ifndef FOVEA_FRAME_H
#define FOVEA_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fovea_context fovea_context;

/** Pixel formats. Samples wider than 8 bits live in little-endian 16-bit
 *  containers, least significant bits used (e.g. 10-bit values 0..1023). */
typedef enum fovea_pixfmt {
    FOVEA_PIX_NONE = 0,
    FOVEA_PIX_GRAY8,
    FOVEA_PIX_GRAY10,
    FOVEA_PIX_GRAY12,
    FOVEA_PIX_GRAY16,
    FOVEA_PIX_I420,
    FOVEA_PIX_I420P10,
    FOVEA_PIX_I420P12,
    FOVEA_PIX_I420P16,
    FOVEA_PIX_I422,
    FOVEA_PIX_I422P10,
    FOVEA_PIX_I422P12,
    FOVEA_PIX_I422P16,
    FOVEA_PIX_I444,
    FOVEA_PIX_I444P10,
    FOVEA_PIX_I444P12,
    FOVEA_PIX_I444P16,
    FOVEA_PIX_NV12,   /**< Y plane + interleaved UV plane, 4:2:0 */
    FOVEA_PIX_RGB24,  /**< packed R,G,B */
    FOVEA_PIX_RGBA,   /**< packed R,G,B,A */
    FOVEA_PIX_RGB48,  /**< packed R,G,B, 16 bits each (ffmpeg's rgb48le) */
    FOVEA_PIX_RGBA64, /**< packed R,G,B,A, 16 bits each (ffmpeg's rgba64le) */
    FOVEA_PIX_COUNT
} fovea_pixfmt;

/** Static description of a pixel format. */
typedef struct fovea_pixfmt_desc {
    const char *name;     /**< e.g. "i420p10", "rgba" */
    int planes;           /**< 1..3 */
    int bit_depth;        /**< meaningful bits per sample: 8, 10, 12 or 16 */
    int bytes_per_sample; /**< 1 or 2 */
    int log2_chroma_w;    /**< horizontal chroma subsampling shift (0 or 1) */
    int log2_chroma_h;    /**< vertical chroma subsampling shift (0 or 1) */
    int components;       /**< samples per pixel in plane 0 (1, 3 or 4) */
    int is_yuv;           /**< 1 for Y/YUV families (gray counts as YUV luma) */
    int is_rgb;           /**< 1 for RGB24 / RGBA / RGB48 / RGBA64 */
} fovea_pixfmt_desc;

/** @return the description of fmt, or NULL when fmt is invalid. */
FOVEA_API const fovea_pixfmt_desc *fovea_pixfmt_get_desc(fovea_pixfmt fmt);
/** @return the canonical name of fmt ("?" if invalid). */
FOVEA_API const char *fovea_pixfmt_name(fovea_pixfmt fmt);
/** Parse a name ("gray", "gray8", "gray10", "yuv420p", "i420", "i420p10", "yuv420p10le",
 *  "nv12", "rgb24", "rgba", "rgb48", "rgb48le", "rgba64", "rgba64le", ...).
 *  @return the format, or FOVEA_PIX_NONE. */
FOVEA_API fovea_pixfmt fovea_pixfmt_from_name(const char *name);
/** YUV/gray format with the given chroma subsampling (420, 422, 444 or 400=gray)
 *  and bit depth (8, 10, 12, 16). @return FOVEA_PIX_NONE when no such format. */
FOVEA_API fovea_pixfmt fovea_pixfmt_yuv(int chroma, int bit_depth);

/** Where a frame's pixels live. */
typedef enum fovea_memtype {
    FOVEA_MEM_HOST = 0,   /**< ordinary (pageable) host memory */
    FOVEA_MEM_PINNED = 1, /**< page-locked host memory (CUDA builds only) */
    FOVEA_MEM_DEVICE = 2  /**< CUDA device memory of the context's device */
} fovea_memtype;

/** A frame: a value type, a struct the caller owns (on the stack, in an array,
 *  inside its own structs), not an opaque object. Planes are described by
 *  pointer and byte stride. fovea_frame_alloc gives it one buffer holding all
 *  planes and fovea_frame_free releases that buffer: the pair names a value's
 *  buffer, not an object's lifetime (docs/api.md, "Value types"), and like
 *  every function on a value type they take the context first. A frame may
 *  also wrap caller memory (fill the fields, leave buf NULL). */
typedef struct fovea_frame {
    int width, height; /**< luma / pixel dimensions */
    fovea_pixfmt fmt;
    fovea_memtype mem;
    uint8_t *data[4];    /**< plane pointers (data[1] = UV for NV12) */
    ptrdiff_t stride[4]; /**< plane strides in bytes */
    int64_t index;       /**< frame number in its stream (set by readers) */
    void *buf;           /**< owned allocation, NULL when wrapping caller memory */
    size_t buf_size;
    int device; /**< CUDA device of a DEVICE frame */
} fovea_frame;

/** @return the width of plane p of a w-pixel-wide frame, in samples-per-row
 *  units (components included for packed formats). */
FOVEA_API int fovea_plane_width(fovea_pixfmt fmt, int w, int p);
/** @return the height of plane p of an h-row frame. */
FOVEA_API int fovea_plane_height(fovea_pixfmt fmt, int h, int p);
/** Bytes of one row of plane p without padding. */
FOVEA_API size_t fovea_plane_row_bytes(fovea_pixfmt fmt, int w, int p);
/** Bytes of a tightly packed frame (sum of plane rows x heights). 0 on overflow/invalid. */
FOVEA_API size_t fovea_frame_packed_size(fovea_pixfmt fmt, int w, int h);

/** Largest width/height accepted anywhere in fovea. */
#define FOVEA_MAX_DIM 16384

/** Allocate a frame. Strides are padded to 64 bytes (host) or 256 bytes (device).
 *  @param ctx context (may be NULL for FOVEA_MEM_HOST); PINNED/DEVICE need a CUDA context
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (bad size/format), FOVEA_ERR_NOMEM,
 *          FOVEA_ERR_NO_DEVICE (CUDA memory without CUDA), FOVEA_ERR_CUDA */
FOVEA_API int fovea_frame_alloc(fovea_context *ctx, fovea_frame *f, int width, int height,
                                fovea_pixfmt fmt, fovea_memtype mem);

/** Free a frame made by fovea_frame_alloc and zero it. Frames wrapping caller
 *  memory are only zeroed. Safe on a zeroed frame. */
FOVEA_API void fovea_frame_free(fovea_context *ctx, fovea_frame *f);

/** Copy pixels between two frames of the same size and format, in any memory
 *  combination. Copies touching device or pinned memory are queued on the context
 *  stream: call fovea_sync() before reading a host destination. Host-to-host
 *  copies finish before return (split across the context's threads when large).
 *  @return FOVEA_OK or negative status. */
FOVEA_API int fovea_frame_copy(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src);

/** Fill every byte of every plane (rows only, not padding) with value. Host or device. */
FOVEA_API int fovea_frame_fill(fovea_context *ctx, fovea_frame *f, uint8_t value);

/** Compare two host frames sample by sample. @return 1 when equal, 0 otherwise. */
FOVEA_API int fovea_frame_equal(const fovea_frame *a, const fovea_frame *b);

/** A pool of identical frames, so per-frame loops allocate nothing. */
typedef struct fovea_frame_pool fovea_frame_pool;

/** Open a pool of count frames (count >= 1), each as fovea_frame_alloc makes it.
 *  @param pool receives the pool (NULL on failure)
 *  @param ctx the context the frames are allocated on; must outlive the pool
 *  @return FOVEA_OK or a negative status of fovea_frame_alloc */
FOVEA_API int fovea_frame_pool_open(fovea_frame_pool **pool, fovea_context *ctx, int count,
                                    int width, int height, fovea_pixfmt fmt, fovea_memtype mem);
/** Take a free frame. @return FOVEA_OK, or FOVEA_ERR_NOMEM when all are in use. */
FOVEA_API int fovea_frame_pool_get(fovea_frame_pool *pool, fovea_frame **f);
/** Return a frame taken from this pool. */
FOVEA_API int fovea_frame_pool_put(fovea_frame_pool *pool, fovea_frame *f);
/** Number of frames currently free. */
FOVEA_API int fovea_frame_pool_available(const fovea_frame_pool *pool);
/** Free the pool and its frames (all must have been returned) and set *pool to
 *  NULL. Safe on NULL. */
FOVEA_API void fovea_frame_pool_close(fovea_frame_pool **pool);

#ifdef __cplusplus
}
#endif

#endif
