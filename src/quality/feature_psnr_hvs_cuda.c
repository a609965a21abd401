/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "psnr_hvs" (host side): one launcher call
 * a batch (psnr_hvs.cu: the blocks' weighted errors, then each plane's float
 * sum in C's order); the sums are divided on the host as C divides them. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/psnr_hvs.h"
#include "quality/psnr_hvs_cuda.h"

typedef struct hvs_cuda {
    fovea_context *ctx; /* outlives the state */
    int bpc;
    int pixels[3];   /* terms of each plane */
    hvs_cuda_args a; /* sizes and tables; planes set per batch */
} hvs_cuda;

static void cuda_close(void **priv)
{
    hvs_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fv_device_free(st->ctx, st->a.work);
    free(st);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    /* the C extractor's refusals, word for word */
    if (s->bpc > 12)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "psnr_hvs: %d-bit samples; libvmaf's PSNR-HVS takes at most 12 bits",
                            s->bpc);
    if (s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "psnr_hvs: the input has no chroma planes (gray); libvmaf's "
                            "PSNR-HVS needs YUV");
    hvs_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    st->bpc = s->bpc;
    hvs_cuda_args *a = &st->a;
    a->nframes = s->batch;
    a->u8 = s->bpc == 8;
    a->w[0] = s->width;
    a->h[0] = s->height;
    a->w[1] = a->w[2] = s->chroma_width;
    a->h[1] = a->h[2] = s->chroma_height;
    for (int p = 0; p < 3; p++) {
        psnr_hvs_tables(p, a->csf[p], a->mask[p]);
        st->pixels[p] = psnr_hvs_blocks(a->w[p]) * psnr_hvs_blocks(a->h[p]) * 64;
    }
    const size_t bytes = fv_hvs_cuda_work_bytes(a);
    int status = bytes ? fv_device_malloc(ctx, bytes, &a->work)
                       : fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "psnr_hvs: unsupported size");
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
    hvs_cuda *st = priv;
    hvs_cuda_args *a = &st->a;
    a->nframes = b->n;
    for (int z = 0; z < b->n; z++)
        for (int p = 0; p < 3; p++)
            feature_batch_plane(b, z, p, &a->ref[p][z], &a->rstride[p][z], &a->dis[p][z],
                                &a->dstride[p][z]);
    a->sums = sums;
    FOVEA_CUDA_TRY(ctx, fv_hvs_cuda_launch(a, stream));
    return FOVEA_OK;
}

/* the three plane scores from their float sums, as C computes them */
static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    const hvs_cuda *st = priv;
    (void)first;
    float s[3];
    for (int p = 0; p < 3; p++) {
        const uint32_t bits = (uint32_t)sums[p];
        float sum;
        memcpy(&sum, &bits, sizeof(sum));
        s[p] = psnr_hvs_score(sum, st->pixels[p], st->bpc);
    }
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, s, sizeof(s));
}

const feature_extractor feature_psnr_hvs_cuda = {
    &feature_psnr_hvs,  FOVEA_BACKEND_CUDA, cuda_init, cuda_close, NULL, 3,
    HVS_CUDA_MAX_BATCH, cuda_launch,        cuda_raw,
};
