/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "cambi" (host side): the per-pixel stages
 * and the top-k sums on the device (cambi.cu), the means on the host.
 *
 * libvmaf's per-scale value is a double sum of the top-k floats in the order
 * its quick select leaves them. The device finds the top k (radix select) and
 * sums them exactly (128-bit fixed point); when every partial sum of any
 * order is a double (cambi_topk_mean), that is libvmaf's sum. Otherwise raw()
 * reads that scale's map back and pools it with cambi_pool, the C reference's
 * own quick select and sum. So the maps of every picture stay on the device
 * until raw() has scored them: a device ring of CAMBI_CUDA_RING batches (the
 * batches the VMAF driver keeps in flight) that the kernels write in place;
 * each launch takes the next entry and tags its pairs' counters with their
 * ring position; raw() releases them. Only a map that needs the host's
 * pooling crosses the bus (on a stream of its own, waited for in raw(): the
 * batch's kernels are done by then). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/cambi.h"
#include "quality/cambi_cuda.h"
#include "quality/cambi_pixel.h"

/* batches in flight at most (vmaf_cuda.c's VMAF_SLOTS) */
#define CAMBI_CUDA_RING 4
/* 0: every scale pooled on the host from its map (no device top-k) */
#define CAMBI_CUDA_DEVICE_POOL 1
/* a pair's counters: its ring tag, then per picture and scale the top-k sum's */
#define CAMBI_CUDA_FRAME_SUMS (1 + 2 * CAMBI_SCALES * CAMBI_SUM_COUNT)

typedef struct cambi_cuda {
    fovea_context *ctx; /* outlives the state */
    cambi_plan pl;
    double topk;
    int full_ref, bpc, batch;
    size_t pic_floats[2]; /* the maps of all scales: the encode, the source */
    size_t pair_floats;
    int *d_pos[2][2]; /* [encode/source][x/y] */
    float *d_recip;
    uint16_t *d_img[2];
    uint8_t *d_mask[2];
    uint32_t *d_sel;                /* the radix select's state */
    long long pools, host_pools;    /* per-scale values, and those pooled from the map */
    float *d_ring;                  /* CAMBI_CUDA_RING x batch pairs' maps, on the device */
    float *h_map;                   /* one scale's map read back for the host's pooling */
    cudaStream_t copy;              /* the read-backs' stream */
    int err;                        /* a failed read-back, returned by the next launch */
    int ring_left[CAMBI_CUDA_RING]; /* pairs of each entry not yet pooled */
    int head;
    cambi_cuda_cv cv; /* the constant part of the contrast-value launches */
} cambi_cuda;

static void cuda_close(void **priv)
{
    cambi_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    if (st->pools)
        fv_log(ctx, FOVEA_LOG_DEBUG, "cambi: %lld of %lld top-k means pooled on the host",
               st->host_pools, st->pools);
    fv_device_free(ctx, st->d_sel);
    for (int i = 0; i < 2; i++) {
        fv_device_free(ctx, st->d_pos[i][0]);
        fv_device_free(ctx, st->d_pos[i][1]);
        fv_device_free(ctx, st->d_img[i]);
        fv_device_free(ctx, st->d_mask[i]);
    }
    fv_device_free(ctx, st->d_recip);
    fv_device_free(ctx, st->d_ring);
    free(st->h_map);
    if (st->copy)
        cudaStreamDestroy(st->copy);
    free(st);
    *priv = NULL;
}

/* Floats of the maps of every scale of a w x h picture. */
static size_t maps_floats(const cambi_plan *pl, int w, int h)
{
    size_t n = 0;
    for (int s = 0; s < CAMBI_SCALES; s++) {
        int sw, sh;
        cambi_scale_size(w, h, pl->speedup, s, &sw, &sh);
        n += (size_t)sw * (size_t)sh;
    }
    return n;
}

/* Copy n bytes of host data to a new device buffer (at init: waits). */
static int upload(fovea_context *ctx, const void *src, size_t n, void **dst)
{
    FOVEA_TRY(fv_device_malloc(ctx, n, dst));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(*dst, src, n, cudaMemcpyHostToDevice, fv_ctx_stream(ctx)));
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    return FOVEA_OK;
}

/* The scaling positions of picture i (0: the encode, 1: the source). */
static int upload_positions(cambi_cuda *st, fovea_context *ctx, int i, int iw, int ih, int ow,
                            int oh)
{
    int *pos = malloc((size_t)(ow > oh ? ow : oh) * sizeof(int));
    if (!pos)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cambi: out of memory");
    cambi_positions(iw, ow, pos);
    int rc = upload(ctx, pos, (size_t)ow * sizeof(int), (void **)&st->d_pos[i][0]);
    if (rc == FOVEA_OK) {
        cambi_positions(ih, oh, pos);
        rc = upload(ctx, pos, (size_t)oh * sizeof(int), (void **)&st->d_pos[i][1]);
    }
    free(pos);
    return rc;
}

static int alloc_buffers(cambi_cuda *st, fovea_context *ctx, int width, int height)
{
    const cambi_plan *pl = &st->pl;
    size_t px = (size_t)pl->enc_w * (size_t)pl->enc_h;
    const size_t src_px = (size_t)pl->src_w * (size_t)pl->src_h;
    if (st->full_ref && src_px > px)
        px = src_px;
    for (int i = 0; i < 2; i++) {
        FOVEA_TRY(fv_device_malloc(ctx, px * sizeof(uint16_t), (void **)&st->d_img[i]));
        FOVEA_TRY(fv_device_malloc(ctx, px, (void **)&st->d_mask[i]));
    }
    FOVEA_TRY(upload_positions(st, ctx, 0, width, height, pl->enc_w, pl->enc_h));
    if (st->full_ref)
        FOVEA_TRY(upload_positions(st, ctx, 1, width, height, pl->src_w, pl->src_h));
    FOVEA_TRY(upload(ctx, pl->recip, sizeof(pl->recip), (void **)&st->d_recip));
    FOVEA_TRY(fv_device_malloc(ctx, CAMBI_CUDA_SEL_WORDS * sizeof(uint32_t), (void **)&st->d_sel));
    /* sizes are bounded by FOVEA_MAX_DIM and the batch by FEATURE_MAX_BATCH:
     * no overflow */
    const size_t ring = (size_t)CAMBI_CUDA_RING * (size_t)st->batch * st->pair_floats;
    FOVEA_TRY(fv_device_malloc(ctx, ring * sizeof(float), (void **)&st->d_ring));
    /* the largest map is scale 0 of the larger picture */
    st->h_map = malloc(px * sizeof(float));
    if (!st->h_map)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cambi: out of memory");
    FOVEA_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&st->copy, cudaStreamNonBlocking));
    return FOVEA_OK;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    cambi_params p;
    cambi_params_from(s, &p);
    cambi_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cambi: out of memory");
    st->ctx = ctx;
    /* the C extractor's refusals, word for word */
    int rc = cambi_plan_make(&st->pl, ctx, &p);
    if (rc < 0) {
        free(st);
        return rc;
    }
    const cambi_plan *pl = &st->pl;
    st->topk = p.topk;
    st->full_ref = p.full_ref;
    st->bpc = s->bpc;
    st->batch = s->batch > 0 ? s->batch : 1;
    st->pic_floats[0] = maps_floats(pl, pl->enc_w, pl->enc_h);
    st->pic_floats[1] = st->full_ref ? maps_floats(pl, pl->src_w, pl->src_h) : 0;
    st->pair_floats = st->pic_floats[0] + st->pic_floats[1];
    rc = alloc_buffers(st, ctx, s->width, s->height);
    if (rc < 0) {
        cuda_close((void **)&st);
        return rc;
    }
    cambi_cuda_cv *cv = &st->cv;
    cv->num_diffs = pl->num_diffs;
    for (int d = 0; d < CAMBI_MAX_DIFFS; d++) {
        cv->weight[d] = cambi_contrast_weight[d];
        cv->tvi[d] = pl->tvi[d];
    }
    cv->vlt_luma = pl->vlt_luma;
    cv->band_base = pl->band_base;
    cv->band_size = pl->band_size;
    cv->recip = st->d_recip;
    *priv = st;
    return FOVEA_OK;
}

/* Queue the maps of one picture (i 0: the distorted picture at the encode's
 * size; 1: the reference at the source's) into the pair's ring entry maps,
 * and the top-k sums of its scales into the pair's counters. */
static int picture(cambi_cuda *st, fovea_context *ctx, const uint8_t *src, ptrdiff_t stride, int i,
                   float *pair_maps, unsigned long long *counters, cudaStream_t stream)
{
    const cambi_plan *pl = &st->pl;
    int w = i ? pl->src_w : pl->enc_w, h = i ? pl->src_h : pl->enc_h;
    cambi_cuda_pre pre = {src,         stride,          st->bpc,         w,
                          h,           st->d_pos[i][0], st->d_pos[i][1], pl->enc_bd < 10,
                          st->d_img[0]};
    FOVEA_CUDA_TRY(ctx, fv_cambi_cuda_preprocess(&pre, stream));
    FOVEA_CUDA_TRY(ctx, fv_cambi_cuda_mask(st->d_img[0], st->d_mask[0], w, h,
                                           cambi_mask_threshold(w, h), stream));
    int cur = 0, mcur = 0;
    float *maps = pair_maps + (i ? st->pic_floats[0] : 0);
    cambi_cuda_cv cv = st->cv;
    cv.window = i ? pl->src_window : pl->window;
    for (int s = 0; s < CAMBI_SCALES; s++) {
        if (s > 0 || pl->speedup) {
            FOVEA_CUDA_TRY(ctx,
                           fv_cambi_cuda_decimate16(st->d_img[cur], st->d_img[!cur], w, h, stream));
            FOVEA_CUDA_TRY(
                ctx, fv_cambi_cuda_decimate8(st->d_mask[mcur], st->d_mask[!mcur], w, h, stream));
            cur = !cur;
            mcur = !mcur;
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        FOVEA_CUDA_TRY(ctx, fv_cambi_cuda_mode(st->d_img[cur], st->d_img[!cur], w, h, stream));
        cur = !cur;
        cv.img = st->d_img[cur];
        cv.mask = st->d_mask[mcur];
        cv.c = maps;
        cv.w = w;
        cv.h = h;
        FOVEA_CUDA_TRY(ctx, fv_cambi_cuda_cvalues(&cv, stream));
        const int n = w * h;
        if (CAMBI_CUDA_DEVICE_POOL)
            FOVEA_CUDA_TRY(ctx, fv_cambi_cuda_topk(
                                    maps, n, cambi_topk_count(st->topk, n), st->d_sel,
                                    counters + 1 + (size_t)(i * CAMBI_SCALES + s) * CAMBI_SUM_COUNT,
                                    stream));
        maps += (size_t)n;
    }
    return FOVEA_OK;
}

static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    cambi_cuda *st = priv;
    cudaStream_t s = (cudaStream_t)stream;
    if (b->n < 1 || b->n > st->batch)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "cambi: a batch of %d pairs (at most %d)",
                            b->n, st->batch);
    if (st->err < 0) {
        const int err = st->err;
        st->err = FOVEA_OK;
        return err;
    }
    if (st->ring_left[st->head] != 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL,
                            "cambi: more than %d batches in flight (its read-back ring)",
                            CAMBI_CUDA_RING);
    const size_t first = (size_t)st->head * (size_t)st->batch;
    for (int z = 0; z < b->n; z++) {
        unsigned long long *counters = sums + (size_t)z * CAMBI_CUDA_FRAME_SUMS;
        float *maps = st->d_ring + (first + (size_t)z) * st->pair_floats;
        FOVEA_TRY(picture(st, ctx, b->dis[z], b->dis_stride[z], 0, maps, counters, s));
        if (st->full_ref)
            FOVEA_TRY(picture(st, ctx, b->ref[z], b->ref_stride[z], 1, maps, counters, s));
    }
    /* tag 0 is a zeroed counter: ring positions from 1 */
    FOVEA_CUDA_TRY(ctx, fv_cambi_cuda_tag(sums, CAMBI_CUDA_FRAME_SUMS, b->n,
                                          (unsigned long long)first + 1u, s));
    st->ring_left[st->head] = b->n;
    st->head = (st->head + 1) % CAMBI_CUDA_RING;
    return FOVEA_OK;
}

/* Read back the map of n floats at d_map (its batch is done: raw() runs
 * after the batch's counters were read) into h_map. */
static int read_map(cambi_cuda *st, const float *d_map, size_t n)
{
    if (st->err < 0)
        return st->err;
    const size_t bytes = n * sizeof(float);
    cudaError_t e = cudaMemcpyAsync(st->h_map, d_map, bytes, cudaMemcpyDeviceToHost, st->copy);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st->copy);
    if (e != cudaSuccess)
        st->err = fv_ctx_error(st->ctx, FOVEA_ERR_CUDA, "cambi: reading back a map: %s",
                               cudaGetErrorString(e));
    return st->err;
}

/* The score of one picture from its top-k counters, or where they do not
 * give libvmaf's mean, from its map read back (reordered by pooling). A
 * failed read-back gives NaN, and its error comes from the next launch. */
static double score_maps(cambi_cuda *st, const unsigned long long *counters, const float *maps,
                         int w, int h, int window)
{
    double per_scale[CAMBI_SCALES];
    for (int s = 0; s < CAMBI_SCALES; s++) {
        int sw, sh;
        cambi_scale_size(w, h, st->pl.speedup, s, &sw, &sh);
        uint64_t c[CAMBI_SUM_COUNT];
        for (int j = 0; j < CAMBI_SUM_COUNT; j++)
            c[j] = counters[(size_t)s * CAMBI_SUM_COUNT + (size_t)j];
        st->pools++;
        if (!CAMBI_CUDA_DEVICE_POOL ||
            !cambi_topk_mean(c, cambi_topk_count(st->topk, sw * sh), &per_scale[s])) {
            const size_t n = (size_t)sw * (size_t)sh;
            per_scale[s] =
                read_map(st, maps, n) < 0 ? NAN : cambi_pool(st->h_map, st->topk, sw, sh);
            st->host_pools++;
        }
        maps += (size_t)sw * (size_t)sh;
    }
    return cambi_combine(per_scale, window);
}

static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    (void)first;
    cambi_cuda *st = priv;
    memset(raw, 0, sizeof(*raw));
    const size_t ring = (size_t)CAMBI_CUDA_RING * (size_t)st->batch;
    if (sums[0] < 1 || sums[0] > ring)
        return; /* no tag: cannot happen after a successful launch */
    const size_t at = (size_t)sums[0] - 1;
    const float *maps = st->d_ring + at * st->pair_floats;
    const cambi_plan *pl = &st->pl;
    cambi_raw r = {0.0, 0.0};
    r.dis = score_maps(st, sums + 1, maps, pl->enc_w, pl->enc_h, pl->window);
    if (st->full_ref)
        r.src = score_maps(st, sums + 1 + CAMBI_SCALES * CAMBI_SUM_COUNT, maps + st->pic_floats[0],
                           pl->src_w, pl->src_h, pl->src_window);
    memcpy(raw->b, &r, sizeof(r));
    st->ring_left[at / (size_t)st->batch]--;
}

const feature_extractor feature_cambi_cuda = {
    &feature_cambi,        FOVEA_BACKEND_CUDA, cuda_init,   cuda_close, NULL,
    CAMBI_CUDA_FRAME_SUMS, FEATURE_MAX_BATCH,  cuda_launch, cuda_raw,
};
