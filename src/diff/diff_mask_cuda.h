/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the change mask and histogram kernels (diff_mask.cu),
 * callable from C. */
#ifndef FOVEA_DIFF_MASK_CUDA_H
#define FOVEA_DIFF_MASK_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Changed tiles a block of the mask kernel owns at most (128 px / 8). */
#define DIFF_CUDA_MASK_SPAN 128

/* The mask's result block: DIFF_CUDA_RES_WORDS 64-bit counters, then the list. */
enum {
    DIFF_CUDA_RES_TILES = 0,  /* changed tiles */
    DIFF_CUDA_RES_PIXELS = 1, /* changed pixels */
    DIFF_CUDA_RES_SUM = 2,    /* sum of the SUM measure */
    DIFF_CUDA_RES_MAX = 3,    /* largest SUM measure */
    DIFF_CUDA_RES_WORDS = 4
};

/* Change mask: per tile flags (kept on the device), totals and the ascending
 * list of changed tiles, compacted in one pass with a decoupled look-back
 * over the blocks (each block owns up to DIFF_CUDA_MASK_SPAN px of one tile
 * row; blocks take their place in the order of a ticket). */
typedef struct diff_cuda_mask_args {
    diff_cuda_pair in;
    int reader; /* DIFF_CUDA_READ_* */
    int threshold;
    int tile, tiles_x, tiles_y;
    int blocks;               /* ceil(w / DIFF_CUDA_MASK_SPAN) x tiles_y */
    unsigned int *ticket;     /* 0 before the launch; the kernel leaves it 0 */
    unsigned long long *look; /* blocks words (stale ones from older epochs) */
    unsigned int epoch;       /* this launch's, never 0, never that of an earlier one */
    unsigned long long *res;  /* this launch's result block (counters zeroed) */
    unsigned long long *next; /* the next launch's counters: zeroed by this one */
    uint8_t *flags;           /* tiles_x x tiles_y */
} diff_cuda_mask_args;

/* Histogram of plane 0's first-sample difference cur - prev + maxval
 * (2 maxval + 1 counters, zeroed before). */
typedef struct diff_cuda_hist_args {
    diff_cuda_pair in;
    int maxval;
    unsigned int *hist;
} diff_cuda_hist_args;

int fv_diff_cuda_mask(const diff_cuda_mask_args *a, void *stream);
int fv_diff_cuda_hist(const diff_cuda_hist_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
