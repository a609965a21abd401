/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA driver of the quality compositor (host side): the raw values of
 * every feature instance of a batch of frame pairs from the features' CUDA
 * extractors (feature.h), all reading the same device copy of each pair.
 *
 * Pairs are queued into batches through the core CUDA queue (queue_cuda.h):
 * a full batch (or the oldest one, when its results are asked for) is
 * launched on the context stream: every instance's kernels, then the
 * read-back of the batch's sums. Host frames are copied on the queue's copy
 * stream, so the copies of the next batch overlap the kernels of this one;
 * device frames are read in place. VMAF_SLOTS batches can be in flight, each
 * with its own staging, sums and events; the extractors' scratch is shared by
 * the batches (they run in stream order).
 *
 * Previous references (params.history): within a batch the previous pairs'
 * planes, for the first pairs of a batch the copies of the last references
 * of the batch before, which each batch leaves in d_prev and d_prev2
 * (device-to-device copies queued after its kernels).
 *
 * Chroma (params.chroma not 400): the queue carries six planes per pair,
 * Y U V of the reference then of the distorted picture. */
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/queue_cuda.h"
#include "quality/vmaf_internal.h"

#define VMAF_SLOTS 4
/* Pixels per batch the batch size aims for (enough blocks for every SM at the
 * small scales); at most every extractor's limit. */
#define VMAF_BATCH_PIXELS 8000000.0
#define VMAF_CUDA_MAX_BATCH 32
#if VMAF_CUDA_MAX_BATCH > CUDA_QUEUE_MAX_BATCH || VMAF_CUDA_MAX_BATCH > FEATURE_MAX_BATCH
#error "a VMAF batch must fit the queue and the extractors"
#endif

typedef struct vmaf_cuda {
    fovea_context *ctx; /* outlives the driver state */
    vmaf_params p;
    const feature_extractor *fx[VMAF_MAX_EXTRACTORS];
    void *priv[VMAF_MAX_EXTRACTORS];
    int batch;        /* pairs per launch */
    size_t row_bytes; /* width * bytes per sample */
    int planes;       /* per picture in the queue: 1 (luma) or 3 */
    cuda_queue q;

    /* the sums of a batch: per instance a region of batch x frame_sums
     * counters, at sums_off[e]; a pair's queue tag is its new_stream flag */
    size_t sums_off[VMAF_MAX_EXTRACTORS], slot_sums;
    unsigned long long *d_sums, *h_sums; /* VMAF_SLOTS x slot_sums */

    uint8_t *d_prev;  /* the last reference of the previous batch */
    uint8_t *d_prev2; /* the one before it (history 2) */
    size_t prev_pitch;
    int prev_new; /* d_prev's pair was the first of its stream */
} vmaf_cuda;

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

static int cuda_batch(const fovea_context *ctx, int width, int height)
{
    (void)ctx;
    const double px = (double)(width > 1 ? width : 1) * (double)(height > 1 ? height : 1);
    const double b = (VMAF_BATCH_PIXELS + px - 1.0) / px;
    return b >= VMAF_CUDA_MAX_BATCH ? VMAF_CUDA_MAX_BATCH : b < 1.0 ? 1 : (int)b;
}

static void cuda_close(void **priv)
{
    vmaf_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    /* waits for everything queued before the buffers go */
    cuda_queue_close(&st->q);
    for (int e = 0; e < st->p.n_ex; e++)
        if (st->fx[e])
            st->fx[e]->close(&st->priv[e]);
    fv_device_free(ctx, st->d_prev);
    fv_device_free(ctx, st->d_prev2);
    fv_device_free(ctx, st->d_sums);
    fv_pinned_free(ctx, st->h_sums);
    free(st);
    *priv = NULL;
}

/* Queue the kernels of slot k's batch and the read-back of its sums (the
 * queue's launch callback). */
static int launch_slot(void *opaque, cuda_queue *q, int k, cudaStream_t stream)
{
    vmaf_cuda *st = opaque;
    fovea_context *ctx = st->ctx;
    const cuda_queue_slot *sl = &q->slot[k];
    unsigned long long *d_sums = st->d_sums + (size_t)k * st->slot_sums;
    const size_t sums_bytes = st->slot_sums * sizeof(unsigned long long);
    feature_batch b;
    memset(&b, 0, sizeof(b));
    b.n = sl->n;
    const int dp = st->planes; /* the distorted picture's first plane */
    for (int z = 0; z < sl->n; z++) {
        b.ref[z] = sl->src[0][z];
        b.dis[z] = sl->src[dp][z];
        b.ref_stride[z] = sl->stride[0][z];
        b.dis_stride[z] = sl->stride[dp][z];
        for (int c = 0; dp == 3 && c < 2; c++) {
            b.ref_c[c][z] = sl->src[1 + c][z];
            b.dis_c[c][z] = sl->src[4 + c][z];
            b.ref_c_stride[c][z] = sl->stride[1 + c][z];
            b.dis_c_stride[c][z] = sl->stride[4 + c][z];
        }
        if (sl->tag[z])
            continue; /* the first pair of a stream: no previous reference */
        b.prev[z] = z > 0 ? sl->src[0][z - 1] : st->d_prev;
        b.prev_stride[z] = z > 0 ? sl->stride[0][z - 1] : (ptrdiff_t)st->prev_pitch;
        const int prev_new = z > 0 ? sl->tag[z - 1] : st->prev_new;
        if (!st->d_prev2 || prev_new)
            continue;
        b.prev2[z] = z > 1 ? sl->src[0][z - 2] : z == 1 ? st->d_prev : st->d_prev2;
        b.prev2_stride[z] = z > 1 ? sl->stride[0][z - 2] : (ptrdiff_t)st->prev_pitch;
    }
    /* extractors add into their counters (or write them) */
    FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(d_sums, 0, sums_bytes, stream));
    for (int e = 0; e < st->p.n_ex; e++)
        FOVEA_TRY(st->fx[e]->launch(st->priv[e], ctx, &b, d_sums + st->sums_off[e], stream));
    /* the last references are the next batch's previous ones (in stream
     * order after the kernels that read d_prev and d_prev2) */
    const int last = sl->n - 1;
    const size_t h = (size_t)st->p.height;
    if (st->d_prev2) {
        const uint8_t *src2 = last > 0 ? sl->src[0][last - 1] : st->d_prev;
        const size_t pitch2 = last > 0 ? (size_t)sl->stride[0][last - 1] : st->prev_pitch;
        FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(st->d_prev2, st->prev_pitch, src2, pitch2,
                                              st->row_bytes, h, cudaMemcpyDeviceToDevice, stream));
    }
    if (st->d_prev)
        FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(st->d_prev, st->prev_pitch, sl->src[0][last],
                                              (size_t)sl->stride[0][last], st->row_bytes, h,
                                              cudaMemcpyDeviceToDevice, stream));
    st->prev_new = sl->tag[last];
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(st->h_sums + (size_t)k * st->slot_sums, d_sums, sums_bytes,
                                        cudaMemcpyDeviceToHost, stream));
    return FOVEA_OK;
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    const vmaf_params *p = params;
    *priv = NULL;
    int status = fv_device_activate(ctx);
    if (status < 0)
        return status;
    vmaf_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    st->p = *p;
    st->batch = cuda_batch(ctx, p->width, p->height);
    for (int e = 0; e < p->n_ex; e++) {
        st->fx[e] = vmaf_extractor(ctx, &p->ex[e], FOVEA_BACKEND_CUDA);
        if (!st->fx[e]) {
            free(st);
            return FOVEA_ERR_UNSUPPORTED;
        }
        if (st->fx[e]->max_batch < st->batch)
            st->batch = st->fx[e]->max_batch;
    }
    /* sizes are bounded by FOVEA_MAX_DIM (checked by vmaf.c) and the batch by
     * VMAF_CUDA_MAX_BATCH: no overflow */
    const size_t b = (size_t)st->batch;
    const size_t bytes = p->bpc > 8 ? 2 : 1;
    st->row_bytes = (size_t)p->width * bytes;
    st->planes = p->chroma != 400 ? 3 : 1;
    size_t off = 0;
    for (int e = 0; e < p->n_ex; e++) {
        st->sums_off[e] = off;
        off += b * st->fx[e]->frame_sums;
    }
    st->slot_sums = off ? off : 1;

    for (int e = 0; e < p->n_ex && status == FOVEA_OK; e++) {
        feature_setup fs;
        memset(&fs, 0, sizeof(fs));
        fs.width = p->width;
        fs.height = p->height;
        fs.bpc = p->bpc;
        if (p->ex[e].def->flags & FEATURE_CHROMA) {
            fs.chroma = p->chroma;
            fs.chroma_width = p->chroma_width;
            fs.chroma_height = p->chroma_height;
        } else {
            fs.chroma = 400;
        }
        fs.opts = p->ex[e].opts;
        fs.batch = st->batch;
        status = st->fx[e]->init(&st->priv[e], ctx, &fs);
    }
    /* the queue's planes: Y (U V) of the reference, then of the distorted */
    size_t rows[6];
    int heights[6];
    for (int k = 0; k < 2 * st->planes; k++) {
        const int luma = k % st->planes == 0;
        rows[k] = luma ? st->row_bytes : (size_t)p->chroma_width * bytes;
        heights[k] = luma ? p->height : p->chroma_height;
    }
    if (status == FOVEA_OK)
        status = cuda_queue_init(&st->q, ctx, VMAF_SLOTS, st->batch, 2 * st->planes, rows, heights,
                                 launch_slot, st);
    st->prev_pitch = align256(st->row_bytes);
    const size_t prev_bytes = st->prev_pitch * (size_t)p->height;
    if (p->history > 0 && status == FOVEA_OK)
        status = fv_device_malloc(ctx, prev_bytes, (void **)&st->d_prev);
    if (p->history > 1 && status == FOVEA_OK)
        status = fv_device_malloc(ctx, prev_bytes, (void **)&st->d_prev2);
    const size_t sums_bytes = VMAF_SLOTS * st->slot_sums * sizeof(unsigned long long);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, sums_bytes, (void **)&st->d_sums);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, sums_bytes, (void **)&st->h_sums);
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

static int cuda_submit(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                       int new_stream)
{
    vmaf_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    cuda_queue_plane planes[6];
    for (int i = 0; i < st->planes; i++) {
        planes[i] = (cuda_queue_plane){ref->data[i], ref->stride[i], ref->mem};
        planes[st->planes + i] = (cuda_queue_plane){dis->data[i], dis->stride[i], dis->mem};
    }
    const int rc = cuda_queue_add(&st->q, planes, new_stream, NULL, NULL);
    if (rc == CUDA_QUEUE_FULL)
        return VMAF_QUEUE_FULL;
    return rc;
}

static int cuda_collect(void *priv, fovea_context *ctx, vmaf_raw *out)
{
    vmaf_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    int k, z;
    FOVEA_TRY(cuda_queue_wait(&st->q, &k, &z));
    memset(out, 0, sizeof(*out));
    const unsigned long long *sums = st->h_sums + (size_t)k * st->slot_sums;
    for (int e = 0; e < st->p.n_ex; e++)
        st->fx[e]->raw(st->priv[e], sums + st->sums_off[e] + (size_t)z * st->fx[e]->frame_sums,
                       st->q.slot[k].tag[z], &out->ex[e]);
    cuda_queue_take(&st->q);
    return FOVEA_OK;
}

const vmaf_backend vmaf_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE | BACKEND_ASYNC, cuda_init, cuda_close},
    cuda_submit,
    cuda_collect,
    cuda_batch,
    NULL, /* one pair: submit and collect (pageable frames go through the staging) */
};
