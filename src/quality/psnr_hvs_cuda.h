/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the PSNR-HVS kernels (psnr_hvs.cu), callable from C: per
 * plane of a batch of pairs the float sum of feature_psnr_hvs.c's weighted
 * errors, added in C's order. Returns the cudaError_t of its calls as an int
 * (0 = success). */
#ifndef FOVEA_QUALITY_PSNR_HVS_CUDA_H
#define FOVEA_QUALITY_PSNR_HVS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most pairs one launch takes. */
#define HVS_CUDA_MAX_BATCH 32

typedef struct hvs_cuda_args {
    int nframes; /* 1..batch (work sized for batch pairs) */
    int u8;      /* 1: 8-bit samples, else 16-bit containers */
    int w[3], h[3];
    /* plane p (0 Y, 1 U, 2 V) of pair z on the device, strides in bytes */
    const uint8_t *ref[3][HVS_CUDA_MAX_BATCH], *dis[3][HVS_CUDA_MAX_BATCH];
    ptrdiff_t rstride[3][HVS_CUDA_MAX_BATCH], dstride[3][HVS_CUDA_MAX_BATCH];
    float csf[3][64], mask[3][64]; /* psnr_hvs_tables */
    void *work;                    /* fv_hvs_cuda_work_bytes(this) bytes */
    /* 3 counters per pair, written: the bits of plane p's float sum in the
     * low 32 bits of sums[3 z + p] */
    unsigned long long *sums;
} hvs_cuda_args;

size_t fv_hvs_cuda_work_bytes(const hvs_cuda_args *a);

int fv_hvs_cuda_launch(const hvs_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
