/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "float_ssim" (host side): one launcher
 * call a batch (ssim.cu: load, the box decimation of the scale, the SSIM map
 * and its four sums in raster order); the means are divided on the host as
 * ssim_iqa.c divides them. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/ssim_cuda.h"
#include "quality/ssim_feature.h"
#include "quality/ssim_iqa.h"

typedef struct ssim_cuda {
    fovea_context *ctx; /* outlives the state */
    ssim_cuda_args a;   /* sizes, kernel and constants; planes set per batch */
    int dw, dh;         /* the map's valid region (may be empty) */
} ssim_cuda;

static void cuda_close(void **priv)
{
    ssim_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fv_device_free(st->ctx, st->a.work);
    free(st);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    const int scale = s->opts.v[SSIM_OPT_SCALE] > 0.0 ? (int)s->opts.v[SSIM_OPT_SCALE]
                                                      : iqa_auto_scale(s->width, s->height);
    /* the C extractor's refusal, word for word */
    if (scale > 1 && !iqa_decimate_fits(s->width, s->height, scale, scale))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: float_ssim: scale %d does not fit a %dx%d picture (libvmaf "
                            "reads outside it)",
                            scale, s->width, s->height);
    ssim_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    ssim_cuda_args *a = &st->a;
    a->nframes = s->batch;
    a->bpc = s->bpc;
    a->lw[0] = s->width;
    a->lh[0] = s->height;
    a->levels = 1;
    if (scale > 1) {
        a->levels = 2;
        a->lw[1] = iqa_decimated(s->width, scale);
        a->lh[1] = iqa_decimated(s->height, scale);
        a->factor = scale;
        a->taps = scale;
        /* libvmaf's box filter: 1 / (scale * scale) in float */
        for (int i = 0; i < scale * scale; i++)
            a->kernel[i] = 1.0f / (float)(scale * scale);
    }
    a->first_map = a->levels - 1;
    a->with_ssim = 1;
    iqa_ssim_constants(&a->c1, &a->c2, &a->c3);
    memcpy(a->gauss, iqa_gauss, sizeof(a->gauss));
    a->frame_sums = SSIM_CUDA_SUMS;
    st->dw = a->lw[a->levels - 1] - IQA_WINDOW + 1;
    st->dh = a->lh[a->levels - 1] - IQA_WINDOW + 1;
    const size_t bytes = fv_ssim_cuda_work_bytes(a);
    int status = bytes ? fv_device_malloc(ctx, bytes, &a->work)
                       : fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                      "vmaf: float_ssim: unsupported size or depth");
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
    ssim_cuda *st = priv;
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

/* iqa_ssim's means from the four sums (ssim, l, c, s) */
static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    const ssim_cuda *st = priv;
    (void)first;
    double sum[SSIM_CUDA_SUMS];
    memcpy(sum, sums, sizeof(sum));
    const double count = (double)(st->dw * st->dh);
    iqa_ssim_means m;
    m.ssim = (float)(sum[0] / count);
    m.l = (float)(sum[1] / count);
    m.c = (float)(sum[2] / count);
    m.s = (float)(sum[3] / count);
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &m, sizeof(m));
}

const feature_extractor feature_float_ssim_cuda = {
    &feature_float_ssim, FOVEA_BACKEND_CUDA,  cuda_init,   cuda_close, NULL,
    SSIM_CUDA_SUMS,      SSIM_CUDA_MAX_BATCH, cuda_launch, cuda_raw,
};
