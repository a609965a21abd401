/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* What the differencing kernels share, callable from C: the input layouts,
 * the pixel readers and a frame pair as the kernels read it. The launchers are
 * declared by unit: diff_map_cuda.h (diff_map.cu, diff_median.cu),
 * diff_mask_cuda.h (diff_mask.cu), diff_filter_cuda.h (diff_filter.cu). Every
 * frame pointer is device memory; each launcher returns the cudaError_t of its
 * launch as an int (0 = success). The arithmetic is docs/diff.md's. */
#ifndef FOVEA_DIFF_CUDA_H
#define FOVEA_DIFF_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sample layouts of the input formats. */
enum {
    DIFF_CUDA_PACKED = 0, /* RGB24, RGBA, RGB48, RGBA64: comps samples a pixel in plane 0 */
    DIFF_CUDA_GRAY = 1,   /* one plane, one sample a pixel */
    DIFF_CUDA_PLANAR = 2, /* I420/I422/I444: Y, U, V planes, chroma shifts sw, sh */
    DIFF_CUDA_NV12 = 3    /* Y plane, interleaved U,V plane, 4:2:0 */
};

/* Which pixel reader a launch uses. */
enum {
    DIFF_CUDA_READ_ANY = 0,   /* any layout, sample by sample */
    DIFF_CUDA_READ_RGB24 = 1, /* 8-bit RGB24, rows of both frames on 4 bytes: 32-bit words */
    DIFF_CUDA_READ_RGBA = 2   /* 8-bit RGBA, rows of both frames on 16 bytes: 128-bit words */
};

/* A pair of frames (or one) as the kernels read it. */
typedef struct diff_cuda_pair {
    int layout;                 /* DIFF_CUDA_PACKED .. NV12 */
    int wide;                   /* 16-bit little-endian samples */
    int comps;                  /* PACKED: samples a pixel (3 or 4) */
    int sw, sh;                 /* PLANAR, NV12: chroma shifts */
    int w, h;                   /* pixels */
    const uint8_t *a[3], *b[3]; /* planes of prev (or ref) and cur */
    ptrdiff_t as[3], bs[3];     /* their strides in bytes */
} diff_cuda_pair;

#ifdef __cplusplus
}
#endif

#endif
