/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the integer PSNR kernel (psnr.cu), callable from C: the
 * sums of squared errors of feature_psnr.c's C extractor for a batch of
 * pairs. Returns the cudaError_t of its calls as an int (0 = success). */
#ifndef FOVEA_QUALITY_PSNR_CUDA_H
#define FOVEA_QUALITY_PSNR_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most pairs one launch takes (blockIdx.z = pair). */
#define PSNR_CUDA_MAX_BATCH 32

typedef struct psnr_cuda_args {
    int nframes; /* 1..PSNR_CUDA_MAX_BATCH */
    int planes;  /* 1 (luma) or 3 */
    int u8;      /* 1: 8-bit samples, else 16-bit containers */
    int w[3], h[3];
    /* plane p of pair z on the device, strides in bytes */
    const uint8_t *ref[3][PSNR_CUDA_MAX_BATCH], *dis[3][PSNR_CUDA_MAX_BATCH];
    ptrdiff_t rstride[3][PSNR_CUDA_MAX_BATCH], dstride[3][PSNR_CUDA_MAX_BATCH];
    /* 3 counters per pair, zeroed by the caller: plane p's SSE is added to
     * sse[3 z + p] */
    unsigned long long *sse;
} psnr_cuda_args;

int fv_psnr_cuda_launch(const psnr_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
