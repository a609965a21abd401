/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of the KLT system: per-context private state (kernel
 * cache, kept pyramid, scratch), the backend table, and the reference stages. */
#ifndef FOVEA_KLT_INTERNAL_H
#define FOVEA_KLT_INTERNAL_H

#include <stddef.h>

#include "core/backend.h"
#include "fovea/klt.h"

/* The library only reproduces KLT's numbers when float expressions are
 * evaluated as written: no multiply-add contraction (clang contracts by
 * default; gcc in ISO C mode does not). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define KLT_MAX_KERNEL_WIDTH 71
#define KLT_MAX_LEVELS 32

typedef struct klt_kernel {
    int width;
    float data[KLT_MAX_KERNEL_WIDTH];
} klt_kernel;

/* KLT keeps the last Gaussian and derivative kernels and recomputes them only
 * when a requested sigma differs from the last by more than 0.05, so nearby
 * sigmas share a kernel. fovea keeps this cache per context. */
typedef struct klt_kernels {
    float sigma_last;
    klt_kernel gauss;
    klt_kernel deriv;
} klt_kernels;

/* A float image with reusable storage. */
typedef struct klt_image {
    int ncols, nrows;
    float *data;
    size_t cap; /* floats allocated */
} klt_image;

/* Image pyramid with gradients; level 0 is the smoothed input. It remembers
 * how it was built (input bytes, the sigma of the kernel used at each step) so
 * that a later request for the same image with the same kernels reuses it. */
typedef struct klt_pyramid {
    int nlevels;
    int subsampling;
    klt_image img[KLT_MAX_LEVELS];
    klt_image gx[KLT_MAX_LEVELS];
    klt_image gy[KLT_MAX_LEVELS];
    int valid;
    unsigned char *raw;
    size_t raw_cap;
    float sig[2 * KLT_MAX_LEVELS]; /* kernel sigma: smooth, levels 1.., gradients 0.. */
} klt_pyramid;

/* A KLT backend (core/backend.h): the C reference (select.c, track.c; its
 * state is the tracking context's klt_state) and the CUDA backend
 * (klt_cuda.c and its stages, klt_cuda_internal.h). init's params: the
 * KLT_TrackingContext. KLT 1.3.4's calls carry their parameters in the
 * tracking context, so the processing functions take it beside priv. */
typedef struct klt_backend {
    backend_info info;
    /* replace = 0: KLTSelectGoodFeatures; 1: KLTReplaceLostFeatures. */
    int (*select)(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img, int ncols,
                  int nrows, KLT_FeatureList fl, int replace);
    int (*track)(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img1,
                 const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl);
    /* Test hook (NULL when not provided): klt_cuda_sort_check below. */
    int (*sort_check)(void *priv, KLT_TrackingContext tc, const int *val, int n, int max_blocks,
                      int *out_val, unsigned *out_id);
} klt_backend;

/* The KLT backends: ref.c (the C reference's table), klt_cuda.c (CUDA
 * builds); the list in klt_backends.c. */
extern const klt_backend klt_backend_ref;
extern const klt_backend klt_backend_cuda;

/* klt_backends.c: make tc's backend ready for a call: the table for tc->backend
 * (backend_pick), made for tc->ctx, or for the tracking context's own default
 * CUDA context (device 0) when the CUDA table is picked and tc->ctx is not a
 * CUDA context. A new table or context closes the old backend; what it kept
 * (the pyramid of sequential mode) is dropped. FOVEA_OK or the failure
 * (klt_fail). */
int klt_backend_bind(KLT_TrackingContext tc);
/* Close tc's backend and its default context (KLTFreeTrackingContext). */
void klt_backend_release(KLT_TrackingContext tc);
/* Test hooks: KLT's quicksort of (val, id) pairs, descending, in place: the
 * C reference (select.c) and the CUDA emulation (the CUDA table's sort_check,
 * through klt_backends.c; out_* receive the sorted pairs; max_blocks bounds the
 * sort's grid, 0: as many as fit, 1: the one-block path of devices without
 * cooperative launches; returns a fovea status). */
void klt_ref_quicksort(int *val, unsigned *id, size_t n);
int klt_cuda_sort_check(KLT_TrackingContext tc, const int *val, int n, int max_blocks, int *out_val,
                        unsigned *out_id);
/* the C reference: select.c, track.c */
int klt_ref_select(KLT_TrackingContext tc, const KLT_PixelType *img, int ncols, int nrows,
                   KLT_FeatureList fl, int replace);
int klt_ref_track(KLT_TrackingContext tc, const KLT_PixelType *img1, const KLT_PixelType *img2,
                  int ncols, int nrows, KLT_FeatureList fl);

typedef struct klt_state {
    klt_kernels kernels;
    const klt_backend *backend; /* NULL until the first processing call */
    void *backend_priv;         /* its state (NULL for the C reference) */
    fovea_context *backend_ctx; /* the context it was made for */
    fovea_context *default_ctx; /* owned: the CUDA backend's context when tc->ctx is
                                       not a CUDA context (opened once) */
    int status;                 /* of the last call (fovea_klt_last_status) */
    /* Pyramids: pyr[cur] is built for the new image; in sequential mode the
     * other one holds the previous image when have_last is set. */
    klt_pyramid pyr[2];
    int last; /* index of the kept pyramid */
    int have_last;
    /* scratch */
    klt_image tmp, tmp2, sel_img, sel_gx, sel_gy;
    void *points;
    size_t points_cap; /* bytes */
    unsigned char *featuremap;
    size_t featuremap_cap;
    float *win;
    size_t win_cap; /* bytes */
    void *sort_stack;
    size_t sort_stack_cap;
} klt_state;

static inline klt_state *klt_priv(KLT_TrackingContext tc)
{
    return (klt_state *)tc->priv;
}

/* ---- util.c: messages and errors (never printed; to tc->ctx's log) ---- */
void klt_log(KLT_TrackingContext tc, fovea_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int klt_fail(KLT_TrackingContext tc, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Apply KLT's window corrections (odd, >= 3), logging a warning for each. */
void klt_fix_window(KLT_TrackingContext tc, const char *who);
int klt_ensure(void **buf, size_t *cap, size_t bytes);

/* ---- image.c ---- */
int klt_image_alloc(klt_image *im, int ncols, int nrows);
void klt_image_free(klt_image *im);
void klt_to_float(const KLT_PixelType *img, int ncols, int nrows, klt_image *out);
void klt_free_float_image(KLT_FloatImage im);
KLT_FloatImage klt_create_float_image(int ncols, int nrows);

/* ---- convolve.c ---- */
/* Always recompute the kernels for sigma (KLT's _KLTGetKernelWidths). */
void klt_kernel_widths(klt_kernels *k, float sigma, int *gauss_width, int *deriv_width);
/* Recompute when |sigma - sigma_last| > 0.05 (KLT's cache rule). */
void klt_kernels_for(klt_kernels *k, float sigma);
void klt_smooth(fovea_context *ctx, klt_kernels *k, const klt_image *in, float sigma,
                klt_image *tmp, klt_image *out);
void klt_gradients(fovea_context *ctx, klt_kernels *k, const klt_image *in, float sigma,
                   klt_image *tmp, klt_image *gx, klt_image *gy);
/* Smooth in with the sigma and sample at (ss*x + ss/2, ss*y + ss/2): the same
 * values as smoothing the whole image first, computed only where sampled. */
void klt_smooth_subsample(fovea_context *ctx, klt_kernels *k, const klt_image *in, float sigma,
                          int ss, klt_image *tmp, klt_image *out);

/* ---- pyramid.c ---- */
/* FOVEA_OK when the context's subsampling and number of pyramid levels can
 * build a pyramid, else the failure (klt_fail). */
int klt_pyramid_params_check(KLT_TrackingContext tc);
/* Every processing call's parameter check for an ncols x nrows image (both
 * backends): the pyramid parameters above, and every pyramid level at least
 * as large as the (corrected) window. FOVEA_OK, or the failure (klt_fail,
 * message prefixed "(who) "). */
int klt_params_check(KLT_TrackingContext tc, int ncols, int nrows, const char *who);
/* Sequential mode: FOVEA_OK when the previous call's pyramid (image pcols x
 * prows, plevels levels, subsampling pss) can serve as this call's first one
 * for an image of ncols x nrows, else the failure (klt_fail). */
int klt_sequential_check(KLT_TrackingContext tc, int ncols, int nrows, int pcols, int prows,
                         int plevels, int pss);
int klt_pyramid_build(KLT_TrackingContext tc, klt_pyramid *p, const KLT_PixelType *img, int ncols,
                      int nrows);
void klt_pyramid_free(klt_pyramid *p);
/* 1 when p was built from these bytes with the kernels the context would use
 * now; the kernel cache then advances as if p had been rebuilt. */
int klt_pyramid_matches(KLT_TrackingContext tc, const klt_pyramid *p, const KLT_PixelType *img,
                        int ncols, int nrows);
/* 1 when level 0 of p (smoothed image and gradients) equals what selection
 * would compute for img now (smoothing on); the kernel cache then advances. */
int klt_level0_matches(KLT_TrackingContext tc, const klt_pyramid *p, const KLT_PixelType *img,
                       int ncols, int nrows);
/* Replay the kernel-cache requests of a pyramid build of nl levels (smoothing,
 * level steps, gradients) against the kernel sigmas sig[] that build recorded;
 * on a match the cache has advanced as a rebuild would, otherwise it is left as
 * it was. @return 1 on a match. _level0: the smoothing and level-0 gradient
 * kernels only (what selection uses). Shared by both backends' pyramids. */
int klt_kernels_replay(KLT_TrackingContext tc, const float *sig, int nl);
int klt_kernels_replay_level0(KLT_TrackingContext tc, const float *sig, int nl);

/* ---- window.c ---- */
float klt_interpolate(float x, float y, const KLT_FloatImageRec *img);
/* 1 when a window of half size `half` centerd at x leaves [0, n) (KLT's test
 * with its 1.001 margin); NaN counts as outside. */
int klt_window_oob(float x, int half, int n);
void klt_win_diff(const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1, float y1,
                  float x2, float y2, int width, int height, float *out);
void klt_win_grad_sum(const KLT_FloatImageRec *gx1, const KLT_FloatImageRec *gy1,
                      const KLT_FloatImageRec *gx2, const KLT_FloatImageRec *gy2, float x1,
                      float y1, float x2, float y2, int width, int height, float *outx,
                      float *outy);
void klt_win_diff_li(const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1,
                     float y1, float x2, float y2, int width, int height, float *out);
void klt_win_grad_sum_li(const KLT_FloatImageRec *gx1, const KLT_FloatImageRec *gy1,
                         const KLT_FloatImageRec *gx2, const KLT_FloatImageRec *gy2,
                         const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1,
                         float y1, float x2, float y2, int width, int height, float *outx,
                         float *outy);
void klt_gradient_matrix(const float *gx, const float *gy, int n, float *gxx, float *gxy,
                         float *gyy);
void klt_error_vector(const float *diff, const float *gx, const float *gy, int n, float step_factor,
                      float *ex, float *ey);
int klt_solve2(float gxx, float gxy, float gyy, float ex, float ey, float small, float *dx,
               float *dy);
float klt_sum_abs(const float *w, int n);

/* ---- track.c / affine.c ---- */
int klt_track_affine(KLT_TrackingContext tc, KLT_Feature f, float *x2, float *y2,
                     const KLT_FloatImageRec *img2, const KLT_FloatImageRec *gx2,
                     const KLT_FloatImageRec *gy2, float *scratch);
int klt_affine_store_patch(KLT_TrackingContext tc, KLT_Feature f, float x, float y,
                           const KLT_FloatImageRec *img, const KLT_FloatImageRec *gx,
                           const KLT_FloatImageRec *gy);
void klt_feature_clear_affine(KLT_Feature f);
/* A newly selected feature: position, value, and the affine fields KLT resets. */
void klt_feature_set(KLT_Feature f, float x, float y, int val);

/* view of a klt_image as KLT's float image record */
static inline KLT_FloatImageRec klt_view(const klt_image *im)
{
    KLT_FloatImageRec r;
    r.ncols = im->ncols;
    r.nrows = im->nrows;
    r.data = im->data;
    return r;
}

#endif
