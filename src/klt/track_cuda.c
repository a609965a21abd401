/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA backend of KLT, tracking (host side): track.c's call with the kernel
 * of track.cu: the two pyramids (the kept one reused), the features' round
 * trip, and the affine consistency check on the host. */
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_cuda_internal.h"
#include "klt/track_cuda.h"

/* Affine consistency check of the features just tracked, on the host (the
 * patches are host data of the feature list): level 0 of both pyramids is
 * copied back only when some feature needs it. */
static int affine_check(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p1, const kc_pyr *p2,
                        KLT_FeatureList fl, const int *tracked, const float *xloc,
                        const float *yloc)
{
    int need1 = 0, need2 = 0;
    for (int k = 0; k < fl->nFeatures; k++)
        if (tracked[k]) {
            if (fl->feature[k]->aff_img)
                need2 = 1;
            else
                need1 = 1;
        }
    if (!need1 && !need2)
        return FOVEA_OK;
    const size_t npix = (size_t)p1->ncols * (size_t)p1->nrows;
    size_t bytes, n6;
    if (!fv_mul_size(npix, 6, &n6) || kc_floats_bytes(n6, &bytes) < 0 ||
        klt_ensure((void **)&kc->h_aff, &kc->h_aff_cap, bytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for the affine check");
    size_t tw = (size_t)tc->window_width * tc->window_height;
    size_t aw = (size_t)tc->affine_window_width * tc->affine_window_height;
    if (klt_ensure((void **)&kc->aff_win, &kc->aff_win_cap,
                   3 * (tw > aw ? tw : aw) * sizeof(float)) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for the affine check");
    float *h = kc->h_aff;
    const kc_pyr *src[2] = {p1, p2};
    const int need[2] = {need1, need2};
    for (int i = 0; i < 2; i++) {
        if (!need[i])
            continue;
        const float *planes[3] = {src[i]->img[0], src[i]->gx[0], src[i]->gy[0]};
        for (int k = 0; k < 3; k++)
            FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(h + (size_t)(3 * i + k) * npix, planes[k],
                                                    npix * sizeof(float), cudaMemcpyDeviceToHost,
                                                    kc_stream(kc)));
    }
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamSynchronize(kc_stream(kc)));
    KLT_FloatImageRec v[6];
    for (int i = 0; i < 6; i++) {
        v[i].ncols = p1->ncols;
        v[i].nrows = p1->nrows;
        v[i].data = h + (size_t)i * npix;
    }
    int failed = 0;
    for (int k = 0; k < fl->nFeatures; k++) {
        if (!tracked[k])
            continue;
        KLT_Feature f = fl->feature[k];
        if (!f->aff_img) {
            /* first success: the reference patch around the previous position */
            if (klt_affine_store_patch(tc, f, xloc[k], yloc[k], &v[0], &v[1], &v[2]) < 0)
                failed = 1;
            continue;
        }
        float xout = f->x, yout = f->y;
        int val = klt_track_affine(tc, f, &xout, &yout, &v[3], &v[4], &v[5], kc->aff_win);
        f->val = val;
        if (val != KLT_TRACKED) {
            f->x = -1.0f;
            f->y = -1.0f;
            f->aff_x = -1.0f;
            f->aff_y = -1.0f;
            klt_feature_clear_affine(f);
        }
    }
    if (failed)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for affine patches");
    return FOVEA_OK;
}

/* The two pyramids of a track call: p1 for img1 (the kept one in sequential
 * mode, or the last one when img1 is the image it was built from), p2 built
 * for img2 (and kept as the last). */
static int track_pyramids(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img1,
                          const KLT_PixelType *img2, int ncols, int nrows, kc_pyr **p1_out,
                          kc_pyr **p2_out)
{
    klt_state *st = klt_priv(tc);
    kc_pyr *p1, *p2;
    if (tc->sequentialMode && st->have_last) {
        p1 = &kc->pyr[st->last];
        p2 = &kc->pyr[1 - st->last];
        FOVEA_TRY(
            klt_sequential_check(tc, ncols, nrows, p1->ncols, p1->nrows, p1->nlevels, p1->ss));
    } else {
        if (!img1)
            return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "(KLTTrackFeatures) img1 is NULL");
        st->have_last = 0;
        const fovea_memtype kind1 = fv_ptr_memtype(img1);
        const int same = kc_pyramid_matches(tc, kc, &kc->pyr[st->last], img1, kind1, ncols, nrows);
        FOVEA_TRY(same);
        if (same) {
            p1 = &kc->pyr[st->last];
            p2 = &kc->pyr[1 - st->last];
        } else {
            p1 = &kc->pyr[0];
            p2 = &kc->pyr[1];
            FOVEA_TRY(kc_build(tc, kc, p1, img1, kind1, ncols, nrows));
        }
    }
    int rc = kc_build(tc, kc, p2, img2, fv_ptr_memtype(img2), ncols, nrows);
    if (rc < 0) {
        st->have_last = 0;
        return rc;
    }
    st->last = (int)(p2 - kc->pyr);
    *p1_out = p1;
    *p2_out = p2;
    return FOVEA_OK;
}

/* The features to the device, the tracking kernel from p1 to p2, and its
 * results queued back to the host (kc->h_feat). */
static int track_features(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p1, const kc_pyr *p2,
                          int ncols, int nrows, KLT_FeatureList fl)
{
    const int nfeat = fl->nFeatures;
    FOVEA_TRY(kc_feat_ensure(tc, kc, nfeat));
    float *hx = (float *)(kc->h_feat + (size_t)F_IN_X * nfeat);
    float *hy = (float *)(kc->h_feat + (size_t)F_IN_Y * nfeat);
    int32_t *hv = (int32_t *)(kc->h_feat + (size_t)F_IN_VAL * nfeat);
    for (int k = 0; k < nfeat; k++) {
        hx[k] = fl->feature[k]->x;
        hy[k] = fl->feature[k]->y;
        hv[k] = fl->feature[k]->val;
    }
    cudaStream_t stream = kc_stream(kc);
    if (nfeat > 0) {
        FOVEA_CUDA_TRY(kc->ctx,
                       cudaMemcpyAsync(kc->d_feat, kc->h_feat, (size_t)3 * nfeat * sizeof(uint32_t),
                                       cudaMemcpyHostToDevice, stream));
        klt_cuda_track_args a;
        memset(&a, 0, sizeof a);
        a.nlevels = p1->nlevels;
        a.ss = (float)tc->subsampling;
        for (int r = 0; r < p1->nlevels; r++) {
            a.lev[r].img1 = p1->img[r];
            a.lev[r].gx1 = p1->gx[r];
            a.lev[r].gy1 = p1->gy[r];
            a.lev[r].img2 = p2->img[r];
            a.lev[r].gx2 = p2->gx[r];
            a.lev[r].gy2 = p2->gy[r];
            a.lev[r].ncols = p1->w[r];
            a.lev[r].nrows = p1->h[r];
        }
        a.width = tc->window_width;
        a.height = tc->window_height;
        a.step_factor = tc->step_factor;
        a.max_iterations = tc->max_iterations;
        a.small = tc->min_determinant;
        a.th = tc->min_displacement;
        a.max_residue = tc->max_residue;
        a.lighting_insensitive = tc->lighting_insensitive;
        a.borderx = tc->borderx;
        a.bordery = tc->bordery;
        a.ncols = ncols;
        a.nrows = nrows;
        a.nfeat = nfeat;
        a.in_x = (const float *)(kc->d_feat + (size_t)F_IN_X * nfeat);
        a.in_y = (const float *)(kc->d_feat + (size_t)F_IN_Y * nfeat);
        a.in_val = (const int *)(kc->d_feat + (size_t)F_IN_VAL * nfeat);
        a.out_x = (float *)(kc->d_feat + (size_t)F_OUT_X * nfeat);
        a.out_y = (float *)(kc->d_feat + (size_t)F_OUT_Y * nfeat);
        a.out_xloc = (float *)(kc->d_feat + (size_t)F_OUT_XLOC * nfeat);
        a.out_yloc = (float *)(kc->d_feat + (size_t)F_OUT_YLOC * nfeat);
        a.out_val = (int *)(kc->d_feat + (size_t)F_OUT_VAL * nfeat);
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_track(&a, stream));
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_OUT_X * nfeat, a.out_x,
                                                (size_t)5 * nfeat * sizeof(uint32_t),
                                                cudaMemcpyDeviceToHost, stream));
    }
    return FOVEA_OK;
}

/* After the call's work: the tracked features into the list (the affine
 * check on the host when it is on), and the kept pyramid of sequential mode. */
static int track_results(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p1, const kc_pyr *p2,
                         KLT_FeatureList fl)
{
    klt_state *st = klt_priv(tc);
    const int nfeat = fl->nFeatures;
    int32_t *hv = (int32_t *)(kc->h_feat + (size_t)F_IN_VAL * nfeat);
    const float *ox = (const float *)(kc->h_feat + (size_t)F_OUT_X * nfeat);
    const float *oy = (const float *)(kc->h_feat + (size_t)F_OUT_Y * nfeat);
    const float *oxl = (const float *)(kc->h_feat + (size_t)F_OUT_XLOC * nfeat);
    const float *oyl = (const float *)(kc->h_feat + (size_t)F_OUT_YLOC * nfeat);
    const int32_t *ov = (const int32_t *)(kc->h_feat + (size_t)F_OUT_VAL * nfeat);
    /* the input words are free now: flags of the features tracked */
    int32_t *tracked = hv;
    int any_tracked = 0;
    for (int k = 0; k < nfeat; k++) {
        KLT_Feature f = fl->feature[k];
        tracked[k] = 0;
        if (f->val < 0)
            continue;
        if (ov[k] != KLT_TRACKED) {
            f->x = -1.0f;
            f->y = -1.0f;
            f->val = ov[k];
            klt_feature_clear_affine(f);
            continue;
        }
        f->x = ox[k];
        f->y = oy[k];
        f->val = KLT_TRACKED;
        tracked[k] = 1;
        any_tracked = 1;
    }
    int rc = FOVEA_OK;
    if (tc->affineConsistencyCheck >= 0 && any_tracked)
        rc = affine_check(tc, kc, p1, p2, fl, tracked, oxl, oyl);

    if (tc->sequentialMode) {
        st->have_last = 1;
        tc->pyramid_last = &kc->pyr[st->last].img[0];
        tc->pyramid_last_gradx = &kc->pyr[st->last].gx[0];
        tc->pyramid_last_grady = &kc->pyr[st->last].gy[0];
    } else {
        st->have_last = 0;
        tc->pyramid_last = tc->pyramid_last_gradx = tc->pyramid_last_grady = NULL;
    }
    return rc;
}

int kc_track(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img1,
             const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl)
{
    klt_fix_window(tc, "KLTTrackFeatures");
    const size_t nwin = (size_t)tc->window_width * (size_t)tc->window_height;
    if (nwin * 4 * sizeof(float) > 200 * 1024)
        return klt_fail(tc, FOVEA_ERR_UNSUPPORTED,
                        "(KLTTrackFeatures) a %dx%d window is too large for the CUDA backend",
                        tc->window_width, tc->window_height);
    FOVEA_TRY(kc_call_begin(tc, kc));
    /* this call rebuilds a pyramid that work computed ahead may still read */
    FOVEA_TRY(kc_spec_join(tc, kc));
    if (kc->spec_ready)
        kc->spec_wanted = 0; /* the last one was not used: stop computing ahead */
    kc->spec_ready = 0;
    kc_pyr *p1 = NULL, *p2 = NULL;
    FOVEA_TRY(track_pyramids(tc, kc, img1, img2, ncols, nrows, &p1, &p2));
    if (kc->spec_wanted)
        FOVEA_TRY(kc_spec_built(tc, kc));

    FOVEA_TRY(track_features(tc, kc, p1, p2, ncols, nrows, fl));
    if (kc->spec_wanted)
        FOVEA_TRY(kc_speculate(tc, kc, p2));
    FOVEA_TRY(kc_call_end(tc, kc));
    return track_results(tc, kc, p1, p2, fl);
}
