/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT's processing calls (KLTSelectGoodFeatures, KLTReplaceLostFeatures,
 * KLTTrackFeatures): checks, messages, then the tracking context's backend. */
#include "core/device.h"
#include "klt/klt_internal.h"

static int check_call(KLT_TrackingContext tc, const void *img, int ncols, int nrows,
                      KLT_FeatureList fl, const char *who)
{
    if (!tc || !tc->priv)
        return FOVEA_ERR_INVALID_ARG;
    klt_state *st = klt_priv(tc);
    st->status = FOVEA_OK;
    if (!img || !fl || ncols < 1 || nrows < 1 || ncols > FOVEA_MAX_DIM || nrows > FOVEA_MAX_DIM)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "(%s) bad arguments (%dx%d image)", who, ncols,
                        nrows);
    int rc = klt_params_check(tc, ncols, nrows, who);
    if (rc < 0)
        return rc;
    return klt_backend_bind(tc);
}

/* Device memory is read by the cuda backend only. */
static int check_host_image(KLT_TrackingContext tc, const KLT_PixelType *img, const char *who)
{
    if (!(klt_priv(tc)->backend->info.provides & BACKEND_READS_DEVICE) && img &&
        fv_ptr_device_only(img))
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                        "(%s) the image is in CUDA device memory, which only the cuda backend "
                        "reads (this context runs on the cpu backend)",
                        who);
    return FOVEA_OK;
}

void KLTSelectGoodFeatures(KLT_TrackingContext tc, KLT_PixelType *img, int ncols, int nrows,
                           KLT_FeatureList fl)
{
    if (check_call(tc, img, ncols, nrows, fl, "KLTSelectGoodFeatures") < 0 ||
        check_host_image(tc, img, "KLTSelectGoodFeatures") < 0)
        return;
    klt_log(tc, FOVEA_LOG_INFO, "selecting the %d best features from a %d by %d image",
            fl->nFeatures, ncols, nrows);
    if (klt_priv(tc)->backend->select(klt_priv(tc)->backend_priv, tc, img, ncols, nrows, fl, 0) ==
        FOVEA_OK)
        klt_log(tc, FOVEA_LOG_INFO, "%d features found", KLTCountRemainingFeatures(fl));
}

void KLTReplaceLostFeatures(KLT_TrackingContext tc, KLT_PixelType *img, int ncols, int nrows,
                            KLT_FeatureList fl)
{
    if (check_call(tc, img, ncols, nrows, fl, "KLTReplaceLostFeatures") < 0 ||
        check_host_image(tc, img, "KLTReplaceLostFeatures") < 0)
        return;
    int lost = fl->nFeatures - KLTCountRemainingFeatures(fl);
    klt_log(tc, FOVEA_LOG_INFO, "attempting to replace %d features in a %d by %d image", lost,
            ncols, nrows);
    if (lost > 0 && klt_priv(tc)->backend->select(klt_priv(tc)->backend_priv, tc, img, ncols, nrows,
                                                  fl, 1) == FOVEA_OK)
        klt_log(tc, FOVEA_LOG_INFO, "%d features replaced",
                lost - fl->nFeatures + KLTCountRemainingFeatures(fl));
}

void KLTTrackFeatures(KLT_TrackingContext tc, KLT_PixelType *img1, KLT_PixelType *img2, int ncols,
                      int nrows, KLT_FeatureList fl)
{
    if (check_call(tc, img2, ncols, nrows, fl, "KLTTrackFeatures") < 0 ||
        check_host_image(tc, img1, "KLTTrackFeatures") < 0 ||
        check_host_image(tc, img2, "KLTTrackFeatures") < 0)
        return;
    klt_log(tc, FOVEA_LOG_INFO, "tracking %d features in a %d by %d image",
            KLTCountRemainingFeatures(fl), ncols, nrows);
    if (klt_priv(tc)->backend->track(klt_priv(tc)->backend_priv, tc, img1, img2, ncols, nrows,
                                     fl) == FOVEA_OK)
        klt_log(tc, FOVEA_LOG_INFO, "%d features successfully tracked",
                KLTCountRemainingFeatures(fl));
}
