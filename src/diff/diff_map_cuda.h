/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the map kernels (diff_map.cu, diff_median.cu), callable
 * from C: heat and noise maps of a pair, the fused median3 + heat map and the
 * heat map's value-to-color table. */
#ifndef FOVEA_DIFF_MAP_CUDA_H
#define FOVEA_DIFF_MAP_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the map kernels write. */
enum {
    DIFF_CUDA_HEAT = 0,   /* heat map */
    DIFF_CUDA_BLACK = 1,  /* noise map, red on black */
    DIFF_CUDA_OVERLAY = 2 /* noise map, only the changed pixels written (red) */
};

/* Map output formats. */
enum { DIFF_CUDA_OUT_RGB24 = 0, DIFF_CUDA_OUT_RGBA = 1, DIFF_CUDA_OUT_I420 = 2 };

/* The heat map's value-to-color table has DIFF_CUDA_VLUT_MAX + 1 entries:
 * the color of min(v, top) for v up to this (8-bit differences always; wider
 * ones when top is at most this). */
#define DIFF_CUDA_VLUT_MAX 4096

/* Heat map or noise map of a pair. */
typedef struct diff_cuda_map_args {
    diff_cuda_pair in;
    int reader;    /* DIFF_CUDA_READ_*: RGB24/RGBA only for RGB24/RGBA out */
    int kind;      /* DIFF_CUDA_HEAT .. OVERLAY */
    int out_fmt;   /* DIFF_CUDA_OUT_* (OVERLAY: cur's format) */
    int out_words; /* RGB24/RGBA out: rows on 4 (RGB24) or 16 (RGBA) bytes */
    uint8_t *out[3];
    ptrdiff_t os[3];
    int measure_max;      /* heat: 1 = the largest channel difference, 0 = their sum */
    int top;              /* heat: > 0 */
    const uint32_t *heat; /* DIFF_HEAT_ENTRIES colors, R | G << 8 | B << 16 */
    const uint32_t *vlut; /* color of min(v, top) for v <= DIFF_CUDA_VLUT_MAX */
    int threshold;        /* noise maps */
    /* 8-bit RGB24/RGBA pair whose planes and strides (and, but for OVERLAY,
     * the output's) are on 16 bytes: the warp kernel */
    int vec16;
    int grid_cap; /* blocks the warp kernel keeps busy (0: one a unit) */
} diff_cuda_map_args;

int fv_diff_cuda_map(const diff_cuda_map_args *a, void *stream);
/* Heat map of the 3x3 medians of an 8-bit RGB24 / RGBA pair (comps 3 or 4),
 * out RGB24 or RGBA: one pass, the medians made in shared memory
 * (diff_median.cu). */
int fv_diff_cuda_heat_median(const diff_cuda_map_args *a, void *stream);
/* vlut[v] = heat[(min(v, top) * 1023 + top / 2) / top], v = 0..DIFF_CUDA_VLUT_MAX */
int fv_diff_cuda_vlut(uint32_t *vlut, const uint32_t *heat, int top, void *stream);

#ifdef __cplusplus
}
#endif

#endif
