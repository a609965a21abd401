/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA backend of the differencing system (host side): device views of the
 * pair (device frames as they are; host frames through per-context device
 * copies, pageable ones through pinned staging), the filtered pair and the
 * temporal state on the device, map outputs written on the device and read
 * back through pinned staging for host frames, and the change mask whose
 * counters and list come back in one small copy. Work is queued on the
 * context's stream; a call waits only when a host result is wanted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "core/stage.h"
#include "diff/diff_cuda.h"
#include "diff/diff_cuda_internal.h"
#include "diff/diff_filter_cuda.h"
#include "diff/diff_map_cuda.h"
#include "diff/diff_mask_cuda.h"
#include "diff/diff_internal.h"

_Static_assert(DIFF_HEAT_ENTRIES == 1024, "diff_map.cu indexes the table with 1023");
_Static_assert(FOVEA_DIFF_DENOISE_MEDIAN3 == 1 && FOVEA_DIFF_DENOISE_TEMPORAL == 3,
               "diff_filter.cu's filter modes");
_Static_assert(FOVEA_DIFF_TILE_MIN == 8 && FOVEA_DIFF_TILE_MAX == 64 &&
                   DIFF_CUDA_MASK_SPAN % FOVEA_DIFF_TILE_MAX == 0,
               "a mask block owns whole tiles");

/* list entries read back with the mask's counters; more take a second copy */
#define MASK_LIST_INLINE 1024


static void cuda_close(void **priv)
{
    diff_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    /* nothing queued may still use the buffers; errors here have no one to go to */
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    for (int i = 0; i < 2; i++) {
        fv_stage_close(ctx, &st->in[i]);
        fovea_frame_free(ctx, &st->d_filt[i]);
        fovea_frame_free(ctx, &st->d_state[i]);
        fv_device_free(ctx, st->d_res[i]);
    }
    for (int i = 0; i < OUT_SLOTS; i++)
        fv_stage_close(ctx, &st->out[i]);
    cudaEvent_t *evs[] = {&st->ev_start, &st->ev_down};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (*evs[i])
            cudaEventDestroy(*evs[i]);
    for (int i = 0; i < BANDS_MAX; i++) {
        if (st->ev_up[i])
            cudaEventDestroy(st->ev_up[i]);
        if (st->ev_done[i])
            cudaEventDestroy(st->ev_done[i]);
    }
    if (st->s_up)
        cudaStreamDestroy(st->s_up);
    if (st->s_down)
        cudaStreamDestroy(st->s_down);
    fv_device_free(ctx, st->d_heat);
    fv_device_free(ctx, st->d_vlut);
    fv_pinned_free(ctx, st->h_res);
    fv_device_free(ctx, st->d_flags);
    free(st->h_flags);
    fv_device_free(ctx, st->d_look);
    fv_device_free(ctx, st->d_ticket);
    fv_device_free(ctx, st->d_hist);
    fv_pinned_free(ctx, st->h_hist);
    free(st);
    *priv = NULL;
}

/* The heat-map colors, made on the host (diff_heat_table) and copied to this
 * context's device buffer. */
static int upload_heat(diff_cuda *st, fovea_context *ctx)
{
    uint8_t table[DIFF_HEAT_ENTRIES][3];
    diff_heat_table(table);
    uint32_t words[DIFF_HEAT_ENTRIES];
    for (int i = 0; i < DIFF_HEAT_ENTRIES; i++)
        words[i] = (uint32_t)table[i][0] | (uint32_t)table[i][1] << 8 | (uint32_t)table[i][2] << 16;
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(st->d_heat, words, sizeof(words), cudaMemcpyHostToDevice,
                                        fv_ctx_stream(ctx)));
    /* the copy reads words: wait before it goes out of scope */
    return FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    const diff_params *p = params;
    *priv = NULL;
    FOVEA_TRY(fv_device_activate(ctx));
    diff_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: out of memory");
    st->ctx = ctx;
    st->set = p->settings;
    int status = fv_device_malloc(ctx, DIFF_HEAT_ENTRIES * sizeof(uint32_t), (void **)&st->d_heat);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, (DIFF_CUDA_VLUT_MAX + 1) * sizeof(uint32_t),
                                  (void **)&st->d_vlut);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, sizeof(unsigned int), (void **)&st->d_ticket);
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(
            ctx, cudaMemsetAsync(st->d_ticket, 0, sizeof(unsigned int), fv_ctx_stream(ctx)));
    const unsigned ev_flags = cudaEventDisableTiming;
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamCreateWithFlags(&st->s_up, cudaStreamNonBlocking));
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamCreateWithFlags(&st->s_down, cudaStreamNonBlocking));
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&st->ev_start, ev_flags));
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&st->ev_down, ev_flags));
    for (int i = 0; i < BANDS_MAX && status == FOVEA_OK; i++) {
        status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&st->ev_up[i], ev_flags));
        if (status == FOVEA_OK)
            status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&st->ev_done[i], ev_flags));
    }
    int sms = 0;
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                        fovea_context_device(ctx)));
    st->grid_cap = 4 * sms;
    if (status == FOVEA_OK)
        status = upload_heat(st, ctx);
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

static int same_shape(const fovea_frame *a, const fovea_frame *b, fovea_memtype mem)
{
    return a->data[0] && a->mem == mem && a->width == b->width && a->height == b->height &&
           a->fmt == b->fmt;
}

static int aligned(const void *p, ptrdiff_t stride, unsigned n)
{
    return ((uintptr_t)p % n) == 0 && ((uintptr_t)stride % n) == 0;
}

/* The kernels' view of a pair of device frames. */
void dc_pair_of(const fovea_frame *a, const fovea_frame *b, diff_cuda_pair *p)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(a->fmt);
    memset(p, 0, sizeof(*p));
    p->wide = d->bytes_per_sample == 2;
    if (d->is_rgb) {
        p->layout = DIFF_CUDA_PACKED;
        p->comps = d->components;
    } else if (d->planes == 1) {
        p->layout = DIFF_CUDA_GRAY;
    } else {
        p->layout = d->planes == 2 ? DIFF_CUDA_NV12 : DIFF_CUDA_PLANAR;
        p->sw = d->log2_chroma_w;
        p->sh = d->log2_chroma_h;
    }
    p->w = a->width;
    p->h = a->height;
    for (int i = 0; i < d->planes; i++) {
        p->a[i] = a->data[i];
        p->as[i] = a->stride[i];
        p->b[i] = b->data[i];
        p->bs[i] = b->stride[i];
    }
}

/* The word readers need 8-bit RGB24 / RGBA rows aligned in both frames. */
int dc_reader_of(const fovea_frame *a, const fovea_frame *b)
{
    if (a->fmt == FOVEA_PIX_RGB24 && aligned(a->data[0], a->stride[0], 4) &&
        aligned(b->data[0], b->stride[0], 4))
        return DIFF_CUDA_READ_RGB24;
    if (a->fmt == FOVEA_PIX_RGBA && aligned(a->data[0], a->stride[0], 16) &&
        aligned(b->data[0], b->stride[0], 16))
        return DIFF_CUDA_READ_RGBA;
    return DIFF_CUDA_READ_ANY;
}

/* Filter every plane of in into out (device frames of one shape): MEDIAN3,
 * GAUSS5, or one TEMPORAL step of state towards in. */
static int filter_frame(diff_cuda *st, int mode, const fovea_frame *in, const fovea_frame *state,
                        fovea_frame *out)
{
    fovea_context *ctx = st->ctx;
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(in->fmt);
    for (int pl = 0; pl < d->planes; pl++) {
        diff_cuda_filter_args a;
        memset(&a, 0, sizeof(a));
        a.mode = mode;
        a.wide = d->bytes_per_sample == 2;
        a.comps = pl == 0 ? d->components : d->planes == 2 ? 2 : 1; /* NV12: U,V pairs */
        a.w = (int)(fovea_plane_row_bytes(in->fmt, in->width, pl) /
                    (size_t)(d->bytes_per_sample * a.comps));
        a.h = fovea_plane_height(in->fmt, in->height, pl);
        a.src = in->data[pl];
        a.ss = in->stride[pl];
        if (state) {
            a.state = state->data[pl];
            a.ts = state->stride[pl];
        }
        a.dst = out->data[pl];
        a.ds = out->stride[pl];
        a.strength = st->set.temporal_strength;
        FOVEA_CUDA_TRY(ctx, fv_diff_cuda_filter(&a, fv_ctx_stream(ctx)));
    }
    return FOVEA_OK;
}

/* One temporal step with the device frame x; restart (or a state of another
 * shape) starts the state from the device frame first. */
static int temporal_step(diff_cuda *st, const fovea_frame *x, const fovea_frame *first)
{
    fovea_context *ctx = st->ctx;
    if (first) {
        for (int i = 0; i < 2; i++)
            FOVEA_TRY(fv_frame_ensure(ctx, &st->d_state[i], x, FOVEA_MEM_DEVICE));
        FOVEA_TRY(fovea_frame_copy(ctx, &st->d_state[0], first));
        st->tcur = 0;
    }
    FOVEA_TRY(filter_frame(st, FOVEA_DIFF_DENOISE_TEMPORAL, x, &st->d_state[st->tcur],
                           &st->d_state[st->tcur ^ 1]));
    st->tcur ^= 1;
    return FOVEA_OK;
}

/* hist[v + maxval] of the compared pair: counted on the device, read back. */
static int pair_hist(diff_cuda *st, const diff_call *c, int64_t *hist)
{
    fovea_context *ctx = st->ctx;
    cudaStream_t stream = fv_ctx_stream(ctx);
    const size_t bins = 2 * (size_t)c->maxval + 1;
    if (st->hist_cap < bins) {
        fv_device_free(ctx, st->d_hist);
        fv_pinned_free(ctx, st->h_hist);
        st->d_hist = NULL;
        st->h_hist = NULL;
        st->hist_cap = 0;
        FOVEA_TRY(fv_device_malloc(ctx, bins * sizeof(unsigned int), (void **)&st->d_hist));
        FOVEA_TRY(fv_pinned_malloc(ctx, bins * sizeof(unsigned int), (void **)&st->h_hist));
        st->hist_cap = bins;
    }
    FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(st->d_hist, 0, bins * sizeof(unsigned int), stream));
    diff_cuda_hist_args a;
    memset(&a, 0, sizeof(a));
    dc_pair_of(st->cmp[0], st->cmp[1], &a.in);
    a.maxval = c->maxval;
    a.hist = st->d_hist;
    FOVEA_CUDA_TRY(ctx, fv_diff_cuda_hist(&a, stream));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(st->h_hist, st->d_hist, bins * sizeof(unsigned int),
                                        cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    for (size_t i = 0; i < bins; i++)
        hist[i] = st->h_hist[i];
    return FOVEA_OK;
}

static int is_rgb8(fovea_pixfmt f)
{
    return f == FOVEA_PIX_RGB24 || f == FOVEA_PIX_RGBA;
}

/* Bands for the maps of c: pinned inputs, heat and black noise maps alone
 * into pinned or device frames, no filter, no histogram, a frame of 2 MiB
 * or more; else 0 (one upload, then the maps). */
static int bands_for(const diff_call *c)
{
    if (c->prev->mem != FOVEA_MEM_PINNED || c->cur->mem != FOVEA_MEM_PINNED ||
        c->denoise != FOVEA_DIFF_DENOISE_NONE || c->want_hist || c->mask || (!c->heat && !c->noise))
        return 0;
    if ((c->heat && c->heat->mem == FOVEA_MEM_HOST) ||
        (c->noise && c->noise->mem == FOVEA_MEM_HOST))
        return 0;
    const size_t bytes = fovea_frame_packed_size(c->cur->fmt, c->cur->width, c->cur->height);
    size_t n = bytes / BAND_BYTES;
    n = n > BANDS_MAX ? BANDS_MAX : n;
    /* bands of an even number of rows (4:2:0 chroma, I420 maps), 8 at least */
    while (n > 1 && (size_t)c->cur->height < 16 * n)
        n--;
    return n < 2 ? 0 : (int)n;
}

static int cuda_begin(void *priv, fovea_context *ctx, const diff_call *c, int64_t *hist)
{
    diff_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    st->fused = 0;
    st->raw[0] = st->raw[1] = NULL;
    st->bands = c->noise && st->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY ? 0 : bands_for(c);
    if (st->bands) { /* the maps upload the pair band by band */
        for (int i = 0; i < 2; i++) {
            FOVEA_TRY(fv_frame_ensure(ctx, &st->in[i].dev, c->cur, FOVEA_MEM_DEVICE));
            st->raw[i] = st->cmp[i] = &st->in[i].dev;
        }
        return FOVEA_OK;
    }
    const int temporal = c->denoise == FOVEA_DIFF_DENOISE_TEMPORAL;
    const int restart =
        temporal && (c->restart || !same_shape(&st->d_state[0], c->cur, FOVEA_MEM_DEVICE));
    /* device views of the pair; the events that guard the pinned copies of
     * pageable inputs are recorded after both uploads */
    if (!temporal || restart) /* a running temporal filter does not read prev */
        FOVEA_TRY(fv_stage_copy(ctx, &st->in[0], c->prev, &st->raw[0]));
    FOVEA_TRY(fv_stage_copy(ctx, &st->in[1], c->cur, &st->raw[1]));
    for (int i = 0; i < 2; i++)
        FOVEA_TRY(fv_stage_mark(ctx, &st->in[i]));
    st->cmp[0] = st->raw[0];
    st->cmp[1] = st->raw[1];
    if (temporal) {
        FOVEA_TRY(temporal_step(st, st->raw[1], restart ? st->raw[0] : NULL));
        st->cmp[0] = &st->d_state[st->tcur ^ 1];
        st->cmp[1] = &st->d_state[st->tcur];
    } else if (c->denoise != FOVEA_DIFF_DENOISE_NONE) {
        /* a heat map alone (RGB24/RGBA in and out) makes the medians in its pass */
        st->fused = c->denoise == FOVEA_DIFF_DENOISE_MEDIAN3 && c->heat && !c->noise && !c->mask &&
                    !c->want_hist && is_rgb8(c->cur->fmt) && is_rgb8(c->heat->fmt);
        if (!st->fused) {
            for (int i = 0; i < 2; i++) {
                FOVEA_TRY(fv_frame_ensure(ctx, &st->d_filt[i], c->cur, FOVEA_MEM_DEVICE));
                FOVEA_TRY(filter_frame(st, c->denoise, st->raw[i], NULL, &st->d_filt[i]));
            }
            st->cmp[0] = &st->d_filt[0];
            st->cmp[1] = &st->d_filt[1];
        }
    }
    if (c->want_hist)
        return pair_hist(st, c, hist);
    return FOVEA_OK;
}

/* Where a kernel writes output out: out itself on the device, else device
 * staging slot k. */
int dc_out_target(diff_cuda *st, int k, fovea_frame *out, fovea_frame **target)
{
    if (out->mem == FOVEA_MEM_DEVICE) {
        *target = out;
        return FOVEA_OK;
    }
    FOVEA_TRY(fv_frame_ensure(st->ctx, &st->out[k].dev, out, FOVEA_MEM_DEVICE));
    *target = &st->out[k].dev;
    return FOVEA_OK;
}

/* Queue the copy of device frame src into host output out (pinned: directly;
 * pageable: through pinned staging slot k, finished by dc_finish_host). */
static int read_back(diff_cuda *st, int k, fovea_frame *out, const fovea_frame *src)
{
    fovea_context *ctx = st->ctx;
    if (out == src)
        return FOVEA_OK;
    if (out->mem == FOVEA_MEM_PINNED)
        return fovea_frame_copy(ctx, out, src);
    FOVEA_TRY(fv_frame_ensure(ctx, &st->out[k].pin, out, FOVEA_MEM_PINNED));
    FOVEA_TRY(fovea_frame_copy(ctx, &st->out[k].pin, src));
    st->copy_back[k] = out;
    return FOVEA_OK;
}

/* The heat map's value-to-color table for top (on the device, from d_heat). */
static int ensure_vlut(diff_cuda *st, int top, const uint32_t **vlut)
{
    if (st->vlut_top != top) {
        st->vlut_top = 0;
        FOVEA_CUDA_TRY(st->ctx,
                       fv_diff_cuda_vlut(st->d_vlut, st->d_heat, top, fv_ctx_stream(st->ctx)));
        st->vlut_top = top;
    }
    *vlut = st->d_vlut;
    return FOVEA_OK;
}

static int out_code(fovea_pixfmt f)
{
    return f == FOVEA_PIX_RGBA   ? DIFF_CUDA_OUT_RGBA
           : f == FOVEA_PIX_I420 ? DIFF_CUDA_OUT_I420
                                 : DIFF_CUDA_OUT_RGB24;
}

void dc_set_out(diff_cuda_map_args *a, const fovea_frame *t)
{
    a->out_fmt = out_code(t->fmt);
    for (int i = 0; i < 3; i++) {
        a->out[i] = t->data[i];
        a->os[i] = t->stride[i];
    }
    a->out_words = (a->out_fmt == DIFF_CUDA_OUT_RGB24 && aligned(t->data[0], t->stride[0], 4)) ||
                   (a->out_fmt == DIFF_CUDA_OUT_RGBA && aligned(t->data[0], t->stride[0], 16));
    /* the warp kernel: 8-bit RGB24/RGBA pairs to RGB24/RGBA maps, rows on 16
     * bytes (an overlay writes bytes: its output may lie anywhere) */
    a->vec16 =
        (a->in.layout == DIFF_CUDA_PACKED && !a->in.wide && aligned(a->in.a[0], a->in.as[0], 16) &&
         aligned(a->in.b[0], a->in.bs[0], 16) && a->out_fmt != DIFF_CUDA_OUT_I420 &&
         (a->kind == DIFF_CUDA_OVERLAY || aligned(t->data[0], t->stride[0], 16)));
}

/* Make room for a mask of tiles tiles and blocks blocks. */
static int ensure_mask(diff_cuda *st, int tiles, int blocks)
{
    fovea_context *ctx = st->ctx;
    cudaStream_t stream = fv_ctx_stream(ctx);
    /* <= (16384 / 8)^2 tiles: the sizes fit */
    const size_t res_bytes =
        DIFF_CUDA_RES_WORDS * sizeof(unsigned long long) + (size_t)tiles * sizeof(int32_t);
    if (tiles > st->tiles_cap) {
        for (int i = 0; i < 2; i++) {
            fv_device_free(ctx, st->d_res[i]);
            st->d_res[i] = NULL;
        }
        fv_pinned_free(ctx, st->h_res);
        fv_device_free(ctx, st->d_flags);
        free(st->h_flags);
        st->h_res = NULL;
        st->d_flags = NULL;
        st->h_flags = NULL;
        st->tiles_cap = 0;
        for (int i = 0; i < 2; i++)
            FOVEA_TRY(fv_device_malloc(ctx, res_bytes, (void **)&st->d_res[i]));
        FOVEA_TRY(fv_pinned_malloc(ctx, res_bytes, (void **)&st->h_res));
        FOVEA_TRY(fv_device_malloc(ctx, (size_t)tiles, (void **)&st->d_flags));
        st->h_flags = malloc((size_t)tiles);
        if (!st->h_flags)
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate %d tiles", tiles);
        st->tiles_cap = tiles;
        st->mask_reset = 1;
    }
    if (blocks > st->look_cap) {
        fv_device_free(ctx, st->d_look);
        st->d_look = NULL;
        st->look_cap = 0;
        FOVEA_TRY(fv_device_malloc(ctx, (size_t)blocks * sizeof(unsigned long long),
                                   (void **)&st->d_look));
        FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(st->d_look, 0,
                                            (size_t)blocks * sizeof(unsigned long long), stream));
        st->look_cap = blocks;
    }
    if (++st->epoch == 0) { /* after 2^32 launches: no stale word may match */
        FOVEA_CUDA_TRY(ctx,
                       cudaMemsetAsync(st->d_look, 0,
                                       (size_t)st->look_cap * sizeof(unsigned long long), stream));
        st->epoch = 1;
    }
    if (st->mask_reset) {
        for (int i = 0; i < 2; i++)
            FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(st->d_res[i], 0,
                                                DIFF_CUDA_RES_WORDS * sizeof(unsigned long long),
                                                stream));
        FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(st->d_ticket, 0, sizeof(unsigned int), stream));
        st->mask_reset = 0;
    }
    return FOVEA_OK;
}

/* Queue the mask of the compared pair and the read-back of its counters with
 * the start of its list (finish_mask completes it). */
static int launch_mask(diff_cuda *st, const diff_call *c)
{
    fovea_context *ctx = st->ctx;
    cudaStream_t stream = fv_ctx_stream(ctx);
    const int t = st->set.tile, w = c->cur->width, h = c->cur->height;
    const int tx = (w + t - 1) / t, ty = (h + t - 1) / t;
    const int groups = (w + DIFF_CUDA_MASK_SPAN - 1) / DIFF_CUDA_MASK_SPAN;
    FOVEA_TRY(ensure_mask(st, tx * ty, groups * ty));
    diff_cuda_mask_args a;
    memset(&a, 0, sizeof(a));
    dc_pair_of(st->cmp[0], st->cmp[1], &a.in);
    a.reader = dc_reader_of(st->cmp[0], st->cmp[1]);
    a.threshold = c->threshold;
    a.tile = t;
    a.tiles_x = tx;
    a.tiles_y = ty;
    a.blocks = groups * ty;
    a.ticket = st->d_ticket;
    a.look = st->d_look;
    a.epoch = st->epoch;
    a.res = st->d_res[st->res_k];
    a.next = st->d_res[st->res_k ^ 1];
    a.flags = st->d_flags;
    const int status = FOVEA_CUDA(ctx, fv_diff_cuda_mask(&a, stream));
    if (status < 0) {
        st->mask_reset = 1; /* the ticket and the counters may be left over */
        return status;
    }
    const int inline_tiles = tx * ty < MASK_LIST_INLINE ? tx * ty : MASK_LIST_INLINE;
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(st->h_res, a.res,
                                        DIFF_CUDA_RES_WORDS * sizeof(unsigned long long) +
                                            (size_t)inline_tiles * sizeof(int32_t),
                                        cudaMemcpyDeviceToHost, stream));
    st->mask_k = st->res_k;
    st->res_k ^= 1;
    st->mask_pending = 1;
    st->mask_tiles = tx * ty;
    st->mask_out = c->mask;
    st->mask_threshold = c->threshold;
    memset(c->mask, 0, sizeof(*c->mask));
    c->mask->tile = t;
    c->mask->tiles_x = tx;
    c->mask->tiles_y = ty;
    return FOVEA_OK;
}

/* After the sync: the rest of the list when it is long, the flags from the
 * list, the counters. */
static int finish_mask(diff_cuda *st)
{
    fovea_context *ctx = st->ctx;
    st->mask_pending = 0;
    const unsigned long long *r = st->h_res;
    const int64_t n = (int64_t)r[DIFF_CUDA_RES_TILES];
    const int inline_tiles = st->mask_tiles < MASK_LIST_INLINE ? st->mask_tiles : MASK_LIST_INLINE;
    int32_t *list = (int32_t *)(void *)(st->h_res + DIFF_CUDA_RES_WORDS);
    if (n > st->mask_tiles)
        return fv_ctx_error(ctx, FOVEA_ERR_CUDA, "diff: mask kernel counted %lld of %d tiles",
                            (long long)n, st->mask_tiles);
    if (n > inline_tiles) {
        const int32_t *dlist =
            (const int32_t *)(const void *)(st->d_res[st->mask_k] + DIFF_CUDA_RES_WORDS);
        FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(list + inline_tiles, dlist + inline_tiles,
                                            (size_t)(n - inline_tiles) * sizeof(int32_t),
                                            cudaMemcpyDeviceToHost, fv_ctx_stream(ctx)));
        FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    }
    memset(st->h_flags, 0, (size_t)st->mask_tiles);
    for (int64_t i = 0; i < n; i++) {
        if (list[i] < 0 || list[i] >= st->mask_tiles)
            return fv_ctx_error(ctx, FOVEA_ERR_CUDA, "diff: mask list entry %d out of range",
                                (int)list[i]);
        st->h_flags[list[i]] = 1;
    }
    fovea_diff_mask_result *out = st->mask_out;
    out->changed = st->h_flags;
    out->list = list;
    out->changed_tiles = n;
    out->changed_pixels = (int64_t)r[DIFF_CUDA_RES_PIXELS];
    out->diff_sum = (int64_t)r[DIFF_CUDA_RES_SUM];
    out->diff_max = (int)r[DIFF_CUDA_RES_MAX];
    out->threshold = st->mask_threshold;
    return FOVEA_OK;
}

/* Wait for the stream when a host result is queued, then fill the pageable
 * outputs and the mask. */
int dc_finish_host(diff_cuda *st, int wait)
{
    fovea_context *ctx = st->ctx;
    if (wait || st->mask_pending)
        FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    for (int k = 0; k < OUT_SLOTS; k++)
        if (st->copy_back[k]) {
            fovea_frame *out = st->copy_back[k];
            st->copy_back[k] = NULL;
            FOVEA_TRY(fv_frame_copy_host(ctx, out, &st->out[k].pin)); /* on the threads */
        }
    if (st->mask_pending)
        FOVEA_TRY(finish_mask(st));
    return FOVEA_OK;
}

static int run_maps(diff_cuda *st, const diff_call *c)
{
    fovea_context *ctx = st->ctx;
    cudaStream_t stream = fv_ctx_stream(ctx);
    diff_cuda_map_args base;
    memset(&base, 0, sizeof(base));
    dc_pair_of(st->cmp[0], st->cmp[1], &base.in);
    base.reader = dc_reader_of(st->cmp[0], st->cmp[1]);
    base.measure_max = st->set.measure == FOVEA_DIFF_MAX;
    base.top = c->top;
    base.heat = st->d_heat;
    base.threshold = c->threshold;
    base.grid_cap = st->grid_cap;
    FOVEA_TRY(ensure_vlut(st, c->top, &base.vlut));
    if (st->bands)
        return dc_run_banded(st, c, &base);
    int wait = 0;
    if (c->heat) {
        fovea_frame *t;
        FOVEA_TRY(dc_out_target(st, OUT_HEAT, c->heat, &t));
        diff_cuda_map_args a = base;
        a.kind = DIFF_CUDA_HEAT;
        dc_set_out(&a, t);
        if (st->fused)
            FOVEA_CUDA_TRY(ctx, fv_diff_cuda_heat_median(&a, stream));
        else
            FOVEA_CUDA_TRY(ctx, fv_diff_cuda_map(&a, stream));
        FOVEA_TRY(read_back(st, OUT_HEAT, c->heat, t));
        wait |= c->heat->mem != FOVEA_MEM_DEVICE;
    }
    if (c->mask)
        FOVEA_TRY(launch_mask(st, c));
    if (c->noise) {
        const int overlay = st->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY;
        /* diff.c lets an overlay output share a plane with cur only as cur itself */
        const int in_place = c->noise->data[0] == c->cur->data[0];
        fovea_frame *t;
        if (overlay && in_place && c->cur->mem != FOVEA_MEM_DEVICE) {
            t = &st->in[1].dev; /* the device copy of cur: painted, then copied back whole */
        } else {
            FOVEA_TRY(dc_out_target(st, OUT_NOISE, c->noise, &t));
            if (overlay && !in_place)
                FOVEA_TRY(fovea_frame_copy(ctx, t, st->raw[1]));
        }
        diff_cuda_map_args a = base;
        a.kind = overlay ? DIFF_CUDA_OVERLAY : DIFF_CUDA_BLACK;
        dc_set_out(&a, t);
        FOVEA_CUDA_TRY(ctx, fv_diff_cuda_map(&a, stream));
        FOVEA_TRY(read_back(st, OUT_NOISE, c->noise, t));
        wait |= c->noise->mem != FOVEA_MEM_DEVICE;
    }
    if (c->async) /* the mask alone: cuda_collect finishes it */
        return FOVEA_OK;
    return dc_finish_host(st, wait);
}

static int cuda_maps(void *priv, fovea_context *ctx, const diff_call *c)
{
    diff_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    const int status = run_maps(st, c);
    if (status < 0) { /* nothing half done may be read back later */
        for (int k = 0; k < OUT_SLOTS; k++)
            st->copy_back[k] = NULL;
        st->mask_pending = 0;
    }
    return status;
}

static int run_denoise(diff_cuda *st, const diff_filter_job *job)
{
    fovea_context *ctx = st->ctx;
    const fovea_frame *in;
    FOVEA_TRY(fv_stage_upload(ctx, &st->in[1], job->in, &in));
    const fovea_frame *result;
    if (job->mode == FOVEA_DIFF_DENOISE_TEMPORAL) {
        const int restart = job->restart || !same_shape(&st->d_state[0], job->in, FOVEA_MEM_DEVICE);
        FOVEA_TRY(temporal_step(st, in, restart ? in : NULL));
        result = &st->d_state[st->tcur];
        if (job->out->mem == FOVEA_MEM_DEVICE)
            FOVEA_TRY(fovea_frame_copy(ctx, job->out, result));
    } else {
        fovea_frame *t;
        FOVEA_TRY(dc_out_target(st, OUT_DENOISE, job->out, &t));
        FOVEA_TRY(filter_frame(st, job->mode, in, NULL, t));
        result = t;
    }
    if (job->out->mem == FOVEA_MEM_DEVICE)
        return FOVEA_OK;
    FOVEA_TRY(read_back(st, OUT_DENOISE, job->out, result));
    return dc_finish_host(st, 1);
}

static int cuda_denoise(void *priv, fovea_context *ctx, const diff_filter_job *job)
{
    diff_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    const int status = run_denoise(st, job);
    if (status < 0)
        st->copy_back[OUT_DENOISE] = NULL;
    return status;
}

static int cuda_collect(void *priv, fovea_context *ctx)
{
    diff_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    const int status = dc_finish_host(st, 0);
    st->mask_pending = 0;
    return status;
}

const diff_backend diff_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE | BACKEND_ASYNC, cuda_init, cuda_close},
    cuda_begin,
    cuda_maps,
    cuda_denoise,
    cuda_collect,
};
