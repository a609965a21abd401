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
 * row-major order). temp NULL: *temp_bytes receives the size needed. */
int klt_cuda_sort(void *temp, size_t *temp_bytes, const int *keys_in, int *keys_out,
                  const unsigned *pix_in, unsigned *pix_out, int n, void *stream);

/* Mark the squares of half size d around n points (px, py) in the byte map. */
int klt_cuda_mark(unsigned char *map, int ncols, int nrows, const int *pts, int n, int d,
                  void *stream);

/* Greedy minimum-distance pass over the sorted candidates (one block): takes
 * up to nslots candidates with value >= min_eig whose pixel is free, marking
 * squares of half size d. Writes out_pix / out_val (taken order) and *out_n. */
typedef struct klt_cuda_greedy_args {
    const int *keys;
    const unsigned *pix;
    int n;
    int min_eig;
    int nslots;
    unsigned char *map;
    int ncols, nrows, d;
    int *out_pix, *out_val, *out_n;
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
