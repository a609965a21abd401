/* CUDA backend of integer VIF (host side). Pairs are queued into batches of up
 * to VIF_CUDA_MAX_BATCH; a full batch (or the oldest one, when its results are
 * asked for) is launched as four kernel launches on the context stream, one per
 * scale, with gridDim.z = pair. Host frames are copied on a second stream into
 * per-batch device staging (pageable ones through pinned staging first), so the
 * copies of the next batch overlap the kernels of this one. VIF_SLOTS batches
 * can be in flight; each has its own staging, sums and events. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/vif_cuda.h"
#include "quality/vif_internal.h"

#define VIF_SLOTS 4
/* Pixels per launch the batch size aims for (enough blocks for every SM at
 * every scale of small frames). */
#define VIF_BATCH_PIXELS 8000000.0

typedef struct vif_slot {
    int n;                 /* pairs in the batch */
    int launched;
    int copies;            /* H2D copies queued on the copy stream for it */
    const uint8_t *src[2][VIF_CUDA_MAX_BATCH]; /* scale-0 planes the kernels read */
    ptrdiff_t stride[2][VIF_CUDA_MAX_BATCH];
    uint8_t *d_in[2];      /* device staging of host frames (batch frames; lazy) */
    uint8_t *h_in[2];      /* pinned staging of pageable frames (batch frames; lazy) */
    unsigned long long *d_sums, *h_sums; /* VIF_CUDA_FRAME_SUMS per pair */
    cudaEvent_t copied, done;
} vif_slot;

typedef struct vif_cuda {
    fovea_context *ctx;                     /* outlives the VIF context */
    vif_params p;
    int batch;                              /* pairs per launch */
    cudaStream_t copy;                      /* H2D copies of host frames */
    uint16_t *d_log2;                       /* VIF_LOG2_TABLE_SIZE entries */
    uint16_t *d_img[2][FOVEA_VIF_SCALES];   /* [ref/dis][scale 1..3], batch frames each */
    size_t img_pitch[FOVEA_VIF_SCALES];     /* bytes */
    size_t img_bytes[FOVEA_VIF_SCALES];     /* one frame */
    size_t in_pitch, in_bytes;              /* staging of one scale-0 plane */
    unsigned long long *d_sums, *h_sums;    /* all slots */
    vif_slot slot[VIF_SLOTS];
    int head;                               /* oldest slot in use */
    int used;                               /* slots in use (the newest may be filling) */
    int taken;                              /* results of slot[head] already collected */
} vif_cuda;

static int cuda_batch(int width, int height)
{
    const double px = (double)(width > 1 ? width : 1) * (double)(height > 1 ? height : 1);
    const double b = (VIF_BATCH_PIXELS + px - 1.0) / px;
    return b >= VIF_CUDA_MAX_BATCH ? VIF_CUDA_MAX_BATCH : b < 1.0 ? 1 : (int)b;
}

static void cuda_close(void **priv)
{
    vif_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    /* nothing queued may still use the buffers; errors here have no one to go to */
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    if (st->copy) {
        cudaStreamSynchronize(st->copy);
        cudaStreamDestroy(st->copy);
    }
    for (int k = 0; k < VIF_SLOTS; k++) {
        vif_slot *sl = &st->slot[k];
        for (int i = 0; i < 2; i++) {
            fv_device_free(ctx, sl->d_in[i]);
            fv_pinned_free(ctx, sl->h_in[i]);
        }
        if (sl->copied)
            cudaEventDestroy(sl->copied);
        if (sl->done)
            cudaEventDestroy(sl->done);
    }
    for (int i = 0; i < 2; i++)
        for (int s = 1; s < FOVEA_VIF_SCALES; s++)
            fv_device_free(ctx, st->d_img[i][s]);
    fv_device_free(ctx, st->d_log2);
    fv_device_free(ctx, st->d_sums);
    fv_pinned_free(ctx, st->h_sums);
    free(st);
    *priv = NULL;
}

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

static int upload_log2(vif_cuda *st, fovea_context *ctx)
{
    uint16_t *table = malloc(VIF_LOG2_TABLE_SIZE * sizeof(uint16_t));
    if (!table)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    fv_vif_log2_table(table);
    int status = FOVEA_CUDA(ctx, cudaMemcpyAsync(st->d_log2, table,
                                                 VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                                 cudaMemcpyHostToDevice, fv_ctx_stream(ctx)));
    /* the copy reads table: wait before freeing it */
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    free(table);
    return status;
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    const vif_params *p = params;
    *priv = NULL;
    int status = fv_device_activate(ctx);
    if (status < 0)
        return status;
    vif_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    st->ctx = ctx;
    st->p = *p;
    st->batch = cuda_batch(p->width, p->height);
    const size_t w = (size_t)p->width, h = (size_t)p->height, b = (size_t)st->batch;
    /* sizes are bounded by FOVEA_MAX_DIM (checked by vif.c) and the batch by
     * VIF_CUDA_MAX_BATCH: no overflow */
    st->in_pitch = align256(w * (p->bpc > 8 ? 2 : 1));
    st->in_bytes = st->in_pitch * h;
    status = FOVEA_CUDA(ctx, fv_vif_cuda_prepare());
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamCreateWithFlags(&st->copy, cudaStreamNonBlocking));
    for (int s = 1; s < FOVEA_VIF_SCALES && status == FOVEA_OK; s++) {
        st->img_pitch[s] = align256((w >> s) * sizeof(uint16_t));
        st->img_bytes[s] = st->img_pitch[s] * (h >> s);
        for (int i = 0; i < 2 && status == FOVEA_OK; i++)
            status = fv_device_malloc(ctx, st->img_bytes[s] * b, (void **)&st->d_img[i][s]);
    }
    const size_t sums_bytes = VIF_SLOTS * b * VIF_CUDA_FRAME_SUMS * sizeof(unsigned long long);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, sums_bytes, (void **)&st->d_sums);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, sums_bytes, (void **)&st->h_sums);
    for (int k = 0; k < VIF_SLOTS && status == FOVEA_OK; k++) {
        vif_slot *sl = &st->slot[k];
        sl->d_sums = st->d_sums + (size_t)k * b * VIF_CUDA_FRAME_SUMS;
        sl->h_sums = st->h_sums + (size_t)k * b * VIF_CUDA_FRAME_SUMS;
        status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&sl->copied, cudaEventDisableTiming));
        if (status == FOVEA_OK)
            status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming));
    }
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                     (void **)&st->d_log2);
    if (status == FOVEA_OK)
        status = upload_log2(st, ctx);
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

/* Make plane `which` of pair z of slot sl readable by the kernels: device
 * planes as they are, host planes copied on the copy stream into the slot's
 * device staging (pageable ones through its pinned staging). */
static int stage_plane(vif_cuda *st, fovea_context *ctx, vif_slot *sl, int which, int z,
                       const vif_plane *pl)
{
    if (pl->mem == FOVEA_MEM_DEVICE) {
        sl->src[which][z] = pl->data;
        sl->stride[which][z] = pl->stride;
        return FOVEA_OK;
    }
    const size_t batch_bytes = st->in_bytes * (size_t)st->batch;
    if (!sl->d_in[which]) {
        int status = fv_device_malloc(ctx, batch_bytes, (void **)&sl->d_in[which]);
        if (status < 0)
            return status;
    }
    const size_t row = (size_t)st->p.width * (st->p.bpc > 8 ? 2 : 1);
    const size_t h = (size_t)st->p.height;
    const uint8_t *src = pl->data;
    size_t spitch = (size_t)pl->stride;
    if (pl->mem != FOVEA_MEM_PINNED) {
        if (!sl->h_in[which]) {
            int status = fv_pinned_malloc(ctx, batch_bytes, (void **)&sl->h_in[which]);
            if (status < 0)
                return status;
        }
        /* the slot's last batch was collected: its copies are done */
        uint8_t *dst = sl->h_in[which] + (size_t)z * st->in_bytes;
        for (size_t y = 0; y < h; y++)
            memcpy(dst + y * st->in_pitch, pl->data + (ptrdiff_t)y * pl->stride, row);
        src = dst;
        spitch = st->in_pitch;
    }
    uint8_t *dst = sl->d_in[which] + (size_t)z * st->in_bytes;
    FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(dst, st->in_pitch, src, spitch, row, h,
                                          cudaMemcpyHostToDevice, st->copy));
    sl->copies++;
    sl->src[which][z] = dst;
    sl->stride[which][z] = (ptrdiff_t)st->in_pitch;
    return FOVEA_OK;
}

/* Queue the kernels of a slot's batch, the read-back of its sums and its done
 * event on the context stream. */
static int launch_slot(vif_cuda *st, fovea_context *ctx, vif_slot *sl)
{
    cudaStream_t stream = fv_ctx_stream(ctx);
    if (sl->copies) {
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(sl->copied, st->copy));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(stream, sl->copied, 0));
    }
    const size_t sums_bytes = (size_t)sl->n * VIF_CUDA_FRAME_SUMS * sizeof(unsigned long long);
    FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(sl->d_sums, 0, sums_bytes, stream));
    vif_cuda_scale_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = sl->n;
    for (int z = 0; z < sl->n; z++) {
        a.ref[z] = sl->src[0][z];
        a.dis[z] = sl->src[1][z];
        a.rstride[z] = sl->stride[0][z];
        a.dstride[z] = sl->stride[1][z];
    }
    a.u8 = st->p.bpc == 8;
    a.w = st->p.width;
    a.h = st->p.height;
    a.shift = st->p.bpc;
    a.log2_table = st->d_log2;
    a.enhn_gain_limit = st->p.enhn_gain_limit;
    a.sums = sl->d_sums;
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        a.scale = s;
        if (s + 1 < FOVEA_VIF_SCALES) {
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
        if (s + 1 < FOVEA_VIF_SCALES) {
            for (int z = 0; z < sl->n; z++) {
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
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(sl->h_sums, sl->d_sums, sums_bytes,
                                        cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(sl->done, stream));
    sl->launched = 1;
    return FOVEA_OK;
}

static int cuda_submit(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis)
{
    vif_cuda *st = priv;
    int status = fv_device_activate(ctx);
    if (status < 0)
        return status;
    vif_slot *sl = NULL;
    int opened = 0;
    if (st->used > 0) {
        vif_slot *last = &st->slot[(st->head + st->used - 1) % VIF_SLOTS];
        if (!last->launched)
            sl = last;
    }
    if (!sl) {
        if (st->used == VIF_SLOTS)
            return VIF_QUEUE_FULL;
        sl = &st->slot[(st->head + st->used) % VIF_SLOTS];
        st->used++;
        sl->n = 0;
        sl->launched = 0;
        sl->copies = 0;
        opened = 1;
    }
    const int z = sl->n;
    status = stage_plane(st, ctx, sl, 0, z, ref);
    if (status == FOVEA_OK)
        status = stage_plane(st, ctx, sl, 1, z, dis);
    if (status < 0) {
        if (opened)
            st->used--; /* no empty batch is left behind */
        return status;
    }
    sl->n++;
    if (sl->n == st->batch)
        return launch_slot(st, ctx, sl);
    return FOVEA_OK;
}

void vif_cuda_raw(const unsigned long long *u, vif_raw *out)
{
    for (int s = 0; s < FOVEA_VIF_SCALES; s++, u += VIF_CUDA_NSUMS) {
        const int64_t num_log = (int64_t)u[0], den_log = (int64_t)u[1];
        const int64_t num_non_log = (int64_t)u[2], den_non_log = (int64_t)u[3];
        /* the same expressions as ref_process in vif_ref.c */
        out->num[s] = (float)((double)num_log / 2048.0 +
                              ((double)den_non_log - ((double)num_non_log / 16384.0) / 65025.0));
        out->den[s] = (float)((double)den_log / 2048.0 + (double)den_non_log);
    }
}

static int cuda_collect(void *priv, fovea_context *ctx, vif_raw *out)
{
    vif_cuda *st = priv;
    if (st->used == 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "vif: collect with nothing queued");
    int status = fv_device_activate(ctx);
    if (status < 0)
        return status;
    vif_slot *sl = &st->slot[st->head];
    if (!sl->launched) {
        status = launch_slot(st, ctx, sl);
        if (status < 0)
            return status;
    }
    if (st->taken == 0)
        FOVEA_CUDA_TRY(ctx, cudaEventSynchronize(sl->done));
    vif_cuda_raw(sl->h_sums + (size_t)st->taken * VIF_CUDA_FRAME_SUMS, out);
    if (++st->taken == sl->n) {
        st->head = (st->head + 1) % VIF_SLOTS;
        st->used--;
        st->taken = 0;
    }
    return FOVEA_OK;
}

const vif_backend vif_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE | BACKEND_ASYNC, cuda_init, cuda_close},
    NULL,
    cuda_submit,
    cuda_collect,
    cuda_batch,
};
