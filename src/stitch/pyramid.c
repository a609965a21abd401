/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending of 8-bit planes, the C reference: straightforward
 * separable loops over pyramid_math.h's integer arithmetic. Rows are split
 * across the context's threads; every value is a function of its inputs
 * alone, so the result does not depend on the thread count. */
#include <stdlib.h>
#include <string.h>

#include "stitch/pyramid.h"

void fv_pyr_geom_init(fv_pyr_geom *g, int w, int h, int levels)
{
    memset(g, 0, sizeof(*g));
    g->levels = levels;
    size_t off = 0;
    for (int k = 0; k <= levels; k++) {
        g->w[k] = k ? pyr_half(g->w[k - 1]) : w;
        g->h[k] = k ? pyr_half(g->h[k - 1]) : h;
        g->off[k] = off;
        off += (size_t)g->w[k] * (size_t)g->h[k];
    }
    g->total = off;
}

int fv_pyr_work_alloc(fv_pyr_work *wk, int w, int h, int levels)
{
    memset(wk, 0, sizeof(*wk));
    if (w < 1 || h < 1 || w > 16384 || h > 16384 || levels < 0 || levels > PYR_MAX_LEVELS)
        return FOVEA_ERR_INVALID_ARG;
    fv_pyr_geom_init(&wk->g, w, h, levels);
    const size_t t = wk->g.total, p = (size_t)w * (size_t)h;
    wk->gauss = malloc(t * sizeof(int16_t));
    wk->num = malloc(t * sizeof(int32_t));
    wk->den = malloc(t * sizeof(int32_t));
    wk->sum = malloc(t * sizeof(int32_t));
    wk->tmp = malloc(p * sizeof(int32_t));
    wk->expd = malloc(p * sizeof(int32_t));
    if (!wk->gauss || !wk->num || !wk->den || !wk->sum || !wk->tmp || !wk->expd) {
        fv_pyr_work_free(wk);
        return FOVEA_ERR_NOMEM;
    }
    return FOVEA_OK;
}

void fv_pyr_work_free(fv_pyr_work *wk)
{
    free(wk->gauss);
    free(wk->num);
    free(wk->den);
    free(wk->sum);
    free(wk->tmp);
    free(wk->expd);
    memset(wk, 0, sizeof(*wk));
}

/* One separable pass over rows: src (sw x sh, int16 or int32) to dst. */
typedef struct pass_job {
    const int16_t *s16;
    const int32_t *s32;
    int16_t *d16;
    int32_t *d32;
    int sw, sh, dw, dh;
} pass_job;

/* REDUCE, horizontal: tmp(y, x) = sum_t tap(t) src(y, 2x + t) */
static void reduce_h(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = begin; y < end; y++) {
        const int16_t *s = j->s16 + (size_t)y * (size_t)j->sw;
        int32_t *d = j->d32 + (size_t)y * (size_t)j->dw;
        for (int x = 0; x < j->dw; x++) {
            int32_t acc = 0;
            for (int t = -2; t <= 2; t++)
                acc += pyr_tap(t) * s[pyr_clamp(2 * x + t, j->sw)];
            d[x] = acc;
        }
    }
}

/* REDUCE, vertical: dst(y, x) = (sum_t tap(t) tmp(2y + t, x) + 128) >> 8 */
static void reduce_v(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = begin; y < end; y++) {
        const int32_t *r[5];
        for (int t = -2; t <= 2; t++)
            r[t + 2] = j->s32 + (size_t)pyr_clamp(2 * y + t, j->sh) * (size_t)j->dw;
        int16_t *d = j->d16 + (size_t)y * (size_t)j->dw;
        for (int x = 0; x < j->dw; x++) {
            int32_t acc = 0;
            for (int t = -2; t <= 2; t++)
                acc += pyr_tap(t) * r[t + 2][x];
            d[x] = (int16_t)((acc + 128) >> 8);
        }
    }
}

/* EXPAND, horizontal: tmp(y, x) = sum_k wt_k src(y, idx_k(x)) */
static void expand_h(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = begin; y < end; y++) {
        const int16_t *s = j->s16 + (size_t)y * (size_t)j->sw;
        int32_t *d = j->d32 + (size_t)y * (size_t)j->dw;
        for (int x = 0; x < j->dw; x++) {
            int idx[3], wt[3];
            pyr_expand_taps(x, j->sw, idx, wt);
            d[x] = wt[0] * s[idx[0]] + wt[1] * s[idx[1]] + wt[2] * s[idx[2]];
        }
    }
}

/* EXPAND, vertical: dst(y, x) = (sum_k wt_k tmp(idx_k(y), x) + 32) >> 6 */
static void expand_v(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = begin; y < end; y++) {
        int idx[3], wt[3];
        pyr_expand_taps(y, j->sh, idx, wt);
        const int32_t *r0 = j->s32 + (size_t)idx[0] * (size_t)j->dw;
        const int32_t *r1 = j->s32 + (size_t)idx[1] * (size_t)j->dw;
        const int32_t *r2 = j->s32 + (size_t)idx[2] * (size_t)j->dw;
        int32_t *d = j->d32 + (size_t)y * (size_t)j->dw;
        for (int x = 0; x < j->dw; x++)
            d[x] = (wt[0] * r0[x] + wt[1] * r1[x] + wt[2] * r2[x] + 32) >> 6;
    }
}

/* Level k + 1 of pyr from level k. */
static void reduce_level(fovea_context *ctx, fv_pyr_work *wk, int16_t *pyr, int k)
{
    const fv_pyr_geom *g = &wk->g;
    pass_job j = {pyr + g->off[k], NULL, NULL, wk->tmp, g->w[k], g->h[k], g->w[k + 1], g->h[k]};
    fv_parallel_for(ctx, g->h[k], 16, reduce_h, &j);
    pass_job v = {NULL,        wk->tmp, pyr + g->off[k + 1], NULL,
                  g->w[k + 1], g->h[k], g->w[k + 1],         g->h[k + 1]};
    fv_parallel_for(ctx, g->h[k + 1], 16, reduce_v, &v);
}

/* wk->expd = EXPAND of level k + 1 of pyr to level k's size. */
static void expand_level(fovea_context *ctx, fv_pyr_work *wk, const int16_t *pyr, int k)
{
    const fv_pyr_geom *g = &wk->g;
    pass_job j = {pyr + g->off[k + 1], NULL,        NULL,    wk->tmp,
                  g->w[k + 1],         g->h[k + 1], g->w[k], g->h[k + 1]};
    fv_parallel_for(ctx, g->h[k + 1], 16, expand_h, &j);
    pass_job v = {NULL, wk->tmp, NULL, wk->expd, g->w[k], g->h[k + 1], g->w[k], g->h[k]};
    fv_parallel_for(ctx, g->h[k], 16, expand_v, &v);
}

void fv_pyr_gauss(fovea_context *ctx, fv_pyr_work *wk, int16_t *pyr)
{
    for (int k = 0; k < wk->g.levels; k++)
        reduce_level(ctx, wk, pyr, k);
}

/* Accumulate one camera's Laplacian of level k (level k of gauss minus the
 * expanded level k + 1 in expd; the top level is its Gaussian level). */
typedef struct acc_job {
    fv_pyr_work *wk;
    const int16_t *mask;
    int k, first;
} acc_job;

static void accumulate_rows(void *arg, int begin, int end, int thread)
{
    const acc_job *a = arg;
    const fv_pyr_geom *g = &a->wk->g;
    const int top = a->k == g->levels;
    (void)thread;
    for (int y = begin; y < end; y++) {
        const size_t row = (size_t)y * (size_t)g->w[a->k];
        const size_t o = g->off[a->k] + row;
        for (int x = 0; x < g->w[a->k]; x++) {
            const int32_t lap = a->wk->gauss[o + x] - (top ? 0 : a->wk->expd[row + x]);
            const int32_t m = a->mask[o + x];
            if (a->first) {
                a->wk->num[o + x] = m * lap;
                a->wk->den[o + x] = m;
                a->wk->sum[o + x] = lap;
            } else {
                a->wk->num[o + x] += m * lap;
                a->wk->den[o + x] += m;
                a->wk->sum[o + x] += lap;
            }
        }
    }
}

/* Blended Laplacian of level k into num; collapse: level k of gauss =
 * clamp(blended + expd) (expd: the collapsed level k + 1 expanded; none at
 * the top). */
typedef struct collapse_job {
    fv_pyr_work *wk;
    int k, n;
} collapse_job;

static void collapse_rows(void *arg, int begin, int end, int thread)
{
    const collapse_job *a = arg;
    const fv_pyr_geom *g = &a->wk->g;
    const int top = a->k == g->levels;
    (void)thread;
    for (int y = begin; y < end; y++) {
        const size_t row = (size_t)y * (size_t)g->w[a->k];
        const size_t o = g->off[a->k] + row;
        for (int x = 0; x < g->w[a->k]; x++) {
            const int32_t den = a->wk->den[o + x];
            const int lap = den > 0 ? pyr_div_round(a->wk->num[o + x], den)
                                    : pyr_div_round(a->wk->sum[o + x], a->n);
            a->wk->gauss[o + x] = (int16_t)pyr_clamp_level(lap + (top ? 0 : a->wk->expd[row + x]));
        }
    }
}

typedef struct io_job {
    fv_pyr_work *wk;
    const uint8_t *src;
    ptrdiff_t stride;
    int step;
    const uint8_t *covered;
    ptrdiff_t cov_stride;
    uint8_t *dst;
} io_job;

static void load_rows(void *arg, int begin, int end, int thread)
{
    const io_job *a = arg;
    const int w = a->wk->g.w[0];
    (void)thread;
    for (int y = begin; y < end; y++) {
        const uint8_t *s = a->src + (ptrdiff_t)y * a->stride;
        int16_t *d = a->wk->gauss + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++)
            d[x] = (int16_t)(s[(ptrdiff_t)x * a->step] << PYR_FRAC);
    }
}

static void store_rows(void *arg, int begin, int end, int thread)
{
    const io_job *a = arg;
    const int w = a->wk->g.w[0];
    (void)thread;
    for (int y = begin; y < end; y++) {
        const int16_t *s = a->wk->gauss + (size_t)y * (size_t)w;
        const uint8_t *cov = a->covered + (ptrdiff_t)y * a->cov_stride;
        uint8_t *d = a->dst + (ptrdiff_t)y * a->stride;
        for (int x = 0; x < w; x++)
            if (cov[x])
                d[(ptrdiff_t)x * a->step] = (uint8_t)pyr_to_u8(s[x]);
    }
}

void fv_pyr_blend_plane(fovea_context *ctx, fv_pyr_work *wk, int n, const uint8_t *const *src,
                        ptrdiff_t stride, int step, const int16_t *const *masks,
                        const uint8_t *covered, ptrdiff_t cov_stride, uint8_t *dst,
                        ptrdiff_t dst_stride, int dst_step)
{
    const fv_pyr_geom *g = &wk->g;
    const int K = g->levels;
    for (int c = 0; c < n; c++) {
        io_job io = {wk, src[c], stride, step, NULL, 0, NULL};
        fv_parallel_for(ctx, g->h[0], 16, load_rows, &io);
        fv_pyr_gauss(ctx, wk, wk->gauss);
        for (int k = 0; k <= K; k++) {
            if (k < K)
                expand_level(ctx, wk, wk->gauss, k);
            acc_job a = {wk, masks[c], k, c == 0};
            fv_parallel_for(ctx, g->h[k], 16, accumulate_rows, &a);
        }
    }
    for (int k = K; k >= 0; k--) {
        if (k < K)
            expand_level(ctx, wk, wk->gauss, k);
        collapse_job cj = {wk, k, n};
        fv_parallel_for(ctx, g->h[k], 16, collapse_rows, &cj);
    }
    io_job out = {wk, NULL, dst_stride, dst_step, covered, cov_stride, dst};
    fv_parallel_for(ctx, g->h[0], 16, store_rows, &out);
}
