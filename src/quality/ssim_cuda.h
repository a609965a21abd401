/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the float SSIM kernels (ssim.cu), callable from C: the
 * arithmetic of ssim_iqa.c (loading, decimation, the windowed SSIM map and
 * its sums in raster order) for a batch of pairs, for float_ssim (one
 * decimation by a box filter, the SSIM of the last image) and float_ms_ssim
 * (four halvings by the 9x9 low-pass, the SSIM of every image).
 *
 * Bit-exactness: every map value is computed by one thread with ssim_iqa.c's
 * float/double operations in its order (the .cu is built with --fmad=false);
 * the sums over a map, which C adds one term after the other in raster order,
 * get the bits of that loop from a parallel emulation of its roundings
 * (ordered_sum.cuh, ordered_sums in ssim.cu).
 * The divisions of the sums by the count (and MS-SSIM's powers) are left to
 * the host. Returns the cudaError_t of its calls as an int (0 = success). */
#ifndef FOVEA_QUALITY_SSIM_CUDA_H
#define FOVEA_QUALITY_SSIM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most pairs one launch takes (blockIdx.z = pair). */
#define SSIM_CUDA_MAX_BATCH 32
/* Most images of a pair: the input and its decimations. */
#define SSIM_CUDA_MAX_LEVELS 5
/* The largest decimation kernel (k x k taps): float_ssim's box of scale 10. */
#define SSIM_CUDA_MAX_TAPS 100
/* Sums per SSIM map: the SSIM, l, c, s (without_ssim: l, c, s). */
#define SSIM_CUDA_SUMS 4

typedef struct ssim_cuda_args {
    int nframes; /* 1..batch (work sized for batch pairs) */
    int bpc;     /* 8 (one byte a sample) or 10/12/16 (16-bit containers) */
    /* luma planes of pair z on the device, strides in bytes */
    const uint8_t *ref[SSIM_CUDA_MAX_BATCH], *dis[SSIM_CUDA_MAX_BATCH];
    ptrdiff_t rstride[SSIM_CUDA_MAX_BATCH], dstride[SSIM_CUDA_MAX_BATCH];
    /* the images: level 0 the input (lw[0] x lh[0]), level l + 1 the
     * decimation of level l (iqa_decimated sizes, iqa_decimate_fits) */
    int levels;
    int lw[SSIM_CUDA_MAX_LEVELS], lh[SSIM_CUDA_MAX_LEVELS];
    int factor, taps;                 /* decimation: factor and kernel width */
    float kernel[SSIM_CUDA_MAX_TAPS]; /* taps x taps, row-major */
    int first_map;                    /* the SSIM maps of levels first_map..levels-1 */
    int with_ssim;                    /* 1: the SSIM sum too (float_ssim) */
    float c1, c2, c3;                 /* ssim_iqa.c's constants, computed by C */
    float gauss[11];                  /* iqa_gauss */
    /* device scratch of fv_ssim_cuda_work_bytes(this) bytes */
    void *work;
    /* counters of pair z at sums + z * frame_sums: per map (level first_map
     * on) with_ssim + 3 doubles (their bits): the sums of the SSIM, l, c, s
     * over the map in raster order; 0.0 for an empty map */
    unsigned long long *sums;
    size_t frame_sums;
} ssim_cuda_args;

/* Scratch bytes for a->nframes pairs of a's sizes. */
size_t fv_ssim_cuda_work_bytes(const ssim_cuda_args *a);

int fv_ssim_cuda_launch(const ssim_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
