/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C backend of the delta stream encoder: the change mask through the diff
 * system (fovea_diff_mask of the source against the reconstruction R, plus
 * alpha for packed RGBA), and the coding of carried tiles with
 * stream_code_block on the encoder's threads, R taking the samples sent.
 * Also the list of encoder backends. */
#include <stdlib.h>
#include <string.h>

#include "diff/changed.h"
#include "stream/stream_internal.h"

const backend_info *const stream_enc_backends[] = {&stream_enc_cpu.info,
                                                   BACKEND_CUDA_ENTRY(stream_enc_cuda)};
const size_t stream_enc_backend_count = sizeof stream_enc_backends / sizeof stream_enc_backends[0];

typedef struct enc_cpu {
    fovea_context *ctx;
    stream_geom g;
    int threshold;
    fovea_diff *mask;
    fovea_frame recon;
    uint8_t *flags; /* per tile: differs beyond T */
    int threads;
    uint16_t *scratch;  /* per thread: STREAM_SCRATCH_VALUES(max_block) */
    uint16_t cost[256]; /* the mode choice's cost of a coded byte */
} enc_cpu;

static void cpu_close(void **priv)
{
    enc_cpu *c = priv ? *priv : NULL;
    if (!c)
        return;
    fovea_diff_close(&c->mask);
    fovea_frame_free(c->ctx, &c->recon);
    free(c->flags);
    free(c->scratch);
    free(c);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const void *params)
{
    const stream_enc_params *p = params;
    *priv = NULL;
    enc_cpu *c = calloc(1, sizeof(*c));
    if (!c)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    c->ctx = ctx;
    c->g = *p->g;
    c->threshold = p->threshold;
    c->threads = fovea_context_threads(ctx);
    if (c->threads < 1)
        c->threads = 1;
    const stream_geom *g = &c->g;
    fovea_diff_settings ds;
    fovea_diff_default_settings(&ds);
    ds.threshold = p->threshold;
    ds.tile = g->tile;
    ds.denoise = FOVEA_DIFF_DENOISE_NONE;
    int st = fovea_diff_open(&c->mask, ctx, &ds);
    if (st >= 0) {
        c->flags = calloc((size_t)g->tiles, 1);
        c->scratch =
            malloc((size_t)c->threads * STREAM_SCRATCH_VALUES(g->max_block) * sizeof(uint16_t));
        if (!c->flags || !c->scratch)
            st = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    }
    if (st >= 0)
        st = fovea_frame_alloc(ctx, &c->recon, g->width, g->height, g->fmt, FOVEA_MEM_HOST);
    if (st < 0) {
        cpu_close((void **)&c);
        return st;
    }
    stream_cost_table(c->cost);
    *priv = c;
    return FOVEA_OK;
}

/* Tiles whose alpha differs beyond T (diff_changed, the rule of the diff mask,
 * which compares R, G, B only). */
static void flag_alpha(enc_cpu *c, const fovea_frame *src)
{
    const stream_geom *g = &c->g;
    for (int64_t t = 0; t < g->tiles; t++) {
        if (c->flags[t])
            continue;
        stream_view a, b;
        stream_view_of(g, src, 0, t, &a);
        stream_view_of(g, &c->recon, 0, t, &b);
        for (int y = 0; y < a.h && !c->flags[t]; y++) {
            const uint8_t *ra = a.p + (ptrdiff_t)y * a.stride, *rb = b.p + (ptrdiff_t)y * b.stride;
            for (int x = 0; x < a.w; x++) {
                int va, vb;
                if (a.bps == 1) {
                    va = ra[4 * x + 3];
                    vb = rb[4 * x + 3];
                } else {
                    va = ra[8 * x + 6] | (ra[8 * x + 7] << 8);
                    vb = rb[8 * x + 6] | (rb[8 * x + 7] << 8);
                }
                if (diff_changed(va, vb, c->threshold)) {
                    c->flags[t] = 1;
                    break;
                }
            }
        }
    }
}

static int cpu_changes(void *priv, const fovea_frame *src, int have_recon, int key, uint8_t *map,
                       int64_t *changed)
{
    (void)key;
    enc_cpu *c = priv;
    const stream_geom *g = &c->g;
    memset(map, 0, g->map_bytes);
    *changed = 0;
    if (!have_recon)
        return FOVEA_OK;
    fovea_diff_mask_result mr;
    FOVEA_TRY(fovea_diff_mask(c->mask, &c->recon, src, &mr));
    if (mr.tiles_x != g->tiles_x || mr.tiles_y != g->tiles_y)
        return fv_ctx_error(c->ctx, FOVEA_ERR_INTERNAL,
                            "stream: mask of %dx%d tiles, expected %dx%d", mr.tiles_x, mr.tiles_y,
                            g->tiles_x, g->tiles_y);
    memcpy(c->flags, mr.changed, (size_t)g->tiles);
    if (g->alpha)
        flag_alpha(c, src);
    int64_t n = 0;
    for (int64_t t = 0; t < g->tiles; t++)
        if (c->flags[t]) {
            map[t >> 3] |= (uint8_t)(1u << (t & 7));
            n++;
        }
    *changed = n;
    return FOVEA_OK;
}

static int cpu_code(void *priv, const fovea_frame *src, int key, const int32_t *sent, int64_t n,
                    size_t bytes, const uint8_t **raw)
{
    (void)priv, (void)src, (void)key, (void)sent, (void)n, (void)bytes;
    *raw = NULL; /* coded in the groups, on the encoder's threads */
    return FOVEA_OK;
}

static void cpu_code_tiles(void *priv, const fovea_frame *src, int key, const int32_t *sent,
                           int64_t n, uint8_t *out, int thread)
{
    enc_cpu *c = priv;
    const stream_geom *g = &c->g;
    uint16_t *scratch = c->scratch + (size_t)thread * STREAM_SCRATCH_VALUES(g->max_block);
    for (int64_t i = 0; i < n; i++) {
        const int64_t t = sent[i];
        for (int p = 0; p < g->planes; p++) {
            stream_view sv, rv;
            stream_view_of(g, src, p, t, &sv);
            stream_view_of(g, &c->recon, p, t, &rv);
            out += stream_code_block(&sv, key ? NULL : &rv, out, scratch, c->cost);
            stream_copy_rows(rv.p, rv.stride, sv.p, sv.stride,
                             (size_t)sv.w * (size_t)sv.cpp * (size_t)sv.bps, sv.h);
        }
    }
}

static int cpu_reconstruction(void *priv, const fovea_frame **recon)
{
    *recon = &((enc_cpu *)priv)->recon;
    return FOVEA_OK;
}

const stream_enc_backend stream_enc_cpu = {
    {"cpu", FOVEA_BACKEND_CPU, 0, cpu_init, cpu_close},
    cpu_changes,
    cpu_code,
    cpu_code_tiles,
    cpu_reconstruction,
};
