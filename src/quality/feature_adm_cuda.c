/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "adm" (host side): one launcher call a
 * batch (adm.cu: per level a DWT and a scoring launch, then the reduction),
 * its scratch in the instance. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/adm_cuda.h"

typedef struct adm_cuda {
    fovea_context *ctx; /* outlives the state */
    adm_params p;
    adm_level l[ADM_SCALES];
    void *d_work; /* fv_adm_cuda_work_bytes */
} adm_cuda;

static void cuda_close(void **priv)
{
    adm_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fv_device_free(st->ctx, st->d_work);
    free(st);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    adm_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    adm_params_from_opts(&st->p, s);
    for (int l = 0; l < ADM_SCALES; l++)
        adm_level_setup(&st->p, l, &st->l[l]);
    int status =
        fv_device_malloc(ctx, fv_adm_cuda_work_bytes(s->width, s->height, s->batch), &st->d_work);
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
    adm_cuda *st = priv;
    adm_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = b->n;
    a.width = st->p.width;
    a.height = st->p.height;
    a.bpc = st->p.bpc;
    for (int z = 0; z < b->n; z++) {
        a.ref[z] = b->ref[z];
        a.dis[z] = b->dis[z];
        a.rstride[z] = b->ref_stride[z];
        a.dstride[z] = b->dis_stride[z];
    }
    memcpy(a.level, st->l, sizeof(a.level));
    a.cos_1deg_sq = adm_cos_1deg_sq();
    a.enhn_gain_limit = st->p.enhn_gain_limit;
    a.work = st->d_work;
    a.sums = sums;
    FOVEA_CUDA_TRY(ctx, fv_adm_cuda_launch(&a, stream));
    return FOVEA_OK;
}

static void cuda_raw(void *priv, const unsigned long long *a, int first, feature_raw *r)
{
    (void)first;
    const adm_cuda *st = priv;
    memset(r, 0, sizeof(*r));
    adm_raw *out = (adm_raw *)(void *)r->b;
    for (int s = 0; s < ADM_SCALES; s++, a += ADM_CUDA_NSUMS) {
        int64_t den[3], num[3], aim[3];
        for (int k = 0; k < 3; k++) {
            den[k] = (int64_t)a[k];
            num[k] = (int64_t)a[3 + k];
            aim[k] = (int64_t)a[6 + k];
        }
        out->den[s] = adm_den_float(&st->p, s, den);
        out->num[s] = adm_num_float(&st->p, s, num, st->p.noise_weight);
        out->aim_num[s] = adm_num_float(&st->p, s, aim, 0.0);
    }
}

const feature_extractor feature_adm_cuda = {
    &feature_adm,        FOVEA_BACKEND_CUDA, cuda_init,   cuda_close, NULL,
    ADM_CUDA_FRAME_SUMS, ADM_CUDA_MAX_BATCH, cuda_launch, cuda_raw,
};
