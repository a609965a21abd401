/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Image pyramid as KLT builds it: level 0 = input smoothed with
 * smooth_sigma_fact * max(window); level i = level i-1 smoothed with
 * pyramid_sigma_fact * subsampling and sampled at (ss*x + ss/2, ss*y + ss/2);
 * gradients with grad_sigma on every level. The kernel-cache checks happen in
 * KLT's order (smooth, each level, then the gradients of each level). */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_internal.h"

int klt_pyramid_params_check(KLT_TrackingContext tc)
{
    int ss = tc->subsampling, nl = tc->nPyramidLevels;
    if (ss != 2 && ss != 4 && ss != 8 && ss != 16 && ss != 32)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "subsampling must be 2, 4, 8, 16 or 32 (is %d)",
                        ss);
    if (nl < 1 || nl > KLT_MAX_LEVELS)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "nPyramidLevels must be 1..%d (is %d)",
                        KLT_MAX_LEVELS, nl);
    return FOVEA_OK;
}

/* The window after KLT's corrections (odd, >= 3), without applying them. */
static int effective_window(int w)
{
    if (w % 2 != 1)
        w = w + 1; /* w even, so w < INT_MAX */
    return w < 3 ? 3 : w;
}

int klt_params_check(KLT_TrackingContext tc, int ncols, int nrows, const char *who)
{
    int rc;
    if ((rc = klt_pyramid_params_check(tc)) < 0)
        return rc;
    const int ss = tc->subsampling, nl = tc->nPyramidLevels;
    const int ww = effective_window(tc->window_width), wh = effective_window(tc->window_height);
    /* level i is level i-1 divided by ss, rounded down: the coarsest level
     * must still hold a whole window, otherwise nothing can be tracked there
     * and the border (proportional to ss^(nl-1)) exceeds the image */
    int c = ncols, r = nrows, fit = 0;
    while (fit < nl && c >= ww && r >= wh) {
        fit++;
        c /= ss;
        r /= ss;
    }
    if (fit == nl)
        return FOVEA_OK;
    if (fit == 0)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                        "(%s) the %dx%d image is smaller than the %dx%d window "
                        "(window_width %d, window_height %d)",
                        who, ncols, nrows, ww, wh, tc->window_width, tc->window_height);
    return klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                    "(%s) nPyramidLevels %d with subsampling %d: level %d of the %dx%d image "
                    "is %dx%d, smaller than the %dx%d window (at most %d level%s)",
                    who, nl, ss, fit, ncols, nrows, c, r, ww, wh, fit,
                    fit == 1 ? " fits" : "s fit");
}

int klt_sequential_check(KLT_TrackingContext tc, int ncols, int nrows, int pcols, int prows,
                         int plevels, int pss)
{
    if (pcols != ncols || prows != nrows)
        return klt_fail(tc, FOVEA_ERR_MISMATCH,
                        "(KLTTrackFeatures) image is %dx%d, previous image %dx%d", ncols, nrows,
                        pcols, prows);
    if (plevels != tc->nPyramidLevels || pss != tc->subsampling)
        return klt_fail(tc, FOVEA_ERR_MISMATCH,
                        "(KLTTrackFeatures) pyramid parameters changed in sequential mode");
    return FOVEA_OK;
}

int klt_pyramid_build(KLT_TrackingContext tc, klt_pyramid *p, const KLT_PixelType *img, int ncols,
                      int nrows)
{
    klt_state *st = klt_priv(tc);
    int ss = tc->subsampling, nl = tc->nPyramidLevels;
    int rc;

    if ((rc = klt_pyramid_params_check(tc)) < 0)
        return rc;

    /* allocate every level first so that a failure leaves nothing half built */
    p->valid = 0;
    size_t npix = (size_t)ncols * nrows;
    if ((rc = klt_ensure((void **)&p->raw, &p->raw_cap, npix)) < 0)
        return klt_fail(tc, rc, "out of memory for the pyramid");
    int c = ncols, r = nrows;
    for (int i = 0; i < nl; i++) {
        if ((rc = klt_image_alloc(&p->img[i], c, r)) < 0 ||
            (rc = klt_image_alloc(&p->gx[i], c, r)) < 0 ||
            (rc = klt_image_alloc(&p->gy[i], c, r)) < 0)
            return klt_fail(tc, rc, "out of memory for the pyramid");
        c /= ss;
        r /= ss;
    }
    if ((rc = klt_image_alloc(&st->tmp, ncols, nrows)) < 0 ||
        (rc = klt_image_alloc(&st->tmp2, ncols, nrows)) < 0)
        return klt_fail(tc, rc, "out of memory for the pyramid");
    p->nlevels = nl;
    p->subsampling = ss;

    klt_to_float(img, ncols, nrows, &st->tmp2);
    klt_smooth(tc->ctx, &st->kernels, &st->tmp2, _KLTComputeSmoothSigma(tc), &st->tmp, &p->img[0]);
    p->sig[0] = st->kernels.sigma_last;
    float sigma = ss * tc->pyramid_sigma_fact;
    for (int i = 1; i < nl; i++) {
        klt_smooth_subsample(tc->ctx, &st->kernels, &p->img[i - 1], sigma, ss, &st->tmp,
                             &p->img[i]);
        p->sig[i] = st->kernels.sigma_last;
    }
    for (int i = 0; i < nl; i++) {
        klt_gradients(tc->ctx, &st->kernels, &p->img[i], tc->grad_sigma, &st->tmp, &p->gx[i],
                      &p->gy[i]);
        p->sig[nl + i] = st->kernels.sigma_last;
    }
    memcpy(p->raw, img, npix);
    p->valid = 1;
    return FOVEA_OK;
}

static int same_input(const klt_pyramid *p, const KLT_PixelType *img, int ncols, int nrows)
{
    return p->valid && p->img[0].ncols == ncols && p->img[0].nrows == nrows &&
           memcmp(p->raw, img, (size_t)ncols * nrows) == 0;
}

int klt_kernels_replay(KLT_TrackingContext tc, const float *sig, int nl)
{
    klt_state *st = klt_priv(tc);
    klt_kernels saved = st->kernels;
    int same = 1;
    klt_kernels_for(&st->kernels, _KLTComputeSmoothSigma(tc));
    same &= st->kernels.sigma_last == sig[0];
    float sigma = tc->subsampling * tc->pyramid_sigma_fact;
    for (int i = 1; i < nl; i++) {
        klt_kernels_for(&st->kernels, sigma);
        same &= st->kernels.sigma_last == sig[i];
    }
    for (int i = 0; i < nl; i++) {
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        same &= st->kernels.sigma_last == sig[nl + i];
    }
    if (!same)
        st->kernels = saved;
    return same;
}

int klt_kernels_replay_level0(KLT_TrackingContext tc, const float *sig, int nl)
{
    klt_state *st = klt_priv(tc);
    klt_kernels saved = st->kernels;
    klt_kernels_for(&st->kernels, _KLTComputeSmoothSigma(tc));
    int same = st->kernels.sigma_last == sig[0];
    klt_kernels_for(&st->kernels, tc->grad_sigma);
    same &= st->kernels.sigma_last == sig[nl];
    if (!same)
        st->kernels = saved;
    return same;
}

int klt_pyramid_matches(KLT_TrackingContext tc, const klt_pyramid *p, const KLT_PixelType *img,
                        int ncols, int nrows)
{
    return same_input(p, img, ncols, nrows) && p->nlevels == tc->nPyramidLevels &&
           p->subsampling == tc->subsampling && klt_kernels_replay(tc, p->sig, p->nlevels);
}

int klt_level0_matches(KLT_TrackingContext tc, const klt_pyramid *p, const KLT_PixelType *img,
                       int ncols, int nrows)
{
    return same_input(p, img, ncols, nrows) && klt_kernels_replay_level0(tc, p->sig, p->nlevels);
}

void klt_pyramid_free(klt_pyramid *p)
{
    for (int i = 0; i < KLT_MAX_LEVELS; i++) {
        klt_image_free(&p->img[i]);
        klt_image_free(&p->gx[i]);
        klt_image_free(&p->gy[i]);
    }
    free(p->raw);
    p->raw = NULL;
    p->raw_cap = 0;
    p->valid = 0;
    p->nlevels = 0;
}
