/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT tracking context: defaults, pyramid / border parameters, printing, and
 * the last status and error of its calls. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_internal.h"

KLT_TrackingContext KLTCreateTrackingContext(void)
{
    KLT_TrackingContext tc = calloc(1, sizeof(*tc));
    klt_state *st = calloc(1, sizeof(*st));
    if (!tc || !st) {
        free(tc);
        free(st);
        return NULL;
    }
    tc->priv = st;
    st->kernels.sigma_last = -10.0f; /* KLT's initial value: forces a first compute */
    st->backend = NULL;              /* chosen by each processing call */

    tc->mindist = 10;
    tc->window_width = 7;
    tc->window_height = 7;
    tc->sequentialMode = FALSE;
    tc->smoothBeforeSelecting = TRUE;
    tc->writeInternalImages = FALSE;
    tc->lighting_insensitive = FALSE;
    tc->min_eigenvalue = 1;
    tc->min_determinant = 0.01f;
    tc->max_iterations = 10;
    tc->min_displacement = 0.1f;
    tc->max_residue = 10.0f; /* KLT's HTML documentation says 1.0; its code 10.0 */
    tc->grad_sigma = 1.0f;
    tc->smooth_sigma_fact = 0.1f;
    tc->pyramid_sigma_fact = 0.9f;
    tc->step_factor = 1.0f;
    tc->nSkippedPixels = 0;
    tc->affineConsistencyCheck = -1;
    tc->affine_window_width = 15;
    tc->affine_window_height = 15;
    tc->affine_max_iterations = 10;
    tc->affine_max_residue = 10.0f;
    tc->affine_min_displacement = 0.02f;
    tc->affine_max_displacement_differ = 1.5f;
    tc->backend = FOVEA_BACKEND_AUTO;
    tc->ctx = NULL;

    KLTChangeTCPyramid(tc, 15);
    KLTUpdateTCBorder(tc);
    return tc;
}

void KLTFreeTrackingContext(KLT_TrackingContext tc)
{
    if (!tc)
        return;
    klt_state *st = klt_priv(tc);
    if (st) {
        klt_pyramid_free(&st->pyr[0]);
        klt_pyramid_free(&st->pyr[1]);
        klt_image_free(&st->tmp);
        klt_image_free(&st->tmp2);
        klt_image_free(&st->sel_img);
        klt_image_free(&st->sel_gx);
        klt_image_free(&st->sel_gy);
        free(st->points);
        free(st->featuremap);
        free(st->win);
        free(st->sort_stack);
        klt_backend_release(tc);
        free(st);
    }
    free(tc);
}

void KLTChangeTCPyramid(KLT_TrackingContext tc, int search_range)
{
    if (!tc)
        return;
    klt_fix_window(tc, "KLTChangeTCPyramid");
    int wmin = tc->window_width < tc->window_height ? tc->window_width : tc->window_height;
    float window_halfwidth = wmin / 2.0f;
    float subsampling = ((float)search_range) / window_halfwidth;

    if (subsampling < 1.0) {
        tc->nPyramidLevels = 1;
    } else if (subsampling <= 3.0) {
        tc->nPyramidLevels = 2;
        tc->subsampling = 2;
    } else if (subsampling <= 5.0) {
        tc->nPyramidLevels = 2;
        tc->subsampling = 4;
    } else if (subsampling <= 9.0) {
        tc->nPyramidLevels = 2;
        tc->subsampling = 8;
    } else {
        /* search_range = halfwidth * (8^levels - 1) / 7, rounded up */
        float val = (float)(log(7.0 * subsampling + 1.0) / log(8.0));
        tc->nPyramidLevels = (int)(val + 0.99);
        tc->subsampling = 8;
    }
}

void KLTUpdateTCBorder(KLT_TrackingContext tc)
{
    if (!tc || !tc->priv)
        return;
    klt_state *st = klt_priv(tc);
    int gauss_width, deriv_width;
    int ss = tc->subsampling;

    st->status = FOVEA_OK;
    /* a subsampling outside the set would divide by zero (or worse) below */
    if (klt_pyramid_params_check(tc) < 0)
        return;
    klt_fix_window(tc, "KLTUpdateTCBorder");
    int wmax = tc->window_width > tc->window_height ? tc->window_width : tc->window_height;
    int window_hw = wmax / 2;

    /* KLT recomputes (and so caches) the kernels of both sigmas here */
    klt_kernel_widths(&st->kernels, _KLTComputeSmoothSigma(tc), &gauss_width, &deriv_width);
    int smooth_gauss_hw = gauss_width / 2;
    klt_kernel_widths(&st->kernels, tc->pyramid_sigma_fact * tc->subsampling, &gauss_width,
                      &deriv_width);
    int pyramid_gauss_hw = gauss_width / 2;

    /* invalid pixels at each level, in that level's pixels, rounded up */
    int n_invalid = smooth_gauss_hw;
    for (int i = 1; i < tc->nPyramidLevels; i++) {
        float val = ((float)n_invalid + pyramid_gauss_hw) / ss;
        n_invalid = (int)(val + 0.99);
    }
    /* border = (n_invalid + window_hw) * ss^(levels-1), in 64 bits and
     * saturated: 8 levels of subsampling 32 need 2^35 */
    long long ss_power = 1;
    for (int i = 1; i < tc->nPyramidLevels && ss_power <= INT_MAX; i++)
        ss_power *= ss;
    long long border = ((long long)n_invalid + window_hw) * ss_power;
    if (ss_power > INT_MAX || border > INT_MAX) {
        /* no image holds such a pyramid: the processing calls refuse it too */
        tc->borderx = tc->bordery = INT_MAX;
        klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                 "(KLTUpdateTCBorder) nPyramidLevels %d with subsampling %d and a %dx%d "
                 "window: the border (%d + %d) * %d^%d overflows an int (more than %d)",
                 tc->nPyramidLevels, ss, tc->window_width, tc->window_height, n_invalid, window_hw,
                 ss, tc->nPyramidLevels - 1, INT_MAX);
        return;
    }
    tc->borderx = (int)border;
    tc->bordery = (int)border;
}

void KLTStopSequentialMode(KLT_TrackingContext tc)
{
    if (!tc)
        return;
    klt_state *st = klt_priv(tc);
    tc->sequentialMode = FALSE;
    st->have_last = 0;
    tc->pyramid_last = tc->pyramid_last_gradx = tc->pyramid_last_grady = NULL;
}

void KLTSetVerbosity(int verbosity)
{
    (void)verbosity;
}

void fovea_klt_print_context(KLT_TrackingContext tc, FILE *fp)
{
    if (!tc || !fp)
        return;
    fprintf(fp, "\n\nTracking context:\n\n");
    fprintf(fp, "\tmindist = %d\n", tc->mindist);
    fprintf(fp, "\twindow_width = %d\n", tc->window_width);
    fprintf(fp, "\twindow_height = %d\n", tc->window_height);
    fprintf(fp, "\tsequentialMode = %s\n", tc->sequentialMode ? "TRUE" : "FALSE");
    fprintf(fp, "\tsmoothBeforeSelecting = %s\n", tc->smoothBeforeSelecting ? "TRUE" : "FALSE");
    fprintf(fp, "\twriteInternalImages = %s\n", tc->writeInternalImages ? "TRUE" : "FALSE");
    fprintf(fp, "\tmin_eigenvalue = %d\n", tc->min_eigenvalue);
    fprintf(fp, "\tmin_determinant = %f\n", tc->min_determinant);
    fprintf(fp, "\tmin_displacement = %f\n", tc->min_displacement);
    fprintf(fp, "\tmax_iterations = %d\n", tc->max_iterations);
    fprintf(fp, "\tmax_residue = %f\n", tc->max_residue);
    fprintf(fp, "\tgrad_sigma = %f\n", tc->grad_sigma);
    fprintf(fp, "\tsmooth_sigma_fact = %f\n", tc->smooth_sigma_fact);
    fprintf(fp, "\tpyramid_sigma_fact = %f\n", tc->pyramid_sigma_fact);
    fprintf(fp, "\tnSkippedPixels = %d\n", tc->nSkippedPixels);
    fprintf(fp, "\tborderx = %d\n", tc->borderx);
    fprintf(fp, "\tbordery = %d\n", tc->bordery);
    fprintf(fp, "\tnPyramidLevels = %d\n", tc->nPyramidLevels);
    fprintf(fp, "\tsubsampling = %d\n", tc->subsampling);
    fprintf(fp, "\n\tpyramid_last = %s\n", tc->pyramid_last ? "points to old image" : "NULL");
    fprintf(fp, "\tpyramid_last_gradx = %s\n",
            tc->pyramid_last_gradx ? "points to old image" : "NULL");
    fprintf(fp, "\tpyramid_last_grady = %s\n",
            tc->pyramid_last_grady ? "points to old image" : "NULL");
    fprintf(fp, "\tbackend = %s\n", fovea_backend_name(tc->backend));
    fprintf(fp, "\n\n");
}

void KLTPrintTrackingContext(KLT_TrackingContext tc)
{
    fovea_klt_print_context(tc, stderr);
}

int fovea_klt_last_status(const KLT_TrackingContext tc)
{
    if (!tc || !tc->priv)
        return FOVEA_ERR_INVALID_ARG;
    return ((const klt_state *)tc->priv)->status;
}

int fovea_klt_check_params(KLT_TrackingContext tc, int ncols, int nrows)
{
    if (!tc || !tc->priv)
        return FOVEA_ERR_INVALID_ARG;
    klt_state *st = klt_priv(tc);
    st->status = FOVEA_OK;
    if (ncols < 1 || nrows < 1 || ncols > FOVEA_MAX_DIM || nrows > FOVEA_MAX_DIM)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                        "(fovea_klt_check_params) bad image size %dx%d (1..%d)", ncols, nrows,
                        FOVEA_MAX_DIM);
    return klt_params_check(tc, ncols, nrows, "fovea_klt_check_params");
}
