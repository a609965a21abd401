/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the pyramid kernels (pyramid.cu), callable from C: the
 * separable convolution (smoothing, gradients), the smoothing at the sampled
 * points of a pyramid level, and the comparison of an input with the one a
 * kept pyramid was built from. Each returns the cudaError_t of its launch(es)
 * as an int (0 = success). Kernel weights travel by value in the launch
 * arguments: no device symbol is shared between tracking contexts. */
#ifndef FOVEA_KLT_PYRAMID_CUDA_H
#define FOVEA_KLT_PYRAMID_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KLT_CUDA_MAX_KERNEL 71 /* = KLT_MAX_KERNEL_WIDTH */

typedef struct klt_cuda_kernel {
    int width;
    float data[KLT_CUDA_MAX_KERNEL];
} klt_cuda_kernel;

/* Separable convolution with KLT's zero borders, horizontal pass first.
 * in is bytes (in_u8) or floats; out1 = (h1 along rows, v1 along columns);
 * out2 (when not NULL) = (h2, v2) of the same input (the gradient pair). */
typedef struct klt_cuda_conv_args {
    const void *in;
    int in_u8;
    int ncols, nrows;
    klt_cuda_kernel h1, v1, h2, v2;
    float *out1, *out2;
} klt_cuda_conv_args;
int klt_cuda_conv(const klt_cuda_conv_args *a, void *stream);

/* Smooth in (ncols x nrows) with k and sample at (ss*x + ss/2, ss*y + ss/2)
 * into out (ncols/ss x nrows/ss); tmp holds nrows x ncols/ss floats. */
int klt_cuda_smooth_subsample(const float *in, int ncols, int nrows, const klt_cuda_kernel *k,
                              int ss, float *tmp, float *out, void *stream);

/* *flag (an int on the device) = 1 when the n bytes at a and b differ
 * anywhere, else 0; a and b are device memory. */
int klt_cuda_differs(const unsigned char *a, const unsigned char *b, size_t n, int *flag,
                     void *stream);

#ifdef __cplusplus
}
#endif

#endif
