/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The users' current stitch kernel, reproduced as the benchmark baseline: six
 * full-resolution float tables, bilinear sampling from global memory by hand,
 * and powf gamma per channel and camera per pixel. */
#ifndef FOVEA_BENCH_STITCH_BASELINE_H
#define FOVEA_BENCH_STITCH_BASELINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct baseline_args {
    const float *lx, *ly, *rx, *ry, *wl, *wr; /* pano-sized tables (device) */
    const uint8_t *left, *right;              /* RGBA camera frames (device) */
    int left_stride, right_stride;            /* bytes */
    int cam_w, cam_h;
    uint8_t *out; /* RGBA panorama (device) */
    int out_stride;
    int pano_w, pano_h;
    float gain_l[3], gain_r[3], gamma_l, gamma_r;
} baseline_args;

/* Returns the cudaError_t of the launch. */
int bench_baseline_stitch(const baseline_args *a, void *stream);
/* The same kernel compiled with --use_fast_math (stitch_baseline_fast.cu). */
int bench_baseline_stitch_fast(const baseline_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
