/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "float_ms_ssim" (host side): one launcher
 * call a batch (ssim.cu: load, four halvings by the 9x9 low-pass, the SSIM
 * map of every scale and its l, c, s sums in raster order); the means and
 * their product over the scales (ms_combine, with the host's pow) on the
 * host, as the C extractor computes them. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/ssim_cuda.h"
#include "quality/ssim_feature.h"
#include "quality/ssim_iqa.h"

/* per scale the l, c, s sums */
#define MS_CUDA_FRAME_SUMS (3 * MS_SCALES)

typedef struct ms_cuda {
    fovea_context *ctx; /* outlives the state */
    ssim_cuda_args a;   /* sizes, kernel and constants; planes set per batch */
} ms_cuda;

static void cuda_close(void **priv)
{
    ms_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fv_device_free(st->ctx, st->a.work);
    free(st);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    /* the C extractor's refusal, word for word */
    if (s->width < MS_MIN_DIM || s->height < MS_MIN_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: float_ms_ssim needs at least %dx%d (five scales of the "
                            "11x11 window); the picture is %dx%d",
                            MS_MIN_DIM, MS_MIN_DIM, s->width, s->height);
    ms_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    ssim_cuda_args *a = &st->a;
    _Static_assert(MS_SCALES <= SSIM_CUDA_MAX_LEVELS, "the scales fit the launcher");
    _Static_assert(MS_LPF * MS_LPF <= SSIM_CUDA_MAX_TAPS, "the low-pass fits the launcher");
    a->nframes = s->batch;
    a->bpc = s->bpc;
    a->levels = MS_SCALES;
    for (int k = 0; k < MS_SCALES; k++) {
        a->lw[k] = k ? iqa_decimated(a->lw[k - 1], 2) : s->width;
        a->lh[k] = k ? iqa_decimated(a->lh[k - 1], 2) : s->height;
    }
    a->factor = 2;
    a->taps = MS_LPF;
    memcpy(a->kernel, ms_lpf, MS_LPF * MS_LPF * sizeof(float));
    a->first_map = 0;
    a->with_ssim = 0;
    iqa_ssim_constants(&a->c1, &a->c2, &a->c3);
    memcpy(a->gauss, iqa_gauss, sizeof(a->gauss));
    a->frame_sums = MS_CUDA_FRAME_SUMS;
    const size_t bytes = fv_ssim_cuda_work_bytes(a);
    int status = bytes ? fv_device_malloc(ctx, bytes, &a->work)
                       : fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                      "vmaf: float_ms_ssim: unsupported size or depth");
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    ms_cuda *st = priv;
    ssim_cuda_args *a = &st->a;
    a->nframes = b->n;
    for (int z = 0; z < b->n; z++) {
        a->ref[z] = b->ref[z];
        a->dis[z] = b->dis[z];
        a->rstride[z] = b->ref_stride[z];
        a->dstride[z] = b->dis_stride[z];
    }
    a->sums = sums;
    FOVEA_CUDA_TRY(ctx, fv_ssim_cuda_launch(a, stream));
    return FOVEA_OK;
}

/* The C extractor's raw values from the sums. The product cannot be refused
 * here (raw has no status): where C fails the pair (an infinite product,
 * which finite means below 1 never give) the infinity goes on. */
static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    const ms_cuda *st = priv;
    (void)first;
    double sum[MS_CUDA_FRAME_SUMS];
    memcpy(sum, sums, sizeof(sum));
    ms_raw m;
    memset(&m, 0, sizeof(m));
    for (int k = 0; k < MS_SCALES; k++) {
        const int dw = st->a.lw[k] - IQA_WINDOW + 1, dh = st->a.lh[k] - IQA_WINDOW + 1;
        const double count = (double)(dw * dh);
        m.l[k] = (float)(sum[3 * k] / count);
        m.c[k] = (float)(sum[3 * k + 1] / count);
        m.s[k] = (float)(sum[3 * k + 2] / count);
    }
    (void)ms_combine(&m);
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &m, sizeof(m));
}

const feature_extractor feature_float_ms_ssim_cuda = {
    &feature_float_ms_ssim, FOVEA_BACKEND_CUDA,  cuda_init,   cuda_close, NULL,
    MS_CUDA_FRAME_SUMS,     SSIM_CUDA_MAX_BATCH, cuda_launch, cuda_raw,
};
