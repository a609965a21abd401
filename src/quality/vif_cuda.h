/* Host launchers of the integer VIF kernels (vif.cu), callable from C. Each
 * returns the cudaError_t of its launch as an int (0 = success). */
#ifndef FOVEA_QUALITY_VIF_CUDA_H
#define FOVEA_QUALITY_VIF_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per scale, four 64-bit integer sums (two's complement in unsigned storage):
 * num_log, den_log, num_non_log (sum of sigma2_sq of flat pixels), den_non_log
 * (count of flat pixels). */
#define VIF_CUDA_NSUMS 4

/* One scale: statistics of the image (ref, dis) and, for scales 0..2, the
 * subsampled images of the next scale. */
typedef struct vif_cuda_scale_args {
    int scale;                  /* 0..3 */
    const uint8_t *ref, *dis;   /* samples: bytes (u8) or 16-bit containers */
    ptrdiff_t rstride, dstride; /* bytes */
    int u8;                     /* 1: 8-bit samples (scale 0 of 8-bit input) */
    int w, h;
    int shift;                  /* bpc at scale 0, 16 above */
    uint16_t *out_ref, *out_dis; /* next scale's images (scale < 3) */
    ptrdiff_t out_stride;       /* bytes */
    const uint16_t *log2_table; /* VIF_LOG2_TABLE_SIZE entries, device */
    double enhn_gain_limit;
    unsigned long long *sums;   /* VIF_CUDA_NSUMS counters of this scale, zeroed before */
} vif_cuda_scale_args;

int fovea_vif_cuda_launch_scale(const vif_cuda_scale_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
