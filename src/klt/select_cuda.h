/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the selection kernels (select.cu), callable from C: the
 * minimum-eigenvalue map over the candidate grid, the marking of squares
 * around kept features, and the greedy minimum-distance pass over the sorted
 * candidates (the sort itself: sort_cuda.h). Each returns the cudaError_t of
 * its launch as an int (0 = success). */
#ifndef FOVEA_KLT_SELECT_CUDA_H
#define FOVEA_KLT_SELECT_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Minimum-eigenvalue map over the candidate grid: cand[2i] = (int) value,
 * cand[2i + 1] = y * ncols + x, candidates row-major; *nabove (zeroed by
 * the caller) is increased by the number of values >= min_eig. */
typedef struct klt_cuda_eig_args {
    const float *gx, *gy;
    int ncols;
    int bx, by, step, nx, ny, hw, hh;
    int *cand;
    int min_eig;
    int *nabove;
} klt_cuda_eig_args;
int klt_cuda_eigen(const klt_cuda_eig_args *a, void *stream);

/* Mark the squares of half size d around n points (px, py) in the byte map. */
int klt_cuda_mark(unsigned char *map, int ncols, int nrows, const int *pts, int n, int d,
                  void *stream);

/* Greedy minimum-distance pass over the sorted candidates (one block): takes
 * up to nslots candidates whose pixel is free, marking squares of half size
 * d. Writes out_pix / out_val (taken order) and *out_n. Reads candidates
 * [start, min(limit, *nabove)) of n (all of them have values >= min_eig).
 * resume: continue from *out_n taken (the map as left by the previous pass),
 * and only if *out_more is set. *out_more = 1 when it stopped at limit < n
 * with slots left and candidates >= min_eig beyond limit; *out_reach = the
 * candidates it needed: up to its last taken one once the slots are full,
 * else limit. */
typedef struct klt_cuda_greedy_args {
    const int *cand; /* (value, pixel) pairs */
    int n, start, limit, resume;
    const int *nabove;
    int nslots;
    unsigned char *map;
    int ncols, nrows, d;
    int *out_pix, *out_val, *out_n, *out_more;
    int *out_reach; /* written by every pass that runs */
} klt_cuda_greedy_args;
int klt_cuda_greedy(const klt_cuda_greedy_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
