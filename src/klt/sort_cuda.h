/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the candidate sort (sort.cu), callable from C. Each
 * returns the cudaError_t of its launch(es) as an int (0 = success).
 *
 * Why a sort of its own: KLT orders the candidates with its own quicksort,
 * which is not stable, and the minimum-distance pass takes them in that
 * order, so which of two pixels with equal eigenvalues gets the earlier slot
 * (or is dropped for being too near the other) is decided by the quicksort's
 * partitions. A standard GPU sort (stable, radix) orders ties differently and
 * would select other features; this one yields KLT's permutation, ties
 * included, with the C reference's sort (select.c) as its specification.
 *
 * How: KLT's quicksort (select.c partition_step: middle pivot moved to the front,
 * Hoare partition, both parts recursed) emulated level by level: in one
 * partition the t-th element from the left that must move (value <= pivot)
 * is exchanged with the t-th from the right (value >= pivot) as long as they
 * have not crossed, so a partition is prefix counts and a scatter. One
 * launch (klt_cuda_qs_run) does it all on the device: segments longer than
 * KLT_CUDA_QS_SMALL are partitioned by tiles across the blocks of a
 * cooperative grid, one level of every such segment between grid-wide
 * barriers; shorter ones are then finished by one block each in shared
 * memory. Segments that cannot matter are not sorted: a segment holds the
 * values of its sorted ranks, so one starting at or after nabove (the count
 * of values >= min_eig) holds only values below min_eig, and the selection
 * stops before it; segments starting at or after kcap are deferred (the
 * selection reads only a prefix; another launch with a larger kcap sorts
 * more when it needs more). Candidates are (value, pixel) int pairs. */
#ifndef FOVEA_KLT_SORT_CUDA_H
#define FOVEA_KLT_SORT_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KLT_CUDA_QS_SMALL 2048
#define KLT_CUDA_QS_TILE 2048

/* ctr words (device) */
enum {
    KLT_QS_LIST0,
    KLT_QS_LIST1,
    KLT_QS_NSMALL,
    KLT_QS_NDEFER,
    KLT_QS_NTILES,
    KLT_QS_DONE,
    KLT_QS_NABOVE,
    KLT_QS_NCTR = 8
};

typedef struct klt_cuda_qs {
    int *qa, *qb;       /* 2n ints each: the array, the scatter target */
    int *lpos, *rpos;   /* n each */
    int *list[2];       /* large segments (lo, n | buf << 30), 2 x max_large */
    int *small, *defer; /* segment lists, 2 x (n / 2 + 1) ints each */
    int *seg_t, *seg_nr, *seg_tile0, *seg_j, *seg_done;                   /* max_large each */
    int *tile_seg, *tile_first, *tile_l, *tile_r, *tile_loff, *tile_roff; /* max_tiles */
    int *ctr;                                                             /* KLT_QS_NCTR */
    int n, kcap;
} klt_cuda_qs;

/* Segment counts bounding the lists above. */
size_t klt_cuda_qs_max_large(size_t n);
size_t klt_cuda_qs_max_tiles(size_t n);
/* Blocks of the sort's grid: *blocks = the most that can be co-resident on
 * the current device, *coop = 1 when it supports cooperative launches (else
 * the sort runs as one block: *blocks = 1). */
int klt_cuda_qs_grid(int *blocks, int *coop);
/* qa = (keys[i], pix[i]) pairs; *nabove (zeroed by the caller) += the count
 * of keys >= min_eig. */
int klt_cuda_qs_pack(const int *keys, const unsigned *pix, int *qa, int n, int min_eig, int *nabove,
                     void *stream);
/* The sort. from_defer 0: the whole array [0, n) as the first segment; 1:
 * the segments deferred by the previous launch, classified again with
 * q->kcap. gate: when not NULL and *gate is 0 on the device, nothing is done
 * (the selection asked for no more). blocks, coop: the grid (at most what
 * klt_cuda_qs_grid gave). */
int klt_cuda_qs_run(const klt_cuda_qs *q, int from_defer, const int *gate, int blocks, int coop,
                    void *stream);

#ifdef __cplusplus
}
#endif

#endif
