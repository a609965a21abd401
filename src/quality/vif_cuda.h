/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the integer VIF kernels (vif.cu), callable from C. Each
 * returns the cudaError_t of its calls as an int (0 = success). */
#ifndef FOVEA_QUALITY_VIF_CUDA_H
#define FOVEA_QUALITY_VIF_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per scale, four 64-bit integer sums (two's complement in unsigned storage):
 * num_log, den_log, num_non_log (sum of sigma2_sq of flat pixels), den_non_log
 * (count of flat pixels). A frame pair has 4 scales x 4 sums, consecutive. */
#define VIF_CUDA_NSUMS 4
#define VIF_CUDA_FRAME_SUMS (4 * VIF_CUDA_NSUMS)

/* Most frame pairs one launch scores (blockIdx.z = pair). */
#define VIF_CUDA_MAX_BATCH 32

/* One scale of a batch of pairs: statistics of the images (ref, dis) and, for
 * scales 0..2, the subsampled images of the next scale. */
typedef struct vif_cuda_scale_args {
    int scale;   /* 0..3 */
    int nframes; /* 1..VIF_CUDA_MAX_BATCH */
    int u8;      /* 1: 8-bit samples (scale 0 of 8-bit input) */
    int w, h;
    int shift; /* bpc at scale 0, 16 above */
    /* samples of pair z: bytes (u8) or 16-bit containers; strides in bytes */
    const uint8_t *ref[VIF_CUDA_MAX_BATCH], *dis[VIF_CUDA_MAX_BATCH];
    ptrdiff_t rstride[VIF_CUDA_MAX_BATCH], dstride[VIF_CUDA_MAX_BATCH];
    /* next scale's images of pair z at out_* + z * out_frame_bytes (scale < 3) */
    uint16_t *out_ref, *out_dis;
    ptrdiff_t out_stride; /* bytes */
    size_t out_frame_bytes;
    const uint16_t *log2_table; /* VIF_LOG2_TABLE_SIZE entries, device */
    double enhn_gain_limit;
    /* VIF_CUDA_FRAME_SUMS counters per pair (pair z at + z * VIF_CUDA_FRAME_SUMS),
     * zeroed before scale 0 */
    unsigned long long *sums;
} vif_cuda_scale_args;

/* Prepare the kernels on the current device (shared-memory limits); call once
 * per backend init before the first launch. */
int fv_vif_cuda_prepare(void);

int fv_vif_cuda_launch_scale(const vif_cuda_scale_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
