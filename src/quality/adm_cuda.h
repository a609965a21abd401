/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the integer ADM kernels (adm.cu), callable from C: the
 * 64-bit band sums of every level of a batch of frame pairs, from which
 * adm_den_float / adm_num_float (adm_ref.c) make the raw floats. Each
 * function returning int returns the cudaError_t of its calls (0 = success). */
#ifndef FOVEA_QUALITY_ADM_CUDA_H
#define FOVEA_QUALITY_ADM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "quality/adm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most frame pairs one launch scores (blockIdx.z = pair). */
#define ADM_CUDA_MAX_BATCH 32

/* Sums of one level of one pair, in this order: the denominator's h, v, d
 * (uint64), the DLM numerator's h, v, d and the AIM numerator's h, v, d
 * (int64 in two's complement): the accum[] of adm_ref.c's den_sums and
 * num_sums. A pair has ADM_SCALES levels of them, consecutive. */
#define ADM_CUDA_NSUMS 9
#define ADM_CUDA_FRAME_SUMS (ADM_SCALES * ADM_CUDA_NSUMS)

typedef struct adm_cuda_args {
    int nframes;       /* 1..ADM_CUDA_MAX_BATCH */
    int width, height; /* >= ADM_MIN_DIM */
    int bpc;           /* 8 (one byte a sample) or 10/12/16 (16-bit containers) */
    /* luma planes of pair z on the device; strides in bytes (even above 8 bits) */
    const uint8_t *ref[ADM_CUDA_MAX_BATCH], *dis[ADM_CUDA_MAX_BATCH];
    ptrdiff_t rstride[ADM_CUDA_MAX_BATCH], dstride[ADM_CUDA_MAX_BATCH];
    adm_level level[ADM_SCALES]; /* adm_level_setup of each level */
    float cos_1deg_sq;           /* adm_cos_1deg_sq() */
    double enhn_gain_limit;
    /* device scratch of fv_adm_cuda_work_bytes(width, height, nframes) bytes,
     * 256-byte aligned; any content (the kernels clear what they sum into) */
    void *work;
    /* out: ADM_CUDA_FRAME_SUMS per pair (pair z at + z * ADM_CUDA_FRAME_SUMS);
     * every value is written (no need to clear it) */
    unsigned long long *sums;
} adm_cuda_args;

/* Bytes of device scratch a batch of nframes pairs of width x height needs
 * (bands of every level and per-row sums). */
size_t fv_adm_cuda_work_bytes(int width, int height, int nframes);

/* Queue the kernels of a batch on stream (a cudaStream_t): per level one DWT
 * launch and one scoring launch, then one launch that reduces the rows. */
int fv_adm_cuda_launch(const adm_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
