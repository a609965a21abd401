/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* SpEED (libvmaf's speed.c, as its plain-C path computes it): one plane of
 * ref and dis into a float image, an optional prescale, a Gaussian
 * antialias filter and a decimation by 16, local mean subtraction, then per
 * 5x5 block the entropies and variances of a Gaussian scale mixture model
 * from the 25x25 covariance of the plane's 5x5 neighborhoods. Everything is
 * float in libvmaf's order of operations (speed_ref.c, speed_linalg.c). */
#ifndef FOVEA_QUALITY_SPEED_H
#define FOVEA_QUALITY_SPEED_H

#include <stddef.h>
#include <stdint.h>

#include "quality/feature.h"

/* Blocks are SPEED_BLOCK x SPEED_BLOCK samples of the operating image. */
#define SPEED_BLOCK 5
#define SPEED_ELEMS (SPEED_BLOCK * SPEED_BLOCK)
/* The operating image is the (prescaled) plane decimated by 2^SPEED_SCALES. */
#define SPEED_SCALES 4

/* libvmaf's prescale methods (speed_prescale_method), in its help's order. */
typedef enum speed_method {
    SPEED_NEAREST = 0,
    SPEED_BILINEAR,
    SPEED_BICUBIC,
    SPEED_LANCZOS4,
} speed_method;

typedef struct speed_params {
    double kernelscale, prescale, sigma_nn, nn_floor;
    speed_method method;
    int weight_var_mode; /* 0..6 */
} speed_params;

/* The sizes of one plane's computation. */
typedef struct speed_dims {
    int width, height;               /* the plane */
    int scaled_width, scaled_height; /* after the prescale */
    int alloc_width, alloc_height;   /* the larger of both */
    int op_width, op_height;         /* the operating image (scaled >> 4) */
    int blocks_h, blocks_v, blocks;  /* whole 5x5 blocks of the operating image */
    int sub_width, sub_height;       /* the neighborhoods' span: truncated - 4 */
} speed_dims;

/* The sizes of a width x height plane under p; 0 when the operating image
 * holds at least one block, -1 when the plane is too small. */
int speed_dims_init(speed_dims *d, int width, int height, const speed_params *p);

/* The most taps of a SpEED Gaussian (speed_kernelscale 4 gives 37). */
#define SPEED_MAX_TAPS 128
/* Entries per destination index of speed_prescale_axis (lanczos4's 9). */
#define SPEED_AXIS_TAPS 9

/* 1 when libvmaf accepts kernelscale (one of its 21 kernel scales). */
int speed_kernelscale_valid(double kernelscale);

/* One instance's buffers for planes of one size. */
typedef struct speed_state {
    speed_dims dims;
    speed_params params;
    size_t stride;           /* of the float images, in floats */
    float *image, *work[2];  /* frame buffer and two scratch images */
    float *filt_aa, *filt_4; /* antialias and operating-scale filters */
    int width_aa, width_4;
    int *col_lo, *col_hi; /* bilinear prescale columns */
    float *col_frac;
    float *cov, *eig, *rhs, *sol; /* 25x25, 25, 25 x blocks, 25 x blocks */
    float *lin;                   /* linear algebra scratch */
    float *ent[2], *var[2];       /* per block: ref (0) and dis (1) */
    double *cov_sum, *cov_chunk;  /* the covariance's sums and centered samples */
    uint8_t *need;                /* per plane row: 1 when the computation reads it */
} speed_state;

/* The antialias and operating-scale Gaussians of p (SPEED_MAX_TAPS floats
 * each) and their widths. */
void speed_filters(const speed_params *p, float *aa, int *width_aa, float *f4, int *width_4);

/* 1 when the plane goes through the prescale (libvmaf skips it within 1e-3
 * of 1 and when the size does not change). */
int speed_prescaled(const speed_dims *d, const speed_params *p);

/* The prescale along one axis of src_n samples to dst_n, per destination
 * index x at x * SPEED_AXIS_TAPS: nearest, the source index; bilinear, the
 * two source indexes and the weight of the second (its fraction); bicubic
 * and lanczos4, the mirrored source indexes and weights of its 4 or 9 taps
 * (unused entries 0). Returns the taps used. speed_ref.c's arithmetic, for
 * the CUDA backend. */
int speed_prescale_axis(speed_method method, int src_n, int dst_n, int *idx, float *w);

int speed_state_init(speed_state *s, int width, int height, const speed_params *p);
void speed_state_free(speed_state *s);

/* One side of a plane pair: the plane's block entropies and variances into
 * s->ent[k] and s->var[k] (k 0: ref, 1: dis); returns the singular flag. */
int speed_side(speed_state *s, const uint8_t *plane, ptrdiff_t stride, int bpc, int k);

/* The SpEED score of one plane pair (samples of bpc bits: 8-bit bytes or
 * 16-bit containers), as float; returns nonzero when either covariance was
 * singular (libvmaf's error flag, used to combine U and V). */
int speed_plane_score(speed_state *s, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                      ptrdiff_t dis_stride, int bpc, float *score);

/* The entropies of blocks blocks (libvmaf's est_params' last step) from the
 * covariance's eigenvalues (SPEED_ELEMS) and the blocks' variances. */
void speed_entropies(const speed_params *p, const float *eig, const float *var, int blocks,
                     float *ent);

/* The score of a plane pair from both sides' entropies, variances and
 * singular flags (speed_plane_score's last step); returns its result. */
int speed_score(const speed_params *p, int blocks, const float *ent_ref, const float *var_ref,
                int err_ref, const float *ent_dis, const float *var_dis, int err_dis, float *score);

/* libvmaf's eigenvalues of the symmetric n x n matrix a (Householder
 * tridiagonalization, implicit QR steps), into eig; work holds
 * n * n + 4 * n floats. */
void speed_eigenvalues(const float *a, int n, float *eig, float *work);

/* Solve a x = b for the n x n matrix a and n x cols b by libvmaf's
 * Householder QR; work holds 5 * n * n + n * cols floats. 0, or -1 when R
 * has a diagonal element below 1e-6. */
int speed_solve(const float *a, int n, const float *b, int cols, float *x, float *work);

/* speed_chroma (feature_speed_chroma.c), shared by its C and CUDA extractors:
 * the parameters and speed_max_val of an instance, or its refusal (gray
 * input, planes too small); the raw values from both planes' scores and
 * singular flags. */
extern const feature_def feature_speed_chroma;
int speed_chroma_setup(fovea_context *ctx, const feature_setup *s, speed_params *params,
                       double *max_val);
void speed_chroma_raw(float su, int err_u, float sv, int err_v, double max_val, feature_raw *raw);

#endif
