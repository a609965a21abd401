/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C reference's backend table: select.c's selection, track.c's tracking.
 * Its state is the tracking context's klt_state (pyramids, scratch), so init
 * makes none. */
#include "klt/klt_internal.h"

static int ref_init(void **priv, fovea_context *ctx, const void *params)
{
    (void)ctx;
    (void)params;
    *priv = NULL;
    return FOVEA_OK;
}

static void ref_close(void **priv)
{
    *priv = NULL;
}

static int ref_select(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img, int ncols,
                      int nrows, KLT_FeatureList fl, int replace)
{
    (void)priv;
    return klt_ref_select(tc, img, ncols, nrows, fl, replace);
}

static int ref_track(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img1,
                     const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl)
{
    (void)priv;
    return klt_ref_track(tc, img1, img2, ncols, nrows, fl);
}

const klt_backend klt_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, 0, ref_init, ref_close},
    ref_select,
    ref_track,
    NULL,
};
