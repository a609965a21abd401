/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA backend of KLT, pyramids (host side): pyramid.c's build and reuse
 * tests with the kernels of pyramid.cu; the smoothing and gradients that
 * selection also uses. */
#include <string.h>

#include "core/core.h"
#include "klt/klt_cuda_internal.h"
#include "klt/pyramid_cuda.h"

static klt_cuda_kernel to_dev(const klt_kernel *k)
{
    klt_cuda_kernel d;
    memset(&d, 0, sizeof d);
    d.width = k->width;
    memcpy(d.data, k->data, (size_t)k->width * sizeof(float));
    return d;
}

/* Smoothing (gauss both ways) or gradient pair of in into out1 (and out2). */
int kc_conv_smooth(kc_state *kc, const klt_kernels *k, const void *in, int in_u8, int ncols,
                   int nrows, float *out)
{
    klt_cuda_conv_args a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.in_u8 = in_u8;
    a.ncols = ncols;
    a.nrows = nrows;
    a.h1 = a.v1 = to_dev(&k->gauss);
    a.out1 = out;
    return FOVEA_CUDA(kc->ctx, klt_cuda_conv(&a, kc_stream(kc)));
}

int kc_conv_gradients(kc_state *kc, const klt_kernels *k, const void *in, int in_u8, int ncols,
                      int nrows, float *gx, float *gy)
{
    klt_cuda_conv_args a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.in_u8 = in_u8;
    a.ncols = ncols;
    a.nrows = nrows;
    a.h1 = to_dev(&k->deriv);
    a.v1 = to_dev(&k->gauss);
    a.h2 = to_dev(&k->gauss);
    a.v2 = to_dev(&k->deriv);
    a.out1 = gx;
    a.out2 = gy;
    return FOVEA_CUDA(kc->ctx, klt_cuda_conv(&a, kc_stream(kc)));
}

/* pyramid.c's klt_pyramid_build on the GPU: same kernel-cache requests. */
int kc_build(KLT_TrackingContext tc, kc_state *kc, kc_pyr *p, const KLT_PixelType *img,
             fovea_memtype kind, int ncols, int nrows)
{
    klt_state *st = klt_priv(tc);
    const int ss = tc->subsampling, nl = tc->nPyramidLevels;
    FOVEA_TRY(klt_pyramid_params_check(tc));
    p->valid = 0;
    const size_t npix = (size_t)ncols * (size_t)nrows;
    size_t bytes;
    int c = ncols, r = nrows;
    for (int i = 0; i < nl; i++) {
        size_t n = (size_t)c * (size_t)r;
        if (kc_floats_bytes(n, &bytes) < 0)
            return klt_fail(tc, FOVEA_ERR_NOMEM, "pyramid: size overflow");
        if (!p->img[i] || n > p->cap[i]) {
            size_t cap = 0;
            fv_device_free(kc->ctx, p->img[i]);
            fv_device_free(kc->ctx, p->gx[i]);
            fv_device_free(kc->ctx, p->gy[i]);
            p->img[i] = p->gx[i] = p->gy[i] = NULL;
            p->cap[i] = 0;
            FOVEA_TRY(kc_dev_ensure(kc, (void **)&p->img[i], &cap, bytes));
            FOVEA_TRY(kc_dev_ensure(kc, (void **)&p->gx[i], &cap, bytes));
            FOVEA_TRY(kc_dev_ensure(kc, (void **)&p->gy[i], &cap, bytes));
            p->cap[i] = n;
        }
        p->w[i] = c;
        p->h[i] = r;
        c /= ss;
        r /= ss;
    }
    if (kc_floats_bytes(npix, &bytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "pyramid: size overflow");
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_tmp, &kc->tmp_cap, bytes));
    p->raw_host = 0;
    if (kind == FOVEA_MEM_HOST)
        FOVEA_TRY(kc_pinned_ensure(kc, (void **)&p->raw, &p->raw_cap, npix));
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&p->d_raw, &p->d_raw_cap, npix));
    p->nlevels = nl;
    p->ss = ss;
    p->ncols = ncols;
    p->nrows = nrows;

    FOVEA_TRY(kc_upload(kc, p->raw, p->d_raw, img, npix, kind));
    p->raw_host = kind == FOVEA_MEM_HOST;
    klt_kernels_for(&st->kernels, _KLTComputeSmoothSigma(tc));
    FOVEA_TRY(kc_conv_smooth(kc, &st->kernels, p->d_raw, 1, ncols, nrows, p->img[0]));
    p->sig[0] = st->kernels.sigma_last;
    const float sigma = ss * tc->pyramid_sigma_fact;
    for (int i = 1; i < nl; i++) {
        klt_kernels_for(&st->kernels, sigma);
        klt_cuda_kernel g = to_dev(&st->kernels.gauss);
        FOVEA_CUDA_TRY(kc->ctx,
                       klt_cuda_smooth_subsample(p->img[i - 1], p->w[i - 1], p->h[i - 1], &g, ss,
                                                 kc->d_tmp, p->img[i], kc_stream(kc)));
        p->sig[i] = st->kernels.sigma_last;
    }
    for (int i = 0; i < nl; i++) {
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        FOVEA_TRY(kc_conv_gradients(kc, &st->kernels, p->img[i], 0, p->w[i], p->h[i], p->gx[i],
                                    p->gy[i]));
        p->sig[nl + i] = st->kernels.sigma_last;
    }
    p->valid = 1;
    return FOVEA_OK;
}

/* pyramid.c's reuse tests: is img (of kind) the input p was built from?
 * Host input against a host copy: compared on the host. Otherwise on the
 * device, against p's device copy (one round trip): the input is copied
 * there first. 1 = same, 0 = not, < 0: failure (reported). */
static int kc_same_input(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                         const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows)
{
    if (!p->valid || p->ncols != ncols || p->nrows != nrows)
        return 0;
    const size_t npix = (size_t)ncols * (size_t)nrows;
    if (kind == FOVEA_MEM_HOST && p->raw_host)
        return memcmp(p->raw, img, npix) == 0;
    cudaStream_t stream = kc_stream(kc);
    size_t cap = 0;
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_cmp, &kc->d_cmp_cap, npix));
    if (!kc->d_flag)
        FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_flag, &cap, sizeof(int)));
    if (!kc->h_flag)
        FOVEA_TRY(kc_pinned_ensure(kc, (void **)&kc->h_flag, &cap, sizeof(int)));
    FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->d_cmp, img, npix, cudaMemcpyDefault, stream));
    FOVEA_CUDA_TRY(kc->ctx, klt_cuda_differs(kc->d_cmp, p->d_raw, npix, kc->d_flag, stream));
    FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_flag, kc->d_flag, sizeof(int),
                                            cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamSynchronize(stream));
    return *kc->h_flag == 0;
}

int kc_pyramid_matches(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                       const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows)
{
    int same = kc_same_input(tc, kc, p, img, kind, ncols, nrows);
    if (same <= 0)
        return same;
    return p->nlevels == tc->nPyramidLevels && p->ss == tc->subsampling &&
           klt_kernels_replay(tc, p->sig, p->nlevels);
}

int kc_level0_matches(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                      const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows)
{
    int same = kc_same_input(tc, kc, p, img, kind, ncols, nrows);
    if (same <= 0)
        return same;
    return klt_kernels_replay_level0(tc, p->sig, p->nlevels);
}
