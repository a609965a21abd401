/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of KLT's CUDA backend (host side, C): the state per
 * tracking context and the helpers its stages share (klt_cuda.c: buffers and
 * the call's frame; pyramid_cuda.c, select_cuda.c, sort_cuda.c,
 * track_cuda.c: the stages). The kernels' launchers: pyramid_cuda.h,
 * select_cuda.h, sort_cuda.h, track_cuda.h. */
#ifndef FOVEA_KLT_CUDA_INTERNAL_H
#define FOVEA_KLT_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "klt/klt_internal.h"
#include "klt/sort_cuda.h"

/* The candidate grid of a selection (select.c): gradients, borders, step,
 * window and threshold; two selections with equal grids sort the same list. */
typedef struct kc_cand_grid {
    const float *gx, *gy;
    int ncols, bx, by, step, nx, ny, hw, hh, min_eig;
    size_t npoints;
} kc_cand_grid;

/* A pyramid on the device (pyramid.c's klt_pyramid): images and gradients of
 * every level, and the input it was built from (for the reuse tests). */
typedef struct kc_pyr {
    int valid, nlevels, ss, ncols, nrows;
    int w[KLT_MAX_LEVELS], h[KLT_MAX_LEVELS];
    float *img[KLT_MAX_LEVELS], *gx[KLT_MAX_LEVELS], *gy[KLT_MAX_LEVELS];
    size_t cap[KLT_MAX_LEVELS]; /* floats of each of img/gx/gy at a level */
    unsigned char *raw;         /* pinned: the input bytes (upload source, reuse test) */
    size_t raw_cap;
    int raw_host;         /* raw holds the input (it came from pageable memory) */
    unsigned char *d_raw; /* the input bytes on the device (every input) */
    size_t d_raw_cap;
    float sig[2 * KLT_MAX_LEVELS]; /* as klt_pyramid.sig */
} kc_pyr;

typedef struct kc_state {
    fovea_context *ctx; /* not owned: the device and stream the backend runs on */
    kc_pyr pyr[2];
    float *d_tmp;
    size_t tmp_cap; /* floats */
    float *d_sel;   /* 3 images: smoothed, gx, gy */
    size_t sel_cap; /* floats per image */
    unsigned char *h_selraw, *d_selraw;
    size_t h_selraw_cap, d_selraw_cap;
    unsigned char *d_cmp; /* an input compared with a kept one, on the device */
    size_t d_cmp_cap;
    int *d_flag, *h_flag;   /* the comparison's answer (device, pinned) */
    int *d_keys;            /* sort check only: values */
    unsigned *d_pix;        /* sort check only: ids */
    size_t pts_cap;         /* points */
    int *d_qs;              /* quicksort emulation (klt_cuda_qs), one block */
    size_t qs_cap;          /* bytes */
    int qs_blocks, qs_coop; /* the sort's grid (klt_cuda_qs_grid); 0: not asked yet */
    int kcap_hint[2];       /* sort prefix the last selection's pass needed
                                     * [0] KLTSelectGoodFeatures, [1] replacement */
    unsigned char *d_map;
    size_t map_cap;
    uint32_t *d_feat, *h_feat;   /* feature arrays, layout below */
    size_t feat_cap, h_feat_cap; /* bytes */
    int *slots;                  /* host: slots to fill in selection order */
    size_t slots_cap;            /* bytes */
    float *h_aff;                /* host copies of level 0 for the affine check */
    size_t h_aff_cap;            /* bytes */
    float *aff_win;
    size_t aff_win_cap; /* bytes */
    /* Candidates of the next replacement, computed ahead: when a replacement
     * followed the last track call, the next track call starts the
     * eigenvalue map and the sort's first round for its new pyramid on a
     * second stream as soon as the pyramid is built; they run beside the
     * tracking kernel and the call's return, and a replacement that asks for
     * exactly those candidates waits for them instead of computing them. */
    void *spec_stream;            /* cudaStream_t, created on first use */
    void *spec_built, *spec_done; /* cudaEvent_t: pyramid built (main stream), work done */
    int spec_wanted;              /* the last track call was followed by a replacement */
    int spec_launched;            /* spec_done marks work that reads a pyramid, writes d_qs */
    int spec_ready;               /* spec_* below are sorted and not consumed yet */
    kc_cand_grid spec_grid;
    int spec_kcap;
} kc_state;

/* feature arrays of n slots, 32-bit words: in x, y, val | out x, y, xloc, yloc,
 * val | selection: survivor points (2n), taken pixels, taken values, count */
enum {
    F_IN_X,
    F_IN_Y,
    F_IN_VAL,
    F_OUT_X,
    F_OUT_Y,
    F_OUT_XLOC,
    F_OUT_YLOC,
    F_OUT_VAL,
    F_PTS,
    F_TAKE_PIX = F_PTS + 2,
    F_TAKE_VAL,
    F_COUNT
};
/* after the n * F_COUNT words: taken count, "needs more candidates" flag,
 * candidates the last pass could read (its sort prefix) */

static inline cudaStream_t kc_stream(const kc_state *kc)
{
    return fv_ctx_stream(kc->ctx);
}

/* klt_cuda.c: buffers. *_ensure: *p holds at least bytes (replaced, not
 * grown, when it is smaller; device buffers only between calls).
 * kc_floats_bytes: n floats in bytes (FOVEA_ERR_NOMEM on overflow).
 * kc_upload: img (n bytes of memory kind) to dev, through pinned when it is
 * pageable host memory. */
int kc_dev_ensure(kc_state *kc, void **p, size_t *cap, size_t bytes);
int kc_pinned_ensure(kc_state *kc, void **p, size_t *cap, size_t bytes);
int kc_floats_bytes(size_t n, size_t *bytes);
int kc_upload(kc_state *kc, unsigned char *pinned, unsigned char *dev, const unsigned char *img,
              size_t n, fovea_memtype kind);

/* klt_cuda.c: a call's frame. kc_feat_ensure: the feature arrays for n
 * slots; kc_call_begin: the context's device current; kc_call_sync: wait
 * for the work queued so far; kc_call_end(_q): wait for the call's work
 * (queued: whether anything was queued since the last kc_call_sync). */
int kc_feat_ensure(KLT_TrackingContext tc, kc_state *kc, int n);
int kc_call_begin(KLT_TrackingContext tc, kc_state *kc);
int kc_call_sync(KLT_TrackingContext tc, kc_state *kc);
int kc_call_end_q(KLT_TrackingContext tc, kc_state *kc, int queued);
int kc_call_end(KLT_TrackingContext tc, kc_state *kc);

/* pyramid_cuda.c: smoothing (in_u8: in is bytes, else floats) and the
 * gradient pair with the kernels of k; a pyramid p built for img (of kind);
 * the reuse tests of pyramid.c (1 = reuse p, 0 = not, < 0 = failure). */
int kc_conv_smooth(kc_state *kc, const klt_kernels *k, const void *in, int in_u8, int ncols,
                   int nrows, float *out);
int kc_conv_gradients(kc_state *kc, const klt_kernels *k, const void *in, int in_u8, int ncols,
                      int nrows, float *gx, float *gy);
int kc_build(KLT_TrackingContext tc, kc_state *kc, kc_pyr *p, const KLT_PixelType *img,
             fovea_memtype kind, int ncols, int nrows);
int kc_pyramid_matches(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                       const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows);
int kc_level0_matches(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                      const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows);

/* sort_cuda.c: the sort's layout over kc->d_qs for n candidates, one launch
 * of it (klt_cuda_qs_run; max_blocks 0: as many as fit), and the test hook
 * behind klt_cuda_sort_check. */
int kc_qs_layout(KLT_TrackingContext tc, kc_state *kc, size_t n, klt_cuda_qs *q);
int kc_qs_launch(KLT_TrackingContext tc, kc_state *kc, const klt_cuda_qs *q, int from_defer,
                 const int *gate, int max_blocks, cudaStream_t stream);
int kc_sort_check(KLT_TrackingContext tc, kc_state *kc, const int *val, int n, int max_blocks,
                  int *out_val, unsigned *out_id);

/* select_cuda.c: the candidates computed ahead (kc_spec_join: the call's
 * stream waits for them; kc_spec_built: marks the pyramid built on the
 * call's stream; kc_speculate: starts them for pyramid p), and a selection
 * (replace: KLTReplaceLostFeatures). */
int kc_spec_join(KLT_TrackingContext tc, kc_state *kc);
int kc_spec_built(KLT_TrackingContext tc, kc_state *kc);
int kc_speculate(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p);
int kc_select(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img, int ncols, int nrows,
              KLT_FeatureList fl, int replace);

/* track_cuda.c: a track call. */
int kc_track(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img1,
             const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl);

#endif
