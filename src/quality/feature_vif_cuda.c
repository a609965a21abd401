/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "vif" (host side): four launches a batch,
 * one per scale, over the kernels of vif.cu; the images of scales 1..3 in
 * scratch of the instance. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/vif_cuda.h"
#include "quality/vif_internal.h"

typedef struct vif_cuda {
    fovea_context *ctx; /* outlives the state */
    int width, height, bpc;
    double enhn_gain_limit;
    uint16_t *d_log2;               /* VIF_LOG2_TABLE_SIZE entries */
    uint16_t *d_img[2][VIF_SCALES]; /* [ref/dis][scale 1..3], batch frames each */
    size_t img_pitch[VIF_SCALES];   /* bytes */
    size_t img_bytes[VIF_SCALES];   /* one frame */
} vif_cuda;

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

static void cuda_close(void **priv)
{
    vif_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    for (int i = 0; i < 2; i++)
        for (int s = 1; s < VIF_SCALES; s++)
            fv_device_free(st->ctx, st->d_img[i][s]);
    fv_device_free(st->ctx, st->d_log2);
    free(st);
    *priv = NULL;
}

static int upload_log2(vif_cuda *st, fovea_context *ctx)
{
    uint16_t *table = malloc(VIF_LOG2_TABLE_SIZE * sizeof(uint16_t));
    if (!table)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    fv_vif_log2_table(table);
    int status =
        FOVEA_CUDA(ctx, cudaMemcpyAsync(st->d_log2, table, VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                        cudaMemcpyHostToDevice, fv_ctx_stream(ctx)));
    /* the copy reads table: wait before freeing it */
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    free(table);
    return status;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *fs)
{
    *priv = NULL;
    vif_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    st->ctx = ctx;
    st->width = fs->width;
    st->height = fs->height;
    st->bpc = fs->bpc;
    st->enhn_gain_limit = fs->opts.v[VIF_OPT_GAIN_LIMIT];
    /* sizes are bounded by FOVEA_MAX_DIM and the batch by VIF_CUDA_MAX_BATCH:
     * no overflow */
    const size_t w = (size_t)fs->width, h = (size_t)fs->height, b = (size_t)fs->batch;
    int status = FOVEA_CUDA(ctx, fv_vif_cuda_prepare());
    for (int s = 1; s < VIF_SCALES && status == FOVEA_OK; s++) {
        st->img_pitch[s] = align256((w >> s) * sizeof(uint16_t));
        st->img_bytes[s] = st->img_pitch[s] * (h >> s);
        for (int i = 0; i < 2 && status == FOVEA_OK; i++)
            status = fv_device_malloc(ctx, st->img_bytes[s] * b, (void **)&st->d_img[i][s]);
    }
    if (status == FOVEA_OK)
        status =
            fv_device_malloc(ctx, VIF_LOG2_TABLE_SIZE * sizeof(uint16_t), (void **)&st->d_log2);
    if (status == FOVEA_OK)
        status = upload_log2(st, ctx);
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

/* The four scale launches of a batch. */
static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    vif_cuda *st = priv;
    vif_cuda_scale_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = b->n;
    for (int z = 0; z < b->n; z++) {
        a.ref[z] = b->ref[z];
        a.dis[z] = b->dis[z];
        a.rstride[z] = b->ref_stride[z];
        a.dstride[z] = b->dis_stride[z];
    }
    a.u8 = st->bpc == 8;
    a.w = st->width;
    a.h = st->height;
    a.shift = st->bpc;
    a.log2_table = st->d_log2;
    a.enhn_gain_limit = st->enhn_gain_limit;
    a.sums = sums;
    for (int s = 0; s < VIF_SCALES; s++) {
        a.scale = s;
        if (s + 1 < VIF_SCALES) {
            a.out_ref = st->d_img[0][s + 1];
            a.out_dis = st->d_img[1][s + 1];
            a.out_stride = (ptrdiff_t)st->img_pitch[s + 1];
            a.out_frame_bytes = st->img_bytes[s + 1];
        } else {
            a.out_ref = a.out_dis = NULL;
            a.out_stride = 0;
            a.out_frame_bytes = 0;
        }
        FOVEA_CUDA_TRY(ctx, fv_vif_cuda_launch_scale(&a, stream));
        if (s + 1 < VIF_SCALES) {
            for (int z = 0; z < b->n; z++) {
                a.ref[z] = (const uint8_t *)st->d_img[0][s + 1] + (size_t)z * st->img_bytes[s + 1];
                a.dis[z] = (const uint8_t *)st->d_img[1][s + 1] + (size_t)z * st->img_bytes[s + 1];
                a.rstride[z] = a.dstride[z] = (ptrdiff_t)st->img_pitch[s + 1];
            }
            a.w /= 2;
            a.h /= 2;
            a.u8 = 0;
            a.shift = 16;
        }
    }
    return FOVEA_OK;
}

static void cuda_raw(void *priv, const unsigned long long *u, int first, feature_raw *r)
{
    (void)priv;
    (void)first;
    memset(r, 0, sizeof(*r));
    vif_raw *out = (vif_raw *)(void *)r->b;
    for (int s = 0; s < VIF_SCALES; s++, u += VIF_CUDA_NSUMS) {
        const int64_t num_log = (int64_t)u[0], den_log = (int64_t)u[1];
        const int64_t num_non_log = (int64_t)u[2], den_non_log = (int64_t)u[3];
        /* the same expressions as vif_ref_process in vif_ref.c */
        out->num[s] = (float)((double)num_log / 2048.0 +
                              ((double)den_non_log - ((double)num_non_log / 16384.0) / 65025.0));
        out->den[s] = (float)((double)den_log / 2048.0 + (double)den_non_log);
    }
}

const feature_extractor feature_vif_cuda = {
    &feature_vif,        FOVEA_BACKEND_CUDA, cuda_init,   cuda_close, NULL,
    VIF_CUDA_FRAME_SUMS, VIF_CUDA_MAX_BATCH, cuda_launch, cuda_raw,
};
