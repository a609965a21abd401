/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the integer motion kernel (motion.cu), callable from C: the
 * SAD of motion_sad() (motion_ref.c) for a batch of frame pairs. Returns the
 * cudaError_t of its calls as an int (0 = success).
 *
 * motion_sad blurs the difference prev - cur, rounding after each pass; the
 * rounding does not distribute over the difference, so the SAD cannot come from
 * two separately blurred planes: the caller keeps the previous reference luma
 * itself (as samples) on the device. */
#ifndef FOVEA_QUALITY_MOTION_CUDA_H
#define FOVEA_QUALITY_MOTION_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most pairs of planes one launch handles (blockIdx.z = pair). */
#define MOTION_CUDA_MAX_BATCH 32

typedef struct motion_cuda_args {
    int nframes; /* 1..MOTION_CUDA_MAX_BATCH */
    int w, h;    /* >= MOTION_MIN_DIM */
    int bpc;     /* 8 (one byte a sample) or 10/12/16 (16-bit containers) */
    /* luma planes on the device, strides in bytes; a NULL prev skips pair z
     * (the first frame of a stream has no motion) */
    const uint8_t *prev[MOTION_CUDA_MAX_BATCH], *cur[MOTION_CUDA_MAX_BATCH];
    ptrdiff_t pstride[MOTION_CUDA_MAX_BATCH], cstride[MOTION_CUDA_MAX_BATCH];
    /* one counter per pair, zeroed by the caller before the launch: the SAD of
     * pair z is added to sad[z] */
    unsigned long long *sad;
} motion_cuda_args;

int fv_motion_cuda_launch_sad(const motion_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
