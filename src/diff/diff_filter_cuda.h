/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the denoise and temporal filter kernels (diff_filter.cu),
 * callable from C. */
#ifndef FOVEA_DIFF_FILTER_CUDA_H
#define FOVEA_DIFF_FILTER_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One plane of a filter: median3, gauss5 (FOVEA_DIFF_DENOISE_* values 1, 2)
 * or one temporal step (3) of state towards src. */
typedef struct diff_cuda_filter_args {
    int mode;
    int wide;
    int w, h, comps; /* pixels of the plane, samples a pixel */
    const uint8_t *src, *state;
    ptrdiff_t ss, ts;
    uint8_t *dst;
    ptrdiff_t ds;
    int strength;
} diff_cuda_filter_args;

int fv_diff_cuda_filter(const diff_cuda_filter_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
