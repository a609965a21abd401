/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "speed_chroma" (host side): one launch a
 * batch (speed.cu) takes each chroma image to its eigenvalues, singular flag
 * and per-block variances, which are read back; the logarithms and the score
 * are the C unit's own functions (speed_entropies, speed_score,
 * speed_chroma_raw), so the doubles are the C extractor's.
 *
 * The per-block results do not fit the driver's fixed counters (their number
 * depends on the size): the instance reads them back itself, on the same
 * stream before the driver's counters, into a pinned entry of a small ring;
 * pair z's counter holds entry * SPEED_CUDA_MAX_BATCH + z, and an entry is
 * reused once every pair of its batch was taken (raw). The driver waits for
 * its counters before raw, hence for the entry's copy too. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "core/queue_cuda.h"
#include "quality/speed.h"
#include "quality/speed_cuda.h"

/* batches in flight at most: the queue's slots */
#define SC_RING CUDA_QUEUE_MAX_SLOTS

typedef struct sc_entry {
    float *h;    /* pinned: batch x pair_floats */
    int pending; /* pairs of its batch not taken yet */
} sc_entry;

typedef struct sc_cuda {
    fovea_context *ctx; /* outlives the state */
    speed_params p;
    speed_dims d;
    double max_val;
    int bpc, batch, method, width_aa, width_4;
    float *d_filt; /* antialias, then operating scale (SPEED_MAX_TAPS each) */
    int *d_col_idx, *d_row_idx;
    float *d_col_w, *d_row_w;
    float *d_op, *d_x, *d_qr, *d_out;
    size_t out_image, pair_floats; /* floats of an image's and a pair's results */
    sc_entry ring[SC_RING];
    int next; /* the ring entry to try first */
    float *ent[2];
} sc_cuda;

static void cuda_close(void **priv)
{
    sc_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    fv_device_free(ctx, st->d_filt);
    fv_device_free(ctx, st->d_col_idx);
    fv_device_free(ctx, st->d_row_idx);
    fv_device_free(ctx, st->d_col_w);
    fv_device_free(ctx, st->d_row_w);
    fv_device_free(ctx, st->d_op);
    fv_device_free(ctx, st->d_x);
    fv_device_free(ctx, st->d_qr);
    fv_device_free(ctx, st->d_out);
    for (int e = 0; e < SC_RING; e++)
        fv_pinned_free(ctx, st->ring[e].h);
    free(st->ent[0]);
    free(st->ent[1]);
    free(st);
    *priv = NULL;
}

/* Copy n bytes of host to the device buffer dst (allocated here) and wait. */
static int upload(fovea_context *ctx, const void *host, size_t n, void **dst)
{
    FOVEA_TRY(fv_device_malloc(ctx, n, dst));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(*dst, host, n, cudaMemcpyHostToDevice, fv_ctx_stream(ctx)));
    return FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
}

/* The filters and the prescale's tables on the device. */
static int upload_tables(sc_cuda *st, fovea_context *ctx)
{
    float filt[2 * SPEED_MAX_TAPS];
    memset(filt, 0, sizeof(filt));
    speed_filters(&st->p, filt, &st->width_aa, filt + SPEED_MAX_TAPS, &st->width_4);
    FOVEA_TRY(upload(ctx, filt, sizeof(filt), (void **)&st->d_filt));
    if (st->method < 0)
        return FOVEA_OK;
    const speed_dims *d = &st->d;
    const size_t cols = (size_t)d->scaled_width * SPEED_AXIS_TAPS;
    const size_t rows = (size_t)d->scaled_height * SPEED_AXIS_TAPS;
    int *idx = malloc((cols > rows ? cols : rows) * sizeof(int));
    float *w = malloc((cols > rows ? cols : rows) * sizeof(float));
    int status =
        idx && w ? FOVEA_OK : fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "speed_chroma: out of memory");
    if (status == FOVEA_OK) {
        speed_prescale_axis(st->p.method, d->width, d->scaled_width, idx, w);
        status = upload(ctx, idx, cols * sizeof(int), (void **)&st->d_col_idx);
    }
    if (status == FOVEA_OK)
        status = upload(ctx, w, cols * sizeof(float), (void **)&st->d_col_w);
    if (status == FOVEA_OK) {
        speed_prescale_axis(st->p.method, d->height, d->scaled_height, idx, w);
        status = upload(ctx, idx, rows * sizeof(int), (void **)&st->d_row_idx);
    }
    if (status == FOVEA_OK)
        status = upload(ctx, w, rows * sizeof(float), (void **)&st->d_row_w);
    free(idx);
    free(w);
    return status;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *fs)
{
    *priv = NULL;
    speed_params p;
    double max_val = 0;
    memset(&p, 0, sizeof(p));
    /* the C extractor's refusals, word for word */
    FOVEA_TRY(speed_chroma_setup(ctx, fs, &p, &max_val));
    sc_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "speed_chroma: out of memory");
    st->ctx = ctx;
    st->p = p;
    st->max_val = max_val;
    st->bpc = fs->bpc;
    st->batch = fs->batch;
    speed_dims_init(&st->d, fs->chroma_width, fs->chroma_height, &p); /* checked by setup */
    st->method = speed_prescaled(&st->d, &p) ? (int)p.method : -1;
    /* chroma planes and the prescale are bounded (FOVEA_MAX_DIM, 4x), the
     * batch by SPEED_CUDA_MAX_BATCH: no overflow */
    const speed_dims *d = &st->d;
    const size_t images = (size_t)st->batch * SPEED_CUDA_IMAGES;
    const size_t op = (size_t)d->op_width * (size_t)d->op_height;
    st->out_image = SPEED_CUDA_HEAD + (size_t)d->blocks;
    st->pair_floats = SPEED_CUDA_IMAGES * st->out_image;
    int status = FOVEA_OK;
    st->ent[0] = malloc((size_t)d->blocks * sizeof(float));
    st->ent[1] = malloc((size_t)d->blocks * sizeof(float));
    if (!st->ent[0] || !st->ent[1])
        status = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "speed_chroma: out of memory");
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, images * op * sizeof(float), (void **)&st->d_op);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, images * op * sizeof(float), (void **)&st->d_x);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, images * 2 * SPEED_ELEMS * SPEED_ELEMS * sizeof(float),
                                  (void **)&st->d_qr);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, images * st->out_image * sizeof(float), (void **)&st->d_out);
    if (status == FOVEA_OK)
        status = upload_tables(st, ctx);
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

/* A ring entry no pair of which is waiting (allocated when first used). */
static int take_entry(sc_cuda *st, fovea_context *ctx, int *entry)
{
    for (int i = 0; i < SC_RING; i++) {
        const int e = (st->next + i) % SC_RING;
        if (st->ring[e].pending > 0)
            continue;
        if (!st->ring[e].h)
            FOVEA_TRY(fv_pinned_malloc(ctx, (size_t)st->batch * st->pair_floats * sizeof(float),
                                       (void **)&st->ring[e].h));
        *entry = e;
        return FOVEA_OK;
    }
    return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL,
                        "speed_chroma: more batches in flight than the queue has slots");
}

static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    sc_cuda *st = priv;
    const speed_dims *d = &st->d;
    if (b->n < 1 || b->n > st->batch)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "speed_chroma: batch of %d pairs", b->n);
    int e = 0;
    FOVEA_TRY(take_entry(st, ctx, &e));
    speed_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = b->n;
    a.bpc = st->bpc;
    a.width = d->width;
    a.height = d->height;
    a.scaled_width = d->scaled_width;
    a.scaled_height = d->scaled_height;
    a.op_width = d->op_width;
    a.op_height = d->op_height;
    a.blocks_h = d->blocks_h;
    a.blocks_v = d->blocks_v;
    a.sub_width = d->sub_width;
    a.sub_height = d->sub_height;
    a.method = st->method;
    a.col_idx = st->d_col_idx;
    a.row_idx = st->d_row_idx;
    a.col_w = st->d_col_w;
    a.row_w = st->d_row_w;
    a.filt_aa = st->d_filt;
    a.filt_4 = st->d_filt + SPEED_MAX_TAPS;
    a.width_aa = st->width_aa;
    a.width_4 = st->width_4;
    for (int z = 0; z < b->n; z++) {
        for (int c = 0; c < 2; c++) {
            a.src[2 * c][z] = b->ref_c[c][z];
            a.stride[2 * c][z] = b->ref_c_stride[c][z];
            a.src[2 * c + 1][z] = b->dis_c[c][z];
            a.stride[2 * c + 1][z] = b->dis_c_stride[c][z];
        }
    }
    a.op = st->d_op;
    a.x = st->d_x;
    a.qr = st->d_qr;
    a.out = st->d_out;
    a.out_image = st->out_image;
    a.sums = sums;
    a.tag = (unsigned long long)e * SPEED_CUDA_MAX_BATCH;
    FOVEA_CUDA_TRY(ctx, fv_speed_cuda_launch(&a, stream));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(st->ring[e].h, st->d_out,
                                        (size_t)b->n * st->pair_floats * sizeof(float),
                                        cudaMemcpyDeviceToHost, (cudaStream_t)stream));
    st->ring[e].pending = b->n;
    st->next = (e + 1) % SC_RING;
    return FOVEA_OK;
}

static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    (void)first;
    sc_cuda *st = priv;
    const unsigned long long tag = sums[0];
    const int e = (int)(tag / SPEED_CUDA_MAX_BATCH), z = (int)(tag % SPEED_CUDA_MAX_BATCH);
    memset(raw, 0, sizeof(*raw));
    if (e >= SC_RING || !st->ring[e].h || z >= st->batch || st->ring[e].pending <= 0)
        return; /* not one of this instance's batches: cannot happen */
    const float *pair = st->ring[e].h + (size_t)z * st->pair_floats;
    const int blocks = st->d.blocks;
    float score[2];
    int err[2];
    /* speed_plane_score's last steps on each plane: U (images 0, 1), V (2, 3) */
    for (int c = 0; c < 2; c++) {
        const float *ir = pair + (size_t)(2 * c) * st->out_image;
        const float *id = pair + (size_t)(2 * c + 1) * st->out_image;
        speed_entropies(&st->p, ir + 1, ir + SPEED_CUDA_HEAD, blocks, st->ent[0]);
        speed_entropies(&st->p, id + 1, id + SPEED_CUDA_HEAD, blocks, st->ent[1]);
        err[c] = speed_score(&st->p, blocks, st->ent[0], ir + SPEED_CUDA_HEAD, ir[0] != 0.0f,
                             st->ent[1], id + SPEED_CUDA_HEAD, id[0] != 0.0f, &score[c]);
    }
    speed_chroma_raw(score[0], err[0], score[1], err[1], st->max_val, raw);
    st->ring[e].pending--;
}

const feature_extractor feature_speed_chroma_cuda = {
    &feature_speed_chroma, FOVEA_BACKEND_CUDA, cuda_init, cuda_close, NULL, 1,
    SPEED_CUDA_MAX_BATCH,  cuda_launch,        cuda_raw,
};
