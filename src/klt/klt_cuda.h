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

/* Minimum-eigenvalue map over the candidate grid: keys[i] = (int) value,
 * pix[i] = y * ncols + x, candidates row-major. */
typedef struct klt_cuda_eig_args {
    const float *gx, *gy;
    int ncols;
    int bx, by, step, nx, ny, hw, hh;
    int *keys;
    unsigned *pix;
} klt_cuda_eig_args;
int klt_cuda_eigen(const klt_cuda_eig_args *a, void *stream);

/* Descending radix sort of (keys, pix) pairs, stable (equal keys keep their
 * row-major order). temp NULL: *temp_bytes receives the size needed. Only
 * the values of its result are used: the order of equal values is KLT's
 * quicksort's, which the qs_* launchers below reproduce. */
int klt_cuda_sort(void *temp, size_t *temp_bytes, const int *keys_in, int *keys_out,
                  const unsigned *pix_in, unsigned *pix_out, int n, void *stream);

/* KLT's quicksort (select.c partition_step: middle pivot moved to the front,
 * Hoare partition, both parts recursed) emulated level by level: in one
 * partition the t-th element from the left that must move (value <= pivot)
 * is exchanged with the t-th from the right (value >= pivot) as long as they
 * have not crossed, so a partition is prefix counts and a scatter. Segments
 * longer than KLT_CUDA_QS_SMALL are partitioned by tiles across blocks, one
 * level per klt_cuda_qs_level; shorter ones are finished by one block each in
 * shared memory (klt_cuda_qs_finish). Segments that cannot matter are not
 * sorted: those whose largest value (known from the radix sort: a segment
 * holds the values of its sorted ranks) is below min_eig get their largest
 * radix-sorted value as first element (the selection stops there and reads
 * nothing after it), and those starting at or after kcap are deferred (the
 * selection reads only a prefix; another round with a larger kcap sorts more
 * when it needs more). Candidates are (value, pixel) int pairs. */
#define KLT_CUDA_QS_SMALL 4096
#define KLT_CUDA_QS_TILE 2048

/* ctr words (device) */
enum { KLT_QS_LIST0, KLT_QS_LIST1, KLT_QS_NSMALL, KLT_QS_NFILL, KLT_QS_NDEFER, KLT_QS_NTILES,
       KLT_QS_NCTR = 8 };

typedef struct klt_cuda_qs {
    int *qa, *qb;                   /* 2n ints each: the array, the scatter target */
    int *lpos, *rpos;               /* n each */
    const int *skeys;               /* radix-sorted values (descending) */
    const unsigned *spix;           /* their pixels */
    int *list[2];                   /* large segments (lo, n | buf << 30), 2 x max_large */
    int *small, *fill, *defer;      /* segment lists, 2 x (n / 2 + 1) ints each */
    int *seg_t, *seg_nr, *seg_tile0;/* max_large each */
    int *tile_seg, *tile_first, *tile_l, *tile_r, *tile_loff, *tile_roff; /* max_tiles */
    int *ctr;                       /* KLT_QS_NCTR */
    int n, kcap, min_eig;
} klt_cuda_qs;

/* Segment counts bounding the lists above. */
size_t klt_cuda_qs_max_large(size_t n);
size_t klt_cuda_qs_max_tiles(size_t n);
/* qa = (keys[i], pix[i]) pairs. */
int klt_cuda_qs_pack(const int *keys, const unsigned *pix, int *qa, int n, void *stream);
/* from_defer 0: the whole array [0, n) as the first segment; 1: the deferred
 * segments (classified again with q->kcap). Resets the counters. */
int klt_cuda_qs_seed(const klt_cuda_qs *q, int from_defer, void *stream);
/* Tiles of the large segments of list cur; clears list 1 - cur. */
int klt_cuda_qs_plan(const klt_cuda_qs *q, int cur, void *stream);
/* One partition of every segment of list cur (nseg segments, ntiles tiles);
 * children go to list 1 - cur or to the other lists. */
int klt_cuda_qs_level(const klt_cuda_qs *q, int cur, int nseg, int ntiles, void *stream);
/* The short segments and the below-threshold fills; the result is in qa. */
int klt_cuda_qs_finish(const klt_cuda_qs *q, int nsmall, int nfill, void *stream);

/* Mark the squares of half size d around n points (px, py) in the byte map. */
int klt_cuda_mark(unsigned char *map, int ncols, int nrows, const int *pts, int n, int d,
                  void *stream);

/* Greedy minimum-distance pass over the sorted candidates (one block): takes
 * up to nslots candidates with value >= min_eig whose pixel is free, marking
 * squares of half size d. Writes out_pix / out_val (taken order) and *out_n.
 * Reads candidates [start, limit) of n; resume: continue from *out_n taken
 * (the map as left by the previous pass). *out_more = 1 when it stopped at
 * limit < n with slots left and no candidate below min_eig met. */
typedef struct klt_cuda_greedy_args {
    const int *cand;                /* (value, pixel) pairs */
    int n, start, limit, resume;
    int min_eig;
    int nslots;
    unsigned char *map;
    int ncols, nrows, d;
    int *out_pix, *out_val, *out_n, *out_more;
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
