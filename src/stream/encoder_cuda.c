/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA backend of the delta stream encoder (host side): the
 * reconstruction R lives on the device only. Per frame the source is
 * uploaded once (pageable frames through pinned staging, pinned ones
 * directly; device frames are read in place), the change flags against R,
 * the carried list with the offsets of the coded bytes (stream.cu's scan) and
 * the coding of those tiles, R taking their samples, all run on the
 * context's stream; only the tile map and the coded bytes of the carried
 * tiles come back (pinned). encoder.c then cuts the same groups and
 * compresses them as for the C backend: the messages are the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "core/stage.h"
#include "stream/stream_cuda.h"
#include "stream/stream_internal.h"

_Static_assert(STREAM_MODE_RAW == 0 && STREAM_MODE_TEMPORAL == 1 && STREAM_MODE_SPATIAL == 2 &&
                   STREAM_MODE_TEMPORAL_MED == 3,
               "stream.cu's mode numbers");

typedef struct enc_cuda {
    fovea_context *ctx;
    stream_geom g;
    int threshold;
    uint16_t cost[256];
    fovea_frame d_recon;        /* R */
    fv_stage src;               /* device copy of a host source; pinned staging of a pageable one */
    fovea_frame h_recon;        /* host copy of R, made on demand */
    const fovea_frame *view;    /* the device view of the source of the last changes call */
    const fovea_frame *view_of; /* that source */
    uint8_t *d_flags, *d_map, *h_map;
    int32_t *d_list;
    unsigned long long *d_off;
    uint8_t *d_raw, *h_raw; /* coded tiles: device, pinned */
    size_t raw_cap;
} enc_cuda;

static void cuda_close(void **priv)
{
    enc_cuda *c = priv ? *priv : NULL;
    if (!c)
        return;
    fovea_context *ctx = c->ctx;
    /* nothing queued may still use the buffers; errors here have no one to go to */
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    fovea_frame_free(ctx, &c->d_recon);
    fv_stage_close(ctx, &c->src);
    fovea_frame_free(ctx, &c->h_recon);
    fv_device_free(ctx, c->d_flags);
    fv_device_free(ctx, c->d_map);
    fv_pinned_free(ctx, c->h_map);
    fv_device_free(ctx, c->d_list);
    fv_device_free(ctx, c->d_off);
    fv_device_free(ctx, c->d_raw);
    fv_pinned_free(ctx, c->h_raw);
    free(c);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    const stream_enc_params *p = params;
    *priv = NULL;
    FOVEA_TRY(fv_device_activate(ctx));
    enc_cuda *c = calloc(1, sizeof(*c));
    if (!c)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    c->ctx = ctx;
    c->g = *p->g;
    c->threshold = p->threshold;
    stream_cost_table(c->cost);
    const stream_geom *g = &c->g;
    const size_t tiles = (size_t)g->tiles;
    int st = fovea_frame_alloc(ctx, &c->d_recon, g->width, g->height, g->fmt, FOVEA_MEM_DEVICE);
    if (st >= 0)
        st = fv_device_malloc(ctx, tiles, (void **)&c->d_flags);
    if (st >= 0)
        st = fv_device_malloc(ctx, g->map_bytes, (void **)&c->d_map);
    if (st >= 0)
        st = fv_pinned_malloc(ctx, g->map_bytes, (void **)&c->h_map);
    if (st >= 0)
        st = fv_device_malloc(ctx, tiles * sizeof(int32_t), (void **)&c->d_list);
    if (st >= 0)
        st = fv_device_malloc(ctx, tiles * sizeof(unsigned long long), (void **)&c->d_off);
    if (st < 0) {
        cuda_close((void **)&c);
        return st;
    }
    *priv = c;
    return FOVEA_OK;
}

/* The kernels' view of source s and R. */
static void geom_of(const enc_cuda *c, const fovea_frame *s, stream_cuda_geom *k)
{
    const stream_geom *g = &c->g;
    memset(k, 0, sizeof(*k));
    k->tile = g->tile;
    k->tiles_x = g->tiles_x;
    k->tiles_y = g->tiles_y;
    k->planes = g->planes;
    for (int p = 0; p < g->planes; p++) {
        stream_cuda_plane *kp = &k->pl[p];
        kp->pw = g->pl[p].pw;
        kp->ph = g->pl[p].ph;
        kp->sx = g->pl[p].sx;
        kp->sy = g->pl[p].sy;
        kp->cpp = g->pl[p].cpp;
        kp->bps = g->pl[p].bps;
        kp->src = s->data[p];
        kp->ss = s->stride[p];
        kp->rec = c->d_recon.data[p];
        kp->rs = c->d_recon.stride[p];
    }
}

/* A device view of source f: f itself on the device, else its copy (a
 * pageable frame through pinned staging, so the caller may reuse it on
 * return; a pinned one is read until the stream is synchronized, before the
 * encode call returns). The sources have the stream's size and format
 * (encoder.c checks), so the staging frames are made once. */
static int upload(enc_cuda *c, const fovea_frame *f)
{
    c->view = NULL;
    c->view_of = NULL;
    FOVEA_TRY(fv_stage_upload(c->ctx, &c->src, f, &c->view));
    c->view_of = f;
    return FOVEA_OK;
}

static int cuda_changes(void *priv, const fovea_frame *src, int have_recon, int key, uint8_t *map,
                        int64_t *changed)
{
    enc_cuda *c = priv;
    fovea_context *ctx = c->ctx;
    const stream_geom *g = &c->g;
    void *stream = fv_ctx_stream(ctx);
    FOVEA_TRY(fv_device_activate(ctx));
    FOVEA_TRY(upload(c, src));
    stream_cuda_geom k;
    geom_of(c, c->view, &k);
    if (have_recon)
        FOVEA_CUDA_TRY(ctx, fv_stream_cuda_flags(&k, c->threshold, c->d_flags, stream));
    /* the carried list and offsets, ready for code */
    FOVEA_CUDA_TRY(ctx,
                   fv_stream_cuda_scan(&k, have_recon ? c->d_flags : NULL, key,
                                       have_recon ? c->d_map : NULL, c->d_list, c->d_off, stream));
    *changed = 0;
    if (!have_recon) {
        memset(map, 0, g->map_bytes);
        return FOVEA_OK;
    }
    FOVEA_CUDA_TRY(
        ctx, cudaMemcpyAsync(c->h_map, c->d_map, g->map_bytes, cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    memcpy(map, c->h_map, g->map_bytes);
    int64_t n = 0;
    for (size_t i = 0; i < g->map_bytes; i++)
        n += __builtin_popcount(map[i]);
    *changed = n;
    return FOVEA_OK;
}

static int grow_raw(enc_cuda *c, size_t need)
{
    if (need <= c->raw_cap)
        return FOVEA_OK;
    fovea_context *ctx = c->ctx;
    size_t want = need + need / 4;
    /* at most every tile: the keyframe's size */
    size_t all = 0;
    for (int64_t t = 0; t < c->g.tiles; t++)
        all += stream_tile_bytes(&c->g, t);
    if (want > all)
        want = all > need ? all : need;
    fv_device_free(ctx, c->d_raw);
    fv_pinned_free(ctx, c->h_raw);
    c->d_raw = NULL;
    c->h_raw = NULL;
    c->raw_cap = 0;
    FOVEA_TRY(fv_device_malloc(ctx, want, (void **)&c->d_raw));
    FOVEA_TRY(fv_pinned_malloc(ctx, want, (void **)&c->h_raw));
    c->raw_cap = want;
    return FOVEA_OK;
}

static int cuda_code(void *priv, const fovea_frame *src, int key, const int32_t *sent, int64_t n,
                     size_t bytes, const uint8_t **raw)
{
    (void)sent; /* the device's list, made by the scan from the same flags */
    enc_cuda *c = priv;
    fovea_context *ctx = c->ctx;
    void *stream = fv_ctx_stream(ctx);
    *raw = NULL;
    FOVEA_TRY(fv_device_activate(ctx));
    if (src != c->view_of || !c->view)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "stream: code of a frame changes did not see");
    if (n > c->g.tiles || n > INT32_MAX)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "stream: %lld tiles to code", (long long)n);
    FOVEA_TRY(grow_raw(c, bytes));
    stream_cuda_code_args a;
    memset(&a, 0, sizeof(a));
    geom_of(c, c->view, &a.g);
    a.key = key;
    a.n = (int)n;
    a.list = c->d_list;
    a.off = c->d_off;
    a.out = c->d_raw;
    memcpy(a.cost, c->cost, sizeof(a.cost));
    FOVEA_CUDA_TRY(ctx, fv_stream_cuda_code(&a, stream));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(c->h_raw, c->d_raw, bytes, cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    c->view = NULL;
    c->view_of = NULL;
    *raw = c->h_raw;
    return FOVEA_OK;
}

static int cuda_reconstruction(void *priv, const fovea_frame **recon)
{
    enc_cuda *c = priv;
    fovea_context *ctx = c->ctx;
    const stream_geom *g = &c->g;
    *recon = NULL;
    FOVEA_TRY(fv_device_activate(ctx));
    if (!c->h_recon.data[0])
        FOVEA_TRY(fovea_frame_alloc(ctx, &c->h_recon, g->width, g->height, g->fmt, FOVEA_MEM_HOST));
    FOVEA_TRY(fovea_frame_copy(ctx, &c->h_recon, &c->d_recon));
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    *recon = &c->h_recon;
    return FOVEA_OK;
}

const stream_enc_backend stream_enc_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE, cuda_init, cuda_close},
    cuda_changes,
    cuda_code,
    NULL,
    cuda_reconstruction,
};
