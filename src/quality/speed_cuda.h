/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the SpEED kernels (speed.cu), callable from C: for a batch
 * of pairs, each of the four chroma images (U ref, U dis, V ref, V dis) to
 * its operating image, covariance, eigenvalues, QR factors and per-block
 * variances, in speed_ref.c's and speed_linalg.c's float arithmetic. The
 * logarithms stay on the host (speed_entropies, speed_score). Returns the
 * cudaError_t of its calls as an int (0 = success). */
#ifndef FOVEA_QUALITY_SPEED_CUDA_H
#define FOVEA_QUALITY_SPEED_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most pairs one launch takes (blockIdx.z = pair). */
#define SPEED_CUDA_MAX_BATCH 32
/* Images per pair: U ref, U dis, V ref, V dis (image m = 2 plane + side). */
#define SPEED_CUDA_IMAGES 4
/* The head of an image's results: [0] its singular flag (0 or 1), then the
 * SPEED_ELEMS eigenvalues; the variances of its blocks follow. */
#define SPEED_CUDA_HEAD 32

typedef struct speed_cuda_args {
    int nframes; /* 1..SPEED_CUDA_MAX_BATCH */
    int bpc;     /* 8: bytes, else 16-bit little-endian containers */
    /* sizes (speed_dims) */
    int width, height;               /* the chroma plane */
    int scaled_width, scaled_height; /* after the prescale */
    int op_width, op_height;         /* the operating image */
    int blocks_h, blocks_v, sub_width, sub_height;
    /* the prescale: -1 none, else a speed_method, with speed_prescale_axis's
     * tables of the columns and rows (device) */
    int method;
    const int *col_idx, *row_idx;
    const float *col_w, *row_w;
    /* the Gaussians (device): antialias then operating scale */
    const float *filt_aa, *filt_4;
    int width_aa, width_4;
    /* image m of pair z (device), strides in bytes */
    const uint8_t *src[SPEED_CUDA_IMAGES][SPEED_CUDA_MAX_BATCH];
    ptrdiff_t stride[SPEED_CUDA_IMAGES][SPEED_CUDA_MAX_BATCH];
    /* scratch (device): op and x hold op_width x op_height floats per image,
     * qr 2 x SPEED_ELEMS^2 (Q, R) per image, image m of pair z at index
     * z * SPEED_CUDA_IMAGES + m */
    float *op, *x, *qr;
    /* results (device): per image SPEED_CUDA_HEAD + blocks floats at out +
     * (z * SPEED_CUDA_IMAGES + m) * out_image */
    float *out;
    size_t out_image;
    /* pair z's counter (frame_sums 1) gets tag + z */
    unsigned long long *sums;
    unsigned long long tag;
} speed_cuda_args;

int fv_speed_cuda_launch(const speed_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
