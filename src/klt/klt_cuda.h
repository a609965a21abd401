/* Host launchers of the KLT kernels (klt.cu), callable from C. Each returns
 * the cudaError_t of its launch(es) as an int (0 = success). Kernel weights
 * travel by value in the launch arguments: no device symbol is shared between
 * tracking contexts. */
#ifndef FOVEA_KLT_CUDA_H
#define FOVEA_KLT_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KLT_CUDA_MAX_KERNEL 71   /* = KLT_MAX_KERNEL_WIDTH */
#define KLT_CUDA_MAX_LEVELS 32   /* = KLT_MAX_LEVELS */

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

/* KLT's quicksort (select.c partition_step: middle pivot moved to the front,
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
#define KLT_CUDA_QS_SMALL 2048
#define KLT_CUDA_QS_TILE 2048

/* ctr words (device) */
enum { KLT_QS_LIST0, KLT_QS_LIST1, KLT_QS_NSMALL, KLT_QS_NDEFER, KLT_QS_NTILES, KLT_QS_DONE,
       KLT_QS_NABOVE, KLT_QS_NCTR = 8 };

typedef struct klt_cuda_qs {
    int *qa, *qb;                   /* 2n ints each: the array, the scatter target */
    int *lpos, *rpos;               /* n each */
    int *list[2];                   /* large segments (lo, n | buf << 30), 2 x max_large */
    int *small, *defer;             /* segment lists, 2 x (n / 2 + 1) ints each */
    int *seg_t, *seg_nr, *seg_tile0, *seg_j, *seg_done; /* max_large each */
    int *tile_seg, *tile_first, *tile_l, *tile_r, *tile_loff, *tile_roff; /* max_tiles */
    int *ctr;                       /* KLT_QS_NCTR */
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
int klt_cuda_qs_pack(const int *keys, const unsigned *pix, int *qa, int n, int min_eig,
                     int *nabove, void *stream);
/* The sort. from_defer 0: the whole array [0, n) as the first segment; 1:
 * the segments deferred by the previous launch, classified again with
 * q->kcap. gate: when not NULL and *gate is 0 on the device, nothing is done
 * (the selection asked for no more). blocks, coop: the grid (at most what
 * klt_cuda_qs_grid gave). */
int klt_cuda_qs_run(const klt_cuda_qs *q, int from_defer, const int *gate, int blocks,
                    int coop, void *stream);

/* *flag (an int on the device) = 1 when the n bytes at a and b differ
 * anywhere, else 0; a and b are device memory. */
int klt_cuda_differs(const unsigned char *a, const unsigned char *b, size_t n, int *flag,
                     void *stream);

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
    const int *cand;                /* (value, pixel) pairs */
    int n, start, limit, resume;
    const int *nabove;
    int nslots;
    unsigned char *map;
    int ncols, nrows, d;
    int *out_pix, *out_val, *out_n, *out_more;
    int *out_reach;                 /* written by every pass that runs */
} klt_cuda_greedy_args;
int klt_cuda_greedy(const klt_cuda_greedy_args *a, void *stream);

/* Translational tracking of every feature (one warp each). */
typedef struct klt_cuda_level {
    const float *img1, *gx1, *gy1, *img2, *gx2, *gy2;
    int ncols, nrows;
} klt_cuda_level;

typedef struct klt_cuda_track_args {
    int nlevels;
    float ss;
    klt_cuda_level lev[KLT_CUDA_MAX_LEVELS];
    int width, height;
    float step_factor;
    int max_iterations;
    float small, th, max_residue;
    int lighting_insensitive;
    int borderx, bordery, ncols, nrows;
    int nfeat;
    /* in: x[n] y[n] (floats), val[n] (ints); out: x, y, xloc, yloc, val */
    const float *in_x, *in_y;
    const int *in_val;
    float *out_x, *out_y, *out_xloc, *out_yloc;
    int *out_val;
} klt_cuda_track_args;
int klt_cuda_track(const klt_cuda_track_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
