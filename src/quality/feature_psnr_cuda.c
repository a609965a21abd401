/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "psnr" (host side): one launch a batch
 * (psnr.cu) summing the squared errors of each plane into the pair's three
 * counters, which are the raw values as they are. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "quality/psnr.h"
#include "quality/psnr_cuda.h"

typedef struct psnr_cuda {
    int bpc, planes;
    int w[3], h[3];
} psnr_cuda;

static void cuda_close(void **priv)
{
    if (priv) {
        free(*priv);
        *priv = NULL;
    }
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    const int chroma = s->opts.v[PSNR_OPT_ENABLE_CHROMA] != 0.0;
    /* the C extractor's refusal, word for word */
    if (chroma && s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "psnr: the input has no chroma planes (gray); set "
                            "psnr:enable_chroma=false");
    psnr_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->bpc = s->bpc;
    st->planes = chroma ? 3 : 1;
    st->w[0] = s->width;
    st->h[0] = s->height;
    for (int p = 1; p < 3; p++) {
        st->w[p] = s->chroma_width;
        st->h[p] = s->chroma_height;
    }
    *priv = st;
    return FOVEA_OK;
}

static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    const psnr_cuda *st = priv;
    psnr_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = b->n;
    a.planes = st->planes;
    a.u8 = st->bpc == 8;
    for (int p = 0; p < 3; p++) {
        a.w[p] = st->w[p];
        a.h[p] = st->h[p];
    }
    for (int z = 0; z < b->n; z++)
        for (int p = 0; p < st->planes; p++)
            feature_batch_plane(b, z, p, &a.ref[p][z], &a.rstride[p][z], &a.dis[p][z],
                                &a.dstride[p][z]);
    a.sse = sums;
    FOVEA_CUDA_TRY(ctx, fv_psnr_cuda_launch(&a, stream));
    return FOVEA_OK;
}

/* the counters are the raw values: planes not summed stay 0, as in C */
static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    (void)priv;
    (void)first;
    psnr_raw r;
    for (int p = 0; p < 3; p++)
        r.sse[p] = (uint64_t)sums[p];
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &r, sizeof(r));
}

const feature_extractor feature_psnr_cuda = {
    &feature_psnr,       FOVEA_BACKEND_CUDA, cuda_init, cuda_close, NULL, 3,
    PSNR_CUDA_MAX_BATCH, cuda_launch,        cuda_raw,
};
