/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Queued CUDA work on batches of frame planes: slots of pinned and device
 * staging, the copy stream, the events and the batching (queue_cuda.h). */
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/queue_cuda.h"

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

int cuda_queue_init(cuda_queue *q, fovea_context *ctx, int nslots, int batch, int planes,
                    const size_t *row_bytes, const int *height, cuda_queue_launch_fn launch,
                    void *opaque)
{
    memset(q, 0, sizeof(*q));
    q->ctx = ctx;
    if (nslots < 1 || nslots > CUDA_QUEUE_MAX_SLOTS || batch < 1 || batch > CUDA_QUEUE_MAX_BATCH ||
        planes < 1 || planes > CUDA_QUEUE_MAX_PLANES || !launch)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "cuda queue: bad parameters");
    q->nslots = nslots;
    q->batch = batch;
    q->planes = planes;
    for (int p = 0; p < planes; p++) {
        if (height[p] < 1)
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "cuda queue: bad parameters");
        q->row_bytes[p] = row_bytes[p];
        q->height[p] = height[p];
        q->pitch[p] = align256(row_bytes[p]);
        /* the callers bound the sizes by FOVEA_MAX_DIM: no overflow */
        q->plane_bytes[p] = q->pitch[p] * (size_t)height[p];
    }
    q->launch = launch;
    q->opaque = opaque;
    FOVEA_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&q->copy, cudaStreamNonBlocking));
    for (int k = 0; k < nslots; k++) {
        cuda_queue_slot *sl = &q->slot[k];
        FOVEA_CUDA_TRY(ctx, cudaEventCreateWithFlags(&sl->copied, cudaEventDisableTiming));
        FOVEA_CUDA_TRY(ctx, cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming));
    }
    return FOVEA_OK;
}

void cuda_queue_close(cuda_queue *q)
{
    fovea_context *ctx = q->ctx;
    if (!ctx)
        return;
    /* nothing queued may still use the buffers; errors here have no one to go to */
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    if (q->copy) {
        cudaStreamSynchronize(q->copy);
        cudaStreamDestroy(q->copy);
    }
    for (int k = 0; k < CUDA_QUEUE_MAX_SLOTS; k++) {
        cuda_queue_slot *sl = &q->slot[k];
        for (int i = 0; i < CUDA_QUEUE_MAX_PLANES; i++) {
            fv_device_free(ctx, sl->d_in[i]);
            fv_pinned_free(ctx, sl->h_in[i]);
        }
        if (sl->copied)
            cudaEventDestroy(sl->copied);
        if (sl->done)
            cudaEventDestroy(sl->done);
    }
    memset(q, 0, sizeof(*q));
}

/* Make plane p of item z of slot sl readable by the kernels: device planes as
 * they are, host planes copied on the copy stream into the slot's device
 * staging (pageable ones through its pinned staging). */
static int stage_plane(cuda_queue *q, cuda_queue_slot *sl, int p, int z, const cuda_queue_plane *pl)
{
    fovea_context *ctx = q->ctx;
    if (pl->mem == FOVEA_MEM_DEVICE) {
        sl->src[p][z] = pl->data;
        sl->stride[p][z] = pl->stride;
        return FOVEA_OK;
    }
    const size_t batch_bytes = q->plane_bytes[p] * (size_t)q->batch;
    if (!sl->d_in[p])
        FOVEA_TRY(fv_device_malloc(ctx, batch_bytes, (void **)&sl->d_in[p]));
    const size_t h = (size_t)q->height[p];
    const size_t pitch = q->pitch[p];
    const uint8_t *src = pl->data;
    size_t spitch = (size_t)pl->stride;
    if (pl->mem != FOVEA_MEM_PINNED) {
        if (!sl->h_in[p])
            FOVEA_TRY(fv_pinned_malloc(ctx, batch_bytes, (void **)&sl->h_in[p]));
        /* the slot's last batch was taken: its copies are done */
        uint8_t *dst = sl->h_in[p] + (size_t)z * q->plane_bytes[p];
        for (size_t y = 0; y < h; y++)
            memcpy(dst + y * pitch, pl->data + (ptrdiff_t)y * pl->stride, q->row_bytes[p]);
        src = dst;
        spitch = pitch;
    }
    uint8_t *dst = sl->d_in[p] + (size_t)z * q->plane_bytes[p];
    FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(dst, pitch, src, spitch, q->row_bytes[p], h,
                                          cudaMemcpyHostToDevice, q->copy));
    sl->copies++;
    sl->src[p][z] = dst;
    sl->stride[p][z] = (ptrdiff_t)pitch;
    return FOVEA_OK;
}

/* The copies, the owner's work and the done event of slot k. */
static int launch_slot(cuda_queue *q, int k)
{
    fovea_context *ctx = q->ctx;
    cuda_queue_slot *sl = &q->slot[k];
    cudaStream_t stream = fv_ctx_stream(ctx);
    if (sl->copies) {
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(sl->copied, q->copy));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(stream, sl->copied, 0));
    }
    FOVEA_TRY(q->launch(q->opaque, q, k, stream));
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(sl->done, stream));
    sl->launched = 1;
    return FOVEA_OK;
}

int cuda_queue_add(cuda_queue *q, const cuda_queue_plane *planes, int tag, int *k, int *z)
{
    int ks = -1;
    int opened = 0;
    if (q->used > 0) {
        const int last = (q->head + q->used - 1) % q->nslots;
        if (!q->slot[last].launched)
            ks = last;
    }
    if (ks < 0) {
        if (q->used == q->nslots)
            return CUDA_QUEUE_FULL;
        ks = (q->head + q->used) % q->nslots;
        q->used++;
        cuda_queue_slot *sl = &q->slot[ks];
        sl->n = 0;
        sl->launched = 0;
        sl->copies = 0;
        opened = 1;
    }
    cuda_queue_slot *sl = &q->slot[ks];
    const int zi = sl->n;
    int status = FOVEA_OK;
    for (int p = 0; p < q->planes && status == FOVEA_OK; p++)
        status = stage_plane(q, sl, p, zi, &planes[p]);
    if (status < 0) {
        if (opened)
            q->used--; /* no empty batch is left behind */
        return status;
    }
    sl->tag[zi] = tag;
    sl->n++;
    if (k)
        *k = ks;
    if (z)
        *z = zi;
    if (sl->n == q->batch)
        return launch_slot(q, ks);
    return FOVEA_OK;
}

int cuda_queue_wait(cuda_queue *q, int *k, int *z)
{
    if (q->used == 0)
        return fv_ctx_error(q->ctx, FOVEA_ERR_INTERNAL, "cuda queue: nothing queued");
    cuda_queue_slot *sl = &q->slot[q->head];
    if (!sl->launched)
        FOVEA_TRY(launch_slot(q, q->head));
    if (q->taken == 0)
        FOVEA_CUDA_TRY(q->ctx, cudaEventSynchronize(sl->done));
    *k = q->head;
    *z = q->taken;
    return FOVEA_OK;
}

void cuda_queue_take(cuda_queue *q)
{
    if (q->used == 0)
        return;
    if (++q->taken == q->slot[q->head].n) {
        q->head = (q->head + 1) % q->nslots;
        q->used--;
        q->taken = 0;
    }
}

int cuda_queue_pending(const cuda_queue *q)
{
    int n = 0;
    for (int i = 0; i < q->used; i++)
        n += q->slot[(q->head + i) % q->nslots].n;
    return n - q->taken;
}
