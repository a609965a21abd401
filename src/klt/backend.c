/* KLT backends: the table of processing functions each call dispatches to,
 * chosen from the tracking context's backend field. */
#include "klt/klt_internal.h"

static const klt_backend backend_ref = {"cpu", klt_ref_select, klt_ref_track};

int klt_backend_pick(KLT_TrackingContext tc, const klt_backend **out)
{
    *out = &backend_ref;
    if (tc->backend == FOVEA_BACKEND_CPU)
        return FOVEA_OK;
    if (tc->backend != FOVEA_BACKEND_AUTO && tc->backend != FOVEA_BACKEND_CUDA)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "unknown backend %d", (int)tc->backend);
    int ndev = 0;
    fovea_device_count(&ndev);
#ifdef FOVEA_HAVE_CUDA
    if (ndev > 0) {
        *out = &klt_backend_cuda;
        return FOVEA_OK;
    }
#endif
    if (tc->backend == FOVEA_BACKEND_AUTO)
        return FOVEA_OK;
    return klt_fail(tc, FOVEA_ERR_NO_DEVICE, "backend cuda: %s",
                    fovea_cuda_compiled() ? "no CUDA device" : "fovea was built without CUDA");
}

void klt_backend_release(klt_state *st)
{
#ifdef FOVEA_HAVE_CUDA
    klt_cuda_release(st);
#else
    (void)st;
#endif
}

#ifndef FOVEA_HAVE_CUDA
int klt_cuda_sort_check(KLT_TrackingContext tc, const int *val, int n, int max_blocks,
                        int *out_val, unsigned *out_id)
{
    (void)val;
    (void)n;
    (void)max_blocks;
    (void)out_val;
    (void)out_id;
    return klt_fail(tc, FOVEA_ERR_NO_DEVICE, "fovea was built without CUDA");
}
#endif
