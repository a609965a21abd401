/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the tracking kernel (track.cu), callable from C: the
 * translational tracking of every feature, one warp each, coarse to fine.
 * Returns the cudaError_t of its launch as an int (0 = success). */
#ifndef FOVEA_KLT_TRACK_CUDA_H
#define FOVEA_KLT_TRACK_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

#define KLT_CUDA_MAX_LEVELS 32 /* = KLT_MAX_LEVELS */

/* One pyramid level of both images: image and gradients. */
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
