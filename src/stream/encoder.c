/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The delta stream encoder: each frame is compared with the reconstruction
 * (what every receiver shows), the tiles that differ beyond T are coded and
 * compressed with zstd in groups on the context's threads, and the
 * reconstruction takes exactly the samples sent (docs/stream.md). The
 * comparison, the coding and the reconstruction are the backend's
 * (stream_enc_backend: encoder_cpu.c, encoder_cuda.c); the carried list, the
 * groups, zstd and the message are made here for every backend. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "stream/stream_internal.h"

/* a group is closed once its tiles' coded bytes reach this */
#define GROUP_BYTES ((size_t)128 << 10)
/* zstd's shortest match in tile groups (docs/stream.md, Coding a tile) */
#define STREAM_MIN_MATCH 7

typedef struct enc_group {
    int64_t first, count;      /* ordinals in the sent list */
    size_t raw_off, raw_len;   /* coded tiles in raw[] */
    size_t comp_off, comp_cap; /* room in comp[] */
    size_t comp_len;           /* compressed size, or a zstd error code */
    int failed;
} enc_group;

struct fovea_stream_encoder {
    fovea_context *ctx;
    fovea_stream_encoder_settings set;
    fovea_video_info info;
    stream_geom g;
    const stream_enc_backend *backend;
    void *priv;
    fovea_diff *filter;
    fovea_frame filt;
    int have_recon;
    int64_t next_frame;
    int key_requested;
    uint8_t hello[FOVEA_STREAM_HEADER_SIZE + STREAM_HELLO_SIZE];

    int32_t *sent;   /* tiles carried, ascending */
    uint8_t *bitmap; /* tile map before compression: the tiles changed */
    enc_group *groups;
    int64_t groups_cap;
    uint8_t *raw, *comp, *msg;
    size_t raw_cap, comp_cap, msg_cap, msg_len;

    int threads;
    ZSTD_CCtx **cctx;

    /* the frame being encoded, for the workers */
    const fovea_frame *src;
    int keyframe;
    const uint8_t *coded; /* the backend's coded tiles, or NULL: code_tiles in the groups */
};

void fovea_stream_encoder_default_settings(fovea_stream_encoder_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->threshold = 0;
    s->keyframe_interval = 300;
    s->tile = 16;
    s->denoise = FOVEA_DIFF_DENOISE_NONE;
    s->zstd_level = 1; /* level 3: 0.1-0.5 % smaller, 10 % slower (docs/stream.md, Speed) */
}

static int grow(fovea_context *ctx, void **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return FOVEA_OK;
    size_t want = need + need / 4;
    void *p = realloc(*buf, want);
    if (!p)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: cannot allocate %zu bytes", want);
    *buf = p;
    *cap = want;
    return FOVEA_OK;
}

/* The backend of the context, and the denoising filter (the diff system's:
 * on a backend that reads device frames the filtered frame stays on the
 * device). */
static int open_backend(fovea_stream_encoder *e)
{
    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    int st = backend_pick(e->ctx, stream_enc_backends, stream_enc_backend_count,
                          fovea_context_backend(e->ctx), &b, msg, sizeof msg);
    if (st < 0)
        return fv_ctx_error(e->ctx, st, "stream: %s", msg);
    stream_enc_params p;
    p.g = &e->g;
    p.threshold = e->set.threshold;
    FOVEA_TRY(b->init(&e->priv, e->ctx, &p));
    e->backend = (const stream_enc_backend *)b; /* b is its info, the first member */
    if (e->set.denoise != FOVEA_DIFF_DENOISE_NONE) {
        fovea_diff_settings ds;
        fovea_diff_default_settings(&ds);
        ds.threshold = e->set.threshold;
        ds.tile = e->set.tile;
        ds.denoise = e->set.denoise;
        FOVEA_TRY(fovea_diff_open(&e->filter, e->ctx, &ds));
        const fovea_memtype mem =
            b->provides & BACKEND_READS_DEVICE ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST;
        FOVEA_TRY(
            fovea_frame_alloc(e->ctx, &e->filt, e->info.width, e->info.height, e->info.fmt, mem));
    }
    return FOVEA_OK;
}

static int alloc_buffers(fovea_stream_encoder *e)
{
    const stream_geom *g = &e->g;
    fovea_context *ctx = e->ctx;
    e->threads = fovea_context_threads(ctx);
    if (e->threads < 1)
        e->threads = 1;
    e->sent = malloc((size_t)g->tiles * sizeof(int32_t));
    e->bitmap = malloc(g->map_bytes);
    e->cctx = calloc((size_t)e->threads, sizeof(ZSTD_CCtx *));
    if (!e->sent || !e->bitmap || !e->cctx)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    for (int i = 0; i < e->threads; i++)
        if (!(e->cctx[i] = ZSTD_createCCtx()))
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: cannot create a zstd context");
    return FOVEA_OK;
}

int fovea_stream_encoder_open(fovea_stream_encoder **out, fovea_context *ctx,
                              const fovea_stream_encoder_settings *s, const fovea_video_info *info)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL encoder pointer");
    *out = NULL;
    if (!ctx || !info)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL context or video info");
    fovea_stream_encoder_settings set;
    if (s)
        set = *s;
    else
        fovea_stream_encoder_default_settings(&set);
    if (set.threshold < 0 || set.threshold > 65535)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: threshold %d outside 0..65535",
                            set.threshold);
    if (set.keyframe_interval < 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: keyframe interval %d < 0",
                            set.keyframe_interval);
    if (set.zstd_level < 1 || set.zstd_level > 19)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: zstd level %d outside 1..19",
                            set.zstd_level);
    if (set.denoise < FOVEA_DIFF_DENOISE_NONE || set.denoise > FOVEA_DIFF_DENOISE_TEMPORAL)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: unknown denoise mode %d",
                            (int)set.denoise);
    stream_geom g;
    char err[256];
    int st = stream_geom_init(&g, info->width, info->height, info->fmt, set.tile, err, sizeof err);
    if (st < 0)
        return fv_ctx_error(ctx, st, "stream: %s", err);
    /* every message length must fit the header's 32 bits */
    if (g.packed > ((size_t)1 << 31))
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED, "stream: frames of %zu bytes are too large",
                            g.packed);

    fovea_stream_encoder *e = calloc(1, sizeof(*e));
    if (!e)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    e->ctx = ctx;
    e->set = set;
    e->info = *info;
    e->info.frame_count = -1;
    e->g = g;
    st = open_backend(e);
    if (st >= 0)
        st = alloc_buffers(e);
    if (st < 0) {
        fovea_stream_encoder_close(&e);
        return st;
    }
    stream_hello h;
    h.info = e->info;
    h.tile = set.tile;
    h.threshold = set.threshold;
    h.keyframe_interval = set.keyframe_interval;
    h.denoise = (int)set.denoise;
    stream_hello_pack(&h, e->hello + FOVEA_STREAM_HEADER_SIZE);
    stream_seal(e->hello, FOVEA_STREAM_MSG_HELLO, STREAM_HELLO_SIZE);
    *out = e;
    return FOVEA_OK;
}

void fovea_stream_encoder_close(fovea_stream_encoder **pe)
{
    if (!pe || !*pe)
        return;
    fovea_stream_encoder *e = *pe;
    if (e->backend)
        e->backend->info.close(&e->priv);
    fovea_diff_close(&e->filter);
    fovea_frame_free(e->ctx, &e->filt);
    for (int i = 0; e->cctx && i < e->threads; i++)
        ZSTD_freeCCtx(e->cctx[i]);
    free(e->cctx);
    free(e->sent);
    free(e->bitmap);
    free(e->groups);
    free(e->raw);
    free(e->comp);
    free(e->msg);
    free(e);
    *pe = NULL;
}

int fovea_stream_encoder_hello(fovea_stream_encoder *e, const uint8_t **msg, size_t *size)
{
    if (!e || !msg || !size)
        return FOVEA_ERR_INVALID_ARG;
    *msg = e->hello;
    *size = sizeof(e->hello);
    return FOVEA_OK;
}

void fovea_stream_encoder_request_keyframe(fovea_stream_encoder *e)
{
    if (e)
        e->key_requested = 1;
}

const fovea_frame *fovea_stream_encoder_reconstruction(const fovea_stream_encoder *e)
{
    if (!e || !e->have_recon)
        return NULL;
    const fovea_frame *r = NULL;
    /* a device backend copies R to the host (its own buffer) here */
    return e->backend->reconstruction(e->priv, &r) == FOVEA_OK ? r : NULL;
}

int fovea_stream_encoder_end(fovea_stream_encoder *e, const uint8_t **msg, size_t *size)
{
    if (!e || !msg || !size)
        return FOVEA_ERR_INVALID_ARG;
    FOVEA_TRY(
        grow(e->ctx, (void **)&e->msg, &e->msg_cap, FOVEA_STREAM_HEADER_SIZE + STREAM_END_SIZE));
    put_u64(e->msg + FOVEA_STREAM_HEADER_SIZE, (uint64_t)e->next_frame);
    stream_seal(e->msg, FOVEA_STREAM_MSG_END, STREAM_END_SIZE);
    *msg = e->msg;
    *size = FOVEA_STREAM_HEADER_SIZE + STREAM_END_SIZE;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- frames */

static int check_frame(fovea_stream_encoder *e, const fovea_frame *f)
{
    if (!f || !f->data[0])
        return fv_ctx_error(e->ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL or empty frame");
    if (f->mem == FOVEA_MEM_DEVICE && !(e->backend->info.provides & BACKEND_READS_DEVICE))
        return fv_ctx_error(e->ctx, FOVEA_ERR_UNSUPPORTED,
                            "stream: the %s encoder reads host frames, not device memory "
                            "(open the fovea context with the CUDA backend)",
                            e->backend->info.name);
    if (f->mem == FOVEA_MEM_DEVICE && f->device != fovea_context_device(e->ctx))
        return fv_ctx_error(e->ctx, FOVEA_ERR_INVALID_ARG,
                            "stream: frame is on CUDA device %d, the context on %d", f->device,
                            fovea_context_device(e->ctx));
    if (f->width != e->info.width || f->height != e->info.height || f->fmt != e->info.fmt)
        return fv_ctx_error(e->ctx, FOVEA_ERR_MISMATCH,
                            "stream: frame is %dx%d %s but the stream is %dx%d %s", f->width,
                            f->height, fovea_pixfmt_name(f->fmt), e->info.width, e->info.height,
                            fovea_pixfmt_name(e->info.fmt));
    for (int p = 0; p < e->g.planes; p++)
        if (!f->data[p] || f->stride[p] < (ptrdiff_t)fovea_plane_row_bytes(f->fmt, f->width, p))
            return fv_ctx_error(e->ctx, FOVEA_ERR_INVALID_ARG,
                                "stream: frame plane %d missing or its stride too small", p);
    return FOVEA_OK;
}

/* Split the sent list into groups and place them in the coded bytes (*bytes
 * in all) and comp[]. */
static int plan_groups(fovea_stream_encoder *e, int64_t n, size_t *bytes)
{
    int64_t ng = 0;
    size_t raw = 0, comp = 0, acc = 0;
    for (int64_t i = 0; i < n; i++) {
        if (acc == 0) {
            if (ng == e->groups_cap) {
                const int64_t cap = e->groups_cap ? 2 * e->groups_cap : 64;
                enc_group *p = realloc(e->groups, (size_t)cap * sizeof(*p));
                if (!p)
                    return fv_ctx_error(e->ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
                e->groups = p;
                e->groups_cap = cap;
            }
            enc_group *gr = &e->groups[ng++];
            memset(gr, 0, sizeof(*gr));
            gr->first = i;
            gr->raw_off = raw;
        }
        enc_group *gr = &e->groups[ng - 1];
        const size_t tb = stream_tile_bytes(&e->g, e->sent[i]);
        gr->count++;
        gr->raw_len += tb;
        raw += tb;
        acc += tb;
        if (acc >= GROUP_BYTES || i == n - 1) {
            gr->comp_off = comp;
            gr->comp_cap = ZSTD_compressBound(gr->raw_len);
            comp += gr->comp_cap;
            acc = 0;
        }
    }
    FOVEA_TRY(grow(e->ctx, (void **)&e->comp, &e->comp_cap, comp));
    *bytes = raw;
    return (int)ng;
}

typedef struct enc_job {
    fovea_stream_encoder *e;
} enc_job;

/* Code (unless the backend did) and commit to the reconstruction, then
 * compress, the groups [begin, end). */
static void encode_groups(void *arg, int begin, int end, int thread)
{
    fovea_stream_encoder *e = ((enc_job *)arg)->e;
    for (int k = begin; k < end; k++) {
        enc_group *gr = &e->groups[k];
        const uint8_t *in;
        if (e->coded) {
            in = e->coded + gr->raw_off;
        } else { /* the backend codes (and commits) on these threads */
            e->backend->code_tiles(e->priv, e->src, e->keyframe, e->sent + gr->first, gr->count,
                                   e->raw + gr->raw_off, thread);
            in = e->raw + gr->raw_off;
        }
        /* the level, with matches of at least STREAM_MIN_MATCH bytes: the
         * short matches the level's defaults take in residual noise cost
         * more than coding those bytes as literals (docs/stream.md) */
        ZSTD_CCtx *cc = e->cctx[thread];
        size_t zr = ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
        if (!ZSTD_isError(zr))
            zr = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, e->set.zstd_level);
        if (!ZSTD_isError(zr))
            zr = ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, STREAM_MIN_MATCH);
        gr->comp_len = ZSTD_isError(zr) ? zr
                                        : ZSTD_compress2(cc, e->comp + gr->comp_off, gr->comp_cap,
                                                         in, gr->raw_len);
        gr->failed = ZSTD_isError(gr->comp_len) != 0;
    }
}

int fovea_stream_encoder_encode(fovea_stream_encoder *e, const fovea_frame *f,
                                uint64_t timestamp_us, const uint8_t **msg, size_t *size,
                                fovea_stream_frame_info *fi)
{
    if (!e)
        return FOVEA_ERR_INVALID_ARG;
    if (!msg || !size)
        return fv_ctx_error(e->ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL message pointer");
    const double t0 = stream_now();
    FOVEA_TRY(check_frame(e, f));
    const stream_geom *g = &e->g;
    const fovea_frame *src = f;
    if (e->filter) {
        FOVEA_TRY(fovea_diff_denoise(e->filter, f, &e->filt));
        src = &e->filt;
    }
    const int64_t fno = e->next_frame;
    const int key = !e->have_recon || e->key_requested ||
                    (e->set.keyframe_interval > 0 && fno % e->set.keyframe_interval == 0);
    /* the map a DELTA carries (a KEYFRAME's check map): the tiles changed */
    int64_t changed = 0;
    FOVEA_TRY(e->backend->changes(e->priv, src, e->have_recon, key, e->bitmap, &changed));
    if (!e->have_recon)
        changed = g->tiles;

    /* the tiles carried */
    int64_t n = 0;
    for (int64_t t = 0; t < g->tiles; t++)
        if (key || (e->bitmap[t >> 3] >> (t & 7) & 1))
            e->sent[n++] = (int32_t)t;
    const int with_map = key ? e->have_recon : n > 0;
    const size_t map_cap = with_map ? ZSTD_compressBound(g->map_bytes) : 0;
    size_t bytes = 0;
    const int ng = n > 0 ? plan_groups(e, n, &bytes) : 0;
    if (ng < 0)
        return ng;

    /* from here on a failure leaves the reconstruction ahead of the receivers:
     * the next frame is then a keyframe */
    e->key_requested = 1;
    e->coded = NULL;
    if (n > 0) {
        FOVEA_TRY(e->backend->code(e->priv, src, key, e->sent, n, bytes, &e->coded));
        if (!e->coded)
            FOVEA_TRY(grow(e->ctx, (void **)&e->raw, &e->raw_cap, bytes));
    }
    e->src = src;
    e->keyframe = key;
    enc_job job = {e};
    fv_parallel_for(e->ctx, ng, 1, encode_groups, &job);
    /* the reconstruction now holds every carried tile, whatever follows */
    e->have_recon = 1;
    e->next_frame++;
    size_t total = FOVEA_STREAM_HEADER_SIZE + STREAM_FRAME_HEADER_SIZE + map_cap;
    for (int k = 0; k < ng; k++) {
        if (e->groups[k].failed)
            return fv_ctx_error(e->ctx, FOVEA_ERR_INTERNAL, "stream: zstd: %s",
                                ZSTD_getErrorName(e->groups[k].comp_len));
        total += 8 + e->groups[k].comp_len;
    }
    FOVEA_TRY(grow(e->ctx, (void **)&e->msg, &e->msg_cap, total));
    uint8_t *h = e->msg + FOVEA_STREAM_HEADER_SIZE;
    size_t m = 0;
    if (with_map) {
        m = ZSTD_compressCCtx(e->cctx[0], h + STREAM_FRAME_HEADER_SIZE, map_cap, e->bitmap,
                              g->map_bytes, e->set.zstd_level);
        if (ZSTD_isError(m))
            return fv_ctx_error(e->ctx, FOVEA_ERR_INTERNAL, "stream: zstd: %s",
                                ZSTD_getErrorName(m));
    }
    e->key_requested = 0;
    put_u64(h, (uint64_t)fno);
    put_u64(h + 8, timestamp_us);
    /* a keyframe's base: the frame its check map was made against */
    put_u64(h + 16, key && !with_map ? STREAM_NO_BASE : (uint64_t)(fno - 1));
    put_u32(h + 24, (uint32_t)n);
    put_u32(h + 28, (uint32_t)ng);
    put_u32(h + 32, (uint32_t)m);
    uint8_t *w = h + STREAM_FRAME_HEADER_SIZE + m;
    for (int k = 0; k < ng; k++) {
        const enc_group *gr = &e->groups[k];
        put_u32(w, (uint32_t)gr->count);
        put_u32(w + 4, (uint32_t)gr->comp_len);
        memcpy(w + 8, e->comp + gr->comp_off, gr->comp_len);
        w += 8 + gr->comp_len;
    }
    const size_t payload = (size_t)(w - h);
    stream_seal(e->msg, key ? FOVEA_STREAM_MSG_KEYFRAME : FOVEA_STREAM_MSG_DELTA, payload);
    e->msg_len = FOVEA_STREAM_HEADER_SIZE + payload;
    *msg = e->msg;
    *size = e->msg_len;
    if (fi) {
        memset(fi, 0, sizeof(*fi));
        fi->frame = fno;
        fi->timestamp_us = timestamp_us;
        fi->keyframe = key;
        fi->tiles_sent = n;
        fi->tiles_changed = changed;
        fi->tiles_total = g->tiles;
        fi->bytes = e->msg_len;
        fi->raw_bytes = g->packed;
        fi->checked_error = -1;
        fi->seconds = stream_now() - t0;
    }
    return FOVEA_OK;
}
