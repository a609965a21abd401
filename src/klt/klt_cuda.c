/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA backend of KLT (host side): its table, its state per tracking context
 * (on the caller's CUDA context: its device and stream; klt_backends.c gives
 * it), the buffers, allocated on first use or size change and reused, and
 * the frame of every call. The stages: pyramid_cuda.c, select_cuda.c,
 * sort_cuda.c, track_cuda.c; the shared state: klt_cuda_internal.h. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_cuda_internal.h"

/* A failed call's end: a failure reported through the context (CUDA, device
 * memory; after it nothing on the GPU is trusted) becomes the tracking
 * context's error; one the KLT checks reported already (klt_fail) stays. */
static int kc_end(KLT_TrackingContext tc, kc_state *kc, int rc)
{
    klt_state *st = klt_priv(tc);
    if (rc >= 0 || st->status < 0)
        return rc;
    st->have_last = 0;
    kc->pyr[0].valid = kc->pyr[1].valid = 0;
    return klt_fail(tc, rc, "CUDA backend: %s", fovea_last_error(kc->ctx));
}

/* ---------------------------------------------------------------- buffers */

int kc_dev_ensure(kc_state *kc, void **p, size_t *cap, size_t bytes)
{
    if (*p && bytes <= *cap)
        return FOVEA_OK;
    if (*p) {
        /* buffers are only replaced between calls: nothing queued on the
         * call's stream uses them; work computed ahead may, so it ends first */
        if (kc->spec_launched) {
            int rc = FOVEA_CUDA(kc->ctx, cudaStreamSynchronize((cudaStream_t)kc->spec_stream));
            if (rc < 0)
                return rc;
        }
        fv_device_free(kc->ctx, *p);
        *p = NULL;
        *cap = 0;
    }
    int rc = fv_device_malloc(kc->ctx, bytes ? bytes : 1, p);
    if (rc == FOVEA_OK)
        *cap = bytes;
    return rc;
}

int kc_pinned_ensure(kc_state *kc, void **p, size_t *cap, size_t bytes)
{
    if (*p && bytes <= *cap)
        return FOVEA_OK;
    if (*p) {
        fv_pinned_free(kc->ctx, *p);
        *p = NULL;
        *cap = 0;
    }
    int rc = fv_pinned_malloc(kc->ctx, bytes ? bytes : 1, p);
    if (rc == FOVEA_OK)
        *cap = bytes;
    return rc;
}

int kc_floats_bytes(size_t n, size_t *bytes)
{
    return fv_mul_size(n ? n : 1, sizeof(float), bytes) ? FOVEA_OK : FOVEA_ERR_NOMEM;
}

/* Copy img to the device. Pageable host memory goes through pinned staging in
 * slices, so that the host copy of one slice overlaps the transfer of the
 * previous one; pinned host and device (or managed) memory are copied
 * directly (kind: fv_ptr_memtype of img). */
int kc_upload(kc_state *kc, unsigned char *pinned, unsigned char *dev, const unsigned char *img,
              size_t n, fovea_memtype kind)
{
    if (kind != FOVEA_MEM_HOST)
        return FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(dev, img, n, cudaMemcpyDefault, kc_stream(kc)));
    const size_t slice = (size_t)1 << 19;
    for (size_t off = 0; off < n; off += slice) {
        size_t len = n - off < slice ? n - off : slice;
        memcpy(pinned + off, img + off, len);
        int rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(dev + off, pinned + off, len,
                                                     cudaMemcpyHostToDevice, kc_stream(kc)));
        if (rc < 0)
            return rc;
    }
    return FOVEA_OK;
}

static void kc_free_pyr(kc_state *kc, kc_pyr *p)
{
    for (int i = 0; i < KLT_MAX_LEVELS; i++) {
        fv_device_free(kc->ctx, p->img[i]);
        fv_device_free(kc->ctx, p->gx[i]);
        fv_device_free(kc->ctx, p->gy[i]);
    }
    fv_device_free(kc->ctx, p->d_raw);
    fv_pinned_free(kc->ctx, p->raw);
    memset(p, 0, sizeof *p);
}

static void cuda_close(void **priv)
{
    kc_state *kc = *priv;
    if (!kc)
        return;
    if (kc->spec_stream)
        cudaStreamSynchronize((cudaStream_t)kc->spec_stream);
    fv_device_sync(kc->ctx);
    kc_free_pyr(kc, &kc->pyr[0]);
    kc_free_pyr(kc, &kc->pyr[1]);
    fv_device_free(kc->ctx, kc->d_tmp);
    fv_device_free(kc->ctx, kc->d_sel);
    fv_device_free(kc->ctx, kc->d_selraw);
    fv_pinned_free(kc->ctx, kc->h_selraw);
    fv_device_free(kc->ctx, kc->d_cmp);
    fv_device_free(kc->ctx, kc->d_flag);
    fv_pinned_free(kc->ctx, kc->h_flag);
    fv_device_free(kc->ctx, kc->d_keys);
    fv_device_free(kc->ctx, kc->d_pix);
    fv_device_free(kc->ctx, kc->d_qs);
    fv_device_free(kc->ctx, kc->d_map);
    fv_device_free(kc->ctx, kc->d_feat);
    fv_pinned_free(kc->ctx, kc->h_feat);
    if (kc->spec_stream) {
        cudaStreamSynchronize((cudaStream_t)kc->spec_stream);
        cudaStreamDestroy((cudaStream_t)kc->spec_stream);
    }
    if (kc->spec_built)
        cudaEventDestroy((cudaEvent_t)kc->spec_built);
    if (kc->spec_done)
        cudaEventDestroy((cudaEvent_t)kc->spec_done);
    free(kc->slots);
    free(kc->h_aff);
    free(kc->aff_win);
    free(kc);
    *priv = NULL;
}

/* The backend state, made when a tracking context first runs on this backend
 * with ctx (a CUDA context: the caller's, or the tracking context's default
 * one, see klt/klt_backends.c); buffers are allocated on first use. */
static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    (void)params;
    kc_state *kc = calloc(1, sizeof *kc);
    if (!kc)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    kc->ctx = ctx;
    *priv = kc;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- per call */

int kc_feat_ensure(KLT_TrackingContext tc, kc_state *kc, int n)
{
    size_t words, bytes;
    if (!fv_mul_size((size_t)(n > 0 ? n : 1), (size_t)F_COUNT, &words) ||
        !fv_mul_size(words + 3, sizeof(uint32_t), &bytes))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "feature arrays: size overflow");
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_feat, &kc->feat_cap, bytes));
    FOVEA_TRY(kc_pinned_ensure(kc, (void **)&kc->h_feat, &kc->h_feat_cap, bytes));
    return FOVEA_OK;
}

int kc_call_begin(KLT_TrackingContext tc, kc_state *kc)
{
    FOVEA_TRY(fv_device_activate(kc->ctx));
    return FOVEA_OK;
}

/* Wait for the work queued so far (its end is the call's end so far). */
int kc_call_sync(KLT_TrackingContext tc, kc_state *kc)
{
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamSynchronize(kc_stream(kc)));
    return FOVEA_OK;
}

/* Wait for the call's work (the feature copy back is the last of it);
 * queued: whether anything was queued after the last call_sync. */
int kc_call_end_q(KLT_TrackingContext tc, kc_state *kc, int queued)
{
    if (queued)
        FOVEA_TRY(kc_call_sync(tc, kc));
    return FOVEA_OK;
}

int kc_call_end(KLT_TrackingContext tc, kc_state *kc)
{
    return kc_call_end_q(tc, kc, 1);
}

/* ---------------------------------------------------------------- the table */

static int cuda_select(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img, int ncols,
                       int nrows, KLT_FeatureList fl, int replace)
{
    return kc_end(tc, priv, kc_select(tc, priv, img, ncols, nrows, fl, replace));
}

static int cuda_track(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img1,
                      const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl)
{
    return kc_end(tc, priv, kc_track(tc, priv, img1, img2, ncols, nrows, fl));
}

static int cuda_sort_check(void *priv, KLT_TrackingContext tc, const int *val, int n,
                           int max_blocks, int *out_val, unsigned *out_id)
{
    return kc_end(tc, priv, kc_sort_check(tc, priv, val, n, max_blocks, out_val, out_id));
}

const klt_backend klt_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE, cuda_init, cuda_close},
    cuda_select,
    cuda_track,
    cuda_sort_check,
};
