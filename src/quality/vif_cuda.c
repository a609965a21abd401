/* CUDA backend of integer VIF (host side): per-context device images of scales
 * 1..3, the log2 table, staging for host frames and the 64-bit sums, all
 * allocated at init; per frame four kernel launches on the context stream and
 * one read-back of the sums. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/vif_cuda.h"
#include "quality/vif_internal.h"

typedef struct vif_cuda {
    fovea_context *ctx;                     /* outlives the VIF context */
    vif_params p;
    uint16_t *d_log2;                       /* VIF_LOG2_TABLE_SIZE entries */
    uint16_t *d_img[2][FOVEA_VIF_SCALES];   /* [ref/dis][scale 1..3] */
    size_t img_pitch[FOVEA_VIF_SCALES];     /* bytes */
    uint8_t *d_in[2];                       /* scale-0 copies of host frames */
    uint8_t *h_in[2];                       /* pinned staging of pageable frames */
    size_t in_pitch;                        /* bytes, both */
    unsigned long long *d_sums;             /* FOVEA_VIF_SCALES x VIF_CUDA_NSUMS */
    unsigned long long *h_sums;             /* pinned */
} vif_cuda;

#define VIF_SUMS_BYTES (FOVEA_VIF_SCALES * VIF_CUDA_NSUMS * sizeof(unsigned long long))

static void cuda_close(void **priv)
{
    vif_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    /* nothing queued may still use the buffers */
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fovea_ctx_stream(ctx));
    for (int i = 0; i < 2; i++) {
        for (int s = 1; s < FOVEA_VIF_SCALES; s++)
            fovea_device_free(ctx, st->d_img[i][s]);
        fovea_device_free(ctx, st->d_in[i]);
        fovea_pinned_free(ctx, st->h_in[i]);
    }
    fovea_device_free(ctx, st->d_log2);
    fovea_device_free(ctx, st->d_sums);
    fovea_pinned_free(ctx, st->h_sums);
    free(st);
    *priv = NULL;
}

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

static int cuda_init(void **priv, fovea_context *ctx, const vif_params *p)
{
    *priv = NULL;
    int status = fovea_device_activate(ctx);
    if (status < 0)
        return status;
    vif_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fovea_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    st->ctx = ctx;
    st->p = *p;
    const size_t w = (size_t)p->width, h = (size_t)p->height;
    const size_t bps = p->bpc > 8 ? 2 : 1;
    /* sizes are bounded by FOVEA_MAX_DIM (checked by vif.c): no overflow */
    st->in_pitch = align256(w * bps);
    for (int s = 1; s < FOVEA_VIF_SCALES && status == FOVEA_OK; s++) {
        st->img_pitch[s] = align256((w >> s) * sizeof(uint16_t));
        for (int i = 0; i < 2 && status == FOVEA_OK; i++)
            status = fovea_device_malloc(ctx, st->img_pitch[s] * (h >> s),
                                         (void **)&st->d_img[i][s]);
    }
    for (int i = 0; i < 2 && status == FOVEA_OK; i++) {
        status = fovea_device_malloc(ctx, st->in_pitch * h, (void **)&st->d_in[i]);
        if (status == FOVEA_OK)
            status = fovea_pinned_malloc(ctx, st->in_pitch * h, (void **)&st->h_in[i]);
    }
    if (status == FOVEA_OK)
        status = fovea_device_malloc(ctx, VIF_SUMS_BYTES, (void **)&st->d_sums);
    if (status == FOVEA_OK)
        status = fovea_pinned_malloc(ctx, VIF_SUMS_BYTES, (void **)&st->h_sums);
    if (status == FOVEA_OK)
        status = fovea_device_malloc(ctx, VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                     (void **)&st->d_log2);
    if (status == FOVEA_OK) {
        uint16_t *table = malloc(VIF_LOG2_TABLE_SIZE * sizeof(uint16_t));
        if (!table) {
            status = fovea_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
        } else {
            fovea_vif_log2_table(table);
            status = FOVEA_CUDA(ctx, cudaMemcpyAsync(st->d_log2, table,
                                                     VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                                     cudaMemcpyHostToDevice,
                                                     fovea_ctx_stream(ctx)));
            /* the copy reads table: wait before freeing it */
            if (status == FOVEA_OK)
                status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fovea_ctx_stream(ctx)));
            free(table);
        }
    }
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

/* Device pointer and pitch of a luma plane: itself when on the device, else a
 * copy queued on the context stream (through pinned staging when pageable). */
static int device_plane(vif_cuda *st, fovea_context *ctx, int which, const vif_plane *pl,
                        const uint8_t **data, ptrdiff_t *stride)
{
    if (pl->mem == FOVEA_MEM_DEVICE) {
        *data = pl->data;
        *stride = pl->stride;
        return FOVEA_OK;
    }
    const size_t row = (size_t)st->p.width * (st->p.bpc > 8 ? 2 : 1);
    const size_t h = (size_t)st->p.height;
    const uint8_t *src = pl->data;
    size_t spitch = (size_t)pl->stride;
    if (pl->mem != FOVEA_MEM_PINNED) {
        /* the previous frame's copy finished: process waits for the stream */
        for (size_t y = 0; y < h; y++)
            memcpy(st->h_in[which] + y * st->in_pitch, pl->data + (ptrdiff_t)y * pl->stride, row);
        src = st->h_in[which];
        spitch = st->in_pitch;
    }
    FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(st->d_in[which], st->in_pitch, src, spitch, row, h,
                                          cudaMemcpyHostToDevice, fovea_ctx_stream(ctx)));
    *data = st->d_in[which];
    *stride = (ptrdiff_t)st->in_pitch;
    return FOVEA_OK;
}

static int cuda_process(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                        vif_raw *out)
{
    vif_cuda *st = priv;
    int status = fovea_device_activate(ctx);
    if (status < 0)
        return status;
    cudaStream_t stream = fovea_ctx_stream(ctx);
    vif_cuda_scale_args a;
    memset(&a, 0, sizeof(a));
    status = device_plane(st, ctx, 0, ref, &a.ref, &a.rstride);
    if (status < 0)
        return status;
    status = device_plane(st, ctx, 1, dis, &a.dis, &a.dstride);
    if (status < 0)
        return status;
    FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(st->d_sums, 0, VIF_SUMS_BYTES, stream));
    a.u8 = st->p.bpc == 8;
    a.w = st->p.width;
    a.h = st->p.height;
    a.shift = st->p.bpc;
    a.log2_table = st->d_log2;
    a.enhn_gain_limit = st->p.enhn_gain_limit;
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        a.scale = s;
        a.sums = st->d_sums + s * VIF_CUDA_NSUMS;
        if (s + 1 < FOVEA_VIF_SCALES) {
            a.out_ref = st->d_img[0][s + 1];
            a.out_dis = st->d_img[1][s + 1];
            a.out_stride = (ptrdiff_t)st->img_pitch[s + 1];
        } else {
            a.out_ref = a.out_dis = NULL;
            a.out_stride = 0;
        }
        FOVEA_CUDA_TRY(ctx, fovea_vif_cuda_launch_scale(&a, stream));
        if (s + 1 < FOVEA_VIF_SCALES) {
            a.ref = (const uint8_t *)st->d_img[0][s + 1];
            a.dis = (const uint8_t *)st->d_img[1][s + 1];
            a.rstride = a.dstride = (ptrdiff_t)st->img_pitch[s + 1];
            a.w /= 2;
            a.h /= 2;
            a.u8 = 0;
            a.shift = 16;
        }
    }
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(st->h_sums, st->d_sums, VIF_SUMS_BYTES,
                                        cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        const unsigned long long *u = st->h_sums + s * VIF_CUDA_NSUMS;
        const int64_t num_log = (int64_t)u[0], den_log = (int64_t)u[1];
        const int64_t num_non_log = (int64_t)u[2], den_non_log = (int64_t)u[3];
        /* the same expressions as ref_process in vif_ref.c */
        out->num[s] = (float)((double)num_log / 2048.0 +
                              ((double)den_non_log - ((double)num_non_log / 16384.0) / 65025.0));
        out->den[s] = (float)((double)den_log / 2048.0 + (double)den_non_log);
    }
    return FOVEA_OK;
}

const vif_backend fovea_vif_backend_cuda = {
    "cuda", FOVEA_BACKEND_CUDA, cuda_init, cuda_process, cuda_close,
};
